//! What `resolve_note` answers, as the structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

use crate::common::NoteRef;

#[derive(Debug, Serialize, JsonSchema)]
pub struct ResolveNoteOut {
    pub query: String,
    /// The note `[[query]]` links to from the vault root, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolves_to: Option<NoteRef>,
    /// Several notes answer the name equally (the link picks `resolves_to`).
    pub ambiguous: bool,
    /// Links in the vault whose target is `query` and that resolve nowhere.
    pub unresolved_links: usize,
    pub candidates: Vec<Candidate>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Candidate {
    pub path: String,
    pub title: String,
    /// 0..1.
    pub score: f64,
    pub why: String,
}
