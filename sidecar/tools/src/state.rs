//! What an MCP session serves: the vault's shared [`Hub`] (note index,
//! full text, history, changes, editors' buffers: one per vault in the
//! process, so every session of the index daemon shares it) and what is
//! this server's own: the access policy from its options, and recent tool
//! failures.
//!
//! Must not know any tool or the MCP wire format.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLockReadGuard};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use super::format::ToolError;
use super::policy::{Needs, Policy, Profile};
use weft_search::clock::unix_now;
use weft_search::dates::{Now, Zone, format_time, unix};
use weft_search::{DiskFiles, FileSource, SearchIndex};
use weft_vault::VaultIndex;
use weft_workspace::config::Config;
use weft_workspace::history::History;
use weft_workspace::hub::Hub;
pub use weft_workspace::hub::{Phase, StartError};
use weft_workspace::io::LiveVault;
use weft_workspace::ops::{OpError, Ops, WriteLog};
use weft_workspace::sync::lock;

/// One tool call that ended in an error, for `vault_info`.
#[derive(Debug, Clone)]
pub struct Failure {
    pub time: i64,
    pub tool: String,
    pub input: String,
    pub error: String,
}

/// The served vault and this server's own state.
pub struct ToolState {
    hub: Arc<Hub>,
    pub(super) profile: Profile,
    /// The access policy of the configuration generation it was built for.
    policy: Mutex<(u64, Arc<Policy>)>,
    pub(super) files: DiskFiles,
    started: Instant,
    failures: Mutex<VecDeque<Failure>>,
    /// How long a call waits for the index it needs ([`INDEX_WAIT`]).
    index_wait: Mutex<Duration>,
}

const MAX_FAILURES: usize = 50;

/// How long a call waits for the index it needs before it says to retry:
/// long enough for a cold build of a large vault's notes, and the client
/// hears how far it is meanwhile.
pub const INDEX_WAIT: Duration = Duration::from_secs(30);

/// Where indexing stands, for progress reports and the error of a call
/// that waited too long.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexing {
    /// Notes done and to do, when known (the full text counts; reading the
    /// notes does not, it is short).
    pub done: Option<usize>,
    pub total: Option<usize>,
    /// What is being done, in a sentence.
    pub message: String,
}

impl ToolState {
    /// The state over the process's hub for the vault at `root`; nothing
    /// is indexed yet (see [`ToolState::start`]). Refuses the file system
    /// root, a missing folder and a file.
    pub fn open(root: &Path, profile: Profile) -> Result<Arc<ToolState>, StartError> {
        Ok(ToolState::over(Hub::get(root)?, profile))
    }

    /// A state over `hub`.
    pub fn over(hub: Arc<Hub>, profile: Profile) -> Arc<ToolState> {
        let snapshot = hub.live_config().snapshot();
        let policy = Policy::new(
            hub.root(),
            &snapshot.config.agent,
            profile.tools,
            profile.read_only,
        );
        Arc::new(ToolState {
            files: hub.files.clone(),
            policy: Mutex::new((snapshot.generation, Arc::new(policy))),
            profile,
            started: Instant::now(),
            failures: Mutex::new(VecDeque::new()),
            index_wait: Mutex::new(INDEX_WAIT),
            hub,
        })
    }

    /// A state over a vault already open (the command line, benchmarks):
    /// ready at once, with the full-text index built now when asked for.
    /// Needs no async runtime; nothing follows the disk afterwards.
    pub fn from_live(
        live: Arc<LiveVault>,
        profile: Profile,
        fulltext: bool,
    ) -> Result<Arc<ToolState>, StartError> {
        Ok(ToolState::over(Hub::detached(live, fulltext)?, profile))
    }

    /// The shared state of the vault.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The configuration now.
    pub fn config(&self) -> Arc<Config> {
        self.hub.config()
    }

    /// Now, in the vault's zone: what `now`, `today` and `7d` mean in a
    /// request (THE clock, `weft_search::clock`).
    pub fn now(&self) -> Now {
        self.config().now()
    }

    /// The vault's zone, in which the agent reads every time.
    pub fn zone(&self) -> Zone {
        self.config().zone()
    }

    /// Why `.weft.toml` does not load now, when it does not.
    pub fn config_error(&self) -> Option<String> {
        self.hub.config_error()
    }

    /// What the agent may see and do under the configuration now.
    pub fn policy(&self) -> Arc<Policy> {
        let generation = self.hub.live_config().generation();
        let mut cached = lock(&self.policy);
        if cached.0 != generation {
            let snapshot = self.hub.live_config().snapshot();
            let policy = Policy::new(
                self.root(),
                &snapshot.config.agent,
                self.profile.tools,
                self.profile.read_only,
            );
            *cached = (snapshot.generation, Arc::new(policy));
        }
        cached.1.clone()
    }

    /// Brings the configuration up to date before an agent's request (two
    /// `stat`s when nothing changed), so a rule added to `.weft.toml`
    /// applies to the very next request; a semantic model fetched
    /// meanwhile is taken up too.
    pub async fn refresh_config(&self) {
        self.hub.follow_fetched_model();
        if !self.hub.live_config().stale() {
            return;
        }
        let hub = self.hub.clone();
        let _ = tokio::task::spawn_blocking(move || hub.refresh_config()).await;
    }

    /// The options the server was started with.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The vault root (canonical).
    pub fn root(&self) -> &Path {
        self.hub.root()
    }

    /// Starts loading in the background, once, with the full text and the
    /// history an agent needs; needs a tokio runtime.
    pub fn start(self: &Arc<Self>) {
        self.hub.start();
        self.hub.want_full();
    }

    /// Brings the full-text index in step with the note index for `paths`.
    pub fn update_fulltext(&self, paths: &[String]) {
        self.hub.update_fulltext(paths);
    }

    /// Tells every session (editors too) that these vault paths changed
    /// (a tool's own write calls this after [`LiveVault::apply_paths`]; the
    /// hub's watcher does it for outside changes).
    pub(crate) fn notify_changed(&self, paths: Vec<String>) {
        self.hub.disk_changed(paths, false);
    }

    /// The write operations on behalf of `actor` (the client's name, for
    /// history). The one place write tools get them: fails while the vault
    /// is not fully indexed (a write then could miss links to rewrite or
    /// full text to update) and when the server is read-only. They refuse
    /// to overwrite a note with unsaved changes in an editor.
    pub fn ops(&self, actor: &str) -> Result<Ops<'_>, ToolError> {
        if self.policy().read_only {
            return Err(ToolError::new(OpError::ReadOnly.to_string()));
        }
        let live = match (self.phase(), self.hub.live()) {
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
        let ops = Ops::new(live, actor).with_guard(&*self.hub);
        Ok(match self.write_log() {
            Some(log) => ops.with_log(log),
            None => ops,
        })
    }

    /// Waits (at most `max`) until the vault is ready for writes; returns
    /// at once when loading never started.
    pub async fn wait_writable(&self, max: Duration) {
        if !self.hub.loading_started() {
            return;
        }
        let _ = tokio::time::timeout(max, self.wait_ready()).await;
    }

    /// Changed vault paths, as they happen.
    pub fn subscribe_changes(&self) -> broadcast::Receiver<Arc<Vec<String>>> {
        self.hub.subscribe_changes()
    }

    /// Waits until loading is done (or failed).
    pub async fn wait_ready(&self) -> Phase {
        self.hub.wait_ready().await
    }

    pub fn phase(&self) -> Phase {
        self.hub.phase()
    }

    pub fn live(&self) -> Option<&Arc<LiveVault>> {
        self.hub.live()
    }

    pub fn search(&self) -> Option<&Arc<SearchIndex>> {
        self.hub.search()
    }

    /// The note history, once loading has opened it (disabled when off or
    /// damaged; `None` before, and for states made with `from_live`).
    pub fn history(&self) -> Option<&Arc<History>> {
        self.hub.history()
    }

    /// Where write operations record what they wrote: the history when it
    /// records (`Ops::with_log`).
    pub fn write_log(&self) -> Option<&dyn WriteLog> {
        self.hub
            .history()
            .filter(|h| h.is_enabled())
            .map(|h| &**h as &dyn WriteLog)
    }

    /// Waits (at most `max`) until the history is open and has caught up
    /// with the disk; at once when loading never started or failed.
    pub async fn wait_history(&self, max: Duration) {
        let deadline = Instant::now() + max;
        while self.hub.loading_started()
            && !self.hub.history_ready()
            && !matches!(self.phase(), Phase::Failed(_))
            && self.config_error().is_none()
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The note index as far as it is loaded (empty while loading); open
    /// editor buffers are in it as they are typed.
    pub fn index(&self) -> RwLockReadGuard<'_, VaultIndex> {
        self.hub.index()
    }

    /// Changes how long calls wait for the index (tests make it short).
    pub fn set_index_wait(&self, wait: Duration) {
        *lock(&self.index_wait) = wait;
    }

    /// Whether what `needs` is loaded. A vault that failed counts: its
    /// error is the answer.
    pub fn has(&self, needs: Needs) -> bool {
        match (needs, self.phase()) {
            (Needs::Nothing, _) | (_, Phase::Failed(_) | Phase::Ready) => true,
            (Needs::Notes, Phase::FullText) => true,
            (Needs::FullText, Phase::FullText) => self.search().is_some(),
            _ => false,
        }
    }

    /// Where indexing stands now.
    pub fn indexing(&self) -> Indexing {
        let secs = self.hub.seconds_since_start();
        match self.phase() {
            Phase::FullText => {
                let done = self.hub.fulltext_done.load(Ordering::Relaxed);
                let total = self.hub.fulltext_total.load(Ordering::Relaxed);
                Indexing {
                    done: Some(done),
                    total: (total > 0).then_some(total),
                    message: format!(
                        "indexing the full text: {done} of {total} notes ({secs:.1} s so far)"
                    ),
                }
            }
            _ => Indexing {
                done: None,
                total: None,
                message: format!("reading the vault's notes ({secs:.1} s so far)"),
            },
        }
    }

    /// Waits until what `needs` is loaded, telling `progress` where indexing
    /// stands about four times a second; after the wait's bound, the error
    /// says how far it is and when to retry. Never a partial answer.
    pub async fn wait_for(
        &self,
        needs: Needs,
        mut progress: impl FnMut(&Indexing),
    ) -> Result<(), ToolError> {
        let bound = *lock(&self.index_wait);
        let started = Instant::now();
        let mut phase = self.hub.watch_phase();
        while !self.has(needs) {
            let now = self.indexing();
            if started.elapsed() >= bound {
                let secs = self.hub.seconds_since_start();
                let retry = match (now.done, now.total) {
                    (Some(done), Some(total)) if done > 0 && total > done => {
                        (secs * (total - done) as f64 / done as f64).ceil().max(1.0)
                    }
                    _ => 5.0,
                };
                return Err(ToolError::new(format!(
                    "Still indexing: {}; nothing is answered from a partial index.",
                    now.message
                ))
                .hint(format!(
                    "Retry in about {retry:.0} s; vault_info shows the progress."
                )));
            }
            progress(&now);
            // Woken by the hub as soon as what it has changes; progress
            // is reported at least every 250 ms meanwhile.
            let _ = tokio::time::timeout(Duration::from_millis(250), phase.changed()).await;
        }
        Ok(())
    }

    /// Fails when the vault could not be opened (nothing can be answered).
    pub fn check_usable(&self) -> Result<(), ToolError> {
        if let Phase::Failed(error) = self.phase() {
            let mut e = ToolError::new(format!(
                "The vault at {} cannot be served: {error}",
                self.root().display()
            ));
            if self.config_error().is_some() {
                e = e.hint("Fix .weft.toml at the vault root (the message gives the line); Weft serves the vault as soon as it loads.");
            }
            return Err(e);
        }
        Ok(())
    }

    /// Load timings: (notes ms, full text ms), 0 while not done.
    pub fn timings(&self) -> (usize, usize) {
        self.hub.timings()
    }

    pub fn seconds_since_start(&self) -> f64 {
        self.hub.seconds_since_start()
    }

    pub fn watch_error(&self) -> Option<String> {
        self.hub.watch_error()
    }

    /// Full-text progress: (notes indexed, notes to index).
    pub(crate) fn fulltext_progress(&self) -> (usize, usize) {
        (
            self.hub.fulltext_done.load(Ordering::Relaxed),
            self.hub.fulltext_total.load(Ordering::Relaxed),
        )
    }

    /// The note files as the full-text index reads them (snippets and
    /// passages), for a search run by hand (`weft-bench`).
    pub fn files(&self) -> &DiskFiles {
        &self.files
    }

    /// A note's text as the user sees it: an editor's open buffer when it
    /// has one (saved or not), else the disk (`path` as indexed).
    pub fn read_text(&self, path: &str) -> Option<String> {
        if let Some(text) = self.hub.buffers.text(path) {
            return Some(String::clone(&text));
        }
        self.files
            .read(path)
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
    }

    /// A note's bytes as the user sees them (see [`ToolState::read_text`]).
    pub fn read_bytes(&self, path: &str) -> Option<Vec<u8>> {
        if let Some(text) = self.hub.buffers.text(path) {
            return Some(text.as_bytes().to_vec());
        }
        std::fs::read(self.root().join(path)).ok()
    }

    /// Whether `path` is open in an editor with changes not saved.
    pub fn unsaved(&self, path: &str) -> bool {
        self.hub.buffers.unsaved(self.root(), path, false).is_some()
    }

    /// When the note at `path` (as indexed) was last modified, Unix
    /// seconds: the time of the file it was indexed from, else (an editor's
    /// buffer) of its file on disk.
    pub fn modified(&self, path: &str) -> Option<i64> {
        if let Some(stamp) = self.live().and_then(|live| live.stamp(path)) {
            return Some(stamp.mtime_ns.div_euclid(1_000_000_000));
        }
        let metadata = std::fs::metadata(self.root().join(path)).ok()?;
        unix(metadata.modified())
    }

    /// When the file of the note at `path` was created, Unix seconds, where
    /// the file system keeps it (else when it was last modified).
    pub fn created(&self, path: &str) -> Option<i64> {
        let metadata = std::fs::metadata(self.root().join(path)).ok()?;
        unix(metadata.created()).or_else(|| unix(metadata.modified()))
    }

    /// Records a failed tool call.
    pub fn record_failure(&self, tool: &str, input: String, error: &str) {
        let mut failures = lock(&self.failures);
        if failures.len() >= MAX_FAILURES {
            failures.pop_front();
        }
        failures.push_back(Failure {
            time: unix_now(),
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
    pub(crate) fn started_at(&self) -> String {
        format_time(
            unix_now() - self.started.elapsed().as_secs() as i64,
            self.zone(),
        )
    }
}
