//! `related_notes`: notes related to a note (or a text) by link proximity,
//! shared tags, similar wording and, with a model, similar meaning (with
//! the passage), each with the reasons.
//!
//! An adapter over `search::related` and the semantic index.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::{NoteRef, find_note, limit};
use super::format::{Reply, ToolError, ToolResult, escape};
use super::retrieval::{meaning_passage, meaning_unavailable};
use super::scope::sees_note;
use super::state::ToolState;
use weft_search::related::{Subject, related};
use weft_semantic::Close;
use weft_vault::Note;

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
    let (subject, note) = match (path, text) {
        (Some(path), _) => {
            let id = find_note(state, &index, path, "path")?;
            (Subject::Note(id), Some(NoteRef::of(index.note(id))))
        }
        (None, Some(text)) => (Subject::Text(text), None),
        (None, None) => {
            return Err(
                ToolError::new("related_notes needs `path` (a note) or `text`.")
                    .hint("Example: {\"path\": \"projects/weft\"}."),
            );
        }
    };
    let mut remarks = Vec::new();
    let search = state.search().cloned();
    if search.is_none() {
        remarks.push("The full-text index is still being built: links and tags only, no text similarity yet.".to_string());
    }
    let sees = sees_note(state, &index);
    // Similar meaning: the notes closest to the note as a whole, or to
    // the text, with their closest passage.
    let mut passages = std::collections::HashMap::new();
    let mut meaning = Vec::new();
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
                    meaning.push((id, c.score as f64));
                    passages.insert(id, c);
                }
            }
        }
        (None, Some((why, true))) => remarks.push(why),
        (None, _) => {}
    }
    let found = related(
        &index,
        search.as_deref(),
        &state.files,
        subject,
        &meaning,
        limit,
        &sees,
    );
    let round = |x: f64| (x * 100.0).round() / 100.0;
    let related: Vec<RelatedOut> = found
        .into_iter()
        .map(|r| {
            let n = index.note(r.note);
            let mut reasons = r.reasons;
            if r.meaning > 0.0
                && let Some(close) = passages.remove(&r.note)
            {
                reasons.push(similar_passage(state, n, close));
            }
            RelatedOut {
                path: n.id().to_string(),
                title: n.title.to_string(),
                score: round(r.score),
                signals: Signals {
                    links: round(r.links),
                    tags: round(r.tags),
                    text: round(r.text),
                    meaning: round(r.meaning),
                },
                reasons,
            }
        })
        .collect();
    drop(sees);
    drop(index);
    let out = RelatedNotesOut {
        note,
        related,
        remarks,
    };
    Ok(Reply::new(render(&out, text), &out))
}

/// "similar meaning: “…”" with the note's closest passage (as it reads
/// now; without it when the note changed since it was embedded).
fn similar_passage(state: &ToolState, note: &Note, close: Close) -> String {
    let passage = state.read_bytes(&note.path).and_then(|bytes| {
        let text = String::from_utf8_lossy(&bytes);
        meaning_passage(note, &text, &close, 120)
    });
    match passage {
        Some((section, lines, text)) => {
            let section = section.map(|s| format!(" ({s})")).unwrap_or_default();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            format!(
                "similar meaning, lines {}–{}{section}: “{text}”",
                lines[0], lines[1]
            )
        }
        None => "similar meaning".to_string(),
    }
}

fn render(out: &RelatedNotesOut, text: Option<&str>) -> String {
    let mut s = String::new();
    for r in &out.remarks {
        s.push_str(&format!("_{r}_\n\n"));
    }
    let subject = match (&out.note, text) {
        (Some(n), _) => format!("**{}** (`{}`)", escape(&n.title), n.path),
        (None, Some(t)) => format!("the text “{}”", super::format::clip(t, 60)),
        _ => String::new(),
    };
    if out.related.is_empty() {
        s.push_str(&format!(
            "No notes are related to {subject}: it has no links, shared tags or similar notes."
        ));
        return s;
    }
    s.push_str(&format!("Related to {subject}:"));
    for (i, r) in out.related.iter().enumerate() {
        s.push_str(&format!(
            "\n{}. **{}** (`{}`) — {:.2}: {}",
            i + 1,
            escape(&r.title),
            r.path,
            r.score,
            r.reasons.join("; ")
        ));
    }
    s
}
