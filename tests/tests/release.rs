//! The release workflows cannot run here, so this checks that they publish
//! exactly what the extension downloads, through the extension itself:
//!
//! - `.github/workflows/release.yml` builds the six platforms, and for each
//!   the Zed extension (the real wasm, in the wasmtime host, told it runs
//!   on that platform) downloads exactly the asset the workflow packages,
//!   unpacked as the archive type the workflow makes, with the binary the
//!   workflow puts at the archive's root;
//! - one version everywhere: the workspace's `Cargo.toml`, every crate that
//!   ships, `extension.toml` and `weft --version`; the workflow refuses a
//!   tag that says otherwise;
//! - the pull-request workflow runs the README's test command.

// The host is shared with extension.rs; this file uses part of it.
#[allow(dead_code)]
#[path = "../host/mod.rs"]
mod host;

use std::path::PathBuf;

use host::{Architecture, ExtensionHost, FakeRelease, FakeWorktree, Os, ZedSetup};
use weft_e2e::{Sandbox, repo_file, run_of, weft_bin, workflow};

const REPO: &str = "weft-notes/weft";

/// One entry of the release workflow's build matrix.
#[derive(Debug, serde::Deserialize)]
struct Build {
    platform: String,
    target: String,
    runner: String,
    archive: String,
    binary: String,
}

fn builds() -> Vec<Build> {
    let release = workflow(".github/workflows/release.yml");
    let include = release["jobs"]["build"]["strategy"]["matrix"]["include"].clone();
    serde_norway::from_value(include).expect("the build matrix")
}

fn platform_of(platform: &str) -> (Os, Architecture) {
    let (arch, os) = platform.split_once('-').expect("ARCH-OS");
    let arch = match arch {
        "x86_64" => Architecture::X8664,
        "aarch64" => Architecture::Aarch64,
        other => panic!("unknown architecture {other}"),
    };
    let os = match os {
        "linux" => Os::Linux,
        "macos" => Os::Mac,
        "windows" => Os::Windows,
        other => panic!("unknown OS {other}"),
    };
    (os, arch)
}

/// The asset name the workflow's package step makes for `build`.
fn asset(version: &str, build: &Build) -> String {
    format!("weft-{version}-{}.{}", build.platform, build.archive)
}

#[test]
fn the_release_publishes_what_the_extension_downloads_for_every_platform() {
    let builds = builds();
    let mut platforms: Vec<&str> = builds.iter().map(|b| b.platform.as_str()).collect();
    platforms.sort_unstable();
    assert_eq!(
        platforms,
        [
            "aarch64-linux",
            "aarch64-macos",
            "aarch64-windows",
            "x86_64-linux",
            "x86_64-macos",
            "x86_64-windows"
        ]
    );
    // The package step names assets and fills archives as asserted here.
    let release = workflow(".github/workflows/release.yml");
    let package = run_of(
        &release["jobs"]["build"],
        "Package as the extension expects",
    );
    assert!(
        package.contains(r#"ASSET="weft-${VERSION}-${{ matrix.platform }}.${{ matrix.archive }}""#),
        "{package}"
    );
    assert!(
        package.contains(r#"tar -C "$DIR" -czf "$ASSET" "${{ matrix.binary }}""#)
            && package.contains(r#"7z a -tzip "$GITHUB_WORKSPACE/$ASSET" "${{ matrix.binary }}""#),
        "the binary sits at the archive's root: {package}"
    );
    let build = run_of(&release["jobs"]["build"], "Build (stripped, LTO)");
    assert!(build.contains("--profile dist -p weft"), "{build}");
    let publish = run_of(&release["jobs"]["publish"], "Checksums beside the assets");
    assert!(
        publish.contains("sha256sum weft-* > SHA256SUMS"),
        "{publish}"
    );

    let version = "9.9.9";
    let sandbox = Sandbox::new();
    let vault = sandbox.tempdir();
    let worktree = FakeWorktree::new(1, vault.path());
    for build in &builds {
        assert!(
            build
                .target
                .starts_with(build.platform.split('-').next().unwrap()),
            "{build:?}"
        );
        assert!(!build.runner.is_empty(), "{build:?}");
        let windows = build.platform.ends_with("windows");
        assert_eq!(
            build.archive,
            if windows { "zip" } else { "tar.gz" },
            "{build:?}"
        );
        assert_eq!(
            build.binary,
            if windows { "weft.exe" } else { "weft" },
            "{build:?}"
        );
        // A release holding every asset the workflow makes; the tar.gz
        // ones are real archives with the binary at the root.
        let mut release = FakeRelease::new(REPO, &format!("v{version}"));
        for other in &builds {
            let bytes = match other.archive.as_str() {
                "tar.gz" => host::github::tar_gz(&[(&other.binary, &weft_bin(), 0o755)]),
                _ => host::github::zip(&[(&other.binary, &weft_bin())]),
            };
            release = release.with_asset(&asset(version, other), std::sync::Arc::new(bytes));
        }
        let release = release.with_sums();
        let expected_url = release.download_url(&asset(version, build));
        let sums_url = release.download_url("SHA256SUMS");
        let work = sandbox.tempdir();
        let mut zed = ExtensionHost::start(
            work.path(),
            ZedSetup {
                release: Ok(release),
                platform: platform_of(&build.platform),
                process_env: Some(sandbox.env()),
                ..ZedSetup::default()
            },
        );
        let answer = zed.language_server_command(&worktree);
        let state = zed.state();
        // The checksums and the archive as they are: the extension checks
        // the archive, then unpacks it itself (zip or tar.gz).
        assert_eq!(
            state.downloads,
            [sums_url, expected_url],
            "{}",
            build.platform
        );
        assert_eq!(
            state.download_kinds, ["DownloadedFileType::Uncompressed"; 2],
            "{}",
            build.platform
        );
        // Unpacked where the extension then finds the binary.
        let command: PathBuf = answer.expect("a command").command;
        assert!(
            command.ends_with(format!("weft-{version}/{}", build.binary)),
            "{}: {}",
            build.platform,
            command.display()
        );
    }
    sandbox.stop_daemons();
}

#[test]
fn one_version_everywhere() {
    let cargo: toml::Value = toml::from_str(&repo_file("Cargo.toml")).expect("Cargo.toml");
    let version = cargo["workspace"]["package"]["version"]
        .as_str()
        .expect("the workspace version")
        .to_string();
    assert_eq!(
        cargo["package"]["version"].as_str(),
        Some(version.as_str()),
        "the extension crate"
    );
    let extension: toml::Value =
        toml::from_str(&repo_file("extension.toml")).expect("extension.toml");
    assert_eq!(
        extension["version"].as_str(),
        Some(version.as_str()),
        "extension.toml"
    );
    for member in cargo["workspace"]["members"].as_array().expect("members") {
        let member = member.as_str().unwrap();
        let manifest: toml::Value =
            toml::from_str(&repo_file(&format!("{member}/Cargo.toml"))).expect("a member manifest");
        let theirs = &manifest["package"]["version"];
        let inherits = theirs.get("workspace").and_then(toml::Value::as_bool) == Some(true);
        assert!(
            inherits || theirs.as_str() == Some(version.as_str()),
            "{member} has version {theirs}, not the workspace's {version}"
        );
    }
    let output = std::process::Command::new(weft_bin())
        .arg("--version")
        .output()
        .expect("weft --version");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("weft {version}")
    );
    // The release refuses a tag that is not this version.
    let release = workflow(".github/workflows/release.yml");
    assert_eq!(release["on"]["push"]["tags"][0].as_str(), Some("v*"));
    let check = run_of(
        &release["jobs"]["build"],
        "The tag is the version every manifest says",
    );
    assert!(
        check.contains(r#"VERSION="${GITHUB_REF_NAME#v}""#)
            && check.contains("Cargo.toml")
            && check.contains("extension.toml"),
        "{check}"
    );
}

#[test]
fn pull_requests_run_the_readme_test_command() {
    let ci = workflow(".github/workflows/ci.yml");
    let readme = repo_file("README.md");
    assert!(
        readme.contains("scripts/test.sh"),
        "the README's test command"
    );
    assert_eq!(
        run_of(&ci["jobs"]["linux"], "The README's test command").trim(),
        "scripts/test.sh"
    );
    let runners: Vec<&str> = ci["jobs"]["other"]["strategy"]["matrix"]["runner"]
        .as_sequence()
        .expect("runners")
        .iter()
        .filter_map(|r| r.as_str())
        .collect();
    assert!(
        runners.iter().any(|r| r.starts_with("macos"))
            && runners.iter().any(|r| r.starts_with("windows")),
        "{runners:?}"
    );
}
