//! The full-text index: one tantivy document per note, built once in
//! parallel and then kept in step one note at a time (a changed note is one
//! delete and one add, never a rebuild). Each document also stores what
//! its note's file was when indexed (times, stamp), read back only when a
//! persisted index is compared with the disk: nothing per note is kept in
//! memory besides tantivy's own structures.
//!
//! Note text comes from a [`FileSource`]; this module does not know where
//! files live, the vault index's locking, or any protocol.

use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tantivy::collector::TopDocs;
use tantivy::directory::{Directory, DirectoryLock, INDEX_WRITER_LOCK};
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Schema};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::schema::{self, FORMAT_TAG, Fields};
use weft_vault::Note;
use weft_vault::filter::Value as FilterValue;
use weft_vault::key::{name_key, path_key};
use weft_vault::note::strip_md;
use weft_vault::stamp::Stamp;

/// A note's file as read: its bytes and times (Unix seconds).
#[derive(Debug, Clone, Default)]
pub struct NoteFile {
    pub bytes: Vec<u8>,
    pub modified: Option<i64>,
    pub created: Option<i64>,
    /// The file's stamp as read (`None`: not read from a file), what a
    /// persisted index is compared with on the next start.
    pub stamp: Option<Stamp>,
}

/// Reads notes' files by vault path. Implementations must be cheap to share
/// between threads.
pub trait FileSource: Sync {
    fn read(&self, path: &str) -> Option<NoteFile>;
}

/// What the index keeps of a note besides its file: a snapshot taken from
/// the vault index, so no lock is held while files are read.
#[derive(Debug, Clone)]
pub struct DocSource {
    /// Vault path as indexed (`a/b.md`).
    pub path: Box<str>,
    pub title: Box<str>,
    pub aliases: Vec<Box<str>>,
    /// Tag names as written, without `#`.
    pub tags: Vec<Box<str>>,
    pub frontmatter: Option<Box<serde_json::Map<String, Value>>>,
}

impl DocSource {
    pub fn of(note: &Note) -> DocSource {
        DocSource {
            path: note.path.clone(),
            title: note.title.clone(),
            aliases: note.aliases.clone(),
            tags: note.tags.iter().map(|t| t.name.clone()).collect(),
            frontmatter: note.frontmatter.clone(),
        }
    }
}

/// One change to apply.
#[derive(Debug, Clone)]
pub enum Change {
    /// Add or replace the note (its file is read now).
    Upsert(DocSource),
    /// Remove the note at this vault path.
    Remove(Box<str>),
}

/// What the index knows of a note's file; stored in its document, so a
/// persisted index brings it back with the commit it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteMeta {
    pub modified: Option<i64>,
    pub created: Option<i64>,
    /// The file's stamp when it was read.
    pub stamp: Option<Stamp>,
}

/// A failure inside tantivy (out of memory, a poisoned writer): not the
/// caller's fault, reported as an internal error.
#[derive(Debug)]
pub struct SearchError(pub String);

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "full-text index: {}", self.0)
    }
}

impl std::error::Error for SearchError {}

impl From<tantivy::TantivyError> for SearchError {
    fn from(e: tantivy::TantivyError) -> Self {
        SearchError(e.to_string())
    }
}

pub struct SearchIndex {
    pub(super) reader: IndexReader,
    pub(super) fields: Fields,
    index: Index,
    writing: Mutex<Writing>,
    /// What every commit is marked with (see `persist`).
    tag: Box<str>,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("notes", &self.len())
            .finish_non_exhaustive()
    }
}

/// How the index is written: through its writer, or, while no change has
/// come for a while ([`SearchIndex::rest`]), through none. A writer keeps
/// threads, a document channel of a few megabytes and a queue of what it
/// deleted; at rest they are given back, and the writer's lock is held
/// alone so that no other process takes the index meanwhile.
struct Writing {
    writer: Option<IndexWriter>,
    lock: Option<DirectoryLock>,
}

/// A change read from disk: the path, and the new document unless removed.
type Prepared = (Box<str>, Option<TantivyDocument>);

/// Writer memory per indexing thread (tantivy needs at least 15 MB).
const WRITER_BUDGET: usize = 24_000_000;

impl SearchIndex {
    /// An empty index.
    pub fn empty() -> Result<SearchIndex, SearchError> {
        let (schema, fields) = schema::schema();
        let index = new_index(schema);
        let writer = update_writer(&index)?;
        Self::finish(index, writer, fields, FORMAT_TAG.into())
    }

    /// Builds the index of `sources`, reading their files in parallel;
    /// `progress` counts notes done. A note whose file cannot be read is
    /// left out (the watcher brings it in when it can be read).
    pub fn build(
        sources: &[DocSource],
        files: &dyn FileSource,
        progress: &AtomicUsize,
    ) -> Result<SearchIndex, SearchError> {
        let (schema, fields) = schema::schema();
        let index = new_index(schema);
        Self::build_into(index, fields, FORMAT_TAG.into(), sources, files, progress)
    }

    /// Fills `index` (new, empty, its analyzer registered) with `sources`;
    /// every commit is marked with `tag`.
    pub(crate) fn build_into(
        index: Index,
        fields: Fields,
        tag: Box<str>,
        sources: &[DocSource],
        files: &dyn FileSource,
        progress: &AtomicUsize,
    ) -> Result<SearchIndex, SearchError> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        let mut writer: IndexWriter =
            index.writer_with_num_threads(threads, WRITER_BUDGET * threads)?;
        sources.par_iter().for_each(|source| {
            let file = files.read(&source.path);
            progress.fetch_add(1, Ordering::Relaxed);
            if let Some(file) = file {
                // A failure here is the writer's: the commit reports it.
                let _ = writer.add_document(document(&fields, source, &file));
            }
        });
        commit(&mut writer, &tag)?;
        writer.wait_merging_threads()?;
        let writer = update_writer(&index)?;
        Self::finish(index, writer, fields, tag)
    }

    /// The index over `index`, written through `writer` from now on (each
    /// commit marked with `tag`).
    pub(crate) fn finish(
        index: Index,
        writer: IndexWriter,
        fields: Fields,
        tag: Box<str>,
    ) -> Result<SearchIndex, SearchError> {
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            reader,
            fields,
            index,
            writing: Mutex::new(Writing {
                writer: Some(writer),
                lock: None,
            }),
            tag,
        })
    }

    /// Applies changes as one commit: each upsert reads the note's file now
    /// (a file that cannot be read is removed), each remove deletes.
    pub fn apply(&self, changes: Vec<Change>, files: &dyn FileSource) -> Result<(), SearchError> {
        if changes.is_empty() {
            return Ok(());
        }
        self.write(false, changes, files)
    }

    /// Replaces every document with those of `sources` (read now), as one
    /// commit: until it lands, searches answer from the documents as they
    /// were. For an index whose documents cannot all be told apart (see
    /// [`SearchIndex::out_of_step`]).
    pub fn refill(
        &self,
        sources: Vec<DocSource>,
        files: &dyn FileSource,
    ) -> Result<(), SearchError> {
        self.write(
            true,
            sources.into_iter().map(Change::Upsert).collect(),
            files,
        )
    }

    /// One commit of `changes`, after deleting every document first when
    /// `clear`.
    fn write(
        &self,
        clear: bool,
        changes: Vec<Change>,
        files: &dyn FileSource,
    ) -> Result<(), SearchError> {
        let prepared: Vec<Prepared> = changes
            .into_par_iter()
            .map(|change| match change {
                Change::Remove(path) => (path, None),
                Change::Upsert(source) => {
                    let doc = files
                        .read(&source.path)
                        .map(|file| document(&self.fields, &source, &file));
                    (source.path, doc)
                }
            })
            .collect();
        let mut writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let writer = self.writer(&mut writing)?;
        if clear {
            writer.delete_all_documents()?;
        }
        for (path, doc) in prepared {
            writer.delete_term(Term::from_field_text(self.fields.path, &path));
            if let Some(doc) = doc {
                writer.add_document(doc)?;
            }
        }
        commit(writer, &self.tag)?;
        drop(writing);
        self.reader.reload()?;
        Ok(())
    }

    /// The writer, made again when the index was at rest.
    fn writer<'w>(&self, writing: &'w mut Writing) -> Result<&'w mut IndexWriter, SearchError> {
        if writing.writer.is_none() {
            // Its lock is let go just before the writer takes it again.
            writing.lock = None;
            writing.writer = Some(update_writer(&self.index)?);
        }
        Ok(writing.writer.as_mut().expect("made above"))
    }

    /// Puts the index at rest: its writer ends once its merges are done,
    /// giving back its threads and buffers; the next change makes it again.
    /// For a caller that has seen no change for a while. Returns whether
    /// there was a writer to end.
    pub fn rest(&self) -> Result<bool, SearchError> {
        let mut writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(writer) = writing.writer.take() else {
            return Ok(false);
        };
        let merged = writer.wait_merging_threads();
        // Taken again as soon as the writer let it go: another process
        // opening this index finds it held, as while the writer lived. (Were
        // it taken in between, the next change's writer says so.)
        writing.lock = self.index.directory().acquire_lock(&INDEX_WRITER_LOCK).ok();
        merged?;
        Ok(true)
    }

    /// Adds a document with a body and no path, as a damaged index could
    /// hold.
    #[cfg(test)]
    pub(crate) fn add_stray_document_for_tests(&self, body: &str) {
        let mut writing = self.writing.lock().unwrap();
        let writer = self.writer(&mut writing).unwrap();
        let mut doc = TantivyDocument::default();
        doc.add_text(self.fields.body, body);
        writer.add_document(doc).unwrap();
        commit(writer, &self.tag).unwrap();
        drop(writing);
        self.reader.reload().unwrap();
    }

    /// Notes indexed.
    pub fn len(&self) -> usize {
        self.reader.searcher().num_docs() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index's segments take (postings, positions, fast fields,
    /// stored paths), as tantivy counts them.
    pub fn size_bytes(&self) -> u64 {
        self.reader
            .searcher()
            .space_usage()
            .map_or(0, |u| u.total().get_bytes())
    }

    /// What the index knows of the note at `path` (as indexed, `a/b.md`),
    /// read from its document.
    pub fn meta(&self, path: &str) -> Option<NoteMeta> {
        let searcher = self.reader.searcher();
        let term = Term::from_field_text(self.fields.path, path);
        let found = searcher
            .search(
                &TermQuery::new(term, IndexRecordOption::Basic),
                &TopDocs::with_limit(1).order_by_score(),
            )
            .ok()?;
        let (_, address) = found.first()?;
        let doc: TantivyDocument = searcher.doc(*address).ok()?;
        stored_meta(&self.fields, &doc)
    }
}

/// What a document stores of its note's file.
pub(crate) fn stored_meta(fields: &Fields, doc: &TantivyDocument) -> Option<NoteMeta> {
    use tantivy::schema::Value as _;
    let bytes = doc.get_first(fields.meta)?.as_bytes()?;
    postcard::from_bytes(bytes).ok()
}

/// The writer that keeps the index in step, one commit per batch of
/// changes; fails when another process writes the same index.
pub(crate) fn update_writer(index: &Index) -> tantivy::Result<IndexWriter> {
    let writer = index.writer_with_num_threads(1, 15_000_000)?;
    writer.set_merge_policy(Box::new(update_merge_policy()));
    Ok(writer)
}

/// Commits, marking the commit with `tag` (the format, and the build when
/// persisted): a persisted index is reused only by the build that wrote it.
fn commit(writer: &mut IndexWriter, tag: &str) -> tantivy::Result<()> {
    let mut prepared = writer.prepare_commit()?;
    prepared.set_payload(tag);
    prepared.commit()?;
    Ok(())
}

fn new_index(schema: Schema) -> Index {
    let index = Index::create_in_ram(schema);
    schema::register(&index);
    index
}

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The SHA-256 of some bytes, as lower-case hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub use weft_vault::frontmatter::body_start;

/// Builds the document of one note.
fn document(fields: &Fields, source: &DocSource, file: &NoteFile) -> TantivyDocument {
    let text = String::from_utf8_lossy(&file.bytes);
    let body = &text[body_start(&text)..];
    let mut doc = TantivyDocument::new();
    doc.add_text(fields.path, &source.path);
    let key = path_key(&source.path);
    doc.add_text(fields.sort, &key);
    doc.add_text(fields.title, &source.title);
    for alias in &source.aliases {
        doc.add_text(fields.aliases, alias);
    }
    doc.add_text(fields.body, body);
    doc.add_text(fields.path_text, strip_md(&source.path));
    for prefix in path_prefixes(&key) {
        doc.add_text(fields.folders, prefix);
    }
    let mut tag_terms: Vec<String> = Vec::new();
    for tag in &source.tags {
        for term in tag_prefixes(tag) {
            if !tag_terms.contains(&term) {
                tag_terms.push(term);
            }
        }
    }
    for term in &tag_terms {
        doc.add_text(fields.tags, term);
    }
    if let Some(frontmatter) = &source.frontmatter {
        for (key, value) in frontmatter.iter() {
            let key_term = name_key(key);
            doc.add_text(fields.properties, &key_term);
            add_value(&mut doc, fields, &key_term, value, 0);
        }
    }
    doc.add_i64(fields.modified, file.modified.unwrap_or(0));
    doc.add_i64(fields.created, file.created.or(file.modified).unwrap_or(0));
    let meta = NoteMeta {
        modified: file.modified,
        created: file.created,
        stamp: file.stamp,
    };
    // Plain data of a fixed shape: encoding cannot fail.
    if let Ok(bytes) = postcard::to_allocvec(&meta) {
        doc.add_bytes(fields.meta, &bytes);
    }
    doc
}

/// Adds a frontmatter value: its text, and `key=value` terms for scalars
/// (a `[[link]]` value also as its bare target).
fn add_value(doc: &mut TantivyDocument, fields: &Fields, key: &str, value: &Value, depth: u8) {
    match value {
        Value::Null => {}
        Value::Array(items) => {
            for item in items {
                add_value(doc, fields, key, item, depth + 1);
            }
        }
        Value::Object(map) if depth < 3 => {
            for (sub, v) in map {
                let sub_key = format!("{key}.{}", name_key(sub));
                doc.add_text(fields.properties, &sub_key);
                add_value(doc, fields, &sub_key, v, depth + 1);
            }
        }
        Value::Object(_) => {}
        scalar => {
            let text = match scalar {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            doc.add_text(fields.frontmatter, &text);
            for v in property_values(&text) {
                doc.add_text(fields.properties, format!("{key}={v}"));
            }
            // Typed as THE note filter types it: a `[[link]]`, or a
            // number, date or yes/no with its typed term.
            let typed = FilterValue::of_json(scalar);
            if matches!(typed, FilterValue::Link(_)) {
                doc.add_text(fields.properties, format!("{key}{LINKED}"));
            }
            if let Some(term) = typed_term(key, &typed) {
                doc.add_text(fields.properties, term);
            }
        }
    }
}

/// The forms under which a frontmatter value is matched: its key, and for a
/// `[[target|alias]]` also the target's key.
pub(crate) fn property_values(text: &str) -> Vec<String> {
    let trimmed = text.trim();
    if trimmed.chars().count() > 200 {
        return Vec::new();
    }
    let mut out = vec![name_key(trimmed)];
    if let Some(target) = weft_vault::parse::wikilink_target(trimmed) {
        let key = path_key(target);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// After a key, the term of a note whose value (or one of its items) is a
/// `[[link]]`: such a value may equal a text by where it leads, so a
/// filter on the key's value takes these notes as candidates.
pub(crate) const LINKED: &str = "\u{1}link";

/// The term of a property's value that is a number, a date or yes/no, by
/// value (`2`, `2.0` and `02` are one number; `2026-12-28` and
/// `2026-12-28T00:00` one moment), as THE note filter types it
/// (`vault::filter::Value`): a filter's equality with such a value takes
/// as candidates only the notes with this term. None for other values.
pub(crate) fn typed_term(key: &str, value: &FilterValue) -> Option<String> {
    let canonical = match value {
        // `-0` is `0`; Display is the shortest form that reads back the same.
        FilterValue::Number(n) if *n == 0.0 => "n0".to_string(),
        FilterValue::Number(n) => format!("n{n}"),
        FilterValue::Date(d) => format!("d{}", d.format("%Y-%m-%dT%H:%M:%S")),
        FilterValue::Bool(b) => format!("b{b}"),
        _ => return None,
    };
    Some(format!("{key}{TYPED}{canonical}"))
}

/// After a key, before a typed value's canonical form: [`typed_term`].
const TYPED: &str = "\u{1}=";

/// `a/b/c` → `a`, `a/b`, `a/b/c` (keys).
pub(crate) fn path_prefixes(key: &str) -> Vec<&str> {
    let mut out: Vec<&str> = key.match_indices('/').map(|(i, _)| &key[..i]).collect();
    if !key.is_empty() {
        out.push(key);
    }
    out
}

/// `#Project/Weft` → `project`, `project/weft`.
pub fn tag_prefixes(tag: &str) -> Vec<String> {
    let key = tag_key(tag);
    path_prefixes(&key)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A tag's comparison key (the one rule: `vault::tags`).
pub use weft_vault::tags::key as tag_key;

/// How segments merge as notes change one commit at a time. tantivy's
/// default puts every segment under 10,000 documents in one layer, so the
/// vault's big initial segments were merged with the one-note segments of
/// every eighth write: a whole rewrite of the index (about 0.9 s at 10k
/// notes) behind a write. Here tiny segments merge among themselves, and a
/// big segment is rewritten only once a quarter of it is stale.
fn update_merge_policy() -> tantivy::indexer::LogMergePolicy {
    let mut policy = tantivy::indexer::LogMergePolicy::default();
    policy.set_min_layer_size(64);
    policy.set_del_docs_ratio_before_merge(0.25);
    policy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_starts_after_frontmatter() {
        assert_eq!(body_start("---\na: 1\n---\nbody"), 13);
        assert_eq!(
            &"---\na: 1\n...\nbody"[body_start("---\na: 1\n...\nbody")..],
            "body"
        );
        assert_eq!(body_start("no frontmatter"), 0);
        assert_eq!(body_start("---\nunclosed"), 0);
        assert_eq!(body_start("\u{feff}---\nx: y\n---\n# T"), 3 + 13);
    }

    #[test]
    fn prefixes() {
        assert_eq!(path_prefixes("a/b/c"), ["a", "a/b", "a/b/c"]);
        assert_eq!(tag_prefixes("#Project/Weft"), ["project", "project/weft"]);
        assert_eq!(
            property_values(" [[Some Note|x]] "),
            ["[[some note|x]]", "some note"]
        );
    }
}
