//! `related_notes`'s answer in words: the remarks, each note's reasons
//! with its closest passage, scores rounded, and the Markdown list.

use super::answer::{Passage, RelatedNotesOut, RelatedOut, Signals};
use super::compute::{Found, Remark};
use crate::common::NoteRef;
use crate::format::{clip, escape};
use weft_vault::VaultIndex;

/// The structured answer; `passages` are, per related note in order, its
/// closest passage by meaning (`Some(None)`: close, but its file changed or
/// could not be read).
pub(super) fn out(
    index: &VaultIndex,
    found: Found,
    passages: Vec<Option<Option<Passage>>>,
) -> RelatedNotesOut {
    let round = |x: f64| (x * 100.0).round() / 100.0;
    let related = found
        .related
        .into_iter()
        .zip(passages)
        .map(|(r, passage)| {
            let n = index.note(r.note);
            let mut reasons = r.reasons;
            if let Some(passage) = passage {
                reasons.push(similar(passage));
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
    RelatedNotesOut {
        note: found.note.map(|id| NoteRef::of(index.note(id))),
        related,
        remarks: found
            .remarks
            .into_iter()
            .map(|remark| match remark {
                Remark::Indexing => "The full-text index is still being built: links and tags only, no text similarity yet.".to_string(),
                Remark::NoMeaning(why) => why,
            })
            .collect(),
    }
}

/// "similar meaning: “…”" with the note's closest passage, if read.
fn similar(passage: Option<Passage>) -> String {
    match passage {
        Some(Passage {
            section,
            lines,
            text,
        }) => {
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

pub(super) fn markdown(out: &RelatedNotesOut, text: Option<&str>) -> String {
    let mut s = String::new();
    for r in &out.remarks {
        s.push_str(&format!("_{r}_\n\n"));
    }
    let subject = match (&out.note, text) {
        (Some(n), _) => format!("**{}** (`{}`)", escape(&n.title), n.path),
        (None, Some(t)) => format!("the text “{}”", clip(t, 60)),
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
