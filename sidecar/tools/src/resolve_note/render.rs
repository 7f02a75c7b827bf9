//! `resolve_note`'s answer in words: the structured content and the
//! Markdown.

use super::answer::{Candidate, ResolveNoteOut};
use super::compute::Resolved;
use crate::common::NoteRef;
use crate::format::{escape, plural};
use weft_vault::VaultIndex;

/// The structured answer for `query`.
pub(super) fn out(index: &VaultIndex, query: &str, resolved: Resolved) -> ResolveNoteOut {
    ResolveNoteOut {
        query: query.to_string(),
        resolves_to: resolved.resolves_to.map(|id| NoteRef::of(index.note(id))),
        ambiguous: resolved.ambiguous,
        unresolved_links: resolved.unresolved_links,
        candidates: resolved
            .candidates
            .into_iter()
            .map(|m| {
                let note = index.note(m.note);
                Candidate {
                    path: note.id().to_string(),
                    title: note.title.to_string(),
                    score: (m.score * 100.0).round() / 100.0,
                    why: m.why,
                }
            })
            .collect(),
    }
}

pub(super) fn markdown(out: &ResolveNoteOut) -> String {
    let query = super::compute::link_target(&out.query);
    let mut text = match (&out.resolves_to, out.ambiguous) {
        (Some(n), false) => format!(
            "`[[{query}]]` resolves to **{}** (`{}`).",
            escape(&n.title),
            n.path
        ),
        (Some(n), true) => format!(
            "`[[{query}]]` is ambiguous; the resolver picks **{}** (`{}`). Pass a path to choose.",
            escape(&n.title),
            n.path
        ),
        (None, _) if out.unresolved_links > 0 => format!(
            "No note `{query}` exists; {} point to it (a note not written yet).",
            plural(out.unresolved_links, "link")
        ),
        (None, _) => format!("No note is named `{query}`."),
    };
    if out.candidates.is_empty() {
        text.push_str("\nNo candidates by name; search_notes searches the text.");
    } else {
        text.push_str("\n\nCandidates:");
        for (i, c) in out.candidates.iter().enumerate() {
            text.push_str(&format!(
                "\n{}. **{}** (`{}`) — {} ({:.2})",
                i + 1,
                escape(&c.title),
                c.path,
                c.why,
                c.score
            ));
        }
    }
    text
}
