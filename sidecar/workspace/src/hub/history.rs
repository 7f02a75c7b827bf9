//! The hub's side of the note history: opening it once an agent asks for
//! it, recording the vault as it is (the baseline of a new store, or what
//! changed while Weft was not running), following a changed `[history]`
//! configuration, and recording changes seen on disk once they settle.
//!
//! Hands history the paths and bytes; how commits are made is `history`'s
//! business. Weft's own writes are recorded by the write log, not here.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::{Hub, Phase};
use crate::history::History;
use crate::io::{LiveVault, pool};
use crate::sync::{lock, read};

/// How long changes seen on disk must be quiet before history records them
/// (on top of the watcher's own debounce).
const HISTORY_SETTLE: Duration = Duration::from_millis(400);
/// A stream of changes that never settles is recorded at least this often.
const HISTORY_MAX_WAIT: Duration = Duration::from_secs(5);

impl Hub {
    /// Opens the history in the background; changes seen on disk from now
    /// on queue and are recorded once it is open.
    pub(super) fn start_history(self: &Arc<Self>, live: Arc<LiveVault>) {
        if self.phase() == Phase::Ready {
            self.phase.send_replace(Phase::FullText);
        }
        // Outside changes from now on queue; recorded once it is open.
        let (tx, rx) = mpsc::unbounded_channel();
        *lock(&self.history_tx) = Some(tx);
        let hub = self.clone();
        tokio::spawn(async move {
            let opening = hub.clone();
            if let Err(e) = tokio::task::spawn_blocking(move || opening.open_history(&live)).await {
                tracing::error!("opening the note history failed: {e}");
            }
            hub.history_ready.store(true, Ordering::SeqCst);
            tokio::spawn(record_external(Arc::downgrade(&hub), rx));
            hub.update_phase();
        });
    }

    /// Opens the note history (a damaged store leaves it disabled with the
    /// reason; a missing one is created) and records the vault as it is now:
    /// the baseline of a new store, or what changed while Weft was not
    /// running. Files are read under the history's lock, so a write that
    /// lands meanwhile is never recorded older than it is.
    pub(super) fn open_history(&self, live: &Arc<LiveVault>) {
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
    pub(super) fn follow_history_config(&self) {
        let (Some(history), Some(live)) = (self.history.get(), self.live.get()) else {
            return;
        };
        if history.reconfigure(&self.config().history) {
            record_vault(history, &self.root, live);
        }
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
