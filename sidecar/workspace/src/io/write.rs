//! Writing into the vault safely: validated vault paths (nothing escapes
//! the vault) and atomic replacement (temp file in the same folder, fsync,
//! rename, fsync of the folder), so a crash leaves the old or the new note,
//! never a torn one. Knows nothing of the index or of any protocol.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a path given by a caller cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    Empty,
    Nul,
    Absolute(String),
    ParentDir(String),
    Hidden(String),
    Reserved(String),
    /// Through a symbolic link that leads out of the vault.
    Escapes(String),
    /// More folders deep, or longer, than a vault path may be.
    TooLong(String),
}

/// The most folders a vault path may name (the note included).
pub(crate) const MAX_PATH_PARTS: usize = 64;
/// The longest vault path, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 1024;
/// The longest file or folder name, in bytes (Linux, macOS and Windows
/// file systems allow no more).
pub(crate) const MAX_NAME_BYTES: usize = 255;

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => {
                f.write_str("the path is empty; give a vault path such as `folder/note`")
            }
            PathError::Nul => f.write_str("the path contains a NUL byte"),
            PathError::Absolute(p) => {
                write!(
                    f,
                    "`{p}` is absolute; give a path relative to the vault root, such as `folder/note`"
                )
            }
            PathError::ParentDir(p) => {
                write!(f, "`{p}` uses `..`; paths must stay inside the vault")
            }
            PathError::Hidden(p) => write!(
                f,
                "`{p}` is in a hidden file or folder (a name starting with `.`), which is not part of the vault"
            ),
            PathError::Reserved(p) => write!(
                f,
                "`{p}` uses a name that is reserved on Windows (CON, NUL, COM1, …)"
            ),
            PathError::Escapes(p) => {
                write!(f, "`{p}` leads out of the vault through a symbolic link")
            }
            PathError::TooLong(p) => write!(
                f,
                "`{}` is too long: a vault path has at most {MAX_PATH_PARTS} parts and \
                 {MAX_PATH_BYTES} bytes, and each name in it at most {MAX_NAME_BYTES} bytes \
                 (`.md` included); choose a shorter name",
                p.chars().take(80).collect::<String>()
            ),
        }
    }
}

impl std::error::Error for PathError {}

/// Checks a vault path from a caller and returns it normalised (`/`
/// separators, no `.` parts, no leading or trailing slash) with the
/// absolute path it names. The file need not exist.
pub(crate) fn checked_path(root: &Path, input: &str) -> Result<(String, PathBuf), PathError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(PathError::Empty);
    }
    if trimmed.contains('\0') {
        return Err(PathError::Nul);
    }
    let unified = trimmed.replace('\\', "/");
    if unified.starts_with('/') || Path::new(trimmed).is_absolute() || has_drive(&unified) {
        return Err(PathError::Absolute(trimmed.to_string()));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(PathError::ParentDir(trimmed.to_string())),
            p if p.starts_with('.') => return Err(PathError::Hidden(trimmed.to_string())),
            p if is_reserved(p) => return Err(PathError::Reserved(trimmed.to_string())),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathError::Empty);
    }
    // Folders are made (and emptied ones removed) one level at a time.
    if parts.len() > MAX_PATH_PARTS
        || unified.len() > MAX_PATH_BYTES
        || parts.iter().any(|p| p.len() > MAX_NAME_BYTES)
    {
        return Err(PathError::TooLong(trimmed.to_string()));
    }
    let rel = parts.join("/");
    let abs = root.join(&rel);
    // The deepest existing ancestor must resolve inside the vault.
    let mut probe: &Path = &abs;
    loop {
        if let Ok(real) = probe.canonicalize() {
            let root_real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            if !real.starts_with(&root_real) {
                return Err(PathError::Escapes(trimmed.to_string()));
            }
            break;
        }
        match probe.parent() {
            Some(parent) if parent.starts_with(root) => probe = parent,
            _ => break,
        }
    }
    Ok((rel, abs))
}

fn has_drive(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

fn is_reserved(part: &str) -> bool {
    let stem = part
        .split('.')
        .next()
        .unwrap_or(part)
        .trim_end()
        .to_ascii_uppercase();
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit()
            && stem.as_bytes()[3] != b'0')
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The temporary file [`write_atomic`] writes `name` through, as written by
/// process `pid`: `.{name}.weft-{pid}-{n}.tmp`, `name` cut (at a character)
/// to keep it within [`MAX_NAME_BYTES`], so that a note whose name is as
/// long as file systems allow can be written too.
fn temp_name(name: &str, pid: u32, n: u64) -> String {
    let tag = format!(".weft-{pid}-{n}.tmp");
    let mut keep = name.len().min(MAX_NAME_BYTES - 1 - tag.len());
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    format!(".{}{tag}", &name[..keep])
}

/// The writer's pid when `file_name` is exactly one of [`write_atomic`]'s
/// temporary files (`.{name}.weft-{pid}-{n}.tmp`, `name` not empty, `pid`
/// and `n` decimal); `None` for anything else, so a user's file is never
/// taken for one.
pub(crate) fn weft_temp_pid(file_name: &str) -> Option<u32> {
    let inner = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (name, tag) = inner.rsplit_once(".weft-")?;
    let (pid, n) = tag.split_once('-')?;
    let decimal = |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    if name.is_empty() || !decimal(pid) || !decimal(n) {
        return None;
    }
    let pid: u32 = pid.parse().ok()?;
    let n: u64 = n.parse().ok()?;
    // Exactly as written (no leading zeros, nothing else).
    (temp_name(name, pid, n) == file_name).then_some(pid)
}

/// Whether a process with this pid runs now (signal 0 reaches it, or it
/// exists but is not ours) and is not a zombie: a writer killed mid-write
/// stays one until its parent reaps it, which may be long after a new
/// daemon looked at what it left.
fn alive(pid: u32) -> bool {
    #[cfg(target_os = "linux")]
    if zombie(pid) {
        return false;
    }
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: kill with signal 0 sends nothing; it only checks the pid.
        let result = unsafe { libc::kill(pid, 0) };
        result == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Whether every thread of process `pid` has ended (is a zombie); `false`
/// when it cannot tell.
#[cfg(target_os = "linux")]
fn zombie(pid: u32) -> bool {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let mut any = false;
    for task in tasks.flatten() {
        let Ok(stat) = fs::read_to_string(task.path().join("stat")) else {
            return false;
        };
        // The name may hold spaces and parentheses: the state follows the last `)`.
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next());
        if !matches!(state, Some('Z' | 'X')) {
            return false;
        }
        any = true;
    }
    any
}

/// Removes `path` when it is one of [`write_atomic`]'s temporary files left
/// by a writer that is gone (a crash mid-write): never a user's file, never
/// one a live Weft is writing. Returns whether it removed it.
pub(crate) fn remove_stale_temp(path: &Path) -> bool {
    let Some(pid) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(weft_temp_pid)
    else {
        return false;
    };
    if pid == std::process::id() || alive(pid) {
        return false;
    }
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => {}
        _ => return false,
    }
    match fs::remove_file(path) {
        Ok(()) => {
            tracing::info!("removed {}, left by an interrupted write", path.display());
            true
        }
        Err(e) => {
            tracing::debug!("cannot remove {}: {e}", path.display());
            false
        }
    }
}

/// Makes `dir` and the folders between it and `vault_root`, one at a time,
/// but never `vault_root` itself (nor what is above it): a vault deleted
/// while served is not made again. A `dir` outside the vault is made with
/// its parents.
pub(crate) fn make_below(vault_root: &Path, dir: &Path) -> std::io::Result<()> {
    let Ok(rel) = dir.strip_prefix(vault_root) else {
        return fs::create_dir_all(dir);
    };
    let mut at = vault_root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match fs::create_dir(&at) {
            Err(e) if !(e.kind() == std::io::ErrorKind::AlreadyExists && at.is_dir()) => {
                return Err(e);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Replaces (or creates) `path` with `bytes` atomically. Parent folders are
/// created. An existing file keeps its permissions. The temporary file is a
/// dot-file in the same folder (so it is never indexed) and is removed if
/// anything fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent folder"))?;
    fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("note");
    let tmp = dir.join(temp_name(
        name,
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed),
    ));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Moves `from` to `to` (same file system), creating `to`'s folders; fails
/// rather than replace an existing `to`. The rename is not durable yet:
/// returns the folders that changed, for the caller to sync once a run of
/// moves is done ([`sync_dirs`]), so that each folder is synced once, not
/// once per file.
pub(crate) fn move_unsynced(from: &Path, to: &Path) -> io::Result<Vec<PathBuf>> {
    if to.symlink_metadata().is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", to.display()),
        ));
    }
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::rename(from, to)?;
    Ok([from.parent(), to.parent()]
        .into_iter()
        .flatten()
        .map(Path::to_path_buf)
        .collect())
}

/// Makes renames in `dirs` durable: each folder once, all of them together
/// (on the IO pool); best effort, like [`sync_dir`].
pub(crate) fn sync_dirs(dirs: impl IntoIterator<Item = PathBuf>) {
    let mut dirs: Vec<PathBuf> = dirs.into_iter().collect();
    dirs.sort();
    dirs.dedup();
    super::pool::map(&dirs, |dir| sync_dir(dir));
}

/// Makes a rename durable; best effort where folders cannot be opened.
fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a write interrupted by a crash left its temporary file
    /// beside the note for ever.
    #[test]
    fn stale_temp_files_of_dead_writers_are_recognised_and_removed() {
        assert_eq!(weft_temp_pid(".a b.md.weft-123-7.tmp"), Some(123));
        // A name as long as file systems allow is cut in its temporary
        // file's name, which is still known for one.
        let long = format!("{}.md", "é".repeat(126));
        let temp = temp_name(&long, u32::MAX, u64::MAX);
        assert!(temp.len() <= MAX_NAME_BYTES, "{temp}");
        assert_eq!(weft_temp_pid(&temp), Some(u32::MAX));
        let dir = tempfile::tempdir().unwrap();
        write_atomic(&dir.path().join(&long), b"long").unwrap();
        assert_eq!(fs::read(dir.path().join(&long)).unwrap(), b"long");
        assert_eq!(weft_temp_pid(".x.weft-1.md.weft-9-0.tmp"), Some(9));
        for not_ours in [
            "a.md.weft-123-7.tmp",
            ".a.md.weft-123-7.tmp.bak",
            "..weft-123-7.tmp",
            ".a.md.weft-12x-7.tmp",
            ".a.md.weft-0123-7.tmp",
            ".a.md.weft-123-.tmp",
            ".a.md.weft--7.tmp",
            ".a.md.tmp",
            ".notes.tmp",
        ] {
            assert_eq!(weft_temp_pid(not_ours), None, "{not_ours}");
        }
        let dir = tempfile::tempdir().unwrap();
        // A pid that cannot be running: beyond any pid_max.
        let dead = dir.path().join(".n.md.weft-4294967290-3.tmp");
        let mine = dir.path().join(temp_name("n.md", std::process::id(), 4));
        let users = dir.path().join(".n.md.tmp");
        let folder = dir.path().join(".f.md.weft-4294967290-5.tmp");
        for file in [&dead, &mine, &users] {
            fs::write(file, "x").unwrap();
        }
        fs::create_dir(&folder).unwrap();
        assert!(remove_stale_temp(&dead));
        assert!(!dead.exists());
        assert!(
            !remove_stale_temp(&mine) && mine.exists(),
            "a live writer's"
        );
        assert!(!remove_stale_temp(&users) && users.exists(), "not Weft's");
        assert!(!remove_stale_temp(&folder) && folder.exists(), "not a file");
    }

    /// Regression: a daemon killed mid-write stays a zombie until its
    /// parent reaps it; the daemon started in its place took it for a live
    /// writer and kept its temporary file for ever.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_writer_is_dead() {
        let mut child = std::process::Command::new("true")
            .spawn()
            .expect("run true");
        let pid = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !zombie(pid) {
            assert!(std::time::Instant::now() < deadline, "never a zombie");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let dir = tempfile::tempdir().unwrap();
        let left = dir.path().join(temp_name("n.md", pid, 1));
        fs::write(&left, "x").unwrap();
        assert!(remove_stale_temp(&left), "the zombie's file goes");
        assert!(!left.exists());
        assert!(!zombie(std::process::id()), "this process lives");
        child.wait().expect("reaped");
    }

    #[test]
    fn paths_are_checked_before_anything_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(checked_path(root, " a/./b\\c.md ").unwrap().0, "a/b/c.md");
        for (input, word) in [
            ("", "empty"),
            ("/etc/passwd", "absolute"),
            ("C:/x.md", "absolute"),
            ("a/../../x", "`..`"),
            (".obsidian/x.md", "hidden"),
            ("a/.git/config", "hidden"),
            ("notes/CON.md", "reserved"),
            ("lpt1", "reserved"),
            ("a\0b", "NUL"),
        ] {
            let error = checked_path(root, input).unwrap_err().to_string();
            assert!(error.contains(word), "{input:?}: {error}");
        }
        // Bounded before any folder is made for it.
        let deep = format!("{}n.md", "a/".repeat(MAX_PATH_PARTS));
        let error = checked_path(root, &deep).unwrap_err().to_string();
        assert!(error.contains("too long"), "{error}");
        let long = format!("{}.md", "x".repeat(MAX_PATH_BYTES));
        assert!(matches!(
            checked_path(root, &long),
            Err(PathError::TooLong(_))
        ));
        let fine = format!("{}n.md", "a/".repeat(MAX_PATH_PARTS - 1));
        assert!(checked_path(root, &fine).is_ok());
        // A name as long as file systems allow, and one byte more.
        let name = format!("{}.md", "é".repeat((MAX_NAME_BYTES - 3) / 2));
        assert!(checked_path(root, &format!("a/{name}")).is_ok());
        let error = checked_path(root, &format!("a/x{name}"))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("each name in it at most 255 bytes"),
            "{error}"
        );
        assert!(checked_path(root, "console.md").is_ok());
        assert!(checked_path(root, "COM0.md").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_vault_are_refused() {
        let vault = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), vault.path().join("out")).unwrap();
        let error = checked_path(vault.path(), "out/new/note.md").unwrap_err();
        assert!(matches!(error, PathError::Escapes(_)), "{error}");
        std::fs::create_dir(vault.path().join("inside")).unwrap();
        std::os::unix::fs::symlink(vault.path().join("inside"), vault.path().join("alias"))
            .unwrap();
        assert!(checked_path(vault.path(), "alias/note.md").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_replaces_keeps_permissions_and_leaves_no_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/note.md");
        write_atomic(&path, b"one").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let names: Vec<_> = fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["note.md"]);
    }

    #[test]
    fn move_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.md"), dir.path().join("x/b.md"));
        fs::write(&a, "a").unwrap();
        sync_dirs(move_unsynced(&a, &b).unwrap());
        assert_eq!(fs::read_to_string(&b).unwrap(), "a");
        fs::write(&a, "new a").unwrap();
        assert_eq!(
            move_unsynced(&a, &b).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read_to_string(&b).unwrap(), "a");
    }

    /// Regression: the store's folders were made with their parents, so a
    /// vault deleted while its history store opened came back (with a note
    /// an agent then wrote into it).
    #[test]
    fn folders_are_made_below_the_vault_but_never_the_vault() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        std::fs::create_dir(&root).unwrap();
        let store = root.join(".weft").join("history");
        make_below(&root, &store).unwrap();
        assert!(store.is_dir());
        make_below(&root, &store).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert!(make_below(&root, &store).is_err());
        assert!(!root.exists(), "the deleted vault is made again");
        let outside = dir.path().join("elsewhere").join("deep");
        make_below(&root, &outside).unwrap();
        assert!(outside.is_dir());
    }
}
