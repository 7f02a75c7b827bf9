//! The full-text index kept on disk, so a restart reuses it instead of
//! reading every note again: tantivy's own files in a folder the caller
//! names (the daemon's cache, never the vault), memory-mapped, committed
//! after every batch of changes. Each document carries what the index
//! knows of its note's file (times, stamp), so the index and what it says
//! of the files are always of the same commit.
//!
//! An index is reused only when its last commit says it was written in
//! this [`FORMAT_TAG`](super::schema::FORMAT_TAG) (schema, analyzer and stored encoding), its
//! schema is this build's and every file of its segments passes tantivy's
//! checksum; otherwise it is refused with the
//! reason and the caller builds anew ([`SearchIndex::build_in`]). A folder
//! another process writes (its writer lock is held) is never touched.
//! Opening it removes the files no commit names (see [`SearchIndex::open`]).
//!
//! Which notes changed while no Weft ran is told by comparing stamps with
//! the caller's ([`SearchIndex::out_of_step`]); reading them again is the
//! caller's business, through [`SearchIndex::apply`].

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicUsize;

use tantivy::directory::error::LockError;
use tantivy::directory::{Directory, INDEX_WRITER_LOCK, MmapDirectory};
use tantivy::schema::Value;
use tantivy::{Index, TantivyDocument, TantivyError};

use super::index::{DocSource, FileSource, SearchError, SearchIndex, stored_meta, update_writer};
use super::schema::{self, FORMAT_TAG, Fields};
use weft_vault::stamp::Stamp;

/// What the commits of an index written by `build` are marked with. The
/// build counts because the documents hold what its parser made of each
/// note (title, aliases, tags, frontmatter), as the persisted vault index
/// does.
fn tag(build: &str) -> String {
    format!("{FORMAT_TAG} {build}")
}

/// Why a persisted index was not reused.
#[derive(Debug, PartialEq, Eq)]
pub enum Unusable {
    /// There is none (yet).
    Missing,
    /// Another process writes it: left alone.
    InUse,
    /// It cannot be trusted: why.
    Invalid(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::Missing => write!(f, "there is none"),
            Unusable::InUse => write!(f, "another process writes it"),
            Unusable::Invalid(why) => write!(f, "{why}"),
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> Unusable {
    Unusable::Invalid(e.to_string())
}

fn lock_or_invalid(e: TantivyError) -> Unusable {
    match e {
        TantivyError::LockFailure(LockError::LockBusy, _) => Unusable::InUse,
        e => invalid(e),
    }
}

impl SearchIndex {
    /// The index persisted in `dir` by `build`, when it can be trusted; it
    /// is kept in step there from now on. Files of segments no commit
    /// names are removed: what a process that stopped mid-write (mid-merge)
    /// left behind.
    pub fn open(dir: &Path, build: &str) -> Result<SearchIndex, Unusable> {
        if !dir.join("meta.json").is_file() {
            return Err(Unusable::Missing);
        }
        let index = Index::open_in_dir(dir).map_err(invalid)?;
        let metas = index.load_metas().map_err(invalid)?;
        let tag = tag(build);
        if metas.payload.as_deref() != Some(tag.as_str()) {
            return Err(Unusable::Invalid(format!(
                "written as {}, this build writes {tag}",
                metas.payload.as_deref().unwrap_or("an unknown format")
            )));
        }
        let (schema, fields) = schema::schema();
        if index.schema() != schema {
            return Err(invalid("its schema is not this build's"));
        }
        let damaged = index.validate_checksum().map_err(invalid)?;
        if !damaged.is_empty() {
            let mut names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
            names.sort();
            return Err(Unusable::Invalid(format!(
                "damaged files: {}",
                names.join(", ")
            )));
        }
        schema::register(&index);
        // The writer first: its lock says whether another process writes
        // this index, before anything is read.
        let writer = update_writer(&index).map_err(lock_or_invalid)?;
        // Files no commit names — a segment or merge that a process ended
        // before it finished — are removed before anything is written
        // here: the cache keeps only what the index is made of.
        writer.garbage_collect_files().wait().map_err(invalid)?;
        SearchIndex::finish(index, writer, fields, tag.into()).map_err(invalid)
    }

    /// Builds the index of `sources` in `dir` as written by `build`,
    /// replacing whatever it held (unless another process writes it: then
    /// nothing is touched and the error says so).
    pub fn build_in(
        dir: &Path,
        build: &str,
        sources: &[DocSource],
        files: &dyn FileSource,
        progress: &AtomicUsize,
    ) -> Result<SearchIndex, SearchError> {
        clear(dir)?;
        let (schema, fields) = schema::schema();
        let index = Index::create_in_dir(dir, schema)?;
        schema::register(&index);
        SearchIndex::build_into(index, fields, tag(build).into(), sources, files, progress)
    }

    /// The vault paths whose documents are not of the files as they are
    /// now, given every note's path with the stamp of its file as the
    /// caller last read it (`None`: not read from its file, such as an
    /// editor's buffer): notes the index lacks, whose stamp differs or was
    /// racy, or that it has but the caller does not (deleted); a document
    /// whose stamp does not decode counts as out of step. Sorted. Reads
    /// every document's stored fields.
    ///
    /// A stored document that cannot be read, or that names no note, is
    /// an error: which note it stood for is unknown, so no set of notes
    /// read again would mend the index (the caller fills it anew, see
    /// [`SearchIndex::refill`]).
    pub fn out_of_step(
        &self,
        notes: &[(Box<str>, Option<Stamp>)],
    ) -> Result<Vec<String>, SearchError> {
        let meta = indexed_stamps(&self.reader.searcher(), &self.fields)?;
        let mut out: Vec<String> = notes
            .iter()
            .filter(|(path, stamp)| {
                let indexed = meta.get(path).copied().flatten();
                match (indexed, stamp) {
                    (Some(indexed), Some(now)) => indexed.racy || indexed != *now,
                    _ => true,
                }
            })
            .map(|(path, _)| path.to_string())
            .collect();
        let listed: std::collections::HashSet<&str> = notes.iter().map(|(p, _)| &**p).collect();
        out.extend(
            meta.keys()
                .filter(|path| !listed.contains(&***path))
                .map(|path| path.to_string()),
        );
        out.sort();
        out.dedup();
        Ok(out)
    }
}

/// Empties `dir` (made when missing) under tantivy's writer lock, so that
/// an index another process writes is never removed under it.
fn clear(dir: &Path) -> Result<(), SearchError> {
    fs::create_dir_all(dir).map_err(|e| SearchError(format!("{}: {e}", dir.display())))?;
    let directory = MmapDirectory::open(dir).map_err(|e| SearchError(e.to_string()))?;
    let _lock = directory
        .acquire_lock(&INDEX_WRITER_LOCK)
        .map_err(|e| SearchError(format!("{}: {e}", dir.display())))?;
    let entries = fs::read_dir(dir).map_err(|e| SearchError(format!("{}: {e}", dir.display())))?;
    for entry in entries.flatten() {
        if entry.file_name() == *INDEX_WRITER_LOCK.filepath.as_os_str() {
            continue;
        }
        let path = entry.path();
        let removed = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(|e| SearchError(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// Every live document's path with the stamp it stores (`None`: none, or
/// one that does not decode); an error when a document cannot be read or
/// names no note.
fn indexed_stamps(
    searcher: &tantivy::Searcher,
    fields: &Fields,
) -> Result<HashMap<Box<str>, Option<Stamp>>, SearchError> {
    let mut out = HashMap::with_capacity(searcher.num_docs() as usize);
    for segment in searcher.segment_readers() {
        let store = segment
            .get_store_reader(0)
            .map_err(|e| SearchError(format!("a segment's stored documents: {e}")))?;
        for doc in store.iter::<TantivyDocument>(segment.alive_bitset()) {
            let doc = doc.map_err(|e| SearchError(format!("a stored document: {e}")))?;
            let Some(path) = doc.get_first(fields.path).and_then(|v| v.as_str()) else {
                return Err(SearchError("a stored document names no note".into()));
            };
            let stamp = stored_meta(fields, &doc).and_then(|m| m.stamp);
            out.insert(Box::from(path), stamp);
        }
    }
    Ok(out)
}
