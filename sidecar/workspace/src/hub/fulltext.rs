//! The hub's full-text index: built in the background from the notes as
//! loaded, then kept in step with the changes that queued meanwhile and
//! every change after; the memory the build freed given back.
//!
//! Knows the search crate's entry points, not its query syntax; one note's
//! change is one delete and one add (`Hub::update_fulltext`).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use tokio::sync::mpsc;

use super::Hub;
use crate::io::LiveVault;
use crate::sync::{lock, read};
use weft_search::{DocSource, SearchIndex};

impl Hub {
    /// Builds the full-text index in the background; changes from now on
    /// queue and are applied once it is built.
    pub(super) fn start_fulltext(self: &Arc<Self>, live: &LiveVault) {
        // Changes from now on queue; applied once it is built.
        let (tx, rx) = mpsc::unbounded_channel();
        *lock(&self.fulltext_tx) = Some(tx);
        let sources = sources(live);
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
