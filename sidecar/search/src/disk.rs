//! Note files read from the vault folder on disk, for the full-text index.
//!
//! The only file reading in `search`: a vault path joined to the vault root
//! (paths come from the vault index, never from a request). Must not know
//! any protocol.

use std::io::Read as _;
use std::path::PathBuf;

use super::dates::unix;
use super::index::{FileSource, NoteFile};
use weft_vault::MAX_NOTE_BYTES;
use weft_vault::stamp::{Stamp, now_ns};

/// Reads notes from the vault at `root`.
#[derive(Debug, Clone)]
pub struct DiskFiles {
    pub root: PathBuf,
}

impl FileSource for DiskFiles {
    fn read(&self, path: &str) -> Option<NoteFile> {
        let full = self.root.join(path);
        let before = std::fs::metadata(&full).ok()?;
        // As much as the vault index reads of a note, no more.
        let mut bytes = Vec::with_capacity(before.len().min(MAX_NOTE_BYTES) as usize);
        std::fs::File::open(&full)
            .ok()?
            .take(MAX_NOTE_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        let after = std::fs::metadata(&full).ok()?;
        Some(NoteFile {
            bytes,
            modified: unix(after.modified()),
            created: unix(after.created()),
            stamp: Some(Stamp::of(&before, &after, now_ns())),
        })
    }
}
