//! Where a vault's daemon lives: a private runtime folder (mode 0700, ours)
//! and, in it, a socket named from Weft's version, the build of the running
//! binary and the vault's canonical path, so two versions (or two builds)
//! never talk to each other, with its lock, pid and log files beside it.

use std::fmt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Socket paths stay shorter than this (`sun_path` is 104 bytes on macOS,
/// 108 on Linux, NUL included).
const MAX_SOCKET_PATH: usize = 100;
/// The vault's hash in the name: 16 hex digits, down to 8 in a long folder.
const VAULT_HASH: std::ops::RangeInclusive<usize> = 8..=16;

/// The files of one vault's daemon.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub socket: PathBuf,
    pub lock: PathBuf,
    pub pid: PathBuf,
    pub log: PathBuf,
    /// The vault's hash in the names, as long as the folder left room for.
    vault_hash: String,
}

/// Why no daemon can be used (the face then runs in-process).
#[derive(Debug, Clone)]
pub struct PlaceError(pub String);

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Place {
    /// The place of `vault`'s daemon (canonical path) for this build, in
    /// `dir`, which is made private if it does not exist.
    pub fn new(dir: &Path, vault: &Path, build: &str) -> Result<Place, PlaceError> {
        private_dir(dir)?;
        Place::at(dir, vault, build)
    }

    /// Where `vault`'s daemon of `build` keeps its files in `dir`, making
    /// nothing.
    pub fn at(dir: &Path, vault: &Path, build: &str) -> Result<Place, PlaceError> {
        let digest = Sha256::digest(vault.as_os_str().as_encoded_bytes());
        let mut vault_hash: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        // `<dir>/weft-<build>-<hash>.sock`: what is left for the hash.
        let fixed = dir.as_os_str().len() + "/weft-".len() + build.len() + "-.sock".len();
        let room = MAX_SOCKET_PATH.saturating_sub(fixed + 1);
        vault_hash.truncate(room.clamp(*VAULT_HASH.start(), *VAULT_HASH.end()));
        let stem = dir.join(format!("weft-{build}-{vault_hash}"));
        let with = |ext: &str| {
            let mut path = stem.clone().into_os_string();
            path.push(ext);
            PathBuf::from(path)
        };
        let socket = with(".sock");
        if socket.as_os_str().len() >= MAX_SOCKET_PATH {
            return Err(PlaceError(format!(
                "the daemon's socket path would be too long ({}); set WEFT_RUNTIME_DIR to a shorter folder",
                socket.display()
            )));
        }
        Ok(Place {
            socket,
            lock: with(".lock"),
            pid: with(".pid"),
            log: with(".log"),
            vault_hash,
        })
    }

    /// The sockets in `dir` of other builds' daemons for the same vault,
    /// with each one's build. Their hash may be longer or shorter than
    /// ours (the room a build's name leaves), so one is a prefix of the
    /// other.
    pub fn other_builds(&self, dir: &Path) -> Vec<(String, PathBuf)> {
        let ours = self.socket.file_name();
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name();
                let middle = name
                    .to_str()?
                    .strip_prefix("weft-")?
                    .strip_suffix(".sock")?;
                let (build, hash) = middle.rsplit_once('-')?;
                let same_vault =
                    hash.starts_with(&self.vault_hash) || self.vault_hash.starts_with(hash);
                (Some(name.as_os_str()) != ours && same_vault)
                    .then(|| (build.to_string(), entry.path()))
            })
            .collect()
    }
}

/// The runtime folder: `$WEFT_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/weft`,
/// else `/tmp/weft-<uid>`.
pub fn runtime_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("WEFT_RUNTIME_DIR") {
        let dir = PathBuf::from(dir);
        return match std::env::current_dir() {
            Ok(cwd) if dir.is_relative() => cwd.join(dir),
            _ => dir,
        };
    }
    if let Some(dir) = var("XDG_RUNTIME_DIR") {
        return PathBuf::from(dir).join("weft");
    }
    std::env::temp_dir().join(format!("weft-{}", uid()))
}

/// This process's user id.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// Makes `dir` (mode 0700) unless it exists; refuses one that is not a
/// folder, not ours, or open to others.
fn private_dir(dir: &Path) -> Result<(), PlaceError> {
    if !dir.exists() {
        make_private(dir)?;
    }
    check_private(dir)
}

fn make_private(dir: &Path) -> Result<(), PlaceError> {
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| PlaceError(format!("cannot make {}: {e}", dir.display())))?;
        // Parents made on the way keep the umask; the folder itself is ours.
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| PlaceError(format!("cannot protect {}: {e}", dir.display())))?;
    }
    Ok(())
}

/// Whether `dir` is a folder of this user's that others cannot open: the
/// sentence that says what is wrong and what to do, if not.
pub fn check_private(dir: &Path) -> Result<(), PlaceError> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| PlaceError(format!("cannot read {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(PlaceError(format!("{} is not a folder", dir.display())));
    }
    if meta.uid() != uid() {
        return Err(PlaceError(format!(
            "{} belongs to another user; set WEFT_RUNTIME_DIR to a folder of your own",
            dir.display()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(PlaceError(format!(
            "{} is open to other users (mode {:o}); make it private (chmod 700) or set WEFT_RUNTIME_DIR",
            dir.display(),
            meta.mode() & 0o777
        )));
    }
    Ok(())
}

/// The running binary's build: Weft's version and a short hash of the
/// executable's size and modification time (a rebuilt or another copy of
/// `weft` gets a daemon of its own).
pub fn build_tag() -> String {
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    let (len, mtime) = match exe {
        Ok(meta) => (meta.len(), (meta.mtime(), meta.mtime_nsec())),
        Err(_) => (0, (0, 0)),
    };
    let digest = Sha256::digest(format!("{len}:{}:{}", mtime.0, mtime.1));
    let short: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{short}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differ_by_vault_and_build_and_stay_short() {
        let run = tempfile::tempdir().unwrap();
        let dir = run.path().join("weft");
        let a = Place::new(&dir, Path::new("/notes/a"), "0.1.0-aaaa").unwrap();
        assert_eq!(
            a,
            Place::new(&dir, Path::new("/notes/a"), "0.1.0-aaaa").unwrap()
        );
        assert_ne!(
            a.socket,
            Place::new(&dir, Path::new("/notes/b"), "0.1.0-aaaa")
                .unwrap()
                .socket
        );
        assert_ne!(
            a.socket,
            Place::new(&dir, Path::new("/notes/a"), "0.1.1-aaaa")
                .unwrap()
                .socket
        );
        assert!(a.socket.to_string_lossy().ends_with(".sock"));
        let mode = std::fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let name = a.socket.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name.len(), "weft-0.1.0-aaaa-".len() + 16 + ".sock".len());
        // A long folder gets a shorter hash, and still one per vault …
        // A folder of 65 bytes leaves 12 hex digits.
        let long = run
            .path()
            .join("x".repeat(64usize.saturating_sub(run.path().as_os_str().len())));
        let (a, b) = (
            Place::new(&long, Path::new("/notes/a"), "0.1.0-aaaa").unwrap(),
            Place::new(&long, Path::new("/notes/b"), "0.1.0-aaaa").unwrap(),
        );
        assert!(a.socket.as_os_str().len() < MAX_SOCKET_PATH, "{a:?}");
        if long.as_os_str().len() == 65 {
            assert_eq!(a.socket.as_os_str().len(), 99, "{a:?}");
        }
        assert_ne!(a.socket, b.socket);
        // … down to a point.
        let longer = run.path().join("x".repeat(90));
        assert!(Place::new(&longer, Path::new("/v"), "0.1.0-aaaa").is_err());
    }

    #[test]
    fn a_folder_open_to_others_is_refused() {
        let run = tempfile::tempdir().unwrap();
        let dir = run.path().join("open");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = Place::new(&dir, Path::new("/v"), "t").unwrap_err();
        assert!(error.0.contains("open to other users"), "{error}");
        let file = run.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert!(Place::new(&file, Path::new("/v"), "t").is_err());
    }

    #[test]
    fn the_build_tag_names_the_version() {
        assert!(build_tag().starts_with(concat!(env!("CARGO_PKG_VERSION"), "-")));
        assert_eq!(build_tag(), build_tag());
    }
}
