//! The hub's full-text index: reused from the cache when the hub keeps one
//! (the notes changed since read again), else built in the background from
//! the notes as loaded; then kept in step with the changes that queued
//! meanwhile and every change after; the memory a build freed given back.
//!
//! Knows the search crate's entry points, not its query syntax; one note's
//! change is one delete and one add (`Hub::update_fulltext`).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use tokio::sync::mpsc;

use super::{Hub, batch};
use crate::io::LiveVault;
use crate::sync::{lock, read};
use weft_search::{DocSource, SearchError, SearchIndex, Unusable};

impl Hub {
    /// Brings up the full-text index in the background, once: the one kept
    /// in the cache is opened at once (while the notes load), and reused
    /// when it can be trusted (the notes whose files changed since are
    /// queued to be read again); else it is built from the notes once they
    /// are loaded. Changes from now on queue and are applied once it is up.
    pub(super) fn start_fulltext(self: &Arc<Self>) {
        if self.fulltext_started.swap(true, Ordering::SeqCst) {
            return;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        *lock(&self.fulltext_tx) = Some(tx.clone());
        let hub = self.clone();
        tokio::spawn(async move {
            let trying = hub.clone();
            let tried = tokio::task::spawn_blocking(move || trying.try_cached_fulltext())
                .await
                .unwrap_or(None);
            hub.fulltext_tried.store(true, Ordering::SeqCst);
            hub.fulltext_tried_signal.notify_waiters();
            hub.wait_notes().await;
            let Some(live) = hub.live.get().cloned() else {
                // The vault did not load: tried again when it does.
                *lock(&hub.fulltext_tx) = None;
                hub.fulltext_tried.store(false, Ordering::SeqCst);
                hub.fulltext_started.store(false, Ordering::SeqCst);
                return;
            };
            let building = hub.clone();
            let reading = live.clone();
            let opened =
                tokio::task::spawn_blocking(move || building.open_fulltext(&reading, tried)).await;
            let mut reused = false;
            match opened {
                Ok(Ok((search, from_cache))) => {
                    let _ = hub.search.set(Arc::new(search));
                    reused = from_cache;
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
            // Whoever waits for the full text looks again now: a reused one
            // answers for the vault as it was saved until what changed
            // since is read again, as the persisted index does.
            hub.phase.send_modify(|_| {});
            if reused {
                let checking = hub.clone();
                let stale =
                    tokio::task::spawn_blocking(move || checking.fulltext_out_of_step(&live))
                        .await
                        .unwrap_or_default();
                if !stale.is_empty() {
                    let _ = tx.send(stale);
                }
            }
            tokio::spawn(follow(Arc::downgrade(&hub), rx));
            hub.update_phase();
        });
    }

    /// The full text kept in the cache, opened: `None` when the hub keeps
    /// none. Blocking; needs no notes.
    fn try_cached_fulltext(&self) -> Option<Result<SearchIndex, Unusable>> {
        let (dir, build) = self.fulltext_dir()?;
        let started = std::time::Instant::now();
        let opened = SearchIndex::open(&dir, build);
        if let Ok(search) = &opened {
            tracing::info!(
                "full-text index {}: {} notes opened in {} ms",
                dir.display(),
                search.len(),
                started.elapsed().as_millis()
            );
        }
        Some(opened)
    }

    /// The full-text index, and whether it is the one kept in the cache
    /// (`tried` opened it; what changed since must be read again), else
    /// built in the cache, or (no cache, or one another process writes)
    /// built in memory. Blocking.
    fn open_fulltext(
        &self,
        live: &LiveVault,
        tried: Option<Result<SearchIndex, Unusable>>,
    ) -> Result<(SearchIndex, bool), SearchError> {
        let total = read(&live.index).len();
        self.fulltext_total.store(total, Ordering::Relaxed);
        let (Some(tried), Some((dir, build))) = (tried, self.fulltext_dir()) else {
            let search = SearchIndex::build(&sources(live), &self.files, &self.fulltext_done)?;
            return Ok((search, false));
        };
        let why = match tried {
            Ok(search) => {
                self.fulltext_done.store(total, Ordering::Relaxed);
                return Ok((search, true));
            }
            Err(why) => why,
        };
        let sources = sources(live);
        if why == Unusable::InUse {
            tracing::info!(
                "full-text index {}: {why}; building one in memory",
                dir.display()
            );
            let search = SearchIndex::build(&sources, &self.files, &self.fulltext_done)?;
            return Ok((search, false));
        }
        if why != Unusable::Missing {
            tracing::warn!(
                "full-text index {} not used: {why}; building it again",
                dir.display()
            );
        }
        match SearchIndex::build_in(&dir, build, &sources, &self.files, &self.fulltext_done) {
            Ok(search) => Ok((search, false)),
            Err(e) => {
                tracing::warn!(
                    "full-text index {} not kept: {e}; building it in memory",
                    dir.display()
                );
                self.fulltext_done.store(0, Ordering::Relaxed);
                let search = SearchIndex::build(&sources, &self.files, &self.fulltext_done)?;
                Ok((search, false))
            }
        }
    }
}

impl Hub {
    /// The notes whose documents in the reused full text are not of their
    /// files as the index last read them (see `SearchIndex::out_of_step`).
    /// Blocking.
    fn fulltext_out_of_step(&self, live: &LiveVault) -> Vec<String> {
        let Some(search) = self.search.get() else {
            return Vec::new();
        };
        let started = std::time::Instant::now();
        match search.out_of_step(&live.note_stamps()) {
            Ok(stale) => {
                tracing::info!(
                    "full-text index: {} notes to read again, found in {} ms",
                    stale.len(),
                    started.elapsed().as_millis()
                );
                stale
            }
            Err(e) => {
                // Which notes it is out of step for cannot be told: every
                // document is replaced, in one commit; until it lands the
                // index answers as it was saved.
                tracing::warn!("full-text index: {e}; reading every note again");
                if let Err(e) = search.refill(sources(live), &self.files) {
                    tracing::error!("full-text index not filled again: {e}");
                }
                Vec::new()
            }
        }
    }

    /// Waits (at most `bound`) until the full text kept in the cache was
    /// tried, when a full text was asked for: reusing it checks every file
    /// of it, and it should not share the cores with setting the watches
    /// and reconciling, which stat every file.
    pub(super) async fn wait_fulltext_tried(&self, bound: std::time::Duration) {
        if !self.fulltext_started.load(Ordering::SeqCst) {
            return;
        }
        let _ = tokio::time::timeout(bound, async {
            loop {
                let woken = self.fulltext_tried_signal.notified();
                if self.fulltext_tried.load(Ordering::SeqCst) {
                    return;
                }
                woken.await;
            }
        })
        .await;
    }
}

/// How long the full-text index waits without a change before it puts
/// its writer to rest (see `SearchIndex::rest`).
const REST_AFTER: std::time::Duration = std::time::Duration::from_secs(3);

/// Applies changed paths to the full-text index as they come; puts it at
/// rest once they stop coming for a while.
async fn follow(hub: Weak<Hub>, mut rx: mpsc::UnboundedReceiver<Vec<String>>) {
    loop {
        let next = match tokio::time::timeout(REST_AFTER, rx.recv()).await {
            Ok(next) => next,
            Err(_quiet) => {
                let Some(hub) = hub.upgrade() else { return };
                let _ = tokio::task::spawn_blocking(move || hub.rest_fulltext()).await;
                rx.recv().await
            }
        };
        let Some(first) = next else { return };
        let paths = batch(first, &mut rx);
        let Some(hub) = hub.upgrade() else { return };
        let _ = tokio::task::spawn_blocking(move || hub.update_fulltext(&paths)).await;
    }
}

/// What the full-text index is built from: every note as indexed now.
pub(super) fn sources(live: &LiveVault) -> Vec<DocSource> {
    let index = read(&live.index);
    index.notes().map(|(_, n)| DocSource::of(n)).collect()
}

/// Gives the memory the full-text build freed back to the system. Building
/// holds every document in flight and two writer arenas; glibc keeps what
/// they freed in its per-thread arenas, which would otherwise stay resident
/// for the life of the server. (The `weft` binary allocates with mimalloc,
/// which gives memory back itself; this still trims what the C libraries
/// and in-process users on the system allocator freed.)
pub(super) fn return_free_memory() {
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
