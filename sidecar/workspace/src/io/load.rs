//! Loading a vault from disk: walk the folder (skipping what [`PathFilter`]
//! skips), read and parse every Markdown file in parallel, list every other
//! file as an attachment.
//!
//! This is the only place that turns files into [`Note`]s. It must not know
//! the index (callers insert what it returns) or any protocol, and it never
//! panics on what it finds on disk: problems become [`Scan::errors`].

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::{DirEntry, WalkBuilder};
use rayon::prelude::*;

use super::filter::{PathFilter, relative_path, unsafe_ignore_file};
use super::snapshot::{Stamp, now_ns};
use super::write::weft_temp_pid;
use crate::config::{CONFIG_FILE, Config};
use crate::sync::lock;
use weft_vault::note::is_note_path;
use weft_vault::{MAX_NOTE_BYTES, Note, parse_file};

/// What a scan found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every note, sorted by path.
    pub notes: Vec<Note>,
    /// Vault paths of every other file, sorted.
    pub attachments: Vec<String>,
    /// (vault path, what went wrong and what to do), for what was skipped.
    pub errors: Vec<(String, String)>,
    /// Markdown bytes read.
    pub bytes: u64,
}

/// Scans the vault at `root`: every note parsed, every attachment listed.
pub fn scan(root: &Path, config: &Config) -> Scan {
    scan_with(&PathFilter::new(root, config))
}

/// [`scan`] with a filter built before (its root is the vault root).
pub(crate) fn scan_with(filter: &PathFilter) -> Scan {
    let found = walk(filter, filter.root());
    let mut scan = read_notes(found.notes).into_scan();
    scan.attachments = found.attachments;
    scan.errors.extend(found.errors);
    scan.errors.extend(exclude_problems(filter));
    scan.errors.sort();
    scan
}

/// The `exclude` patterns that were skipped, as errors of the configuration.
pub(crate) fn exclude_problems(filter: &PathFilter) -> Vec<(String, String)> {
    filter
        .problems()
        .iter()
        .map(|(glob, message)| {
            (
                CONFIG_FILE.to_string(),
                format!("exclude pattern `{glob}` skipped: {message}"),
            )
        })
        .collect()
}

/// The files a walk found, not read yet.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// (vault path, path to read), sorted by vault path.
    pub notes: Vec<(String, PathBuf)>,
    /// Sorted vault paths.
    pub attachments: Vec<String>,
    pub errors: Vec<(String, String)>,
    /// Temporary files of Weft's atomic writes seen on the way (never
    /// indexed; see [`crate::io::remove_stale_temp`]).
    pub temps: Vec<PathBuf>,
}

/// Lists the notes and attachments in `dir` (the vault root or a folder in
/// it that is not itself excluded), by the same rules as a full scan.
pub(crate) fn walk(filter: &PathFilter, dir: &Path) -> Found {
    let root = filter.root();
    // Dot-files are skipped in `filter_entry` rather than by the walker, so
    // that Weft's own temporary files are seen on the way.
    let temps: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let seen = temps.clone();
    let note_temp = move |entry: &DirEntry| {
        if is_dot(entry)
            && entry.file_type().is_some_and(|t| t.is_file())
            && entry.file_name().to_str().and_then(weft_temp_pid).is_some()
        {
            lock(&seen).push(entry.path().to_path_buf());
        }
    };
    let mut builder = WalkBuilder::new(dir);
    builder
        .follow_links(false)
        .parents(false)
        .git_global(false)
        .git_exclude(false);
    // Folders whose ignore files the walker must not read (a line the glob
    // compiler cannot take safely) are walked after, by the filter, which
    // reads them leaving such lines out.
    let deferred: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
    let mut unusable = Vec::new();
    if dir == root
        && let Some(problem) = unsafe_ignore_file(root)
    {
        unusable.push(problem);
    }
    if dir == root && unusable.is_empty() {
        // The whole vault: `ignore` reads the ignore files as it descends.
        let deferred = deferred.clone();
        builder
            .hidden(false)
            .ignore(true)
            .git_ignore(true)
            .require_git(false)
            .overrides(filter.overrides().clone())
            // Also: a `!pattern` in an ignore file could re-include a dot-file.
            .filter_entry(move |entry| {
                note_temp(entry);
                if entry.depth() == 0 {
                    return true;
                }
                if is_dot(entry) {
                    return false;
                }
                if entry.file_type().is_some_and(|t| t.is_dir())
                    && unsafe_ignore_file(entry.path()).is_some()
                {
                    lock(&deferred).push(entry.path().to_path_buf());
                    return false;
                }
                true
            });
    } else {
        // A folder (or a vault whose own ignore file the walker must not
        // read): the rules of the folders above it apply too, so the filter
        // decides everything.
        let filter = filter.clone();
        builder.standard_filters(false).filter_entry(move |entry| {
            note_temp(entry);
            entry.depth() == 0 || {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                relative_path(filter.root(), entry.path())
                    .is_some_and(|rel| !filter.is_excluded_as(&rel, is_dir))
            }
        });
    }
    // Sequential: on two cores a parallel walk measured slower, and the
    // parse that follows uses every core anyway.
    let mut found = Found::default();
    for item in builder.build().filter_map(|result| visit(filter, result)) {
        match item {
            Item::Note(rel, path) => found.notes.push((rel, path)),
            Item::Attachment(rel) => found.attachments.push(rel),
            Item::Error(rel, message) => found.errors.push((rel, message)),
        }
    }
    found.temps = std::mem::take(&mut *lock(&temps));
    for folder in std::mem::take(&mut *lock(&deferred)) {
        // Not excluded (the walker reached it): everything the filter keeps.
        let sub = walk(filter, &folder);
        found.notes.extend(sub.notes);
        found.attachments.extend(sub.attachments);
        found.errors.extend(sub.errors);
        found.temps.extend(sub.temps);
        unusable.extend(unsafe_ignore_file(&folder));
    }
    for (file, line, problem) in unusable {
        found.errors.push((
            relative_path(root, &file).unwrap_or_default(),
            format!("line {line} is not used: {problem}; fix or remove it"),
        ));
    }
    found.notes.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    found.attachments.sort_unstable();
    found.errors.sort();
    found
}

/// One thing the walk found.
enum Item {
    /// (vault path, path to read)
    Note(String, PathBuf),
    Attachment(String),
    Error(String, String),
}

fn visit(filter: &PathFilter, result: Result<DirEntry, ignore::Error>) -> Option<Item> {
    let root = filter.root();
    let entry = match result {
        Ok(entry) => entry,
        Err(error) => {
            let (rel, message) = walk_error(root, &error);
            return Some(Item::Error(rel, message));
        }
    };
    if entry.depth() == 0 {
        return None;
    }
    let file_type = entry.file_type()?;
    let path = entry.path();
    let Some(rel) = relative_path(root, path) else {
        return Some(Item::Error(
            path.to_string_lossy().into_owned(),
            "the name is not valid UTF-8, so Weft skips it; rename it".into(),
        ));
    };
    let read_from = if file_type.is_file() {
        entry.into_path()
    } else if file_type.is_symlink() {
        filter.symlink_file_in_vault(path)?
    } else {
        return None;
    };
    Some(if is_note_path(&rel) {
        Item::Note(rel, read_from)
    } else {
        Item::Attachment(rel)
    })
}

fn is_dot(entry: &DirEntry) -> bool {
    entry.file_name().as_encoded_bytes().first() == Some(&b'.')
}

/// A parsed note with the stamp of the file it was read from; `Err(None)`:
/// the file does not exist (any more); `Err(Some(..))`: (vault path, why
/// it could not be read).
type ReadResult = Result<(Note, Stamp), Option<(String, String)>>;

/// Notes read from disk, each with its file's stamp.
#[derive(Default)]
pub(crate) struct Read {
    pub notes: Vec<(Note, Stamp)>,
    pub errors: Vec<(String, String)>,
    pub bytes: u64,
}

impl Read {
    /// The notes alone, as a [`Scan`] holds them.
    pub(crate) fn into_scan(self) -> Scan {
        Scan {
            notes: self.notes.into_iter().map(|(note, _)| note).collect(),
            attachments: Vec::new(),
            errors: self.errors,
            bytes: self.bytes,
        }
    }
}

/// Reads and parses notes in parallel on all cores. A file that vanished
/// since it was listed is skipped silently; other failures become errors.
pub(crate) fn read_notes(notes: Vec<(String, PathBuf)>) -> Read {
    let results: Vec<ReadResult> = notes
        .into_par_iter()
        .map(|(rel, path)| read_note(&rel, &path))
        .collect();
    let mut read = Read::default();
    read.notes.reserve(results.len());
    for result in results {
        match result {
            Ok((note, stamp)) => {
                read.bytes += stamp.size;
                read.notes.push((note, stamp));
            }
            Err(Some(error)) => read.errors.push(error),
            Err(None) => {}
        }
    }
    read
}

/// Reads and parses one note, with the stamp of the file as read: its
/// metadata is taken before and after the read, so a write in between
/// leaves the stamp racy (compared by content on the next start).
pub(crate) fn read_note(rel: &str, path: &Path) -> ReadResult {
    let failed = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => None,
        _ => Some((rel.to_string(), read_error_message(&e))),
    };
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let before = file.metadata().map_err(failed)?;
    // At most what is indexed of a note: a huge file is read only so far.
    let mut bytes = Vec::with_capacity(before.len().min(MAX_NOTE_BYTES) as usize);
    (&mut file)
        .take(MAX_NOTE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(failed)?;
    let after = file.metadata().map_err(failed)?;
    let stamp = Stamp::of(&before, &after, now_ns());
    Ok((parse_file(rel, &bytes, after.len()), stamp))
}

pub(crate) fn read_error_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => format!(
            "cannot read the note: {e}; give your user read permission, or add it to `exclude` in {CONFIG_FILE}"
        ),
        std::io::ErrorKind::IsADirectory => {
            format!(
                "a folder named like a note: {e}; rename it or add it to `exclude` in {CONFIG_FILE}"
            )
        }
        _ => format!(
            "cannot read the note: {e}; check the file, or add it to `exclude` in {CONFIG_FILE}"
        ),
    }
}

/// An error of the walk as (vault path, actionable message).
fn walk_error(root: &Path, error: &ignore::Error) -> (String, String) {
    let path = error_path(error)
        .map(|p| relative_path(root, p).unwrap_or_else(|| p.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let message = if is_ignore_file(&path) {
        format!("{error}; fix the pattern, meanwhile it is not applied")
    } else if error.io_error().map(std::io::Error::kind)
        == Some(std::io::ErrorKind::PermissionDenied)
    {
        format!(
            "cannot read the folder: {error}; give your user read permission, or add it to `exclude` in {CONFIG_FILE}"
        )
    } else {
        format!("cannot read: {error}; check the folder, or add it to `exclude` in {CONFIG_FILE}")
    };
    (path, message)
}

fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

/// Whether a vault path names an ignore file (`.gitignore`, `.ignore`).
pub(crate) fn is_ignore_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    super::filter::IGNORE_FILES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::write_file as write;

    fn paths(scan: &Scan) -> Vec<&str> {
        scan.notes.iter().map(|n| &*n.path).collect()
    }

    /// A vault that exercises every rule.
    fn tricky_vault() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for rel in [
            "a.md",
            "Upper.MD",
            "folder/b.md",
            "folder/deep/c.md",
            "folder/image.png",
            "doc.pdf",
            "noext",
            ".hidden.md",
            ".obsidian/workspace.md",
            ".obsidian/app.json",
            ".git/HEAD",
            ".trash/old.md",
            ".weft/history.md",
            "folder/.cache/x.md",
            "ignored.md",
            "build/out.md",
            "folder/build/out.md",
            "logs/a.log",
            "keep/a.log",
            "keep/b.log",
            "drafts/wip.md",
            "sub/drafts/wip.md",
            "scratch.tmp",
            "sub/n.md",
            "sub/local.md",
            "sub/deep/x.md",
            "sub/deep/y.md",
        ] {
            write(root, rel, format!("# {rel}\n"));
        }
        write(root, ".gitignore", "ignored.md\nbuild/\n*.log\n");
        write(root, "keep/.gitignore", "!b.log\n");
        write(root, "sub/.gitignore", "local.md\n");
        write(root, "sub/deep/.ignore", "x.md\n");
        write(root, ".weft.toml", "exclude = [\"drafts/\", \"*.tmp\"]\n");
        dir
    }

    #[test]
    fn scan_applies_every_rule() {
        let dir = tricky_vault();
        let root = dir.path();
        let config = Config::load(root).expect("config");
        let scan = scan(root, &config);
        assert_eq!(scan.errors, Vec::<(String, String)>::new());
        assert_eq!(
            paths(&scan),
            [
                "Upper.MD",
                "a.md",
                "folder/b.md",
                "folder/deep/c.md",
                "sub/deep/y.md",
                "sub/n.md"
            ]
        );
        assert_eq!(
            scan.attachments,
            ["doc.pdf", "folder/image.png", "keep/b.log", "noext"]
        );
        assert!(scan.bytes > 0);
        assert_eq!(scan.notes[1].title.as_ref(), "a.md");
    }

    /// Regression: a `.gitignore` line of thousands of nested `{` made the
    /// glob compiler recurse until the stack overflowed, taking down the
    /// process serving the vault as soon as it was opened.
    #[test]
    fn ignore_lines_nested_too_deeply_are_left_out_not_a_crash() {
        let deep = format!("{}x{}", "{".repeat(50_000), "}".repeat(50_000));
        for folder in ["", "sub/"] {
            let dir = tempfile::tempdir().expect("temp dir");
            let root = dir.path().canonicalize().expect("canonical");
            write(&root, "a.md", "# A\n");
            write(&root, "sub/b.md", "# B\n");
            write(&root, "sub/ignored.md", "# I\n");
            write(
                &root,
                &format!("{folder}.gitignore"),
                format!("{deep}\nignored.md\n"),
            );
            let config = Config::load(&root).expect("config");
            let scan = scan(&root, &config);
            assert_eq!(paths(&scan), ["a.md", "sub/b.md"], "{folder}");
            assert_eq!(scan.errors.len(), 1, "{folder}: {:?}", scan.errors);
            let (file, message) = &scan.errors[0];
            assert_eq!(file, &format!("{folder}.gitignore"));
            assert!(message.contains("line 1 is not used"), "{message}");
            // The filter (the watcher's) agrees.
            let filter = PathFilter::new(&root, &config);
            assert!(filter.is_excluded_as("sub/ignored.md", false), "{folder}");
            assert!(!filter.is_excluded_as("sub/b.md", false), "{folder}");
        }
        // And in the configuration: refused with a clear error.
        let dir = tempfile::tempdir().expect("temp dir");
        let nested = format!("{}x{}", "{".repeat(100), "}".repeat(100));
        write(
            dir.path(),
            ".weft.toml",
            format!("exclude = [\"{nested}\"]\n"),
        );
        let error = Config::load(dir.path()).expect_err("refused").to_string();
        assert!(error.contains("nest more than 16 deep"), "{error}");
        write(
            dir.path(),
            ".weft.toml",
            format!("exclude = [\"{deep}\"]\n"),
        );
        let error = Config::load(dir.path()).expect_err("refused").to_string();
        assert!(error.contains("at most 4096"), "{error}");
    }

    #[test]
    fn walk_of_a_folder_agrees_with_the_filter_and_the_full_scan() {
        let dir = tricky_vault();
        let root = dir.path().canonicalize().expect("canonical");
        let config = Config::load(&root).expect("config");
        let filter = PathFilter::new(&root, &config);
        let full = walk(&filter, &root);
        // Every folder walked on its own gives the full scan's files in it.
        for folder in ["folder", "sub", "sub/deep", "keep"] {
            let part = walk(&filter, &root.join(folder));
            let prefix = format!("{folder}/");
            let want_notes: Vec<&String> = full
                .notes
                .iter()
                .map(|n| &n.0)
                .filter(|p| p.starts_with(&prefix))
                .collect();
            let want_attachments: Vec<&String> = full
                .attachments
                .iter()
                .filter(|p| p.starts_with(&prefix))
                .collect();
            assert_eq!(
                part.notes.iter().map(|n| &n.0).collect::<Vec<_>>(),
                want_notes,
                "{folder}"
            );
            assert_eq!(
                part.attachments.iter().collect::<Vec<_>>(),
                want_attachments,
                "{folder}"
            );
        }
        // The filter accepts exactly the files the walk found.
        let mut all = Vec::new();
        collect_files(&root, &root, &mut all);
        for rel in all {
            let listed = full.notes.iter().any(|n| n.0 == rel) || full.attachments.contains(&rel);
            assert_eq!(!filter.is_excluded_as(&rel, false), listed, "{rel}");
        }
    }

    fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            if entry.file_type().expect("file type").is_dir() {
                collect_files(root, &path, out);
            } else {
                out.push(relative_path(root, &path).expect("relative"));
            }
        }
    }

    #[test]
    fn scan_without_git_repository_or_config() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(dir.path(), "n.md", "x");
        write(dir.path(), ".gitignore", "n.md\n");
        let scan = scan(dir.path(), &Config::default());
        assert!(scan.notes.is_empty(), "gitignore applies without git");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_vault_are_not_followed() {
        let outside = tempfile::tempdir().expect("temp dir");
        write(outside.path(), "secret.md", "# secret");
        write(outside.path(), "dir/inner.md", "# inner");
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        write(root, "real.md", "# real");
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("link.md"))
            .expect("symlink");
        std::os::unix::fs::symlink(outside.path().join("dir"), root.join("linked-dir"))
            .expect("symlink");
        std::os::unix::fs::symlink(root.join("real.md"), root.join("alias.md")).expect("symlink");
        std::os::unix::fs::symlink(root.join("gone.md"), root.join("dangling.md"))
            .expect("symlink");
        let scan = scan(root, &Config::default());
        assert_eq!(paths(&scan), ["alias.md", "real.md"]);
        assert!(scan.attachments.is_empty());
        assert!(scan.errors.is_empty(), "{:?}", scan.errors);
    }

    #[test]
    fn read_failures_are_actionable() {
        // A folder cannot be read as a file, even by root.
        let dir = tempfile::tempdir().expect("temp dir");
        let error = read_note("x.md", dir.path())
            .err()
            .flatten()
            .expect("an error");
        assert_eq!(error.0, "x.md");
        assert!(
            error.1.contains("add it to `exclude` in .weft.toml"),
            "{}",
            error.1
        );
        // A file that is gone is no error: it is simply not there.
        assert!(matches!(
            read_note("y.md", &dir.path().join("y.md")),
            Err(None)
        ));
    }

    /// A 100 MiB note is read only as far as is indexed (16 MiB), whole
    /// lines of it, and says so; the file is not changed.
    #[test]
    fn a_huge_note_is_read_only_so_far() {
        use std::io::{Seek as _, SeekFrom, Write as _};
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("big.md");
        let mut file = std::fs::File::create(&path).expect("create");
        file.write_all(b"# Big\n[[First]]\n").expect("write");
        // The middle is a hole (spaces would cost a 100 MB write): NUL
        // bytes, then a last line with a link.
        let size = 100 << 20;
        file.seek(SeekFrom::Start(size - 12)).expect("seek");
        file.write_all(b"\n[[Last]]\nx\n").expect("write");
        drop(file);
        let cut = (MAX_NOTE_BYTES - 1) as usize;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|mut f| {
                f.seek(SeekFrom::Start(cut as u64))?;
                f.write_all(b"\n")
            })
            .expect("a line break just before the limit");
        let (note, stamp) = read_note("big.md", &path).expect("read");
        assert_eq!(stamp.size, size);
        assert_eq!(note.len as usize, cut + 1);
        assert_eq!(note.title.as_ref(), "Big");
        let targets: Vec<&str> = note.links.iter().map(|l| l.target()).collect();
        assert_eq!(targets, ["First"]);
        let last = note.diagnostics.last().expect("a diagnostic");
        assert_eq!(last.line, 3);
        assert!(
            last.message
                .contains("the note is 100.0 MiB, more than the 16 MiB Weft reads")
                && last.message.contains("only lines 1 to 3 are indexed"),
            "{}",
            last.message
        );
        assert_eq!(std::fs::metadata(&path).expect("still there").len(), size);
    }

    #[test]
    fn invalid_utf8_notes_still_load() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("bad.md"), b"# T\xff\xfe\n").expect("write");
        let scan = scan(dir.path(), &Config::default());
        assert_eq!(paths(&scan), ["bad.md"]);
        assert!(!scan.notes[0].diagnostics.is_empty());
    }
}
