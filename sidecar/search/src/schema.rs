//! The full-text index's document shape: one document per note, its fields,
//! and how text is cut into terms (Unicode words, lower-cased, accents
//! folded, English stems).
//!
//! Must not know the vault index, the disk or any protocol. Keyword fields
//! (tags, folders, properties) hold terms normalised by `vault::key`, so
//! queries compare names exactly as the resolver does.

use tantivy::Index;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    TextAnalyzer,
};

/// The version of what an index holds, persisted or not; bumped whenever
/// the schema, the analyzer or the stored encoding (`NoteMeta`)
/// changes: an index of another version is never reused.
pub const FORMAT: u32 = 4;
/// Every commit is marked with it (and, persisted, the build that wrote it).
pub(crate) const FORMAT_TAG: &str = "weft-fulltext/4";

/// The analyzer of every text field.
pub(crate) const ANALYZER: &str = "weft";

/// The fields of a note document.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// The vault path as indexed (`a/b.md`): the document's key (a fast
    /// field too: a filter's candidates are read by it).
    pub path: Field,
    /// The path's comparison key, for alphabetical order.
    pub sort: Field,
    pub title: Field,
    pub aliases: Field,
    /// The text after the frontmatter.
    pub body: Field,
    /// The path's words (`projects/wiki-ai/ideas` → projects wiki ai ideas).
    pub path_text: Field,
    /// Frontmatter values as text.
    pub frontmatter: Field,
    /// Tag keys with every ancestor: `a/b/c` → `a`, `a/b`, `a/b/c`.
    pub tags: Field,
    /// Every folder above the note and the note's own key (no `.md`).
    pub folders: Field,
    /// Frontmatter `key` and `key=value` terms (keys and values as keys),
    /// `key` + `index::LINKED` when a value is a `[[link]]`, and a typed
    /// term (`index::typed_term`) for a number, a date or yes/no.
    pub properties: Field,
    /// Unix seconds.
    pub modified: Field,
    pub created: Field,
    /// What the index keeps of the note's file besides (`NoteMeta`,
    /// postcard): read back when a persisted index is compared with the disk.
    pub meta: Field,
}

/// Field names a query may use with `name:`, with what they mean.
pub(crate) const QUERY_FIELDS: &[(&str, &str)] = &[
    ("title", "title"),
    ("alias", "aliases"),
    ("aliases", "aliases"),
    ("body", "body"),
    ("content", "body"),
    ("text", "body"),
    ("tag", "tag"),
    ("tags", "tag"),
    ("folder", "path"),
    ("path", "path"),
    ("in", "path"),
    ("file", "file"),
    ("name", "file"),
    ("modified", "modified"),
    ("updated", "modified"),
    ("mtime", "modified"),
    ("created", "created"),
    ("ctime", "created"),
];

pub fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = || {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
    };
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED | FAST),
        sort: builder.add_text_field("sort", STRING | FAST),
        title: builder.add_text_field("title", text()),
        aliases: builder.add_text_field("aliases", text()),
        body: builder.add_text_field("body", text()),
        path_text: builder.add_text_field("path_text", text()),
        frontmatter: builder.add_text_field("frontmatter", text()),
        tags: builder.add_text_field("tags", STRING),
        folders: builder.add_text_field("folders", STRING),
        properties: builder.add_text_field("properties", STRING),
        modified: builder.add_i64_field("modified", INDEXED | FAST),
        created: builder.add_i64_field("created", INDEXED | FAST),
        meta: builder.add_bytes_field("meta", STORED),
    };
    (builder.build(), fields)
}

/// Unicode words, lower-cased, accents folded, English stems.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(48))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

pub(crate) fn register(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer());
}

/// The terms `text` is cut into.
pub fn terms(text: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while let Some(token) = stream.next() {
        out.push(token.text.clone());
    }
    out
}
