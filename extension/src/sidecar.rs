//! Finding the `weft` binary: a path the user configured, `weft` on the
//! worktree's `PATH`, or a release downloaded into the extension's work
//! directory (falling back to an installed version when GitHub cannot be
//! reached). Knows nothing of what the binary is then started for.
//!
//! Every path handed out is absolute. Zed resolves a relative language or
//! context server command against the work directory, but runs a
//! `process::Command` (the slash commands) as given; the work directory is
//! the extension's current directory (Zed sets `PWD` to it), which turns the
//! downloaded binary's relative path into an absolute one.

use std::fs;
use std::path::{Path, PathBuf};

use zed_extension_api::{
    self as zed, DownloadedFileType, GithubReleaseOptions, LanguageServerId,
    LanguageServerInstallationStatus, Result,
};

use crate::{release, verify};

/// Why the latest release was not installed.
struct InstallError {
    message: String,
    /// Its download was refused (no checksum, or one that differs), as
    /// opposed to GitHub being out of reach: worth telling the user even
    /// when an installed version is used instead.
    refused: bool,
}

impl From<String> for InstallError {
    fn from(message: String) -> InstallError {
        InstallError {
            message,
            refused: false,
        }
    }
}

/// The sidecar's executable name, looked up on the worktree's `PATH`.
pub const BINARY_NAME: &str = "weft";

/// How to tell Zed where `weft` is when every lookup failed.
const HOW_TO_CONFIGURE: &str = "Install `weft` on your PATH, or set its absolute path in \
     Zed's settings: \"lsp\": { \"weft\": { \"binary\": { \"path\": \"/path/to/weft\" } } }";

/// The binary downloaded (or found installed) in the work directory during
/// this session: later lookups reuse it instead of asking GitHub again.
#[derive(Default)]
pub struct Downloads {
    binary: Option<String>,
}

impl Downloads {
    /// The downloaded `weft`: the one found earlier in this session, else the
    /// latest release (downloaded unless that version is already there), else
    /// the newest installed version when the release check or the download
    /// fails. Reports progress as the language server's installation status
    /// when a language server asked (`server`).
    pub fn binary(&mut self, server: Option<&LanguageServerId>) -> Result<String> {
        if let Some(binary) = &self.binary
            && Path::new(binary).is_file()
        {
            return Ok(binary.clone());
        }
        let binary = match install_latest(server) {
            Ok(binary) => binary,
            Err(install_error) => match newest_installed() {
                Some(binary) => {
                    let status = if install_error.refused {
                        LanguageServerInstallationStatus::Failed(format!(
                            "Weft keeps the installed `{BINARY_NAME}` ({}): {}",
                            binary.display(),
                            install_error.message
                        ))
                    } else {
                        LanguageServerInstallationStatus::None
                    };
                    report(server, status);
                    binary
                }
                None => {
                    let message = format!(
                        "Weft could not download the `{BINARY_NAME}` binary ({}), \
                         and no earlier download is installed. {HOW_TO_CONFIGURE}",
                        install_error.message
                    );
                    report(
                        server,
                        LanguageServerInstallationStatus::Failed(message.clone()),
                    );
                    return Err(message);
                }
            },
        };
        let binary = absolute(&binary);
        self.binary = Some(binary.clone());
        Ok(binary)
    }
}

/// Checks the latest release, downloads its asset for this platform unless
/// that version is already unpacked (refusing it unless it matches the
/// release's `SHA256SUMS`), and removes every other version. Returns the
/// binary's path relative to the work directory.
fn install_latest(server: Option<&LanguageServerId>) -> std::result::Result<PathBuf, InstallError> {
    report(server, LanguageServerInstallationStatus::CheckingForUpdate);
    let release = zed::latest_github_release(
        release::REPOSITORY,
        GithubReleaseOptions {
            require_assets: true,
            pre_release: false,
        },
    )
    .map_err(|error| format!("checking the latest release failed: {error}"))?;
    let (os, arch) = zed::current_platform();
    let version = release::version_of(&release.version);
    let asset_name = release::asset_name(version, os, arch)?;
    let asset = release
        .assets
        .iter()
        .find(|asset| asset.name == asset_name)
        .ok_or_else(|| format!("release {} has no asset {asset_name}", release.version))?;

    let version_dir = release::version_dir(version);
    let binary = Path::new(&version_dir).join(release::binary_name(os));
    if !binary.is_file() {
        let sums = release
            .assets
            .iter()
            .find(|asset| asset.name == verify::SUMS_ASSET)
            .ok_or_else(|| InstallError {
                message: format!(
                    "release {} publishes no {}, so its `{BINARY_NAME}` cannot be checked and is \
                     not installed",
                    release.version,
                    verify::SUMS_ASSET
                ),
                refused: true,
            })?;
        report(server, LanguageServerInstallationStatus::Downloading);
        let downloaded = download(
            &sums.download_url,
            &asset.download_url,
            &asset_name,
            os,
            &version_dir,
            &binary,
        );
        if let Err(error) = downloaded {
            // A half-written folder would pass for an installed version.
            fs::remove_dir_all(&version_dir).ok();
            return Err(InstallError {
                refused: error.refused,
                message: format!("downloading {asset_name} failed: {}", error.message),
            });
        }
    }
    remove_versions_except(&version_dir);
    report(server, LanguageServerInstallationStatus::None);
    Ok(binary)
}

/// Where the release's checksums and archive are downloaded before they
/// are checked (hidden, and never taken for an installed version).
const SUMS_FILE: &str = ".weft-download.sums";
const ARCHIVE_FILE: &str = ".weft-download.archive";

/// Downloads the release's `SHA256SUMS` and the archive `asset` as they
/// are, checks the archive against them, and writes the binary inside to
/// `binary` in `version_dir`, executable.
fn download(
    sums_url: &str,
    url: &str,
    asset: &str,
    os: zed::Os,
    version_dir: &str,
    binary: &Path,
) -> std::result::Result<(), InstallError> {
    let fetched = (|| -> std::result::Result<(), InstallError> {
        zed::download_file(sums_url, SUMS_FILE, DownloadedFileType::Uncompressed)
            .map_err(|e| format!("{}: {e}", verify::SUMS_ASSET))?;
        let sums =
            fs::read_to_string(SUMS_FILE).map_err(|e| format!("{}: {e}", verify::SUMS_ASSET))?;
        zed::download_file(url, ARCHIVE_FILE, DownloadedFileType::Uncompressed)?;
        verify::check(Path::new(ARCHIVE_FILE), &sums, asset).map_err(|message| InstallError {
            message,
            refused: true,
        })?;
        fs::create_dir_all(version_dir).map_err(|e| format!("{version_dir}: {e}"))?;
        verify::unpack_binary(
            Path::new(ARCHIVE_FILE),
            os,
            release::binary_name(os),
            binary,
        )?;
        Ok(())
    })();
    fs::remove_file(SUMS_FILE).ok();
    fs::remove_file(ARCHIVE_FILE).ok();
    fetched?;
    let binary = binary
        .to_str()
        .ok_or_else(|| format!("{} is not UTF-8", binary.display()))?;
    Ok(zed::make_file_executable(binary)?)
}

/// Removes downloaded versions other than `keep` (only `weft-*` folders:
/// nothing else in the work directory is ours to delete).
fn remove_versions_except(keep: &str) {
    for (name, path) in installed_versions() {
        if name != keep {
            fs::remove_dir_all(path).ok();
        }
    }
}

/// The newest version unpacked in the work directory that holds a binary.
fn newest_installed() -> Option<PathBuf> {
    let (os, _) = zed::current_platform();
    installed_versions()
        .into_iter()
        .map(|(name, dir)| (version_key(&name), dir.join(release::binary_name(os))))
        .filter(|(_, binary)| binary.is_file())
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, binary)| binary)
}

/// The `weft-*` folders in the work directory, by name.
fn installed_versions() -> Vec<(String, PathBuf)> {
    let Ok(entries) = fs::read_dir(".") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            name.starts_with(release::PREFIX)
                .then(|| (name, PathBuf::from(entry.file_name())))
        })
        .collect()
}

/// Orders `weft-0.10.0` after `weft-0.9.3`: the numbers of the version, in
/// order (a part that is not a number counts as 0).
fn version_key(dir_name: &str) -> Vec<u64> {
    dir_name
        .trim_start_matches(release::PREFIX)
        .split(['.', '-', '+'])
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// `path` inside the work directory as an absolute path (the current
/// directory is the work directory); `path` itself if that is unknown.
fn absolute(path: &Path) -> String {
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

fn report(server: Option<&LanguageServerId>, status: LanguageServerInstallationStatus) {
    if let Some(server) = server {
        zed::set_language_server_installation_status(server, &status);
    }
}
