//! A vault of an inline fixture with its full-text index, for tests (here
//! and in the crates above): `//- /path.md` starts a file, `@SECONDS`
//! after the path sets its modified time (created 1000 s before); files
//! are kept in memory.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;

use super::index::{DocSource, FileSource, NoteFile, SearchIndex};
use weft_vault::VaultIndex;
use weft_vault::parse::parse_text;
use weft_vault::stamp::Stamp;

/// Files in memory, changeable.
#[derive(Default)]
pub struct MemFiles(pub Mutex<HashMap<String, NoteFile>>);

impl FileSource for MemFiles {
    fn read(&self, path: &str) -> Option<NoteFile> {
        self.0.lock().unwrap().get(path).cloned()
    }
}

pub struct Fixture {
    pub vault: VaultIndex,
    pub files: MemFiles,
    pub search: SearchIndex,
}

pub fn fixture(src: &str) -> Fixture {
    let mut vault = VaultIndex::new();
    let files = MemFiles::default();
    let all = weft_vault::fixture::files(src)
        .into_iter()
        .map(|file| (file.path, file.time.unwrap_or(1_700_000_000), file.text));
    for (path, time, text) in all {
        vault.upsert(parse_text(&path, &text));
        files.0.lock().unwrap().insert(
            path,
            NoteFile {
                stamp: Some(stamp(text.len(), time)),
                bytes: text.into_bytes(),
                modified: Some(time),
                created: Some(time - 1000),
            },
        );
    }
    let sources: Vec<DocSource> = vault.notes().map(|(_, n)| DocSource::of(n)).collect();
    let search = SearchIndex::build(&sources, &files, &AtomicUsize::new(0)).unwrap();
    Fixture {
        vault,
        files,
        search,
    }
}

/// The stamp of a file of `len` bytes modified at `time` (Unix seconds),
/// read long after.
pub fn stamp(len: usize, time: i64) -> Stamp {
    Stamp {
        size: len as u64,
        mtime_ns: time * 1_000_000_000,
        racy: false,
    }
}
