//! One vault's live state, shared by every session of the process: editor
//! sessions (LSP), agent sessions (MCP) and one-shot queries. In the index
//! daemon that is every face of the vault; run in-process, one face.
//!
//! A hub holds the note index (`LiveVault`, loaded in the background), the
//! watcher, the full-text index and the note history (both built only once
//! an agent or a search asks for them), the stream of changed paths, and
//! the editors' open buffers ([`buffers`]): what an editor types is in the
//! index for everyone, and a write over unsaved text is refused.
//!
//! Hubs are found by canonical vault path in a process-wide registry and
//! live while a session holds them. This module knows no protocol.
//!
//! Layout: this file holds the hub, its registry and what every session
//! asks of it (the index, phases, changes); `start` loads the vault and
//! builds what was asked for; `fulltext` keeps the full-text index in step;
//! `history` opens the note history and records changes seen on disk;
//! `buffers` holds the editors' open buffers.

mod activity;
pub mod buffers;
mod fulltext;
mod history;
mod persist;
mod semantic;
mod semantic_state;
mod start;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, RwLock, RwLockReadGuard, Weak};
use std::time::Instant;

use tokio::sync::{broadcast, mpsc, watch};

use crate::config::{Config, LiveConfig};
use crate::history::History;
use crate::io::{LiveVault, Watcher};
use crate::ops::{OpError, WriteGuard};
use crate::sync::{lock, read};
use weft_search::{Change, DiskFiles, DocSource, SearchIndex};
use weft_vault::VaultIndex;
use weft_vault::note::is_note_path;

pub use activity::{EditPlace, OpenNote, SectionChange};
pub use buffers::Buffers;
pub use semantic_state::SemanticStatus;

/// Where loading stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Reading and parsing the notes.
    Loading,
    /// Notes indexed; the full-text index is not built (yet).
    FullText,
    /// Notes, full text and history are ready.
    Ready,
    /// The vault could not be opened.
    Failed(String),
}

/// Why a vault cannot be served.
#[derive(Debug, Clone)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// Vault paths that changed on disk (a write, the watcher, an editor's file
/// operation), after the index took them.
pub type Changed = Arc<Vec<String>>;

/// Open buffers that changed: the session that changed them and their
/// vault paths.
#[derive(Debug, Clone)]
pub struct Edited {
    pub session: u64,
    pub paths: Arc<Vec<String>>,
}

/// The shared state of one vault.
pub struct Hub {
    root: PathBuf,
    /// `.weft.toml` (and Obsidian's daily-note settings), reloaded when they
    /// change ([`Hub::refresh_config`]); shared with the index.
    config: Arc<LiveConfig>,
    pub files: DiskFiles,
    live: OnceLock<Arc<LiveVault>>,
    search: OnceLock<Arc<SearchIndex>>,
    /// Set once opened (disabled when off or damaged).
    history: OnceLock<Arc<History>>,
    /// The history's start-up snapshot is done: listings are complete.
    history_ready: AtomicBool,
    phase: watch::Sender<Phase>,
    started: Instant,
    loading_started: AtomicBool,
    /// A bad configuration at the start is being watched until it loads.
    config_watch_started: AtomicBool,
    /// Full text was asked for (by an agent or a search).
    wants_fulltext: AtomicBool,
    fulltext_started: AtomicBool,
    fulltext_built: AtomicBool,
    /// Set (and woken) once the full text kept in the cache was tried:
    /// reused, or found missing or unusable (a build then follows).
    fulltext_tried: AtomicBool,
    fulltext_tried_signal: tokio::sync::Notify,
    /// The load has brought the index up to the disk after setting the
    /// watches, and told the sessions what that changed.
    reconciled: AtomicBool,
    reconciled_signal: tokio::sync::Notify,
    /// History was asked for (by an agent).
    wants_history: AtomicBool,
    history_started: AtomicBool,
    notes_ms: AtomicUsize,
    fulltext_ms: AtomicUsize,
    pub fulltext_done: AtomicUsize,
    pub fulltext_total: AtomicUsize,
    changes: broadcast::Sender<Changed>,
    edits: broadcast::Sender<Edited>,
    /// Outside changes for the full-text index and the history, once they
    /// are being built.
    fulltext_tx: Mutex<Option<mpsc::UnboundedSender<Vec<String>>>>,
    history_tx: Mutex<Option<mpsc::UnboundedSender<Vec<String>>>>,
    watcher: Mutex<Option<Watcher>>,
    watch_error: Mutex<Option<String>>,
    pub buffers: Buffers,
    next_session: AtomicU64,
    /// Where the index is persisted, when it is (the daemon's hubs).
    persist: OnceLock<Persist>,
    /// The index generation last saved; one save at a time.
    saved_generation: AtomicU64,
    saving: Mutex<()>,
    /// Finding by meaning, when a model is configured.
    semantic: Mutex<semantic_state::SemanticSlot>,
    /// The model an agent's face asked for (the editor's settings), used
    /// while `.weft.toml` names none.
    semantic_default: Mutex<Option<String>>,
}

/// Where a hub keeps its vault's snapshot and which build writes it.
struct Persist {
    /// The user's cache folder for Weft (`$XDG_CACHE_HOME/weft`).
    cache: PathBuf,
    /// The build that reads and writes it: another build's is refused.
    build: String,
}

static HUBS: LazyLock<Mutex<HashMap<PathBuf, Weak<Hub>>>> = LazyLock::new(Mutex::default);

static EMPTY: LazyLock<RwLock<VaultIndex>> = LazyLock::new(|| RwLock::new(VaultIndex::new()));

impl Hub {
    /// The process's hub for the vault at `root`, made on first use (nothing
    /// is loaded until [`Hub::start`]). Refuses the file system root, a
    /// missing folder and a file.
    pub fn get(root: &Path) -> Result<Arc<Hub>, StartError> {
        let canonical = check_root(root)?;
        let mut hubs = lock(&HUBS);
        hubs.retain(|_, hub| hub.strong_count() > 0);
        if let Some(hub) = hubs.get(&canonical).and_then(Weak::upgrade) {
            return Ok(hub);
        }
        let config = Arc::new(LiveConfig::load(&canonical));
        let hub = Arc::new(Hub::new(canonical.clone(), config));
        hubs.insert(canonical, Arc::downgrade(&hub));
        Ok(hub)
    }

    fn new(root: PathBuf, config: Arc<LiveConfig>) -> Hub {
        let (phase, _) = watch::channel(Phase::Loading);
        let (changes, _) = broadcast::channel(256);
        let (edits, _) = broadcast::channel(256);
        Hub {
            files: DiskFiles { root: root.clone() },
            root,
            config,
            live: OnceLock::new(),
            search: OnceLock::new(),
            history: OnceLock::new(),
            history_ready: AtomicBool::new(false),
            phase,
            started: Instant::now(),
            loading_started: AtomicBool::new(false),
            config_watch_started: AtomicBool::new(false),
            wants_fulltext: AtomicBool::new(false),
            fulltext_started: AtomicBool::new(false),
            fulltext_built: AtomicBool::new(false),
            fulltext_tried: AtomicBool::new(false),
            fulltext_tried_signal: tokio::sync::Notify::new(),
            reconciled: AtomicBool::new(false),
            reconciled_signal: tokio::sync::Notify::new(),
            wants_history: AtomicBool::new(false),
            history_started: AtomicBool::new(false),
            notes_ms: AtomicUsize::new(0),
            fulltext_ms: AtomicUsize::new(0),
            fulltext_done: AtomicUsize::new(0),
            fulltext_total: AtomicUsize::new(0),
            changes,
            edits,
            fulltext_tx: Mutex::default(),
            history_tx: Mutex::default(),
            watcher: Mutex::new(None),
            watch_error: Mutex::new(None),
            buffers: Buffers::default(),
            next_session: AtomicU64::new(1),
            persist: OnceLock::new(),
            saved_generation: AtomicU64::new(0),
            saving: Mutex::new(()),
            semantic: Mutex::default(),
            semantic_default: Mutex::new(None),
        }
    }

    /// The vault root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration now (the last one that loaded).
    pub fn config(&self) -> Arc<Config> {
        self.config.current()
    }

    /// Why the configuration files do not load now, when they do not.
    pub fn config_error(&self) -> Option<String> {
        self.config.error()
    }

    /// The configuration as it follows its files (to be told of changes).
    pub fn live_config(&self) -> &Arc<LiveConfig> {
        &self.config
    }

    /// A number naming a new session (open buffers are filed by it).
    pub fn new_session(&self) -> u64 {
        self.next_session.fetch_add(1, Ordering::Relaxed)
    }

    /// Ready once the full text is built and, when asked for, the history
    /// is open.
    fn update_phase(&self) {
        let history_done =
            !self.wants_history.load(Ordering::SeqCst) || self.history_ready.load(Ordering::SeqCst);
        if self.fulltext_built.load(Ordering::SeqCst)
            && history_done
            && !matches!(self.phase(), Phase::Failed(_))
        {
            self.phase.send_replace(Phase::Ready);
        }
    }

    /// After the index took `paths` from the disk: open buffers among them
    /// go back on top, then the full-text index, the history (`outside`:
    /// not Weft's own write, which its write log records) and every
    /// session hear of them.
    pub fn disk_changed(&self, paths: Vec<String>, outside: bool) {
        if paths.is_empty() {
            return;
        }
        if let Some(live) = self.live.get() {
            self.buffers.overlay(live, &paths);
        }
        self.update_semantic(&paths, !outside);
        if outside {
            for tx in [&self.fulltext_tx, &self.history_tx] {
                if let Some(tx) = lock(tx).as_ref() {
                    let _ = tx.send(paths.clone());
                }
            }
        } else {
            // A tool's own write: search sees it before the tool answers.
            self.update_fulltext(&paths);
        }
        let _ = self.changes.send(Arc::new(paths));
    }

    /// Tells the other sessions that open buffers changed.
    pub fn buffers_edited(&self, session: u64, paths: Vec<String>) {
        let _ = self.edits.send(Edited {
            session,
            paths: Arc::new(paths),
        });
    }

    /// Brings the full-text index in step with the note index for `paths`
    /// (vault paths that changed): one delete and add per note.
    pub fn update_fulltext(&self, paths: &[String]) {
        let (Some(live), Some(search)) = (self.live.get(), self.search.get()) else {
            return;
        };
        let changes: Vec<Change> = {
            let index = read(&live.index);
            paths
                .iter()
                .filter(|p| is_note_path(p))
                .map(|p| match index.id_of(p) {
                    Some(id) if *index.note(id).path == **p => {
                        Change::Upsert(DocSource::of(index.note(id)))
                    }
                    _ => Change::Remove(p.as_str().into()),
                })
                .collect()
        };
        if let Err(e) = search.apply(changes, &self.files) {
            tracing::error!("{e}");
        }
    }

    /// Puts the full-text index at rest (its writer's threads and buffers
    /// given back until the next change), when it is open.
    pub fn rest_fulltext(&self) {
        if let Some(search) = self.search.get()
            && let Err(e) = search.rest()
        {
            tracing::error!("{e}");
        }
    }

    /// Paths changed on disk, as they happen.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<Changed> {
        self.changes.subscribe()
    }

    /// Open buffers changed by some session, as they change.
    pub fn subscribe_edits(&self) -> broadcast::Receiver<Edited> {
        self.edits.subscribe()
    }

    /// Waits until the notes are loaded (or loading failed).
    pub async fn wait_notes(&self) -> Phase {
        self.wait_for(|p| !matches!(p, Phase::Loading)).await
    }

    /// Waits until the vault is no longer failed (its configuration was
    /// fixed and it is loading again).
    pub async fn wait_unfailed(&self) -> Phase {
        self.wait_for(|p| !matches!(p, Phase::Failed(_))).await
    }

    /// Whether the hub's first loads are over: the notes indexed and, when
    /// asked for, the full text and history ready (or loading failed).
    /// What follows is change by change.
    pub fn settled(&self) -> bool {
        match self.phase() {
            Phase::Ready | Phase::Failed(_) => true,
            Phase::FullText => !self.wants_fulltext.load(Ordering::SeqCst),
            Phase::Loading => false,
        }
    }

    /// Waits until everything asked for is loaded (or loading failed).
    pub async fn wait_ready(&self) -> Phase {
        self.wait_for(|p| matches!(p, Phase::Ready | Phase::Failed(_)))
            .await
    }

    async fn wait_for(&self, done: impl Fn(&Phase) -> bool) -> Phase {
        let mut rx = self.phase.subscribe();
        let phase = rx.wait_for(|p| done(p)).await.map(|p| p.clone());
        phase.unwrap_or_else(|_| self.phase())
    }

    pub fn phase(&self) -> Phase {
        self.phase.borrow().clone()
    }

    /// Told of every change of phase, and when the full-text index comes
    /// up within one (a wait for it ends at once).
    pub fn watch_phase(&self) -> watch::Receiver<Phase> {
        self.phase.subscribe()
    }

    /// Waits until the load has reconciled the index with the disk (after
    /// the notes are served, in the background): from then on only the
    /// watcher and the sessions change the index.
    #[cfg(test)]
    pub(crate) async fn wait_reconciled(&self) {
        loop {
            let woken = self.reconciled_signal.notified();
            if self.reconciled.load(Ordering::SeqCst) {
                return;
            }
            woken.await;
        }
    }

    pub fn loading_started(&self) -> bool {
        self.loading_started.load(Ordering::SeqCst)
    }

    pub fn live(&self) -> Option<&Arc<LiveVault>> {
        self.live.get()
    }

    pub fn search(&self) -> Option<&Arc<SearchIndex>> {
        self.search.get()
    }

    /// The note history, once opened (disabled when off or damaged).
    pub fn history(&self) -> Option<&Arc<History>> {
        self.history.get()
    }

    pub fn history_ready(&self) -> bool {
        self.history_ready.load(Ordering::SeqCst)
    }

    /// The note index as far as it is loaded (empty while loading).
    pub fn index(&self) -> RwLockReadGuard<'_, VaultIndex> {
        match self.live.get() {
            Some(live) => read(&live.index),
            None => read(&EMPTY),
        }
    }

    /// Load timings: (notes ms, full text ms), 0 while not done.
    pub fn timings(&self) -> (usize, usize) {
        (
            self.notes_ms.load(Ordering::Relaxed),
            self.fulltext_ms.load(Ordering::Relaxed),
        )
    }

    pub fn seconds_since_start(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    pub fn watch_error(&self) -> Option<String> {
        lock(&self.watch_error).clone()
    }
}

/// `first` and every batch of paths already queued behind it, sorted and
/// without repeats: one pass over what changed meanwhile.
fn batch(mut first: Vec<String>, rx: &mut mpsc::UnboundedReceiver<Vec<String>>) -> Vec<String> {
    while let Ok(more) = rx.try_recv() {
        first.extend(more);
    }
    first.sort();
    first.dedup();
    first
}

/// The canonical vault folder, or why it cannot be one.
pub fn check_root(root: &Path) -> Result<PathBuf, StartError> {
    let canonical = root.canonicalize().map_err(|e| {
        StartError(format!(
            "cannot open the vault {}: {e}; pass an existing folder with --vault or WEFT_VAULT",
            root.display()
        ))
    })?;
    if canonical.parent().is_none() {
        return Err(StartError(format!(
            "refusing to serve {} as a vault: it is the root of the file system; pass the folder \
             that holds your notes with --vault DIR or WEFT_VAULT (Zed starts context servers in \
             the project folder; set its settings or arguments if it started in /)",
            canonical.display()
        )));
    }
    if !canonical.is_dir() {
        return Err(StartError(format!(
            "{} is not a folder; a vault is a folder of Markdown notes",
            canonical.display()
        )));
    }
    Ok(canonical)
}

impl WriteGuard for Hub {
    fn check(&self, path: &str, folder: bool) -> Result<(), OpError> {
        match self.buffers.unsaved(self.root(), path, folder) {
            Some(path) => Err(OpError::Unsaved { path }),
            None => Ok(()),
        }
    }

    fn written(&self, paths: &[String]) {
        self.buffers.mark_stale(paths);
    }
}

#[cfg(test)]
mod tests;
