//! The hub's persisted index: where a vault's snapshot lives, reading it at
//! the start (a refused one is logged and the vault is read from disk as
//! without one), and saving it when the index changed, off the request
//! path: after the first load, every [`SAVE_EVERY`] while the index
//! changes, and when the daemon leaves.
//!
//! Only a hub told where to keep it ([`Hub::persist_in`], the daemon's)
//! persists anything: a face run in-process, a test or a benchmark leaves
//! no file behind. What a snapshot holds and how it is checked is
//! `io::snapshot`'s business.

use std::path::PathBuf;
use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{Hub, Persist};
use crate::io::snapshot::{self, Snapshot};
use crate::sync::{lock, read};

/// How often a changing index is saved again.
pub const SAVE_EVERY: Duration = Duration::from_secs(60);

/// What a save did.
#[derive(Debug, Clone, Copy)]
pub struct Saved {
    pub notes: usize,
    pub bytes: usize,
    pub millis: u128,
}

impl Hub {
    /// Keeps this vault's index in `cache` (the user's cache folder for
    /// Weft) as written by `build`, from the start on. Call before
    /// [`Hub::start`]; later calls change nothing.
    pub fn persist_in(&self, cache: PathBuf, build: String) {
        let _ = self.persist.set(Persist { cache, build });
    }

    /// The snapshot file of this vault, when the hub persists its index.
    pub fn snapshot_path(&self) -> Option<PathBuf> {
        let persist = self.persist.get()?;
        Some(snapshot::path_for(&persist.cache, &self.root))
    }

    /// The folder of this vault's full-text index and the build that
    /// writes it, when the hub persists its index.
    pub(super) fn fulltext_dir(&self) -> Option<(PathBuf, &str)> {
        let persist = self.persist.get()?;
        Some((
            snapshot::fulltext_dir_for(&persist.cache, &self.root),
            &persist.build,
        ))
    }

    /// This vault's snapshot, when there is one this build can trust; why
    /// not is logged.
    pub(super) fn read_snapshot(&self) -> Option<Snapshot> {
        let persist = self.persist.get()?;
        let path = snapshot::path_for(&persist.cache, &self.root);
        let started = Instant::now();
        match snapshot::read(&path, &persist.build, &self.root.to_string_lossy()) {
            Ok(snapshot) => {
                tracing::info!(
                    "index snapshot {}: {} notes read in {} ms",
                    path.display(),
                    snapshot.notes.len(),
                    started.elapsed().as_millis()
                );
                Some(snapshot)
            }
            Err(snapshot::Refused::Missing) => None,
            Err(why) => {
                tracing::warn!(
                    "index snapshot {} not used: {why}; reading the vault",
                    path.display()
                );
                None
            }
        }
    }

    /// Saves the index to the snapshot now, unless it is unchanged since
    /// the last save (or the hub keeps none, or nothing is loaded yet).
    /// Blocking: encoding holds the index's read lock, writing does not.
    pub fn save_snapshot(&self) -> Option<Saved> {
        self.save_vectors();
        let persist = self.persist.get()?;
        let live = self.live.get()?;
        if !live.status().ready {
            return None;
        }
        let _saving = lock(&self.saving);
        let generation = read(&live.index).generation();
        if self.saved_generation.load(Ordering::SeqCst) == generation {
            return None;
        }
        let started = Instant::now();
        let notes = read(&live.index).len();
        let path = snapshot::path_for(&persist.cache, &self.root);
        let written = live
            .snapshot_bytes(&persist.build)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                snapshot::write(&path, &bytes)
                    .map(|()| bytes.len())
                    .map_err(|e| e.to_string())
            });
        match written {
            Ok(bytes) => {
                self.saved_generation.store(generation, Ordering::SeqCst);
                let saved = Saved {
                    notes,
                    bytes,
                    millis: started.elapsed().as_millis(),
                };
                tracing::info!(
                    "index snapshot {}: {} notes, {} bytes saved in {} ms",
                    path.display(),
                    saved.notes,
                    saved.bytes,
                    saved.millis
                );
                Some(saved)
            }
            Err(e) => {
                tracing::warn!("index snapshot {} not saved: {e}", path.display());
                None
            }
        }
    }
}

/// Saves the hub's index every [`SAVE_EVERY`] while it changes; ends with
/// the hub.
pub(super) async fn keep_saving(hub: Weak<Hub>) {
    loop {
        tokio::time::sleep(SAVE_EVERY).await;
        let Some(hub) = hub.upgrade() else { return };
        let _ = tokio::task::spawn_blocking(move || hub.save_snapshot()).await;
    }
}
