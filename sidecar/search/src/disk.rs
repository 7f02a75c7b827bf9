//! Note files read from the vault folder on disk, for the full-text index.
//!
//! The only file reading in `search`: a vault path joined to the vault root
//! (paths come from the vault index, never from a request). Must not know
//! any protocol.

use std::path::PathBuf;

use super::dates::unix;
use super::index::{FileSource, NoteFile};

/// Reads notes from the vault at `root`.
#[derive(Debug, Clone)]
pub struct DiskFiles {
    pub root: PathBuf,
}

impl FileSource for DiskFiles {
    fn read(&self, path: &str) -> Option<NoteFile> {
        let full = self.root.join(path);
        let bytes = std::fs::read(&full).ok()?;
        let metadata = std::fs::metadata(&full).ok();
        Some(NoteFile {
            bytes,
            modified: metadata.as_ref().and_then(|m| unix(m.modified())),
            created: metadata.as_ref().and_then(|m| unix(m.created())),
        })
    }
}
