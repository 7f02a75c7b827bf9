//! The GitHub release assets the extension downloads `weft` from: the one
//! place that names them. The release workflow
//! (`.github/workflows/release.yml`) must publish exactly these; the
//! end-to-end test `tests/tests/release.rs` checks that it does.
//!
//! | platform            | asset                                 | binary inside |
//! |---------------------|---------------------------------------|---------------|
//! | Linux x86-64        | `weft-{version}-x86_64-linux.tar.gz`  | `weft`        |
//! | Linux AArch64       | `weft-{version}-aarch64-linux.tar.gz` | `weft`        |
//! | macOS Intel         | `weft-{version}-x86_64-macos.tar.gz`  | `weft`        |
//! | macOS Apple silicon | `weft-{version}-aarch64-macos.tar.gz` | `weft`        |
//! | Windows x86-64      | `weft-{version}-x86_64-windows.zip`   | `weft.exe`    |
//! | Windows AArch64     | `weft-{version}-aarch64-windows.zip`  | `weft.exe`    |
//!
//! `{version}` is the release tag without a leading `v` (tag `v0.2.0` →
//! `weft-0.2.0-x86_64-linux.tar.gz`). The binary sits at the archive's root.
//! `SHA256SUMS` beside them lists every asset's SHA-256 as `sha256sum`
//! writes it; an asset it does not vouch for is never installed
//! (`verify.rs`).
//! Knows nothing of where the archive is unpacked (see `sidecar.rs`).

use zed_extension_api::{Architecture, Os};

/// `owner/name` of the GitHub repository whose releases carry the binaries.
pub const REPOSITORY: &str = "weft-notes/weft";

/// The first part of every asset name, and of the folder a downloaded
/// version is unpacked into (`weft-0.2.0/`) inside the work directory.
pub const PREFIX: &str = "weft-";

/// The version in asset and folder names: the tag without a leading `v`.
pub fn version_of(tag: &str) -> &str {
    tag.strip_prefix('v').unwrap_or(tag)
}

/// The asset holding the binary for this platform, or why there is none.
pub fn asset_name(version: &str, os: Os, arch: Architecture) -> Result<String, String> {
    let arch = match arch {
        Architecture::X8664 => "x86_64",
        Architecture::Aarch64 => "aarch64",
        Architecture::X86 => {
            return Err("Weft publishes no `weft` binary for 32-bit x86".to_string());
        }
    };
    let (os, extension) = match os {
        Os::Linux => ("linux", "tar.gz"),
        Os::Mac => ("macos", "tar.gz"),
        Os::Windows => ("windows", "zip"),
    };
    Ok(format!("{PREFIX}{version}-{arch}-{os}.{extension}"))
}

/// The binary's file name inside the archive (and on `PATH`).
pub fn binary_name(os: Os) -> &'static str {
    match os {
        Os::Windows => "weft.exe",
        Os::Linux | Os::Mac => "weft",
    }
}

/// The work-directory folder a version is unpacked into: `weft-0.2.0`.
pub fn version_dir(version: &str) -> String {
    format!("{PREFIX}{version}")
}
