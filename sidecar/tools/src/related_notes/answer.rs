//! What `related_notes` answers: the related notes as the structured
//! content the client gets, and a note's closest passage by meaning.

use schemars::JsonSchema;
use serde::Serialize;

use crate::common::NoteRef;

#[derive(Debug, Serialize, JsonSchema)]
pub struct RelatedNotesOut {
    /// The note the list is for, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<NoteRef>,
    pub related: Vec<RelatedOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remarks: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RelatedOut {
    pub path: String,
    pub title: String,
    /// 0..1.
    pub score: f64,
    /// Each signal 0..1: links, tags, text.
    pub signals: Signals,
    pub reasons: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Signals {
    pub links: f64,
    pub tags: f64,
    pub text: f64,
    /// Similar meaning (with a semantic model).
    pub meaning: f64,
}

/// A note's passage closest in meaning, as its file reads now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// The heading it is under.
    pub section: Option<String>,
    /// 1-based, first and last.
    pub lines: [u32; 2],
    pub text: String,
}
