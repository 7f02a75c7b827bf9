//! One writer of the store at a time, and what dead writers left cleared.
//!
//! Whoever writes the store (objects, then the branch) holds an advisory
//! lock on a file in it (`flock`, which the kernel releases when its holder
//! dies). While it is held, no other Weft is writing, so a git lock file
//! (`refs/heads/main.lock`) or a temporary object found in the store was
//! left by a writer that was killed: the branch lock is removed before each
//! write (a stale one would refuse every commit after a crash), temporary
//! objects when the store is opened.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use super::record::COMMIT_PATIENCE;
use super::{BRANCH, Store};
use crate::history::error::HistoryError;

/// The file whose lock says "writing": never removed, only locked.
const GUARD_FILE: &str = "weft-writer.guard";

/// Held while this handle writes the store; released when dropped.
pub(super) struct WriteGuard {
    _file: File,
}

impl Store {
    /// Waits (as long as a commit waits for the branch) until no other
    /// writer holds the store, then clears the branch lock a killed writer
    /// may have left.
    pub(super) fn write_guard(&self) -> Result<WriteGuard, HistoryError> {
        let patience = COMMIT_PATIENCE;
        let path = self.git_dir.join(GUARD_FILE);
        let io = |source| HistoryError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if started.elapsed() < patience => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(HistoryError::Busy(format!(
                        "another Weft has been writing the history store {} for {} s",
                        self.git_dir.display(),
                        patience.as_secs()
                    )));
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        for lock in [format!("{BRANCH}.lock"), "packed-refs.lock".to_string()] {
            remove_left(&self.git_dir.join(lock));
        }
        Ok(WriteGuard { _file: file })
    }

    /// Removes the temporary objects killed writers left (under the guard,
    /// so none is being written).
    pub(super) fn clear_temporary_objects(&self) -> Result<(), HistoryError> {
        let _guard = self.write_guard()?;
        // libgit2 writes an object as `objects/tmp_object_git2_*`, then
        // moves it into its folder; packs are made in `objects/pack/`.
        let objects = self.git_dir.join("objects");
        let Ok(entries) = fs::read_dir(&objects) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                for inner in fs::read_dir(entry.path()).into_iter().flatten().flatten() {
                    if is_temporary(&inner) {
                        remove_left(&inner.path());
                    }
                }
            } else if is_temporary(&entry) {
                remove_left(&entry.path());
            }
        }
        Ok(())
    }
}

/// A git temporary file (`tmp_object_git2_*`, `tmp_pack_*`), never a
/// folder.
fn is_temporary(entry: &fs::DirEntry) -> bool {
    entry.file_name().to_string_lossy().starts_with("tmp_")
        && entry.file_type().is_ok_and(|t| t.is_file())
}

fn remove_left(path: &Path) {
    match fs::remove_file(path) {
        Ok(()) => tracing::info!(
            "history: removed {}, left by a writer that was stopped",
            path.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!("history: cannot remove {}: {e}", path.display()),
    }
}
