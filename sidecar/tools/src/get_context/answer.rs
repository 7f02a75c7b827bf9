//! What `get_context` answers: the evidence, note by note with its
//! passages, as the structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Serialize, JsonSchema)]
pub struct GetContextOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    pub applied_filters: AppliedFilters,
    pub notes: Vec<Evidence>,
    /// Characters of passage text returned.
    pub chars: usize,
    /// The budget ran out before every candidate note got passages.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remarks: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AppliedFilters {
    pub tags_all: Vec<String>,
    pub tags_any: Vec<String>,
    pub path_prefix: Option<String>,
    pub around: Option<String>,
    pub depth: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Evidence {
    pub path: String,
    pub title: String,
    pub sha256: String,
    /// What found it: `words`, `meaning`, `words+meaning`, `links` (near a
    /// better hit, or from `around`).
    pub source: String,
    pub score: f32,
    /// Link steps from `around`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
    pub passages: Vec<PassageOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PassageOut {
    /// The headings above it, as `Parent::Child`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// First and last line, 1-based.
    pub lines: [u32; 2],
    pub text: String,
}
