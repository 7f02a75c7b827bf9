//! What `search_notes` answers: its modes and sorts, and the page as the
//! structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

use crate::args::choice;

choice! {
    pub enum Mode {
        Fulltext = "fulltext" | "content" | "text" | "full_text" | "lexical" | "words" | "bm25",
        Name = "name" | "name_partial" | "title" | "path",
        Tag = "tag" | "tags",
        Semantic = "semantic" | "meaning" | "vector",
        Hybrid = "hybrid" | "both",
    }
}

choice! {
    pub enum SearchSort {
        Relevance = "relevance" | "score" | "best",
        Modified = "modified" | "updated" | "recent",
        Created = "created",
        Alpha = "alpha" | "name" | "path" | "title",
    }
}

/// What a page was asked for: the query as written, the mode, where the
/// page starts, and the cursor of the next one.
pub(super) struct Asked {
    pub query: Option<String>,
    pub mode: Mode,
    pub offset: usize,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchNotesOut {
    pub query: Option<String>,
    pub mode: Mode,
    /// Matching notes in all.
    pub total: usize,
    pub offset: usize,
    pub hits: Vec<SearchHit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Remarks on how the search ran (a fallback, indexing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// For name matches: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}
