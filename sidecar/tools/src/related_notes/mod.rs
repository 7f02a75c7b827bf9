//! `related_notes`: notes related to a note (or a text) by link proximity,
//! shared tags, similar wording and, with a model, similar meaning (with
//! the passage), each with the reasons.
//!
//! An adapter over `search::related` and the semantic index: arguments,
//! the notes close in meaning and their passages read from the files
//! here, what is related as data in `compute`, the words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{Passage, RelatedNotesOut, RelatedOut, Signals};
pub use compute::{Found, Meaning, Query, Remark, Sources, compute};

use super::args::lenient;
use super::common::{find_note, limit};
use super::format::{Reply, ToolError, ToolResult};
use super::retrieval::{meaning_passage, meaning_unavailable};
use super::state::ToolState;
use weft_search::related::Subject;
use weft_semantic::Close;
use weft_vault::{Note, NoteId, VaultIndex};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedNotesArgs {
    /// Path, title or alias.
    #[serde(default, alias = "note", alias = "name", alias = "file")]
    pub path: Option<String>,
    /// Or a text.
    #[serde(default, alias = "query")]
    pub text: Option<String>,
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
}

pub fn run(state: &ToolState, args: RelatedNotesArgs) -> ToolResult {
    let policy = state.policy();
    let limit = limit(args.limit, 10, 50);
    let text = args
        .text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let path = args
        .path
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let index = state.index();
    let subject = match (path, text) {
        (Some(path), _) => Subject::Note(find_note(state, &index, path, "path")?),
        (None, Some(text)) => Subject::Text(text),
        (None, None) => {
            return Err(
                ToolError::new("related_notes needs `path` (a note) or `text`.")
                    .hint("Example: {\"path\": \"projects/weft\"}."),
            );
        }
    };
    let search = state.search().cloned();
    let (meaning, mut closest) = meaning(state, &index, subject, limit);
    let sources = Sources {
        search: search.as_deref(),
        files: state.files(),
    };
    let query = Query { subject, limit };
    let found = compute(&index, &policy.access, &sources, &meaning, &query);
    // The passage of each note related by meaning, as its file reads now.
    let passages = found
        .related
        .iter()
        .map(|r| {
            let close = closest.remove(&r.note).filter(|_| r.meaning > 0.0)?;
            Some(passage(state, index.note(r.note), close))
        })
        .collect();
    let out = render::out(&index, found, passages);
    drop(index);
    Ok(Reply::new(render::markdown(&out, text), &out))
}

/// Similar meaning: the notes closest to the note as a whole, or to the
/// text, with their closest passage; or why there are none.
fn meaning(
    state: &ToolState,
    index: &VaultIndex,
    subject: Subject,
    limit: usize,
) -> (Meaning, HashMap<NoteId, Close>) {
    let policy = state.policy();
    let mut meaning = Meaning::default();
    let mut passages = HashMap::new();
    match (state.hub().semantic(), meaning_unavailable(state)) {
        (Some(semantic), _) => {
            let sees_path = |p: &str| policy.access.sees(p);
            let close = match subject {
                Subject::Note(id) => {
                    semantic.similar_to(&index.note(id).path, limit * 3, &sees_path)
                }
                Subject::Text(text) => semantic.closest(text, limit * 3, &sees_path),
            };
            for c in close {
                if let Some(id) = index.id_of(&c.path) {
                    meaning.close.push((id, c.score as f64));
                    passages.insert(id, c);
                }
            }
        }
        (None, Some((why, true))) => meaning.unavailable = Some(why),
        (None, _) => {}
    }
    (meaning, passages)
}

/// The note's passage `close` names, as the file reads now; none when the
/// note changed since it was embedded.
fn passage(state: &ToolState, note: &Note, close: Close) -> Option<Passage> {
    let bytes = state.read_bytes(&note.path)?;
    let text = String::from_utf8_lossy(&bytes);
    let (section, lines, text) = meaning_passage(note, &text, &close, 120)?;
    Some(Passage {
        section,
        lines,
        text,
    })
}
