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

use super::Hub;
use crate::io::LiveVault;
use crate::sync::{lock, read};
use weft_search::{DocSource, SearchError, SearchIndex, Unusable};

impl Hub {
    /// Brings up the full-text index in the background: the one persisted
    /// for this vault when the hub keeps one and it can be trusted (the
    /// notes whose files changed since are queued to be read again), else
    /// built from the notes as loaded. Changes from now on queue and are
    /// applied once it is up.
    pub(super) fn start_fulltext(self: &Arc<Self>, live: &Arc<LiveVault>) {
        let (tx, rx) = mpsc::unbounded_channel();
        *lock(&self.fulltext_tx) = Some(tx.clone());
        let hub = self.clone();
        let live = live.clone();
        tokio::spawn(async move {
            let building = hub.clone();
            let opened = tokio::task::spawn_blocking(move || building.open_fulltext(&live)).await;
            match opened {
                Ok(Ok((search, stale))) => {
                    let _ = hub.search.set(Arc::new(search));
                    // Whoever waits for the full text looks again now.
                    hub.phase.send_modify(|_| {});
                    if !stale.is_empty() {
                        let _ = tx.send(stale);
                    }
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

    /// The full-text index, with the paths it must read again: reused from
    /// the cache, or built there, or (no cache, or one another process
    /// writes) built in memory. Blocking.
    fn open_fulltext(&self, live: &LiveVault) -> Result<(SearchIndex, Vec<String>), SearchError> {
        let total = read(&live.index).len();
        self.fulltext_total.store(total, Ordering::Relaxed);
        let Some((dir, build)) = self.fulltext_dir() else {
            let search = SearchIndex::build(&sources(live), &self.files, &self.fulltext_done)?;
            return Ok((search, Vec::new()));
        };
        let started = std::time::Instant::now();
        let why = match SearchIndex::open(&dir, build) {
            Ok(search) => {
                let stale = search.out_of_step(&live.note_stamps());
                self.fulltext_done.store(total, Ordering::Relaxed);
                tracing::info!(
                    "full-text index {}: {} notes opened in {} ms, {} to read again",
                    dir.display(),
                    search.len(),
                    started.elapsed().as_millis(),
                    stale.len()
                );
                return Ok((search, stale));
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
            return Ok((search, Vec::new()));
        }
        if why != Unusable::Missing {
            tracing::warn!(
                "full-text index {} not used: {why}; building it again",
                dir.display()
            );
        }
        match SearchIndex::build_in(&dir, build, &sources, &self.files, &self.fulltext_done) {
            Ok(search) => Ok((search, Vec::new())),
            Err(e) => {
                tracing::warn!(
                    "full-text index {} not kept: {e}; building it in memory",
                    dir.display()
                );
                self.fulltext_done.store(0, Ordering::Relaxed);
                let search = SearchIndex::build(&sources, &self.files, &self.fulltext_done)?;
                Ok((search, Vec::new()))
            }
        }
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

/// What the full-text index is built from: every note as indexed now.
pub(super) fn sources(live: &LiveVault) -> Vec<DocSource> {
    let index = read(&live.index);
    index.notes().map(|(_, n)| DocSource::of(n)).collect()
}

/// Gives the memory the full-text build freed back to the system. Building
/// holds every document in flight and two writer arenas; glibc keeps what
/// they freed in its per-thread arenas, which would otherwise stay resident
/// for the life of the server.
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
