//! A vault open on disk: its canonical root, its configuration and the one
//! shared index, kept equal to the disk path by path ([`LiveVault::apply_paths`])
//! or, when events were lost, by a full diff ([`LiveVault::rescan`]).
//!
//! Layout: this file opens the vault and loads it, chunk by chunk, with
//! what readers may ask while it loads; `update` keeps the index equal to
//! the disk afterwards.
//!
//! Files are read and parsed outside the index lock; the write lock is held
//! only to mutate. This module must not know where paths come from (the
//! watcher, an editor, a tool's own write) nor any protocol.

#[cfg(test)]
mod persist_tests;
mod update;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};

use super::filter::PathFilter;
use super::load::{exclude_problems, read_notes, walk};
use super::snapshot::{Entry, EntryRef, Snapshot, SnapshotRef, Stamp};
use crate::config::{Config, ConfigError, LiveConfig};
use crate::sync::{lock, read, write};
use weft_vault::{Note, VaultIndex};

/// A vault on disk with its live index.
pub struct LiveVault {
    /// The vault root, canonical.
    pub root: PathBuf,
    /// The configuration, reloaded when its files change (shared with
    /// whoever else serves the vault).
    config: Arc<LiveConfig>,
    pub index: Arc<RwLock<VaultIndex>>,
    /// Built from the configuration's `exclude`; replaced (and the vault
    /// rescanned) when that changes.
    filter: RwLock<PathFilter>,
    /// Files that could not be read: vault path → actionable message.
    errors: Mutex<BTreeMap<String, String>>,
    /// The stamp of each note's file as it was read (none for a note whose
    /// indexed text is not the file's, such as an editor's buffer): what a
    /// rescan or the next start compares to skip unchanged files.
    stamps: Mutex<HashMap<Box<str>, Stamp>>,
    /// Serialises updates, so a slow reader can never overwrite a newer
    /// state with an older read. Readers of the index do not take it. The
    /// initial load holds it, so watcher events wait for the load to end.
    update: Mutex<()>,
    progress: Progress,
    /// Rescans of the whole vault since it opened, and file events the
    /// watcher was given (after debouncing).
    pub(crate) rescans: AtomicUsize,
    pub(crate) events: AtomicUsize,
}

/// How far the initial load has come.
#[derive(Default)]
struct Progress {
    ready: Mutex<bool>,
    ready_signal: Condvar,
    /// Notes found by the walk; 0 until the walk ends.
    found: AtomicUsize,
    indexed: AtomicUsize,
    walked: AtomicBool,
}

/// The state of the initial load, for faces to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadStatus {
    pub ready: bool,
    /// Notes indexed so far.
    pub indexed: usize,
    /// Notes to index, once the walk has counted them.
    pub total: Option<usize>,
}

/// Notes parsed and inserted per step of the initial load: small enough that
/// the progress shown moves, large enough to keep both cores busy.
const LOAD_CHUNK: usize = 1024;

/// Notes read (from the disk or a snapshot) and prepared, to be filed.
struct Chunk {
    count: usize,
    prepared: weft_vault::index::Prepared,
    stamped: Vec<(Box<str>, Stamp)>,
}

impl Chunk {
    /// Notes with the stamps of the files they were read from (`None`: not
    /// from their file), prepared on every core.
    fn of(notes: impl Iterator<Item = (Note, Option<Stamp>)>) -> Chunk {
        let mut stamped = Vec::with_capacity(notes.size_hint().0);
        let notes: Vec<Note> = notes
            .map(|(note, stamp)| {
                if let Some(stamp) = stamp {
                    stamped.push((note.path.clone(), stamp));
                }
                note
            })
            .collect();
        Chunk {
            count: notes.len(),
            prepared: VaultIndex::prepare(notes),
            stamped,
        }
    }
}

/// Why a vault could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The root is the file system root.
    FilesystemRoot(PathBuf),
    /// The path does not exist or cannot be resolved.
    Unreachable {
        path: PathBuf,
        source: std::io::Error,
    },
    NotADirectory(PathBuf),
    Config(ConfigError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::FilesystemRoot(path) => write!(
                f,
                "refusing to open {} as a vault: it is the root of the file system; open the folder that holds your notes",
                path.display()
            ),
            OpenError::Unreachable { path, source } => {
                write!(f, "cannot open the vault {}: {source}", path.display())
            }
            OpenError::NotADirectory(path) => write!(
                f,
                "{} is not a folder; a vault is a folder of Markdown notes",
                path.display()
            ),
            OpenError::Config(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Unreachable { source, .. } => Some(source),
            OpenError::Config(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ConfigError> for OpenError {
    fn from(e: ConfigError) -> Self {
        OpenError::Config(e)
    }
}

impl LiveVault {
    /// Opens the vault at `root`: loads `.weft.toml`, scans and indexes it,
    /// and returns when the index is complete.
    pub fn open(root: &Path) -> Result<LiveVault, OpenError> {
        Self::open_with_settings(root, None)
    }

    /// [`LiveVault::open`] with editor settings overlaid on `.weft.toml`
    /// (see [`Config::merge_json`]).
    pub(crate) fn open_with_settings(
        root: &Path,
        settings: Option<&serde_json::Value>,
    ) -> Result<LiveVault, OpenError> {
        let vault = Self::prepare(root, settings)?;
        vault.load();
        Ok(vault)
    }

    /// [`LiveVault::open`] with a configuration shared with its other users
    /// (the hub's): it follows that configuration as it changes.
    pub(crate) fn open_with_config(
        root: &Path,
        config: Arc<LiveConfig>,
    ) -> Result<LiveVault, OpenError> {
        let canonical = check_root(root)?;
        let vault = Self::with_config(canonical, config);
        vault.load();
        Ok(vault)
    }

    /// Opens the vault at `root` and returns at once with an empty index
    /// that a background thread fills, chunk by chunk: readers see what is
    /// indexed so far ([`LiveVault::status`] says how far it is). Root and
    /// configuration problems are reported before returning.
    pub fn start(
        root: &Path,
        settings: Option<&serde_json::Value>,
    ) -> Result<Arc<LiveVault>, OpenError> {
        let vault = Arc::new(Self::prepare(root, settings)?);
        let loader = Arc::clone(&vault);
        std::thread::Builder::new()
            .name("weft-load".into())
            .spawn(move || loader.load())
            .map_err(|source| OpenError::Unreachable {
                path: root.to_path_buf(),
                source,
            })?;
        Ok(vault)
    }

    /// Checks the root, loads the configuration; the index is empty.
    fn prepare(root: &Path, settings: Option<&serde_json::Value>) -> Result<LiveVault, OpenError> {
        let canonical = check_root(root)?;
        let config = match settings {
            None => LiveConfig::try_load(&canonical)?,
            Some(settings) => {
                let mut config = Config::load(&canonical)?;
                config.merge_json(settings)?;
                LiveConfig::fixed(&canonical, config)
            }
        };
        Ok(Self::with_config(canonical, Arc::new(config)))
    }

    fn with_config(root: PathBuf, config: Arc<LiveConfig>) -> LiveVault {
        let now = config.current();
        let filter = PathFilter::new(&root, &now);
        let mut index = VaultIndex::new();
        index.set_types(&now.types);
        LiveVault {
            root,
            config,
            index: Arc::new(RwLock::new(index)),
            filter: RwLock::new(filter),
            errors: Mutex::new(BTreeMap::new()),
            stamps: Mutex::default(),
            update: Mutex::new(()),
            progress: Progress::default(),
            rescans: AtomicUsize::new(0),
            events: AtomicUsize::new(0),
        }
    }

    /// The configuration now.
    pub fn config(&self) -> Arc<Config> {
        self.config.current()
    }

    /// The configuration as it follows its files.
    pub fn live_config(&self) -> &Arc<LiveConfig> {
        &self.config
    }

    /// The initial load: walk, then read, parse (in parallel, outside the
    /// lock) and insert one chunk at a time.
    fn load(&self) {
        let _update = lock(&self.update);
        let filter = self.filter();
        let found = walk(&filter, filter.root());
        for temp in &found.temps {
            super::write::remove_stale_temp(temp);
        }
        self.progress
            .found
            .store(found.notes.len(), Ordering::Relaxed);
        self.progress.walked.store(true, Ordering::Release);
        let mut errors = found.errors;
        errors.extend(exclude_problems(&filter));
        write(&self.index).add_attachments(&found.attachments);
        // Each chunk is read and parsed on every core while the one before
        // it is filed in the index (on one): neither waits for the other.
        let mut pending: Option<Chunk> = None;
        for chunk in found.notes.chunks(LOAD_CHUNK) {
            let (read_now, ()) = rayon::join(
                || {
                    let read_now = read_notes(chunk.to_vec());
                    let notes = read_now.notes.into_iter();
                    let chunk = Chunk::of(notes.map(|(note, stamp)| (note, Some(stamp))));
                    (chunk, read_now.errors)
                },
                || {
                    if let Some(chunk) = pending.take() {
                        self.file_chunk(chunk);
                    }
                },
            );
            let (chunk, chunk_errors) = read_now;
            errors.extend(chunk_errors);
            pending = Some(chunk);
        }
        if let Some(chunk) = pending {
            self.file_chunk(chunk);
        }
        for (path, message) in &errors {
            tracing::warn!("{path}: {message}");
        }
        *lock(&self.errors) = errors.into_iter().collect();
        self.ready();
    }

    /// Files a chunk of the initial load in the index, its stamps beside
    /// it on another core.
    fn file_chunk(&self, chunk: Chunk) {
        rayon::join(
            || write(&self.index).extend(chunk.prepared),
            || lock(&self.stamps).extend(chunk.stamped),
        );
        self.progress
            .indexed
            .fetch_add(chunk.count, Ordering::Relaxed);
    }

    /// The first state is complete: waiting readers go on.
    fn ready(&self) {
        *lock(&self.progress.ready) = true;
        self.progress.ready_signal.notify_all();
    }

    /// Opens the vault from a snapshot: the notes as they were when it was
    /// saved, ready at once, with the stamps of their files. Nothing is read
    /// from the disk; [`LiveVault::reconcile`] brings it up to date.
    pub(crate) fn open_from_snapshot(
        root: &Path,
        config: Arc<LiveConfig>,
        snapshot: Snapshot,
    ) -> Result<LiveVault, OpenError> {
        let canonical = check_root(root)?;
        let vault = Self::with_config(canonical, config);
        let count = snapshot.notes.len();
        write(&vault.index).add_attachments(&snapshot.attachments);
        let entries = snapshot.notes.into_iter();
        vault.file_chunk(Chunk::of(
            entries.map(|Entry { note, stamp }| (note, stamp)),
        ));
        vault.progress.found.store(count, Ordering::Relaxed);
        vault.progress.walked.store(true, Ordering::Release);
        vault.ready();
        Ok(vault)
    }

    /// Makes an index opened from a snapshot agree with the disk: the vault
    /// is walked, files whose stamp changed are read again, new ones read,
    /// gone ones removed. Returns the vault paths whose entries changed.
    pub(crate) fn reconcile(&self) -> Vec<String> {
        self.rescan()
    }

    /// The snapshot of the index now (see [`snapshot`](super::snapshot)),
    /// written by `build`. Encoded under the index's read lock: readers go
    /// on, an update waits for it.
    pub(crate) fn snapshot_bytes(&self, build: &str) -> Result<Vec<u8>, String> {
        let index = read(&self.index);
        let stamps = lock(&self.stamps);
        let root = self.root.to_string_lossy();
        super::snapshot::encode(&SnapshotRef {
            build,
            root: &root,
            notes: index
                .notes()
                .map(|(_, note)| EntryRef {
                    note,
                    stamp: stamps.get(&*note.path).copied(),
                })
                .collect(),
            attachments: index.attachments().collect(),
        })
    }

    /// Every note's vault path with the stamp of the file it was read from
    /// (`None`: its indexed text is not its file's, such as an editor's
    /// buffer), for what is kept beside the index to compare with.
    pub(crate) fn note_stamps(&self) -> Vec<(Box<str>, Option<Stamp>)> {
        let index = read(&self.index);
        let stamps = lock(&self.stamps);
        index
            .notes()
            .map(|(_, note)| (note.path.clone(), stamps.get(&*note.path).copied()))
            .collect()
    }

    /// The stamp of the file the note at `path` (as indexed) was read
    /// from: `None` when it was not read from its file (an editor's
    /// buffer) or is not indexed.
    pub fn stamp(&self, path: &str) -> Option<Stamp> {
        lock(&self.stamps).get(path).copied()
    }

    /// How far the initial load has come.
    pub fn status(&self) -> LoadStatus {
        LoadStatus {
            ready: *lock(&self.progress.ready),
            indexed: self.progress.indexed.load(Ordering::Relaxed),
            total: self
                .progress
                .walked
                .load(Ordering::Acquire)
                .then(|| self.progress.found.load(Ordering::Relaxed)),
        }
    }

    /// Blocks until the initial load is complete.
    pub fn wait_ready(&self) {
        let mut ready = lock(&self.progress.ready);
        while !*ready {
            ready = self
                .progress
                .ready_signal
                .wait(ready)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The filter deciding which paths belong to the vault (now).
    pub fn filter(&self) -> PathFilter {
        read(&self.filter).clone()
    }

    /// Files that could not be read, as (vault path, actionable message).
    pub fn errors(&self) -> Vec<(String, String)> {
        lock(&self.errors)
            .iter()
            .map(|(p, m)| (p.clone(), m.clone()))
            .collect()
    }
}

/// The canonical vault folder, or why `root` cannot be one.
fn check_root(root: &Path) -> Result<PathBuf, OpenError> {
    let canonical = root
        .canonicalize()
        .map_err(|source| OpenError::Unreachable {
            path: root.to_path_buf(),
            source,
        })?;
    if canonical.parent().is_none() {
        return Err(OpenError::FilesystemRoot(canonical));
    }
    if !canonical.is_dir() {
        return Err(OpenError::NotADirectory(canonical));
    }
    Ok(canonical)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fixture::write_file;
    use crate::io::scan;
    use weft_vault::props::PropType;

    #[test]
    fn start_returns_at_once_and_loads_in_the_background() {
        let dir = tempfile::tempdir().expect("temp dir");
        for i in 0..(LOAD_CHUNK * 2 + 10) {
            write_file(
                dir.path(),
                &format!("f{}/n{i}.md", i % 7),
                format!("[[n{}]]", i + 1),
            );
        }
        write_file(dir.path(), "pic.png", "");
        let vault = LiveVault::start(dir.path(), None).expect("start");
        vault.wait_ready();
        let status = vault.status();
        assert_eq!(
            status,
            LoadStatus {
                ready: true,
                indexed: LOAD_CHUNK * 2 + 10,
                total: Some(LOAD_CHUNK * 2 + 10)
            }
        );
        assert_eq!(
            dump_index(&vault),
            dump_index(&LiveVault::open(dir.path()).expect("open"))
        );
        // Problems with the root are reported before anything starts.
        assert!(matches!(
            LiveVault::start(Path::new("/"), None),
            Err(OpenError::FilesystemRoot(_))
        ));
    }

    /// The index as (path, content hash) pairs and attachment paths, sorted.
    pub(crate) type Dump = (Vec<(String, u64)>, Vec<String>);

    pub(crate) fn dump_index(vault: &LiveVault) -> Dump {
        let index = read(&vault.index);
        let mut notes: Vec<(String, u64)> = index
            .notes()
            .map(|(_, n)| (n.path.to_string(), n.content_hash))
            .collect();
        let mut attachments: Vec<String> = index.attachments().map(str::to_string).collect();
        notes.sort();
        attachments.sort();
        (notes, attachments)
    }

    pub(crate) fn dump_disk(vault: &LiveVault) -> Dump {
        let scan = scan(&vault.root, &vault.config());
        let mut notes: Vec<(String, u64)> = scan
            .notes
            .iter()
            .map(|n| (n.path.to_string(), n.content_hash))
            .collect();
        notes.sort();
        (notes, scan.attachments)
    }

    fn note_paths(vault: &LiveVault) -> Vec<String> {
        dump_index(vault).0.into_iter().map(|n| n.0).collect()
    }

    fn vault_with(files: &[(&str, &str)]) -> (tempfile::TempDir, LiveVault) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (rel, text) in files {
            write_file(dir.path(), rel, text);
        }
        let vault = LiveVault::open(dir.path()).expect("opens");
        (dir, vault)
    }

    /// Regression: temporary files of writes interrupted by a crash stayed
    /// beside their notes for ever.
    #[test]
    fn opening_removes_temporary_files_of_dead_writers_only() {
        let dead = ".n.md.weft-4294967290-1.tmp";
        let (dir, vault) = vault_with(&[
            ("n.md", "# N"),
            (dead, "half a note"),
            ("sub/.m.md.weft-4294967290-2.tmp", "half"),
            ("sub/m.md", "# M"),
            (".my-notes.tmp", "the user's"),
        ]);
        assert!(!dir.path().join(dead).exists());
        assert!(!dir.path().join("sub/.m.md.weft-4294967290-2.tmp").exists());
        assert!(dir.path().join(".my-notes.tmp").exists());
        assert_eq!(note_paths(&vault), ["n.md", "sub/m.md"]);
        // One seen by the watcher goes too.
        write_file(dir.path(), "sub/.m.md.weft-4294967290-3.tmp", "half");
        vault.apply_paths([dir.path().join("sub/.m.md.weft-4294967290-3.tmp")]);
        assert!(!dir.path().join("sub/.m.md.weft-4294967290-3.tmp").exists());
    }

    #[test]
    fn open_refuses_the_file_system_root_and_files() {
        let error = LiveVault::open(Path::new("/")).err().expect("refused");
        assert!(matches!(error, OpenError::FilesystemRoot(_)));
        assert!(
            error.to_string().contains("root of the file system"),
            "{error}"
        );

        let dir = tempfile::tempdir().expect("temp dir");
        write_file(dir.path(), "n.md", "x");
        let error = LiveVault::open(&dir.path().join("n.md"))
            .err()
            .expect("refused");
        assert!(error.to_string().contains("is not a folder"), "{error}");
        let error = LiveVault::open(&dir.path().join("missing"))
            .err()
            .expect("refused");
        assert!(matches!(error, OpenError::Unreachable { .. }), "{error}");

        write_file(dir.path(), ".weft.toml", "bogus = 1\n");
        let error = LiveVault::open(dir.path()).err().expect("refused");
        assert!(
            error.to_string().contains("unknown field `bogus`"),
            "{error}"
        );
    }

    #[test]
    fn open_indexes_the_vault_with_settings() {
        let (dir, vault) = vault_with(&[("a.md", "# A\n[[b]]"), ("b.md", "# B"), ("img.png", "")]);
        assert_eq!(note_paths(&vault), ["a.md", "b.md"]);
        assert_eq!(dump_index(&vault).1, ["img.png"]);
        let settings = serde_json::json!({"exclude": ["b.md"]});
        let vault = LiveVault::open_with_settings(dir.path(), Some(&settings)).expect("opens");
        assert_eq!(note_paths(&vault), ["a.md"]);
    }

    /// The index holds the property types `.obsidian/types.json` declares
    /// from the start and follows the file when the watcher reports it.
    #[test]
    fn the_index_follows_the_declared_property_types() {
        let (dir, vault) = vault_with(&[
            ("a.md", "---\nzip: 1\n---\n"),
            (".obsidian/types.json", r#"{"types": {"zip": "text"}}"#),
        ]);
        let declared = |vault: &LiveVault| read(&vault.index).types().declared("zip");
        assert_eq!(declared(&vault), Some(PropType::Text));
        write_file(
            dir.path(),
            ".obsidian/types.json",
            r#"{"types": {"zip": "number", "other": "date"}}"#,
        );
        vault.apply_paths([vault.root.join(".obsidian/types.json")]);
        assert_eq!(declared(&vault), Some(PropType::Number));
        std::fs::remove_file(dir.path().join(".obsidian/types.json")).expect("removed");
        vault.apply_paths([vault.root.join(".obsidian/types.json")]);
        assert_eq!(declared(&vault), None);
    }

    #[test]
    fn apply_paths_follows_creates_modifies_deletes_and_renames() {
        let (dir, vault) = vault_with(&[("a.md", "# A\n[[b]]"), ("img.png", "1")]);
        let root = vault.root.clone();
        let generation = read(&vault.index).generation();

        // Nothing changed on disk: nothing changes in the index.
        assert_eq!(
            vault.apply_paths([root.join("a.md"), root.join("img.png")]),
            Vec::<String>::new()
        );
        assert_eq!(read(&vault.index).generation(), generation);

        // Create.
        write_file(dir.path(), "b.md", "# B");
        write_file(dir.path(), "doc.pdf", "%PDF");
        assert_eq!(
            vault.apply_paths([root.join("b.md"), root.join("doc.pdf")]),
            ["b.md", "doc.pdf"]
        );
        {
            let index = read(&vault.index);
            let a = index.id_of("a").expect("a");
            let b = index.id_of("b").expect("b");
            assert_eq!(index.backlinks(b).len(), 1);
            assert_eq!(index.backlinks(b)[0].source, a);
        }

        // Modify.
        write_file(dir.path(), "a.md", "# A again\n");
        assert_eq!(vault.apply_paths([root.join("a.md")]), ["a.md"]);
        {
            let index = read(&vault.index);
            assert_eq!(&*index.note(index.id_of("a").expect("a")).title, "A again");
            assert!(index.backlinks(index.id_of("b").expect("b")).is_empty());
        }

        // Rename (both paths, as a rename event carries them).
        std::fs::rename(root.join("b.md"), root.join("c.md")).expect("rename");
        assert_eq!(
            vault.apply_paths([root.join("b.md"), root.join("c.md")]),
            ["b.md", "c.md"]
        );
        assert_eq!(note_paths(&vault), ["a.md", "c.md"]);

        // A case-only rename, in both orders of the paths.
        std::fs::rename(root.join("c.md"), root.join("C.md")).expect("rename");
        vault.apply_paths([root.join("C.md"), root.join("c.md")]);
        assert_eq!(note_paths(&vault), ["C.md", "a.md"]);
        std::fs::rename(root.join("C.md"), root.join("c.md")).expect("rename");
        vault.apply_paths([root.join("c.md"), root.join("C.md")]);
        assert_eq!(note_paths(&vault), ["a.md", "c.md"]);

        // Delete.
        std::fs::remove_file(root.join("c.md")).expect("rm");
        std::fs::remove_file(root.join("img.png")).expect("rm");
        assert_eq!(
            vault.apply_paths([root.join("c.md"), root.join("img.png")]),
            ["c.md", "img.png"]
        );
        assert_eq!(dump_index(&vault), dump_disk(&vault));

        // Paths outside the vault or skipped are ignored.
        write_file(dir.path(), ".obsidian/x.md", "x");
        assert!(
            vault
                .apply_paths([
                    root.join(".obsidian/x.md"),
                    PathBuf::from("/elsewhere/y.md")
                ])
                .is_empty()
        );
        assert_eq!(dump_index(&vault), dump_disk(&vault));
    }

    #[test]
    fn apply_paths_follows_folders() {
        let (dir, vault) = vault_with(&[
            ("top.md", "x"),
            ("f/a.md", "a"),
            ("f/sub/b.md", "b"),
            ("f/sub/pic.png", ""),
            ("f.md", "a note named like the folder"),
            ("f2/keep.md", "a folder sharing a prefix"),
            (".gitignore", "*.log\n"),
        ]);
        let root = vault.root.clone();

        // Folder delete: one event for the folder is enough.
        std::fs::remove_dir_all(root.join("f")).expect("rm");
        assert_eq!(
            vault.apply_paths([root.join("f")]),
            ["f/a.md", "f/sub/b.md", "f/sub/pic.png"]
        );
        assert_eq!(note_paths(&vault), ["f.md", "f2/keep.md", "top.md"]);

        // Folder create (moved in whole, with ignored files).
        write_file(&root, "new/x.md", "x");
        write_file(&root, "new/deep/y.md", "y");
        write_file(&root, "new/deep/z.log", "z");
        write_file(&root, "new/.hidden/h.md", "h");
        assert_eq!(
            vault.apply_paths([root.join("new")]),
            ["new/deep/y.md", "new/x.md"]
        );

        // Folder rename.
        std::fs::rename(root.join("new"), root.join("moved")).expect("rename");
        assert_eq!(
            vault.apply_paths([root.join("new"), root.join("moved")]),
            ["moved/deep/y.md", "moved/x.md", "new/deep/y.md", "new/x.md"]
        );
        assert_eq!(dump_index(&vault), dump_disk(&vault));

        // Folders differing only in case are different folders.
        write_file(&root, "Case/a.md", "a");
        write_file(&root, "case/b.md", "b");
        vault.apply_paths([root.join("Case"), root.join("case")]);
        std::fs::remove_dir_all(root.join("Case")).expect("rm");
        assert_eq!(vault.apply_paths([root.join("Case")]), ["Case/a.md"]);
        assert!(note_paths(&vault).contains(&"case/b.md".to_string()));

        // A file replaced by a folder of the same name.
        std::fs::remove_file(root.join("top.md")).expect("rm");
        write_file(&root, "top.md/inner.md", "i");
        vault.apply_paths([root.join("top.md")]);
        assert_eq!(dump_index(&vault), dump_disk(&vault));
        drop(dir);
    }

    #[test]
    fn apply_paths_rescans_when_an_ignore_file_changes() {
        let (dir, vault) = vault_with(&[("a.md", "a"), ("b.md", "b")]);
        let root = vault.root.clone();
        write_file(dir.path(), ".gitignore", "b.md\n");
        assert_eq!(vault.apply_paths([root.join(".gitignore")]), ["b.md"]);
        assert_eq!(note_paths(&vault), ["a.md"]);
        std::fs::remove_file(root.join(".gitignore")).expect("rm");
        assert_eq!(vault.apply_paths([root.join(".gitignore")]), ["b.md"]);
        assert_eq!(note_paths(&vault), ["a.md", "b.md"]);
    }

    #[test]
    fn rescan_diffs_the_disk_against_the_index() {
        let (dir, vault) =
            vault_with(&[("a.md", "a"), ("b.md", "b"), ("d/c.md", "c"), ("x.png", "")]);
        write_file(dir.path(), "a.md", "changed");
        std::fs::remove_file(dir.path().join("b.md")).expect("rm");
        std::fs::remove_dir_all(dir.path().join("d")).expect("rm");
        write_file(dir.path(), "e.md", "new");
        write_file(dir.path(), "y.png", "");
        assert_eq!(vault.rescan(), ["a.md", "b.md", "d/c.md", "e.md", "y.png"]);
        assert_eq!(dump_index(&vault), dump_disk(&vault));
        assert!(vault.rescan().is_empty());
    }
}
