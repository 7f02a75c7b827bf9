//! Going over every note for a search (completion, workspace symbols):
//! in one pass below [`PARALLEL_FROM`] notes, in chunks on every core above
//! it, each chunk's result merged into one. The threshold and the chunk
//! size are decided here once.

use rayon::prelude::*;

use super::index::{NoteId, VaultIndex};
use super::note::Note;

/// Vaults larger than this are scanned on every core; below it, spreading
/// the work costs more than it saves.
pub(crate) const PARALLEL_FROM: usize = 20_000;
/// Notes (or table rows) per parallel chunk.
const CHUNK: usize = 4096;

/// Runs `scan` over every note of `index` and merges the results of the
/// chunks with `merge` (`empty` is what merging starts from).
pub fn notes<T: Send>(
    index: &VaultIndex,
    scan: impl Fn(&mut dyn Iterator<Item = (NoteId, &Note)>) -> T + Sync,
    empty: impl Fn() -> T + Sync + Send,
    merge: impl Fn(T, T) -> T + Sync + Send,
) -> T {
    if index.len() < PARALLEL_FROM {
        return scan(&mut index.notes());
    }
    let notes: Vec<(NoteId, &Note)> = index.notes().collect();
    notes
        .par_chunks(CHUNK)
        .map(|chunk| scan(&mut chunk.iter().copied()))
        .reduce(empty, merge)
}

/// Runs `scan` over the rows `0..len` of a table, as [`notes`] does over
/// notes.
pub fn rows<T: Send>(
    len: usize,
    scan: impl Fn(std::ops::Range<usize>) -> T + Sync + Send,
    empty: impl Fn() -> T + Sync + Send,
    merge: impl Fn(T, T) -> T + Sync + Send,
) -> T {
    if len < PARALLEL_FROM {
        return scan(0..len);
    }
    (0..len)
        .step_by(CHUNK)
        .map(|start| start..(start + CHUNK).min(len))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(scan)
        .reduce(empty, merge)
}
