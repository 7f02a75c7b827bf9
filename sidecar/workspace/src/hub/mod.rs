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

pub mod buffers;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, RwLock, RwLockReadGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc, watch};

use crate::config::{Config, LiveConfig};
use crate::history::History;
use crate::io::{LiveVault, Watcher, pool};
use crate::ops::{OpError, WriteGuard};
use crate::sync::{lock, read};
use weft_search::{Change, DiskFiles, DocSource, SearchIndex};
use weft_vault::VaultIndex;
use weft_vault::note::is_note_path;

pub use buffers::Buffers;

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
}

static HUBS: LazyLock<Mutex<HashMap<PathBuf, Weak<Hub>>>> = LazyLock::new(Mutex::default);

static EMPTY: LazyLock<RwLock<VaultIndex>> = LazyLock::new(|| RwLock::new(VaultIndex::new()));

/// How long changes seen on disk must be quiet before history records them
/// (on top of the watcher's own debounce).
const HISTORY_SETTLE: Duration = Duration::from_millis(400);
/// A stream of changes that never settles is recorded at least this often.
const HISTORY_MAX_WAIT: Duration = Duration::from_secs(5);

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

    /// A hub of its own over a vault already loaded (the command line run
    /// in-process, benchmarks): not shared, never watching, no history;
    /// the full-text index is built now when asked for. Needs no runtime.
    pub fn detached(live: Arc<LiveVault>, fulltext: bool) -> Result<Arc<Hub>, StartError> {
        let hub = Hub::new(live.root.clone(), live.live_config().clone());
        hub.loading_started.store(true, Ordering::SeqCst);
        if fulltext {
            let sources = sources(&live);
            hub.fulltext_total.store(sources.len(), Ordering::Relaxed);
            let search = SearchIndex::build(&sources, &hub.files, &hub.fulltext_done)
                .map_err(|e| StartError(e.to_string()))?;
            let _ = hub.search.set(Arc::new(search));
            return_free_memory();
            hub.fulltext_ms.store(
                hub.started.elapsed().as_millis() as usize,
                Ordering::Relaxed,
            );
        }
        let _ = hub.live.set(live);
        hub.phase.send_replace(Phase::Ready);
        Ok(Arc::new(hub))
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

    /// Brings the configuration up to date with its files: two `stat`s when
    /// nothing changed, so it is called before every agent request. A
    /// changed `exclude` filters the index (and then the full text) again;
    /// a vault that could not start for a bad configuration starts once it
    /// loads. Blocks while a changed `exclude` rescans the vault.
    pub fn refresh_config(self: &Arc<Self>) {
        match self.live.get() {
            Some(live) => {
                let changed = live.refresh_config();
                // Not a change of content: nothing for the history.
                self.disk_changed(changed, false);
                self.follow_history_config();
            }
            None => {
                self.config.refresh();
                if self.config.snapshot().loaded && !self.loading_started() {
                    self.start();
                }
            }
        }
    }

    /// A number naming a new session (open buffers are filed by it).
    pub fn new_session(&self) -> u64 {
        self.next_session.fetch_add(1, Ordering::Relaxed)
    }

    /// Starts loading the notes in the background, once; needs a tokio
    /// runtime. The watcher follows the disk from then on.
    pub fn start(self: &Arc<Self>) {
        if self.loading_started.swap(true, Ordering::SeqCst) {
            return;
        }
        self.config.refresh();
        let config = self.config.snapshot();
        if !config.loaded {
            // Served once the file loads: looked at every second until then.
            let error = config.error.unwrap_or_default();
            self.phase.send_replace(Phase::Failed(error));
            self.loading_started.store(false, Ordering::SeqCst);
            if !self.config_watch_started.swap(true, Ordering::SeqCst) {
                tokio::spawn(start_once_configured(Arc::downgrade(self)));
            }
            return;
        }
        if matches!(self.phase(), Phase::Failed(_)) {
            self.phase.send_replace(Phase::Loading);
        }
        let hub = self.clone();
        tokio::spawn(async move { hub.load().await });
    }

    /// Asks for the full-text index and the note history (an agent needs
    /// both; an editor alone neither): built in the background once the
    /// notes are loaded, then [`Phase::Ready`].
    pub fn want_full(self: &Arc<Self>) {
        self.wants_history.store(true, Ordering::SeqCst);
        self.want_fulltext();
    }

    /// Asks for the full-text index alone (a search from the command line:
    /// no history store is made in the vault for it).
    pub fn want_fulltext(self: &Arc<Self>) {
        self.wants_fulltext.store(true, Ordering::SeqCst);
        if self.live.get().is_some() {
            self.build_extras();
        }
    }

    async fn load(self: Arc<Self>) {
        let root = self.root.clone();
        let config = self.config.clone();
        let opened =
            tokio::task::spawn_blocking(move || LiveVault::open_with_config(&root, config)).await;
        let live = match opened {
            Ok(Ok(live)) => Arc::new(live),
            Ok(Err(e)) => {
                self.phase.send_replace(Phase::Failed(e.to_string()));
                return;
            }
            Err(e) => {
                self.phase
                    .send_replace(Phase::Failed(format!("loading the vault failed: {e}")));
                return;
            }
        };
        self.notes_ms.store(
            self.started.elapsed().as_millis() as usize,
            Ordering::Relaxed,
        );
        // Buffers opened while loading are the truth for their notes.
        let open = self.buffers.paths();
        let _ = self.live.set(live.clone());
        self.buffers.overlay(&live, &open);
        self.phase.send_replace(Phase::FullText);
        let weak = Arc::downgrade(&self);
        match live.watch_with(move |paths| {
            if let Some(hub) = weak.upgrade() {
                hub.disk_changed(paths.to_vec(), true);
            }
        }) {
            Ok(watcher) => *lock(&self.watcher) = Some(watcher),
            Err(e) => {
                tracing::warn!("{e}");
                *lock(&self.watch_error) = Some(e.to_string());
            }
        }
        self.build_extras();
    }

    /// Builds the full-text index and opens the history, each once and
    /// when asked for; [`Phase::Ready`] once what was asked for is done.
    fn build_extras(self: &Arc<Self>) {
        let Some(live) = self.live.get().cloned() else {
            return;
        };
        if self.wants_history.load(Ordering::SeqCst)
            && !self.history_started.swap(true, Ordering::SeqCst)
        {
            if self.phase() == Phase::Ready {
                self.phase.send_replace(Phase::FullText);
            }
            // Outside changes from now on queue; recorded once it is open.
            let (tx, rx) = mpsc::unbounded_channel();
            *lock(&self.history_tx) = Some(tx);
            let hub = self.clone();
            let live = live.clone();
            tokio::spawn(async move {
                let opening = hub.clone();
                if let Err(e) =
                    tokio::task::spawn_blocking(move || opening.open_history(&live)).await
                {
                    tracing::error!("opening the note history failed: {e}");
                }
                hub.history_ready.store(true, Ordering::SeqCst);
                tokio::spawn(record_external(Arc::downgrade(&hub), rx));
                hub.update_phase();
            });
        }
        if self.wants_fulltext.load(Ordering::SeqCst)
            && !self.fulltext_started.swap(true, Ordering::SeqCst)
        {
            // Changes from now on queue; applied once it is built.
            let (tx, rx) = mpsc::unbounded_channel();
            *lock(&self.fulltext_tx) = Some(tx);
            let sources = sources(&live);
            self.fulltext_total.store(sources.len(), Ordering::Relaxed);
            let hub = self.clone();
            tokio::spawn(async move {
                let building = hub.clone();
                let built = tokio::task::spawn_blocking(move || {
                    SearchIndex::build(&sources, &building.files, &building.fulltext_done)
                })
                .await;
                match built {
                    Ok(Ok(search)) => {
                        let _ = hub.search.set(Arc::new(search));
                        return_free_memory();
                    }
                    Ok(Err(e)) => tracing::error!("{e}"),
                    Err(e) => tracing::error!("building the full-text index failed: {e}"),
                }
                hub.fulltext_ms.store(
                    hub.started.elapsed().as_millis() as usize,
                    Ordering::Relaxed,
                );
                hub.fulltext_built.store(true, Ordering::SeqCst);
                tokio::spawn(follow(Arc::downgrade(&hub), rx));
                hub.update_phase();
            });
        }
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

    /// Opens the note history (a damaged store leaves it disabled with the
    /// reason; a missing one is created) and records the vault as it is now:
    /// the baseline of a new store, or what changed while Weft was not
    /// running. Files are read under the history's lock, so a write that
    /// lands meanwhile is never recorded older than it is.
    fn open_history(&self, live: &Arc<LiveVault>) {
        let history = History::open(&self.root, &self.config().history).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            History::disabled(e.to_string())
        });
        // A store found deleted or damaged later starts again from the
        // notes the vault holds then.
        let weak = Arc::downgrade(live);
        history.set_baseline_source(Box::new(move || {
            weak.upgrade().map_or_else(Vec::new, |live| {
                let index = read(&live.index);
                index.notes().map(|(_, n)| n.path.to_string()).collect()
            })
        }));
        let history = self.history.get_or_init(|| Arc::new(history));
        record_vault(history, &self.root, live);
    }

    /// Follows a changed `[history]` configuration (turned on or off, moved):
    /// a store it now records in starts from the vault as it is.
    fn follow_history_config(&self) {
        let (Some(history), Some(live)) = (self.history.get(), self.live.get()) else {
            return;
        };
        if history.reconfigure(&self.config().history) {
            record_vault(history, &self.root, live);
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

/// Records the vault's notes as they are now: the baseline of a new store,
/// or what changed while Weft was not recording. Files are read under the
/// history's lock, so a write that lands meanwhile is never recorded older
/// than it is.
fn record_vault(history: &History, root: &Path, live: &LiveVault) {
    if !history.is_enabled() {
        return;
    }
    let paths: Vec<String> = {
        let index = read(&live.index);
        index.notes().map(|(_, n)| n.path.to_string()).collect()
    };
    // Read a chunk at a time on the IO pool, as the snapshot takes them.
    let files = pool::map_lazily(&paths, |p| std::fs::read(root.join(p)).ok())
        .zip(&paths)
        .filter_map(|(bytes, p)| bytes.map(|bytes| (p, bytes)));
    let started = Instant::now();
    match history.snapshot_all(files) {
        Ok(Some(commit)) => tracing::info!(
            "note history: recorded the vault's state as {} ({} notes, {} ms)",
            commit.short_id,
            paths.len(),
            started.elapsed().as_millis()
        ),
        Ok(None) => {}
        Err(e) => tracing::error!("note history: recording the vault's state failed: {e}"),
    }
}

/// How often a vault whose configuration did not load looks at it again.
const CONFIG_RETRY: Duration = Duration::from_secs(1);

/// Starts the hub once its configuration loads (it did not at the start);
/// ends with the hub.
async fn start_once_configured(hub: Weak<Hub>) {
    loop {
        tokio::time::sleep(CONFIG_RETRY).await;
        let Some(hub) = hub.upgrade() else { return };
        if hub.loading_started() {
            return;
        }
        let config = hub.config.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            config.refresh();
            config.snapshot().loaded
        })
        .await
        .unwrap_or(false);
        if loaded {
            hub.config_watch_started.store(false, Ordering::SeqCst);
            hub.start();
            return;
        }
    }
}

/// Records changes seen on disk in the history, once they settle: a burst
/// of saves (an editor, a sync tool) becomes one external commit. A path
/// whose content history already has is skipped.
async fn record_external(hub: Weak<Hub>, mut rx: mpsc::UnboundedReceiver<Vec<String>>) {
    while let Some(mut paths) = rx.recv().await {
        let first = Instant::now();
        while first.elapsed() < HISTORY_MAX_WAIT {
            match tokio::time::timeout(HISTORY_SETTLE, rx.recv()).await {
                Ok(Some(more)) => paths.extend(more),
                Ok(None) | Err(_) => break,
            }
        }
        paths.sort();
        paths.dedup();
        let Some(hub) = hub.upgrade() else { return };
        let Some(history) = hub.history.get().cloned() else {
            continue;
        };
        let root = hub.root.clone();
        drop(hub);
        let _ = tokio::task::spawn_blocking(move || {
            if let Err(e) = history.snapshot_external_at(&root, &paths) {
                tracing::error!("note history: recording outside changes failed: {e}");
            }
        })
        .await;
    }
}

/// Applies changed paths to the full-text index as they come.
async fn follow(hub: Weak<Hub>, mut rx: mpsc::UnboundedReceiver<Vec<String>>) {
    while let Some(mut paths) = rx.recv().await {
        while let Ok(more) = rx.try_recv() {
            paths.extend(more);
        }
        paths.sort();
        paths.dedup();
        let Some(hub) = hub.upgrade() else { return };
        let _ = tokio::task::spawn_blocking(move || hub.update_fulltext(&paths)).await;
    }
}

fn sources(live: &LiveVault) -> Vec<DocSource> {
    let index = read(&live.index);
    index.notes().map(|(_, n)| DocSource::of(n)).collect()
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

/// Gives the memory the full-text build freed back to the system. Building
/// holds every document in flight and two writer arenas; glibc keeps what
/// they freed in its per-thread arenas, which would otherwise stay resident
/// for the life of the server.
fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim only returns free heap pages to the kernel;
        // it takes no pointers and is safe to call at any time.
        unsafe {
            malloc_trim(0);
        }
    }
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
