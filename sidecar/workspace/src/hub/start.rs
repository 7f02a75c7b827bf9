//! Bringing a hub up: loading the notes in the background (and waiting for
//! a configuration that does not load yet), then building what sessions
//! asked for (the full-text index, the note history), once each; a detached
//! hub over a vault already loaded; the configuration followed as it
//! changes.
//!
//! Decides when things start, not how: building the full text and keeping
//! the history are `fulltext`'s and `history`'s business.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::fulltext::{return_free_memory, sources};
use super::persist::keep_saving;
use super::{Hub, Phase, StartError};
use crate::io::LiveVault;
use crate::sync::{lock, read};
use weft_search::SearchIndex;

impl Hub {
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
            // Built: a later ask for it must not build it again.
            hub.fulltext_started.store(true, Ordering::SeqCst);
            hub.fulltext_tried.store(true, Ordering::SeqCst);
            hub.fulltext_built.store(true, Ordering::SeqCst);
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

    /// A detached hub that also keeps the note history, opened (and the
    /// vault recorded) now: for the tests of the history tools.
    #[cfg(any(test, feature = "test-support"))]
    pub fn detached_with_history(live: Arc<LiveVault>) -> Result<Arc<Hub>, StartError> {
        let hub = Hub::detached(live.clone(), false)?;
        hub.open_history(&live);
        hub.history_ready.store(true, Ordering::SeqCst);
        Ok(hub)
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
                if self.wants_fulltext.load(Ordering::SeqCst) {
                    self.follow_semantic_config();
                }
            }
            None => {
                self.config.refresh();
                if self.config.snapshot().loaded && !self.loading_started() {
                    self.start();
                }
            }
        }
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
        if self.wants_fulltext.load(Ordering::SeqCst) {
            self.start_fulltext();
        }
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
        if self.loading_started() {
            // The full text kept in the cache opens while the notes load.
            self.start_fulltext();
        }
        if self.live.get().is_some() {
            self.build_extras();
        }
    }

    async fn load(self: Arc<Self>) {
        let root = self.root.clone();
        let config = self.config.clone();
        // The last snapshot, when there is a usable one: the vault is
        // served from it at once and brought up to the disk after.
        let reader = self.clone();
        let snapshot = tokio::task::spawn_blocking(move || reader.read_snapshot())
            .await
            .ok()
            .flatten();
        let from_snapshot = snapshot.is_some();
        let opened = tokio::task::spawn_blocking(move || match snapshot {
            Some(snapshot) => {
                let started = std::time::Instant::now();
                let notes = snapshot.notes.len();
                let live = LiveVault::open_from_snapshot(&root, config, snapshot);
                tracing::info!(
                    "index snapshot: {notes} notes indexed in {} ms",
                    started.elapsed().as_millis()
                );
                live
            }
            None => LiveVault::open_with_config(&root, config),
        })
        .await;
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
        if from_snapshot {
            // The snapshot holds this index: nothing to save until it changes.
            self.saved_generation
                .store(read(&live.index).generation(), Ordering::SeqCst);
        }
        // Buffers opened while loading are the truth for their notes.
        let open = self.buffers.paths();
        let _ = self.live.set(live.clone());
        self.buffers.overlay(&live, &open);
        self.phase.send_replace(Phase::FullText);
        // The full text and the history start now: what changes from here
        // on queues for them.
        self.build_extras();
        // A full text kept in the cache is opened first (tens of ms to a
        // few hundred at 169k notes); a rebuild is not waited for.
        self.wait_fulltext_tried(Duration::from_secs(2)).await;
        // Setting the watches walks every folder: blocking, and long on a
        // big vault, so off the runtime's workers (a session woken by the
        // phase above must not wait behind it).
        let weak = Arc::downgrade(&self);
        let watching = live.clone();
        let watched = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let watcher = watching.watch_with(move |paths| {
                if let Some(hub) = weak.upgrade() {
                    hub.disk_changed(paths.to_vec(), true);
                }
            });
            tracing::info!(
                "watching the vault: set in {} ms",
                started.elapsed().as_millis()
            );
            watcher
        })
        .await;
        match watched {
            Ok(Ok(watcher)) => *lock(&self.watcher) = Some(watcher),
            Ok(Err(e)) => {
                tracing::warn!("{e}");
                *lock(&self.watch_error) = Some(e.to_string());
            }
            Err(e) => {
                tracing::warn!("watching the vault failed: {e}");
                *lock(&self.watch_error) = Some(e.to_string());
            }
        }
        // What changed before the watches were set — while no Weft ran
        // (from a snapshot), while the notes were read, or since sessions
        // were told they were: re-read by stamp, then told to every
        // session, the full text and the history as any outside change.
        let started = std::time::Instant::now();
        let reconciling = live.clone();
        let changed = tokio::task::spawn_blocking(move || reconciling.reconcile())
            .await
            .unwrap_or_default();
        tracing::info!(
            "index reconciled with the disk: {} paths changed, in {} ms{}",
            changed.len(),
            started.elapsed().as_millis(),
            if from_snapshot {
                " (from the snapshot)"
            } else {
                ""
            }
        );
        self.disk_changed(changed, true);
        self.reconciled.store(true, Ordering::SeqCst);
        self.reconciled_signal.notify_waiters();
        if self.snapshot_path().is_some() {
            let saver = self.clone();
            let _ = tokio::task::spawn_blocking(move || saver.save_snapshot()).await;
            tokio::spawn(keep_saving(Arc::downgrade(&self)));
        }
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
            self.start_history(live.clone());
        }
        if self.wants_fulltext.load(Ordering::SeqCst) {
            self.start_fulltext();
            self.follow_semantic_config();
        }
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
