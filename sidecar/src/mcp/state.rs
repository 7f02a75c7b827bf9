//! The vault an MCP server serves: opened in the background (the handshake
//! never waits), then followed by the file watcher; the full-text index is
//! built after the note index and kept in step one changed note at a time.
//! Also what every session shares: the access policy, recent tool failures,
//! the stream of changed paths behind `resources/updated`, and the note
//! history (opened with the vault; changes seen on disk are recorded in it,
//! debounced).
//!
//! Must not know any tool or the MCP wire format.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, mpsc, watch};

use super::McpArgs;
use super::format::ToolError;
use super::policy::Policy;
use crate::config::Config;
use crate::history::History;
use crate::io::{LiveVault, Watcher};
use crate::ops::{OpError, Ops, WriteLog};
use crate::search::dates::{format_time, now, unix};
use crate::search::{Change, DiskFiles, DocSource, FileSource, SearchIndex};
use crate::vault::VaultIndex;
use crate::vault::note::is_note_path;

/// Where loading stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Reading and parsing the notes.
    Loading,
    /// Notes indexed; building the full-text index.
    FullText,
    Ready,
    /// The vault could not be opened.
    Failed(String),
}

/// One tool call that ended in an error, for `vault_info`.
#[derive(Debug, Clone)]
pub struct Failure {
    pub time: i64,
    pub tool: String,
    pub input: String,
    pub error: String,
}

/// Why a server cannot start on a folder.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// The served vault and what all sessions share.
pub struct McpState {
    root: PathBuf,
    pub(super) args: McpArgs,
    pub(super) config: Config,
    /// `.weft.toml` did not load: tools report this.
    pub(super) config_error: Option<String>,
    pub(super) policy: Policy,
    pub(super) files: DiskFiles,
    live: OnceLock<Arc<LiveVault>>,
    search: OnceLock<Arc<SearchIndex>>,
    /// Set once loading opened it (disabled when off or damaged).
    history: OnceLock<Arc<History>>,
    /// The history's start-up snapshot is done: listings are complete.
    history_ready: AtomicBool,
    phase: watch::Sender<Phase>,
    started: Instant,
    loading_started: AtomicBool,
    notes_ms: AtomicUsize,
    fulltext_ms: AtomicUsize,
    pub(super) fulltext_done: AtomicUsize,
    pub(super) fulltext_total: AtomicUsize,
    failures: Mutex<VecDeque<Failure>>,
    changes: broadcast::Sender<Arc<Vec<String>>>,
    watcher: Mutex<Option<Watcher>>,
    watch_error: Mutex<Option<String>>,
}

static EMPTY: LazyLock<RwLock<VaultIndex>> = LazyLock::new(|| RwLock::new(VaultIndex::new()));

const MAX_FAILURES: usize = 50;

/// How long changes seen on disk must be quiet before history records them
/// (on top of the watcher's own debounce).
const HISTORY_SETTLE: Duration = Duration::from_millis(400);
/// A stream of changes that never settles is recorded at least this often.
const HISTORY_MAX_WAIT: Duration = Duration::from_secs(5);

impl McpState {
    /// Checks the folder and reads its configuration; nothing is indexed
    /// yet (see [`McpState::start`]). Refuses the file system root, a
    /// missing folder and a file.
    pub fn open(root: &Path, args: McpArgs) -> Result<Arc<McpState>, StartError> {
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
        let (config, config_error) = match Config::load(&canonical) {
            Ok(config) => (config, None),
            Err(e) => (Config::default(), Some(e.to_string())),
        };
        let policy = Policy::new(&canonical, &config.agent, args.tools, args.read_only);
        let (phase, _) = watch::channel(Phase::Loading);
        let (changes, _) = broadcast::channel(256);
        Ok(Arc::new(McpState {
            files: DiskFiles {
                root: canonical.clone(),
            },
            root: canonical,
            args,
            config,
            config_error,
            policy,
            live: OnceLock::new(),
            search: OnceLock::new(),
            history: OnceLock::new(),
            history_ready: AtomicBool::new(false),
            phase,
            started: Instant::now(),
            loading_started: AtomicBool::new(false),
            notes_ms: AtomicUsize::new(0),
            fulltext_ms: AtomicUsize::new(0),
            fulltext_done: AtomicUsize::new(0),
            fulltext_total: AtomicUsize::new(0),
            failures: Mutex::new(VecDeque::new()),
            changes,
            watcher: Mutex::new(None),
            watch_error: Mutex::new(None),
        }))
    }

    /// A state over a vault already open (the command line, benchmarks):
    /// ready at once, with the full-text index built now when asked for.
    /// Needs no async runtime; nothing follows the disk afterwards.
    pub fn from_live(
        live: Arc<LiveVault>,
        args: McpArgs,
        fulltext: bool,
    ) -> Result<Arc<McpState>, StartError> {
        let root = live.root.clone();
        let config = live.config.clone();
        let policy = Policy::new(&root, &config.agent, args.tools, args.read_only);
        let (phase, _) = watch::channel(Phase::Ready);
        let (changes, _) = broadcast::channel(16);
        let state = McpState {
            files: DiskFiles { root: root.clone() },
            root,
            args,
            config,
            config_error: None,
            policy,
            live: OnceLock::new(),
            search: OnceLock::new(),
            history: OnceLock::new(),
            history_ready: AtomicBool::new(false),
            phase,
            started: Instant::now(),
            loading_started: AtomicBool::new(true),
            notes_ms: AtomicUsize::new(0),
            fulltext_ms: AtomicUsize::new(0),
            fulltext_done: AtomicUsize::new(0),
            fulltext_total: AtomicUsize::new(0),
            failures: Mutex::new(VecDeque::new()),
            changes,
            watcher: Mutex::new(None),
            watch_error: Mutex::new(None),
        };
        if fulltext {
            let sources: Vec<DocSource> = {
                let index = read(&live.index);
                index.notes().map(|(_, n)| DocSource::of(n)).collect()
            };
            state.fulltext_total.store(sources.len(), Ordering::Relaxed);
            let search = SearchIndex::build(&sources, &state.files, &state.fulltext_done)
                .map_err(|e| StartError(e.to_string()))?;
            let _ = state.search.set(Arc::new(search));
            return_free_memory();
            state.fulltext_ms.store(
                state.started.elapsed().as_millis() as usize,
                Ordering::Relaxed,
            );
        }
        let _ = state.live.set(live);
        Ok(Arc::new(state))
    }

    /// The options the server was started with.
    pub fn args(&self) -> &McpArgs {
        &self.args
    }

    /// The vault root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts loading in the background, once; needs a tokio runtime.
    pub fn start(self: &Arc<Self>) {
        if self.loading_started.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(error) = &self.config_error {
            self.phase.send_replace(Phase::Failed(error.clone()));
            return;
        }
        let state = self.clone();
        tokio::spawn(async move { state.load().await });
    }

    async fn load(self: Arc<Self>) {
        let root = self.root.clone();
        let opened = tokio::task::spawn_blocking(move || LiveVault::open(&root)).await;
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
        let _ = self.live.set(live.clone());
        self.phase.send_replace(Phase::FullText);
        // Follow changes from now on; the full-text index catches up with
        // whatever changed while it was built.
        let (tx, rx) = mpsc::unbounded_channel::<Vec<String>>();
        let (history_tx, history_rx) = mpsc::unbounded_channel::<Vec<String>>();
        let changes = self.changes.clone();
        match live.watch_with(move |paths| {
            let paths = paths.to_vec();
            let _ = changes.send(Arc::new(paths.clone()));
            let _ = history_tx.send(paths.clone());
            let _ = tx.send(paths);
        }) {
            Ok(watcher) => *lock(&self.watcher) = Some(watcher),
            Err(e) => {
                tracing::warn!("{e}");
                *lock(&self.watch_error) = Some(e.to_string());
            }
        }
        let sources: Vec<DocSource> = {
            let index = read(&live.index);
            index.notes().map(|(_, n)| DocSource::of(n)).collect()
        };
        self.fulltext_total.store(sources.len(), Ordering::Relaxed);
        // History opens and catches up with the disk while the full text
        // builds; outside changes queue meanwhile and are recorded after.
        let state = self.clone();
        let history_live = live.clone();
        let history_started =
            tokio::task::spawn_blocking(move || state.open_history(&history_live));
        let state = self.clone();
        let built = tokio::task::spawn_blocking(move || {
            SearchIndex::build(&sources, &state.files, &state.fulltext_done)
        })
        .await;
        match built {
            Ok(Ok(search)) => {
                let _ = self.search.set(Arc::new(search));
                return_free_memory();
            }
            Ok(Err(e)) => tracing::error!("{e}"),
            Err(e) => tracing::error!("building the full-text index failed: {e}"),
        }
        self.fulltext_ms.store(
            self.started.elapsed().as_millis() as usize,
            Ordering::Relaxed,
        );
        if let Err(e) = history_started.await {
            tracing::error!("opening the note history failed: {e}");
        }
        self.history_ready.store(true, Ordering::SeqCst);
        tokio::spawn(self.clone().record_external(history_rx));
        self.phase.send_replace(Phase::Ready);
        self.follow(rx).await;
    }

    /// Opens the note history (a damaged store leaves it disabled with the
    /// reason; a missing one is created) and records the vault as it is now:
    /// the baseline of a new store, or what changed while Weft was not
    /// running. Files are read under the history's lock, so a write that
    /// lands meanwhile is never recorded older than it is.
    fn open_history(&self, live: &LiveVault) {
        let history = History::open(&self.root, &self.config.history).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            History::disabled(e.to_string())
        });
        let history = self.history.get_or_init(|| Arc::new(history));
        if !history.is_enabled() {
            return;
        }
        let paths: Vec<String> = {
            let index = read(&live.index);
            index.notes().map(|(_, n)| n.path.to_string()).collect()
        };
        let root = &self.root;
        let files = paths
            .iter()
            .filter_map(|p| std::fs::read(root.join(p)).ok().map(|bytes| (p, bytes)));
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

    /// Records changes seen on disk in the history, once they settle: a
    /// burst of saves (an editor, a sync tool) becomes one external commit.
    /// Weft's own writes reach the index before the watcher sees them, so
    /// they never come here; a path whose content history already has is
    /// skipped anyway.
    async fn record_external(self: Arc<Self>, mut rx: mpsc::UnboundedReceiver<Vec<String>>) {
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
            let Some(history) = self.history.get().cloned() else {
                continue;
            };
            let root = self.root.clone();
            let _ = tokio::task::spawn_blocking(move || {
                if let Err(e) = history.snapshot_external_at(&root, &paths) {
                    tracing::error!("note history: recording outside changes failed: {e}");
                }
            })
            .await;
        }
    }

    /// Applies changed paths to the full-text index as they come.
    async fn follow(self: Arc<Self>, mut rx: mpsc::UnboundedReceiver<Vec<String>>) {
        while let Some(mut paths) = rx.recv().await {
            while let Ok(more) = rx.try_recv() {
                paths.extend(more);
            }
            paths.sort();
            paths.dedup();
            let state = self.clone();
            let _ = tokio::task::spawn_blocking(move || state.update_fulltext(&paths)).await;
        }
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

    /// Tells sessions that these vault paths changed (a tool's own write
    /// calls this after [`LiveVault::apply_paths`]; the watcher does it for
    /// outside changes).
    pub fn notify_changed(&self, paths: Vec<String>) {
        if !paths.is_empty() {
            self.update_fulltext(&paths);
            let _ = self.changes.send(Arc::new(paths));
        }
    }

    /// The write operations on behalf of `actor` (the client's name, for
    /// history). The one place write tools get them: fails while the vault
    /// is not fully indexed (a write then could miss links to rewrite or
    /// full text to update) and when the server is read-only.
    pub fn ops(&self, actor: &str) -> Result<Ops<'_>, ToolError> {
        if self.policy.read_only {
            return Err(ToolError::new(OpError::ReadOnly.to_string()));
        }
        let live = match (self.phase(), self.live.get()) {
            (Phase::Ready, Some(live)) => live,
            _ => {
                return Err(ToolError::new(
                    "the vault is still being indexed, and Weft does not write before every link and word is \
                     indexed (a move could miss links to rewrite); nothing was written.",
                )
                .hint(format!(
                    "Retry in a few seconds; vault_info shows the progress ({:.0} s since start).",
                    self.seconds_since_start()
                )));
            }
        };
        let ops = Ops::new(live, actor);
        Ok(match self.write_log() {
            Some(log) => ops.with_log(log),
            None => ops,
        })
    }

    /// Waits (at most `max`) until the vault is ready for writes; returns
    /// at once when loading never started.
    pub async fn wait_writable(&self, max: std::time::Duration) {
        if !self.loading_started.load(Ordering::SeqCst) {
            return;
        }
        let _ = tokio::time::timeout(max, self.wait_ready()).await;
    }

    /// Changed vault paths, as they happen.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<Arc<Vec<String>>> {
        self.changes.subscribe()
    }

    /// Waits until loading is done (or failed).
    pub async fn wait_ready(&self) -> Phase {
        let mut rx = self.phase.subscribe();
        let phase = rx
            .wait_for(|p| matches!(p, Phase::Ready | Phase::Failed(_)))
            .await
            .map(|p| p.clone());
        phase.unwrap_or_else(|_| self.phase())
    }

    pub fn phase(&self) -> Phase {
        self.phase.borrow().clone()
    }

    pub fn live(&self) -> Option<&Arc<LiveVault>> {
        self.live.get()
    }

    pub fn search(&self) -> Option<&Arc<SearchIndex>> {
        self.search.get()
    }

    /// The note history, once loading has opened it (disabled when off or
    /// damaged; `None` before, and for states made with `from_live`).
    pub fn history(&self) -> Option<&Arc<History>> {
        self.history.get()
    }

    /// Where write operations record what they wrote: the history when it
    /// records (`Ops::with_log`).
    pub fn write_log(&self) -> Option<&dyn WriteLog> {
        self.history
            .get()
            .filter(|h| h.is_enabled())
            .map(|h| &**h as &dyn WriteLog)
    }

    /// Waits (at most `max`) until the history is open and has caught up
    /// with the disk; at once when loading never started or failed.
    pub async fn wait_history(&self, max: Duration) {
        let deadline = Instant::now() + max;
        while self.loading_started.load(Ordering::SeqCst)
            && !self.history_ready.load(Ordering::SeqCst)
            && !matches!(self.phase(), Phase::Failed(_))
            && self.config_error.is_none()
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The note index as far as it is loaded (empty while loading).
    pub fn index(&self) -> RwLockReadGuard<'_, VaultIndex> {
        match self.live.get() {
            Some(live) => read(&live.index),
            None => read(&EMPTY),
        }
    }

    /// A sentence for answers given before loading finished; `None` when
    /// ready.
    pub fn indexing_note(&self) -> Option<String> {
        let secs = self.started.elapsed().as_secs_f64();
        match self.phase() {
            Phase::Ready => None,
            Phase::Loading => Some(format!(
                "Indexing… the vault is still being read ({secs:.1} s so far); nothing is indexed yet, so \
                 this answer is incomplete. Try again in a moment."
            )),
            Phase::FullText => Some(format!(
                "Indexing… full text: {} of {} notes ({secs:.1} s so far); names, links and tags are \
                 complete, full-text results are not yet.",
                self.fulltext_done.load(Ordering::Relaxed),
                self.fulltext_total.load(Ordering::Relaxed)
            )),
            Phase::Failed(e) => Some(format!("The vault could not be indexed: {e}")),
        }
    }

    /// Fails when the vault could not be opened (nothing can be answered).
    pub fn check_usable(&self) -> Result<(), ToolError> {
        if let Phase::Failed(error) = self.phase() {
            let mut e = ToolError::new(format!(
                "The vault at {} cannot be served: {error}",
                self.root.display()
            ));
            if self.config_error.is_some() {
                e = e.hint("Fix .weft.toml at the vault root (the message gives the line), then restart the MCP server.");
            }
            return Err(e);
        }
        Ok(())
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

    /// A note's text as on disk now (`path` as indexed).
    pub fn read_text(&self, path: &str) -> Option<String> {
        self.files
            .read(path)
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
    }

    /// A note's bytes as on disk now.
    pub fn read_bytes(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.root.join(path)).ok()
    }

    /// (modified, created) Unix seconds of a note: from the full-text
    /// index's side table when it has the note, else from the disk.
    pub fn times(&self, path: &str) -> (Option<i64>, Option<i64>) {
        if let Some(meta) = self.search.get().and_then(|s| s.meta(path)) {
            return (meta.modified, meta.created);
        }
        let metadata = std::fs::metadata(self.root.join(path)).ok();
        (
            metadata.as_ref().and_then(|m| unix(m.modified())),
            metadata.as_ref().and_then(|m| unix(m.created())),
        )
    }

    /// Records a failed tool call.
    pub fn record_failure(&self, tool: &str, input: String, error: &str) {
        let mut failures = lock(&self.failures);
        if failures.len() >= MAX_FAILURES {
            failures.pop_front();
        }
        failures.push_back(Failure {
            time: now(),
            tool: tool.to_string(),
            input,
            error: error.lines().next().unwrap_or("").to_string(),
        });
    }

    /// Recent failures, newest first.
    pub fn failures(&self, limit: usize) -> Vec<Failure> {
        lock(&self.failures)
            .iter()
            .rev()
            .take(limit)
            .cloned()
            .collect()
    }

    /// When the server started, as ISO text.
    pub fn started_at(&self) -> String {
        format_time(now() - self.started.elapsed().as_secs() as i64)
    }
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}
