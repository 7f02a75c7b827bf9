//! The Zed extension as Zed runs it: the wasm built by
//! `cargo build --target wasm32-wasip2`, loaded by a wasmtime host
//! (tests/host/) that calls the exports Zed calls, with the real `weft`
//! binary behind `which`, the settings and the fake GitHub release.
//! Each test asserts what Zed would receive.

#[path = "../host/mod.rs"]
mod host;

use std::path::{Path, PathBuf};

use host::{
    Capability, ExtensionHost, FakeProject, FakeRelease, FakeWorktree, ResolvedCommand, Status,
    ZedSetup,
};
use serde_json::{Value, json};
use weft_e2e::{Sandbox, TempVault, weft_bin};

const REPO: &str = "weft-notes/weft";

const VAULT: &str = r#"
//- /Welcome.md
# Welcome
See [[Plan]] and [[Ideas]].
//- /projects/Plan.md
---
aliases: [Roadmap]
---
# Plan
Back to [[Welcome]]. Coffee: [[Café]].
//- /Ideas.md
# Ideas
[[Plan#Goals]] and [[Missing note]].
//- /Café.md
# Café
Links to [[Welcome]] and [[projects/Plan]].
"#;

/// The release asset for this machine, spelled out as the release workflow
/// must name it (the contract documented in extension/src/release.rs).
fn native_asset(version: &str) -> String {
    let arch = match std::env::consts::ARCH {
        "aarch64" => "aarch64",
        _ => "x86_64",
    };
    let os = match std::env::consts::OS {
        "macos" => "macos",
        _ => "linux",
    };
    format!("weft-{version}-{arch}-{os}.tar.gz")
}

/// Release `v{version}` with the real `weft` for this machine, an asset
/// for another platform that must not be picked, and `SHA256SUMS`.
fn weft_release(version: &str) -> FakeRelease {
    FakeRelease::new(REPO, &format!("v{version}"))
        .with_asset(
            &format!("weft-{version}-x86_64-windows.zip"),
            std::sync::Arc::new(b"not this one".to_vec()),
        )
        .with_asset(&native_asset(version), host::github::weft_tar_gz())
        .with_sums()
}

/// The URL of `asset` in release `v{version}`.
fn asset_url(version: &str, asset: &str) -> String {
    format!("https://github.com/{REPO}/releases/download/v{version}/{asset}")
}

/// A folder holding `weft` (a link to the built binary), to put on `PATH`.
fn bin_dir_with_weft(sandbox: &Sandbox) -> tempfile::TempDir {
    let dir = sandbox.tempdir();
    std::os::unix::fs::symlink(weft_bin(), dir.path().join("weft")).expect("link weft");
    dir
}

/// A binary the way an earlier session left it in the work directory.
fn install_fake_version(work_dir: &Path, version: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = work_dir.join(format!("weft-{version}"));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let binary = dir.join("weft");
    std::fs::write(&binary, "#!/bin/sh\n").expect("write binary");
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    binary
}

/// Zed started in the sandbox: the processes the extension runs (the
/// slash commands' `weft`) get the sandbox's environment as Zed's own.
fn start(sandbox: &Sandbox, work_dir: &Path, setup: ZedSetup) -> ExtensionHost {
    let setup = ZedSetup {
        process_env: Some(sandbox.env()),
        ..setup
    };
    ExtensionHost::start(work_dir, setup)
}

fn with_settings(settings: Value) -> ZedSetup {
    ZedSetup {
        settings,
        ..ZedSetup::default()
    }
}

fn project() -> FakeProject {
    FakeProject {
        worktree_ids: vec![1],
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| item.to_string()).collect()
}

/// `weft ARGS` run directly, as a terminal user would: what the slash
/// command must return (stdout), or the error it must report.
fn cli(sandbox: &Sandbox, args: &[String]) -> Result<String, String> {
    let output = sandbox.weft().args(args).output().expect("run weft");
    if output.status.success() {
        Ok(String::from_utf8(output.stdout).expect("UTF-8 stdout"))
    } else {
        assert_eq!(output.status.code(), Some(2), "weft's error exit status");
        Err(String::from_utf8(output.stderr).expect("UTF-8 stderr"))
    }
}

/// The sidecar's error as the extension must pass it on: `Weft: ` and the
/// message, without the `weft: ` prefix or clap's usage text.
fn as_extension_error(stderr: &str) -> String {
    let message = stderr.trim();
    let message = message.strip_prefix("weft: ").unwrap_or(message);
    let message = message.split("\n\nUsage:").next().unwrap_or(message).trim();
    format!("Weft: {message}")
}

fn assert_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = path.metadata().expect("binary exists").permissions().mode();
    assert!(mode & 0o111 != 0, "{} is not executable", path.display());
}

#[test]
fn the_wasm_declares_api_0_7_0_and_the_manifest_everything_zed_reads() {
    assert_eq!(
        host::api_version(host::wasm_bytes()),
        Some(host::API_VERSION)
    );

    let manifest = host::manifest();
    assert_eq!(manifest.id, "weft");
    assert_eq!(manifest.name, "Weft");
    assert_eq!(manifest.schema_version, 1);
    assert!(!manifest.version.is_empty());
    assert!(
        manifest
            .description
            .as_deref()
            .is_some_and(|d| !d.is_empty())
    );
    assert_eq!(
        manifest.repository.as_deref(),
        Some("https://github.com/weft-notes/weft")
    );
    assert!(!manifest.authors.is_empty());
    let server = &manifest.language_servers["weft"];
    assert_eq!(server.name.as_deref(), Some("Weft"));
    assert_eq!(server.languages, ["Markdown"]);
    assert!(manifest.context_servers.contains_key("weft"));
    for name in ["backlinks", "graph", "related"] {
        let command = &manifest.slash_commands[name];
        assert!(command.requires_argument, "/{name} requires an argument");
        assert!(!command.description.is_empty(), "/{name} has a description");
    }
    assert_eq!(manifest.slash_commands.len(), 3);

    // Exec only for `weft query …`; downloads only from the releases.
    for capability in &manifest.capabilities {
        match capability {
            Capability::ProcessExec { args, .. } => {
                assert_eq!(
                    args.first().map(String::as_str),
                    Some("query"),
                    "{capability:?}"
                );
                assert!(args.len() >= 2 && args[1] != "**", "{capability:?}");
            }
            Capability::DownloadFile { host, path } => {
                assert_eq!(host, "github.com");
                assert_eq!(
                    path[..4],
                    strings(&["weft-notes", "weft", "releases", "download"])
                );
            }
            Capability::NpmInstall { .. } => panic!("Weft installs no npm package"),
        }
    }
}

#[test]
fn language_server_uses_the_binary_setting_with_its_arguments_and_env() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let bin = bin_dir_with_weft(&sandbox);
    let mut zed = start(
        &sandbox,
        work.path(),
        with_settings(json!({ "lsp": { "weft": { "binary": {
            "path": "/opt/weft/bin/weft",
            "arguments": ["lsp", "--stdio"],
            "env": { "RUST_LOG": "debug", "PATH": "/opt/weft/bin" },
        } } } })),
    );
    // `weft` on PATH too: the setting wins.
    let worktree = FakeWorktree::new(1, vault.path())
        .with_path_dir(bin.path())
        .with_var("LANG", "C.UTF-8");

    let command = zed.language_server_command(&worktree).expect("command");

    let mut env = worktree.shell_env.clone();
    env.iter_mut()
        .find(|(name, _)| name == "PATH")
        .expect("PATH")
        .1 = "/opt/weft/bin".into();
    env.push(("RUST_LOG".into(), "debug".into()));
    assert_eq!(
        command,
        ResolvedCommand {
            command: "/opt/weft/bin/weft".into(),
            args: strings(&["lsp", "--stdio"]),
            env,
        }
    );
    assert!(zed.state().release_checks.is_empty(), "no GitHub check");
    assert!(zed.state().statuses.is_empty());
    sandbox.stop_daemons();
}

#[test]
fn language_server_finds_weft_on_the_worktree_path_with_its_shell_env() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let bin = bin_dir_with_weft(&sandbox);
    let mut zed = start(
        &sandbox,
        work.path(),
        // Arguments and env apply to whichever binary is found.
        with_settings(json!({ "lsp": { "weft": { "binary": { "env": { "WEFT_LOG": "1" } } } } })),
    );
    let worktree = FakeWorktree::new(1, vault.path()).with_path_dir(bin.path());

    let command = zed.language_server_command(&worktree).expect("command");

    let mut env = worktree.shell_env.clone();
    env.push(("WEFT_LOG".into(), "1".into()));
    assert_eq!(
        command,
        ResolvedCommand {
            command: bin.path().join("weft"),
            args: strings(&["lsp"]),
            env,
        }
    );
    assert!(zed.state().release_checks.is_empty(), "no GitHub check");
    sandbox.stop_daemons();
}

#[test]
fn language_server_downloads_the_release_reports_progress_and_removes_old_versions() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let stale = install_fake_version(work.path(), "0.1.0");
    std::fs::write(work.path().join("notes.txt"), "not Weft's").expect("write");
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Ok(weft_release("0.2.0")),
            // Granting exactly what extension.toml declares is enough.
            granted: host::manifest().capabilities.clone(),
            ..ZedSetup::default()
        },
    );
    let worktree = FakeWorktree::new(1, vault.path());

    let command = zed.language_server_command(&worktree).expect("command");

    let work_dir = zed.state().work_dir.clone();
    let binary = work_dir.join("weft-0.2.0/weft");
    assert_eq!(command.command, binary);
    assert_eq!(command.args, ["lsp"]);
    assert_eq!(command.env, worktree.shell_env);
    let state = zed.state();
    assert_eq!(state.release_checks, [REPO]);
    // The checksums, then the archive as it is (the extension checks it,
    // then unpacks it itself).
    assert_eq!(
        state.downloads,
        [
            asset_url("0.2.0", "SHA256SUMS"),
            asset_url("0.2.0", &native_asset("0.2.0"))
        ]
    );
    assert_eq!(
        state.download_kinds,
        ["DownloadedFileType::Uncompressed"; 2]
    );
    assert_eq!(
        state.statuses,
        [
            ("weft".to_string(), Status::CheckingForUpdate),
            ("weft".to_string(), Status::Downloading),
            ("weft".to_string(), Status::None),
        ]
    );
    assert_executable(&binary);
    assert!(!stale.exists(), "the old version is removed");
    assert!(work_dir.join("notes.txt").exists(), "other files stay");
    let left: Vec<_> = std::fs::read_dir(&work_dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(
        left.is_empty(),
        "the downloads are removed once checked: {left:?}"
    );

    // It is the real sidecar, and it runs from where Zed would start it.
    let version = sandbox
        .command(&command.command)
        .arg("--version")
        .output()
        .expect("run the downloaded weft");
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("weft "));
    sandbox.stop_daemons();
}

#[test]
fn a_downloaded_binary_is_reused_in_the_session_and_after_a_restart() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let worktree = FakeWorktree::new(1, vault.path());
    let setup = ZedSetup {
        release: Ok(weft_release("0.2.0")),
        ..ZedSetup::default()
    };
    let mut zed = start(&sandbox, work.path(), setup.clone());
    let first = zed.language_server_command(&worktree).expect("command");

    // Same session: no second look at GitHub.
    let again = zed.language_server_command(&worktree).expect("command");
    assert_eq!(again, first);
    assert_eq!(zed.state().release_checks.len(), 1);
    assert_eq!(zed.state().downloads.len(), 2);
    assert_eq!(zed.state().statuses.len(), 3);

    // Zed restarted: the release is checked, the download is not repeated.
    let mut zed = start(&sandbox, work.path(), setup);
    let after_restart = zed.language_server_command(&worktree).expect("command");
    assert_eq!(after_restart, first);
    assert!(zed.state().downloads.is_empty());
    assert_eq!(
        zed.state().statuses,
        [
            ("weft".to_string(), Status::CheckingForUpdate),
            ("weft".to_string(), Status::None),
        ]
    );
    sandbox.stop_daemons();
}

#[test]
fn the_newest_installed_version_is_used_when_the_release_check_fails() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    install_fake_version(work.path(), "0.9.1");
    let newest = install_fake_version(work.path(), "0.10.0");
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Err("error fetching latest release: connection refused".into()),
            ..ZedSetup::default()
        },
    );

    let command = zed
        .language_server_command(&FakeWorktree::new(1, vault.path()))
        .expect("command");

    assert_eq!(command.command, newest.canonicalize().expect("path"));
    assert_eq!(
        zed.state().statuses,
        [
            ("weft".to_string(), Status::CheckingForUpdate),
            ("weft".to_string(), Status::None),
        ]
    );
    assert!(zed.state().downloads.is_empty());
    sandbox.stop_daemons();
}

#[test]
fn without_any_binary_the_language_server_fails_with_what_to_do() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Err("error fetching latest release: connection refused".into()),
            ..ZedSetup::default()
        },
    );

    let error = zed
        .language_server_command(&FakeWorktree::new(1, vault.path()))
        .expect_err("no binary anywhere");

    assert!(error.contains("connection refused"), "{error}");
    assert!(error.contains("Install `weft` on your PATH"), "{error}");
    assert!(
        error.contains(r#""lsp": { "weft": { "binary": { "path""#),
        "{error}"
    );
    assert_eq!(
        zed.state().statuses,
        [
            ("weft".to_string(), Status::CheckingForUpdate),
            ("weft".to_string(), Status::Failed(error.clone())),
        ]
    );
    sandbox.stop_daemons();
}

#[test]
fn a_download_that_does_not_match_the_checksums_is_refused_and_the_installed_version_kept() {
    let sandbox = Sandbox::new();
    let vault = sandbox.tempdir();
    let worktree = FakeWorktree::new(1, vault.path());
    let asset = native_asset("0.2.0");
    // One byte of the archive changed after the checksums were made.
    let mut damaged = host::github::weft_tar_gz().as_ref().clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    let cases = [
        (
            "damaged",
            weft_release("0.2.0").replacing(&asset, damaged),
            "does not match the release's SHA256SUMS",
            2,
        ),
        (
            "no checksums",
            weft_release("0.2.0").without("SHA256SUMS"),
            "publishes no SHA256SUMS",
            0,
        ),
        (
            "not listed",
            weft_release("0.2.0")
                .without("SHA256SUMS")
                .with_asset("SHA256SUMS", std::sync::Arc::new(b"00  other\n".to_vec())),
            "lists no checksum for",
            2,
        ),
    ];
    for (case, release, why, downloads) in cases {
        // With an earlier version installed: it is kept, and the status
        // says why the new one was not installed.
        let work = sandbox.tempdir();
        let installed = install_fake_version(work.path(), "0.1.0");
        let mut zed = start(
            &sandbox,
            work.path(),
            ZedSetup {
                release: Ok(release.clone()),
                ..ZedSetup::default()
            },
        );
        let command = zed.language_server_command(&worktree).expect(case);
        assert_eq!(command.command, installed.canonicalize().unwrap(), "{case}");
        let state = zed.state();
        assert_eq!(state.downloads.len(), downloads, "{case}");
        match state.statuses.last() {
            Some((_, Status::Failed(message))) => {
                assert!(message.contains(why), "{case}: {message}");
                assert!(message.contains("keeps the installed"), "{case}: {message}");
            }
            other => panic!("{case}: {other:?}"),
        }
        let names: Vec<String> = std::fs::read_dir(&state.work_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["weft-0.1.0"], "{case}: nothing else is left");

        // With none: the language server fails, saying why.
        let work = sandbox.tempdir();
        let mut zed = start(
            &sandbox,
            work.path(),
            ZedSetup {
                release: Ok(release),
                ..ZedSetup::default()
            },
        );
        let error = zed.language_server_command(&worktree).expect_err(case);
        assert!(error.contains(why), "{case}: {error}");
        assert!(
            std::fs::read_dir(zed.state().work_dir.clone())
                .unwrap()
                .next()
                .is_none(),
            "{case}: nothing is installed"
        );
    }
    sandbox.stop_daemons();
}

#[test]
fn a_release_without_this_platform_or_a_refused_download_leaves_nothing_behind() {
    let sandbox = Sandbox::new();
    let vault = sandbox.tempdir();
    let worktree = FakeWorktree::new(1, vault.path());

    // 32-bit x86 gets no asset.
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Ok(weft_release("0.2.0")),
            platform: (host::Os::Linux, host::Architecture::X86),
            ..ZedSetup::default()
        },
    );
    let error = zed
        .language_server_command(&worktree)
        .expect_err("no asset");
    assert!(error.contains("no `weft` binary for 32-bit x86"), "{error}");
    assert!(zed.state().downloads.is_empty());

    // The user granted downloads from elsewhere only.
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Ok(weft_release("0.2.0")),
            granted: vec![Capability::DownloadFile {
                host: "example.com".into(),
                path: strings(&["**"]),
            }],
            ..ZedSetup::default()
        },
    );
    let error = zed.language_server_command(&worktree).expect_err("refused");
    assert!(
        error.contains("capability for download_file") && error.contains("not granted"),
        "{error}"
    );
    assert!(
        std::fs::read_dir(zed.state().work_dir.clone())
            .expect("work dir")
            .next()
            .is_none(),
        "no half-installed version is left"
    );
    assert!(matches!(
        zed.state().statuses.last(),
        Some((_, Status::Failed(_)))
    ));
    sandbox.stop_daemons();
}

#[test]
fn initialization_options_and_workspace_configuration_pass_the_settings_through() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let worktree = FakeWorktree::new(1, vault.path());
    let initialization_options = json!({ "daily": { "folder": "journal" }, "utf8": true });
    let settings = json!({ "diagnostics": { "unresolved": "error" }, "tags": ["a", "é"] });
    let mut zed = start(
        &sandbox,
        work.path(),
        with_settings(json!({ "lsp": { "weft": {
            "initialization_options": initialization_options,
            "settings": settings,
        } } })),
    );

    assert_eq!(
        zed.initialization_options(&worktree),
        Ok(Some(initialization_options))
    );
    assert_eq!(zed.workspace_configuration(&worktree), Ok(Some(settings)));

    zed.set_settings(json!({}));
    assert_eq!(zed.initialization_options(&worktree), Ok(None));
    assert_eq!(zed.workspace_configuration(&worktree), Ok(None));
    sandbox.stop_daemons();
}

#[test]
fn context_server_uses_the_settings_path_and_vault() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        with_settings(json!({ "context_servers": { "weft": { "settings": {
            "path": "/opt/weft/bin/weft",
            "vault": "/home/me/Notes vault",
            "semantic_model": "~/models/MiniLM",
        } } } })),
    );

    assert_eq!(
        zed.context_server_command(&project()),
        Ok(ResolvedCommand {
            command: "/opt/weft/bin/weft".into(),
            args: strings(&[
                "mcp",
                "--vault",
                "/home/me/Notes vault",
                "--semantic-model",
                "~/models/MiniLM"
            ]),
            env: Vec::new(),
        })
    );
    assert!(zed.state().release_checks.is_empty());

    // A plain `context_servers` entry with its own command is taken as is.
    zed.set_settings(json!({ "context_servers": { "weft": {
        "command": "/usr/local/bin/weft",
        "args": ["mcp", "--vault", "/notes"],
        "env": { "RUST_LOG": "info" },
    } } }));
    assert_eq!(
        zed.context_server_command(&project()),
        Ok(ResolvedCommand {
            command: "/usr/local/bin/weft".into(),
            args: strings(&["mcp", "--vault", "/notes"]),
            env: vec![("RUST_LOG".into(), "info".into())],
        })
    );

    // A misspelt setting is named.
    zed.set_settings(json!({ "context_servers": { "weft": { "settings": { "paht": "/x" } } } }));
    let error = zed
        .context_server_command(&project())
        .expect_err("unknown field");
    assert!(error.contains("context_servers.weft.settings"), "{error}");
    assert!(error.contains("paht"), "{error}");
    sandbox.stop_daemons();
}

#[test]
fn context_server_reuses_the_binary_the_language_server_found() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let vault = sandbox.tempdir();
    let bin = bin_dir_with_weft(&sandbox);
    let mut zed = start(&sandbox, work.path(), ZedSetup::default());
    zed.language_server_command(&FakeWorktree::new(1, vault.path()).with_path_dir(bin.path()))
        .expect("language server command");

    assert_eq!(
        zed.context_server_command(&project()),
        Ok(ResolvedCommand {
            command: bin.path().join("weft"),
            args: strings(&["mcp"]),
            env: Vec::new(),
        })
    );

    zed.set_settings(
        json!({ "context_servers": { "weft": { "settings": { "vault": "/notes" } } } }),
    );
    let command = zed.context_server_command(&project()).expect("command");
    assert_eq!(command.command, bin.path().join("weft"));
    assert_eq!(command.args, ["mcp", "--vault", "/notes"]);
    assert!(zed.state().release_checks.is_empty());
    sandbox.stop_daemons();
}

#[test]
fn context_server_downloads_the_binary_when_nothing_else_is_known() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Ok(weft_release("0.2.0")),
            ..ZedSetup::default()
        },
    );

    let command = zed.context_server_command(&project()).expect("command");

    let binary = zed.state().work_dir.join("weft-0.2.0/weft");
    assert_eq!(command.command, binary);
    assert_eq!(command.args, ["mcp"]);
    assert_executable(&binary);
    assert_eq!(zed.state().downloads.len(), 2);
    // No language server asked, so there is no status to report.
    assert!(zed.state().statuses.is_empty());

    // Without a release either, the error says what to do.
    let work = sandbox.tempdir();
    let mut zed = start(&sandbox, work.path(), ZedSetup::default());
    let error = zed.context_server_command(&project()).expect_err("nothing");
    assert!(error.contains("Install `weft` on your PATH"), "{error}");
    sandbox.stop_daemons();
}

/// Removes `//` comment lines, as a JSONC reader skips them.
fn strip_line_comments(jsonc: &str) -> String {
    jsonc
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn context_server_configuration_has_instructions_a_json_schema_and_defaults() {
    let sandbox = Sandbox::new();
    let work = sandbox.tempdir();
    let mut zed = start(&sandbox, work.path(), ZedSetup::default());

    let configuration = zed
        .context_server_configuration(&project())
        .expect("configuration")
        .expect("some configuration");

    let instructions = &configuration.installation_instructions;
    assert!(instructions.contains("`weft mcp`"), "{instructions}");
    assert!(instructions.contains("https://github.com/weft-notes/weft/releases"));

    // Zed parses the schema with serde_json and fails the server otherwise.
    let schema: Value = serde_json::from_str(&configuration.settings_schema).expect("JSON");
    assert!(
        schema["$schema"]
            .as_str()
            .is_some_and(|s| s.contains("json-schema.org")),
        "{schema:#}"
    );
    assert_eq!(schema["type"], "object", "{schema:#}");
    let properties = schema["properties"].as_object().expect("properties");
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["path", "semantic_model", "vault"],
        "{schema:#}"
    );
    for (name, property) in properties {
        let types = &property["type"];
        assert!(
            types == "string"
                || types
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("string"))),
            "{name}: {property:#}"
        );
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{name} is documented"
        );
    }
    assert_eq!(schema["additionalProperties"], false, "{schema:#}");

    // The defaults are JSONC whose keys the schema knows.
    let defaults: Value =
        serde_json::from_str(&strip_line_comments(&configuration.default_settings))
            .expect("default settings are JSON once comments are removed");
    let defaults = defaults.as_object().expect("an object");
    assert!(defaults.keys().all(|key| properties.contains_key(key)));
    assert!(configuration.default_settings.contains("\"path\""));
    assert!(configuration.default_settings.contains("\"vault\""));
    sandbox.stop_daemons();
}

/// A vault worktree with `weft` on its `PATH`, and an extension that has
/// not seen it yet.
struct SlashFixture {
    vault: TempVault,
    worktree: FakeWorktree,
    zed: ExtensionHost,
    _bin: tempfile::TempDir,
    _work: tempfile::TempDir,
    /// Last: dropped (and checked for daemons left running) after the rest.
    sandbox: Sandbox,
}

impl SlashFixture {
    fn new() -> SlashFixture {
        SlashFixture::with(|sandbox| sandbox.vault(VAULT))
    }

    fn with(vault: impl FnOnce(&Sandbox) -> TempVault) -> SlashFixture {
        let sandbox = Sandbox::new();
        let vault = vault(&sandbox);
        let bin = bin_dir_with_weft(&sandbox);
        let work = sandbox.tempdir();
        let worktree = FakeWorktree::new(1, vault.path()).with_path_dir(bin.path());
        let zed = start(&sandbox, work.path(), ZedSetup::default());
        SlashFixture {
            vault,
            worktree,
            zed,
            _bin: bin,
            _work: work,
            sandbox,
        }
    }

    fn root(&self) -> String {
        self.vault.path().display().to_string()
    }

    /// `/name args…` must give what `weft query …` gives, as one section.
    fn check_output(&mut self, name: &str, args: &[&str], query: &[&str], label: &str) {
        let output = self
            .zed
            .run_slash_command(name, args, Some(&self.worktree.clone()))
            .unwrap_or_else(|e| panic!("/{name} {args:?}: {e}"));
        let (subcommand, options_and_note) = query.split_at(1);
        let (options, note) = options_and_note.split_at(options_and_note.len() - 1);
        let mut expected_args = strings(&["query", subcommand[0]]);
        expected_args.extend(strings(options));
        expected_args.extend([
            "--vault".to_string(),
            self.root(),
            "--".to_string(),
            note[0].to_string(),
        ]);
        let expected =
            cli(&self.sandbox, &expected_args).expect("the query succeeds on the command line");
        assert_eq!(output.text, expected);
        assert_eq!(output.sections.len(), 1);
        let section = &output.sections[0];
        assert_eq!(section.label, label);
        let (start, end) = (section.range.start as usize, section.range.end as usize);
        assert!(start < end && end <= output.text.len(), "{start}..{end}");
        assert!(output.text.is_char_boundary(start) && output.text.is_char_boundary(end));
        assert_eq!(
            (start, end),
            (0, output.text.len()),
            "the section covers the answer"
        );
        let (command, args) = self
            .zed
            .state()
            .executions
            .last()
            .expect("ran weft")
            .clone();
        assert_eq!(command, self.worktree.which("weft").expect("on PATH"));
        assert_eq!(args, expected_args);
    }
}

#[test]
fn backlinks_returns_the_sidecars_markdown_as_a_labelled_section() {
    let mut fixture = SlashFixture::new();
    fixture.check_output(
        "backlinks",
        &["Plan"],
        &["backlinks", "Plan"],
        "Backlinks: Plan",
    );
    // Zed splits the argument at spaces; the words are one note name.
    fixture.check_output(
        "backlinks",
        &["Missing", "note"],
        &["backlinks", "Missing note"],
        "Backlinks: Missing note",
    );
    fixture.check_output(
        "backlinks",
        &["Café"],
        &["backlinks", "Café"],
        "Backlinks: Café",
    );
    let text = fixture
        .zed
        .run_slash_command("backlinks", &["Plan"], Some(&fixture.worktree.clone()))
        .expect("backlinks")
        .text;
    assert!(text.contains("- **Welcome** (`Welcome`)"), "{text}");
    assert!(text.contains("L2: See [[Plan]] and [[Ideas]]."), "{text}");
    fixture.sandbox.stop_daemons();
}

#[test]
fn graph_takes_an_optional_depth() {
    let mut fixture = SlashFixture::new();
    // Without a depth, the depth of the MCP `graph` prompt.
    fixture.check_output(
        "graph",
        &["Welcome"],
        &["graph", "--depth", "2", "Welcome"],
        "Graph: Welcome (depth 2)",
    );
    fixture.check_output(
        "graph",
        &["Welcome", "1"],
        &["graph", "--depth", "1", "Welcome"],
        "Graph: Welcome (depth 1)",
    );
    fixture.check_output(
        "graph",
        &["projects/Plan", "1"],
        &["graph", "--depth", "1", "projects/Plan"],
        "Graph: projects/Plan (depth 1)",
    );
    fixture.sandbox.stop_daemons();
}

#[test]
fn related_returns_what_weft_query_related_says() {
    let mut fixture = SlashFixture::new();
    let worktree = fixture.worktree.clone();
    let output = fixture
        .zed
        .run_slash_command("related", &["Plan"], Some(&worktree));
    let args = strings(&["query", "related", "--vault", &fixture.root(), "--", "Plan"]);
    match cli(&fixture.sandbox, &args) {
        Ok(expected) => {
            let output = output.expect("/related");
            assert_eq!(output.text, expected);
            assert_eq!(output.sections.len(), 1);
            assert_eq!(output.sections[0].label, "Related: Plan");
            assert_eq!(output.sections[0].range.end as usize, output.text.len());
        }
        // A sidecar without `query related` answers with its own error.
        Err(stderr) => assert_eq!(output, Err(as_extension_error(&stderr))),
    }
    assert_eq!(
        fixture.zed.state().executions.last().expect("ran weft").1,
        args
    );
    fixture.sandbox.stop_daemons();
}

/// With a model in the vault's `.weft.toml` (a tiny one in the real
/// format), `/related` lists a note that shares no link, tag or word with
/// the subject, for its meaning, quoting the similar passage.
#[test]
fn related_finds_notes_by_meaning_with_a_model() {
    let mut fixture = SlashFixture::with(|sandbox| {
        let model = sandbox.dir("model");
        weft_e2e::tiny_model(&model, &[("car", 0), ("automobile", 0), ("truck", 0)], 4);
        sandbox.vault(&format!(
            "//- /.weft.toml\n[semantic]\nmodel = \"{}\"\n//- /garage.md\nMy car.\n\
             //- /fleet.md\nOur truck and automobile fleet.\n//- /band.md\nA song.\n",
            model.display()
        ))
    });
    let worktree = fixture.worktree.clone();
    let started = std::time::Instant::now();
    let text = loop {
        // The daemon loads the model in the background: words and links
        // answer until it is ready.
        let output = fixture
            .zed
            .run_slash_command("related", &["garage"], Some(&worktree))
            .expect("/related");
        if output.text.contains("similar meaning") || started.elapsed().as_secs() > 60 {
            break output.text;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(text.contains("**fleet**"), "{text}");
    assert!(
        text.contains("similar meaning, lines 1–1: “Our truck and automobile fleet.”"),
        "{text}"
    );
    fixture.sandbox.stop_daemons();
}

#[test]
fn slash_command_errors_are_readable() {
    let mut fixture = SlashFixture::new();
    let worktree = fixture.worktree.clone();

    let error = fixture
        .zed
        .run_slash_command("backlinks", &["Nowhere"], Some(&worktree))
        .expect_err("unknown note");
    let stderr = cli(
        &fixture.sandbox,
        &strings(&[
            "query",
            "backlinks",
            "--vault",
            &fixture.root(),
            "--",
            "Nowhere",
        ]),
    )
    .expect_err("unknown note");
    assert_eq!(error, as_extension_error(&stderr));
    assert!(
        error.starts_with("Weft: No note matches `Nowhere`"),
        "{error}"
    );

    assert_eq!(
        fixture.zed.run_slash_command("graph", &[], Some(&worktree)),
        Err("Weft: name a note: /graph NOTE [DEPTH]".to_string())
    );
    assert_eq!(
        fixture
            .zed
            .run_slash_command("backlinks", &["  "], Some(&worktree)),
        Err("Weft: name a note: /backlinks NOTE".to_string())
    );
    let error = fixture
        .zed
        .run_slash_command("backlinks", &["Plan"], None)
        .expect_err("no worktree");
    assert!(error.contains("needs a project folder"), "{error}");

    // A configured path that does not exist.
    fixture
        .zed
        .set_settings(json!({ "lsp": { "weft": { "binary": { "path": "/nonexistent/weft" } } } }));
    let error = fixture
        .zed
        .run_slash_command("backlinks", &["Plan"], Some(&worktree))
        .expect_err("no such binary");
    assert!(
        error.starts_with("Weft: cannot run /nonexistent/weft: "),
        "{error}"
    );
    fixture.sandbox.stop_daemons();
}

#[test]
fn slash_commands_need_a_sidecar_and_the_users_grant() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let worktree = FakeWorktree::new(1, vault.path());

    // No binary anywhere.
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Err("error fetching latest release: offline".into()),
            ..ZedSetup::default()
        },
    );
    let error = zed
        .run_slash_command("backlinks", &["Plan"], Some(&worktree))
        .expect_err("no binary");
    assert!(
        error.contains("could not download the `weft` binary"),
        "{error}"
    );
    assert!(error.contains("Install `weft` on your PATH"), "{error}");

    // The user granted no process execution.
    let work = sandbox.tempdir();
    let bin = bin_dir_with_weft(&sandbox);
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            granted: vec![],
            ..ZedSetup::default()
        },
    );
    let error = zed
        .run_slash_command(
            "backlinks",
            &["Plan"],
            Some(&worktree.clone().with_path_dir(bin.path())),
        )
        .expect_err("not granted");
    assert!(
        error.contains("process:exec") && error.contains("not granted"),
        "{error}"
    );
    assert!(zed.state().executions.is_empty());
    sandbox.stop_daemons();
}

#[test]
fn slash_commands_run_a_downloaded_sidecar() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let work = sandbox.tempdir();
    let mut zed = start(
        &sandbox,
        work.path(),
        ZedSetup {
            release: Ok(weft_release("0.2.0")),
            ..ZedSetup::default()
        },
    );
    let worktree = FakeWorktree::new(1, vault.path());

    let output = zed
        .run_slash_command("backlinks", &["Plan"], Some(&worktree))
        .expect("backlinks");

    assert!(
        output.text.starts_with("Links of **Plan**"),
        "{}",
        output.text
    );
    let (command, _) = zed.state().executions.last().expect("ran weft").clone();
    // Zed runs a process command as given: it must be absolute.
    assert_eq!(
        Path::new(&command),
        zed.state().work_dir.join("weft-0.2.0/weft")
    );
    sandbox.stop_daemons();
}

#[test]
fn argument_completion_lists_the_vaults_notes() {
    let mut fixture = SlashFixture::new();

    // Completion gets no worktree: before any call there is no vault.
    let error = fixture
        .zed
        .complete_slash_command_argument("backlinks", &["Pl"])
        .expect_err("no vault yet");
    assert!(error.contains("open a Markdown file"), "{error}");

    fixture
        .zed
        .language_server_command(&fixture.worktree.clone())
        .expect("language server command");

    let completions = fixture
        .zed
        .complete_slash_command_argument("backlinks", &["Pl"])
        .expect("completions");
    let shown: Vec<(&str, &str, bool)> = completions
        .iter()
        .map(|c| (c.label.as_str(), c.new_text.as_str(), c.run_command))
        .collect();
    assert_eq!(shown, [("projects/Plan.md", "projects/Plan", true)]);
    let (_, args) = fixture
        .zed
        .state()
        .executions
        .last()
        .expect("ran weft")
        .clone();
    assert_eq!(
        args,
        strings(&[
            "query",
            "notes",
            "--limit",
            "20",
            "--format",
            "json",
            "--vault",
            &fixture.root(),
            "--",
            "Pl"
        ])
    );

    // An alias finds the note; only the last word is completed.
    let completions = fixture
        .zed
        .complete_slash_command_argument("graph", &["Road"])
        .expect("completions");
    assert_eq!(completions.len(), 1);
    assert_eq!(completions[0].new_text, "projects/Plan");

    // Nothing typed yet: the most linked notes, each as the sidecar lists them.
    let completions = fixture
        .zed
        .complete_slash_command_argument("related", &[""])
        .expect("completions");
    let listed: Value = serde_json::from_str(
        &cli(
            &fixture.sandbox,
            &strings(&[
                "query",
                "notes",
                "--limit",
                "20",
                "--format",
                "json",
                "--vault",
                &fixture.root(),
            ]),
        )
        .expect("notes"),
    )
    .expect("JSON");
    let listed = listed.as_array().expect("array");
    assert_eq!(completions.len(), listed.len());
    for (completion, note) in completions.iter().zip(listed) {
        let path = note["path"].as_str().expect("path");
        assert_eq!(completion.new_text, path.trim_end_matches(".md"));
        assert!(completion.label.contains(path), "{}", completion.label);
    }
    assert!(completions.iter().any(|c| c.new_text == "Café"));
    fixture.sandbox.stop_daemons();
}
