//! Ready for the MCP registries: `server.json` (the official MCP registry's
//! entry) and the MCP Bundles (`.mcpb`) it points at, which the release
//! workflow packs for every platform.
//!
//! - `server.json` follows the registry's rules (name, lengths, version,
//!   one bundle per platform and transport, the bundles' release URLs) and
//!   the workflow fills in the bundles' hashes and publishes it;
//! - a bundle packed as the workflow packs it (`packaging/mcpb/bundle.mjs`,
//!   then the real `mcpb`) unpacks and serves the agent as its manifest
//!   says, through the MCP Inspector; its hash goes into `server.json`;
//! - the HTTP mode, started exactly as `server.json` describes it (its
//!   arguments, environment, URL and header), answers the Inspector.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};
use weft_e2e::{
    HttpFace, Sandbox, TempVault, mcp_inspector, mcpb, repo_file, run_of, weft_bin, workflow,
};

const REPO: &str = "weft-notes/weft";

const VAULT: &str = r#"
//- /Hub.md
# Hub
The centre, linking [[Spoke]].
//- /Spoke.md
# Spoke
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn server_json() -> Value {
    serde_json::from_str(&repo_file("server.json")).expect("server.json is JSON")
}

fn version() -> String {
    let cargo: toml::Value = toml::from_str(&repo_file("Cargo.toml")).expect("Cargo.toml");
    cargo["workspace"]["package"]["version"]
        .as_str()
        .expect("the workspace version")
        .to_string()
}

fn release_workflow() -> serde_norway::Value {
    workflow(".github/workflows/release.yml")
}

/// The platforms the release builds (`x86_64-linux`, …).
fn platforms() -> Vec<String> {
    release_workflow()["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_sequence()
        .expect("the build matrix")
        .iter()
        .map(|b| b["platform"].as_str().expect("a platform").to_string())
        .collect()
}

/// The platform this test runs on, as the release names it.
fn this_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "macos",
        "windows" => "windows",
        _ => "linux",
    };
    format!("{}-{os}", std::env::consts::ARCH)
}

fn bundle_url(version: &str, platform: &str) -> String {
    format!("https://github.com/{REPO}/releases/download/v{version}/weft-{version}-{platform}.mcpb")
}

/// The script of the step named `name` in `job` of the release workflow.
fn step(job: &str, name: &str) -> String {
    run_of(&release_workflow()["jobs"][job], name)
}

/// Every `{NAME}` in a template.
fn placeholders(template: &str) -> Vec<String> {
    template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
}

/// `template` with each `{NAME}` replaced by its value in `values`.
fn fill(template: &str, values: &[(String, String)]) -> String {
    let mut out = template.to_string();
    for name in placeholders(template) {
        let value = values
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{template}: nothing gives {{{name}}}"));
        out = out.replace(&format!("{{{name}}}"), &value.1);
    }
    out
}

#[test]
fn server_json_follows_the_registry_rules_and_names_every_release_bundle() {
    let server = server_json();
    let version = version();
    let name = server["name"].as_str().expect("a name");
    // The registry's pattern, in the GitHub namespace of the repository.
    let (namespace, short) = name.split_once('/').expect("NAMESPACE/NAME");
    assert!(
        !namespace.is_empty()
            && namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-".contains(c))
            && !short.is_empty()
            && short
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
        "{name}"
    );
    assert_eq!(
        namespace,
        format!("io.github.{}", REPO.split('/').next().unwrap())
    );
    let description = server["description"].as_str().expect("a description");
    assert!(
        (1..=100).contains(&description.chars().count()),
        "{description}"
    );
    let title = server["title"].as_str().expect("a title");
    assert!((1..=100).contains(&title.chars().count()), "{title}");
    assert_eq!(server["version"].as_str(), Some(version.as_str()));
    assert!(
        server["$schema"]
            .as_str()
            .is_some_and(|s| s.starts_with("https://static.modelcontextprotocol.io/schemas/")),
        "{}",
        server["$schema"]
    );
    let extension: toml::Value =
        toml::from_str(&repo_file("extension.toml")).expect("extension.toml");
    assert_eq!(
        server["repository"]["url"].as_str(),
        extension["repository"].as_str()
    );
    assert_eq!(server["repository"]["source"], "github");

    // Each platform's bundle once over stdio and once over HTTP; nothing
    // else. The hashes are not committed: the release fills them in.
    let mut seen = BTreeSet::new();
    for package in server["packages"].as_array().expect("packages") {
        assert_eq!(package["registryType"], "mcpb", "{package}");
        assert!(package.get("fileSha256").is_none(), "{package}");
        let identifier = package["identifier"].as_str().expect("an identifier");
        assert!(
            identifier.contains("mcp"),
            "the registry requires it: {identifier}"
        );
        let platform = platforms()
            .into_iter()
            .find(|p| identifier == bundle_url(&version, p))
            .unwrap_or_else(|| panic!("{identifier} is no bundle the release makes"));
        let transport = &package["transport"];
        let kind = transport["type"].as_str().expect("a transport type");
        assert!(
            seen.insert((platform, kind.to_string())),
            "twice: {package}"
        );
        if kind == "streamable-http" {
            // What the URL and header name comes from the package's
            // environment, which `weft mcp --http` reads.
            let variables: Vec<&str> = package["environmentVariables"]
                .as_array()
                .expect("environment variables")
                .iter()
                .map(|v| v["name"].as_str().expect("a name"))
                .collect();
            let url = transport["url"].as_str().expect("a URL");
            let mut templates = vec![url.to_string()];
            for header in transport["headers"].as_array().expect("headers") {
                templates.push(header["value"].as_str().expect("a value").to_string());
            }
            for name in templates.iter().flat_map(|t| placeholders(t)) {
                assert!(variables.contains(&name.as_str()), "{{{name}}}: {package}");
            }
        }
    }
    let expected: BTreeSet<(String, String)> = platforms()
        .into_iter()
        .flat_map(|p| ["stdio", "streamable-http"].map(|kind| (p.clone(), kind.to_string())))
        .collect();
    assert_eq!(seen, expected);

    // The workflow packs the bundles the way the test below does, with the
    // mcpb the test command installs, then fills in and publishes.
    let bundle = step("build", "Bundle for MCP clients (MCPB)");
    assert!(
        bundle.contains("node packaging/mcpb/bundle.mjs")
            && bundle.contains(r#"BUNDLE="weft-${VERSION}-${{ matrix.platform }}.mcpb""#),
        "{bundle}"
    );
    let pinned = repo_file("scripts/test.sh")
        .split_whitespace()
        .find(|w| w.starts_with("@anthropic-ai/mcpb@"))
        .map(|w| w.trim_matches('"').to_string())
        .expect("scripts/test.sh installs mcpb");
    assert!(
        bundle.contains(&format!("npx --yes {pinned} pack")),
        "{bundle}"
    );
    assert!(
        step("publish", "Checksums beside the assets").contains("sha256sum weft-*"),
        "the bundles' hashes are in SHA256SUMS"
    );
    let fill = step("registry", "The bundles' hashes into server.json");
    assert!(
        fill.contains("--pattern SHA256SUMS")
            && fill.contains("node packaging/fill-server-json.mjs SHA256SUMS server.json"),
        "{fill}"
    );
    assert!(step("registry", "Publish to the MCP registry").contains("mcp-publisher publish"));
    let check = step("build", "The tag is the version every manifest says");
    assert!(
        check.contains("server.json") && check.contains("packaging/mcpb/manifest.json"),
        "{check}"
    );
    let manifest: Value =
        serde_json::from_str(&repo_file("packaging/mcpb/manifest.json")).expect("the manifest");
    assert_eq!(manifest["version"].as_str(), Some(version.as_str()));
}

/// `weft` without its debug information when `strip` is at hand (the
/// bundle is packed in a few seconds, not a minute); the same program.
fn lean_weft(dir: &Path) -> PathBuf {
    let lean = dir.join("weft");
    let stripped = Command::new("strip")
        .arg("--strip-debug")
        .arg("-o")
        .arg(&lean)
        .arg(weft_bin())
        .status()
        .is_ok_and(|s| s.success());
    if !stripped {
        std::fs::copy(weft_bin(), &lean).expect("copy weft");
    }
    lean
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// `mcpb COMMAND PATHS…`, run in `dir`.
fn mcpb_in(dir: &Path, command: &str, paths: &[&Path]) -> String {
    run(
        Command::new(mcpb())
            .arg(command)
            .args(paths)
            .current_dir(dir),
        &format!("mcpb {command}"),
    )
}

fn tool_names(listed: &str) -> Vec<String> {
    let listed: Value =
        serde_json::from_str(listed.trim()).unwrap_or_else(|e| panic!("{e}: {listed}"));
    listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("a name").to_string())
        .collect()
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read the bundle");
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_bundle_packed_as_the_release_packs_it_serves_as_its_manifest_says() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let work = sandbox.tempdir();
    let platform = this_platform();
    let version = version();

    // Laid out and packed as the workflow does.
    let layout = work.path().join("layout");
    run(
        Command::new("node")
            .arg(root().join("packaging/mcpb/bundle.mjs"))
            .arg(lean_weft(work.path()))
            .arg(&platform)
            .arg(&layout),
        "bundle.mjs",
    );
    mcpb_in(work.path(), "validate", &[&layout.join("manifest.json")]);
    let file = work.path().join(format!("weft-{version}-{platform}.mcpb"));
    mcpb_in(work.path(), "pack", &[&layout, &file]);

    // Installed as an MCPB client installs it: unpacked, then started as
    // its manifest says, `${__dirname}` being the bundle's folder and
    // `${user_config.vault}` the folder the user chose.
    let installed = work.path().join("installed");
    mcpb_in(work.path(), "unpack", &[&file, &installed]);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(installed.join("manifest.json")).expect("the manifest"),
    )
    .expect("JSON");
    assert_eq!(manifest["version"].as_str(), Some(version.as_str()));
    assert_eq!(manifest["server"]["type"], "binary");
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    assert_eq!(
        manifest["compatibility"]["platforms"],
        serde_json::json!([os])
    );
    let entry = installed.join(
        manifest["server"]["entry_point"]
            .as_str()
            .expect("an entry point"),
    );
    assert!(entry.is_file(), "{}", entry.display());
    let config = &manifest["server"]["mcp_config"];
    let substitute = |s: &str| {
        let s = s
            .replace("${__dirname}", installed.to_str().unwrap())
            .replace("${user_config.vault}", vault.path().to_str().unwrap());
        assert!(!s.contains("${"), "a variable no MCPB client gives: {s}");
        s
    };
    let command = PathBuf::from(substitute(config["command"].as_str().expect("a command")));
    assert_eq!(command, entry);
    let args: Vec<String> = config["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| substitute(a.as_str().expect("an argument")))
        .collect();
    let listed = run(
        sandbox
            .command(mcp_inspector())
            .arg("--cli")
            .arg(&command)
            .args(&args)
            .args(["--method", "tools/list"]),
        "the Inspector on the bundle",
    );
    let tools = tool_names(&listed);
    for tool in ["read_note", "search_notes", "get_links"] {
        assert!(tools.iter().any(|t| t == tool), "{tool}: {tools:?}");
    }
    let read = run(
        sandbox
            .command(mcp_inspector())
            .arg("--cli")
            .arg(&command)
            .args(&args)
            .args(["--method", "tools/call", "--tool-name", "read_note"])
            .args(["--tool-arg", "path=Hub.md"]),
        "read_note through the bundle",
    );
    assert!(read.contains("The centre, linking [[Spoke]]."), "{read}");

    // The release's SHA256SUMS fills the hashes into server.json: this
    // bundle's real one, and one line for each other platform's bundle.
    let mut sums = String::new();
    for other in platforms() {
        let name = format!("weft-{version}-{other}.mcpb");
        let hash = if other == platform {
            sha256(&file)
        } else {
            format!("{:x}", Sha256::digest(name.as_bytes()))
        };
        sums.push_str(&format!("{hash}  {name}\n"));
    }
    let sums_file = work.path().join("SHA256SUMS");
    let target = work.path().join("server.json");
    std::fs::copy(root().join("server.json"), &target).expect("copy server.json");

    // A SHA256SUMS without one bundle: refused, server.json unchanged.
    let partial: String = sums.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&sums_file, partial).unwrap();
    let refused = Command::new("node")
        .arg(root().join("packaging/fill-server-json.mjs"))
        .arg(&sums_file)
        .arg(&target)
        .output()
        .expect("node");
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("server.json is unchanged"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        repo_file("server.json")
    );

    std::fs::write(&sums_file, &sums).unwrap();
    run(
        Command::new("node")
            .arg(root().join("packaging/fill-server-json.mjs"))
            .arg(&sums_file)
            .arg(&target),
        "fill-server-json.mjs",
    );
    let filled: Value =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).expect("JSON");
    let ours = bundle_url(&version, &platform);
    let packages = filled["packages"].as_array().expect("packages");
    assert_eq!(
        packages.len(),
        server_json()["packages"].as_array().unwrap().len()
    );
    for package in packages {
        let hash = package["fileSha256"]
            .as_str()
            .expect("a hash for every bundle");
        assert!(
            hash.len() == 64 && hash.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')),
            "the registry's pattern: {hash}"
        );
        if package["identifier"].as_str() == Some(ours.as_str()) {
            assert_eq!(hash, sha256(&file));
        }
    }
    sandbox.stop_daemons();
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn the_http_mode_as_server_json_describes_it_answers_the_inspector() {
    let sandbox = Sandbox::new();
    let vault: TempVault = sandbox.vault(VAULT);
    let server = server_json();
    let ours = bundle_url(&version(), &this_platform());
    let package = server["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["identifier"] == ours.as_str() && p["transport"]["type"] == "streamable-http")
        .expect("this platform's HTTP package");

    // The values a registry client asks its user for.
    let token: String = (0..32).map(|_| fastrand::alphanumeric()).collect();
    let mut values = Vec::new();
    for variable in package["environmentVariables"]
        .as_array()
        .expect("environment")
    {
        let name = variable["name"].as_str().expect("a name");
        let value = match name {
            "WEFT_HTTP_PORT" => free_port().to_string(),
            "WEFT_HTTP_TOKEN" => token.clone(),
            other => panic!("a variable this test cannot give: {other}"),
        };
        values.push((name.to_string(), value));
    }
    let mut args = Vec::new();
    for argument in package["packageArguments"].as_array().expect("arguments") {
        match argument["type"].as_str() {
            Some("positional") => {
                args.push(argument["value"].as_str().expect("a value").to_string())
            }
            Some("named") => {
                let name = argument["name"].as_str().expect("a flag");
                assert_eq!(name, "--vault", "a flag this test cannot give: {argument}");
                assert_eq!(argument["format"], "filepath");
                args.push(name.to_string());
                args.push(vault.path().to_str().unwrap().to_string());
            }
            other => panic!("{other:?}: {argument}"),
        }
    }
    let url = fill(
        package["transport"]["url"].as_str().expect("a URL"),
        &values,
    );
    let headers: Vec<String> = package["transport"]["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .map(|h| {
            let value = fill(h["value"].as_str().expect("a value"), &values);
            format!("{}: {value}", h["name"].as_str().expect("a name"))
        })
        .collect();

    let mut command = sandbox.weft();
    command.args(&args).envs(values.iter().map(|(n, v)| (n, v)));
    let face = HttpFace::spawn(command);
    assert_eq!(face.url, url, "server.json's URL is where it serves");
    assert_eq!(face.token, token);

    let mut inspector = sandbox.command(mcp_inspector());
    inspector.args([
        "--cli",
        &url,
        "--transport",
        "http",
        "--method",
        "tools/list",
    ]);
    for header in &headers {
        inspector.args(["--header", header]);
    }
    let tools = tool_names(&run(&mut inspector, "the Inspector over HTTP"));
    assert!(tools.iter().any(|t| t == "read_note"), "{tools:?}");

    let output = face.stop();
    assert!(output.status.success(), "{output:?}");
    sandbox.stop_daemons();
}
