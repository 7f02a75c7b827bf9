//! `search_notes`' page in words: each note found with its title, tags and
//! date, as the structured content and as Markdown.

use super::answer::{Asked, Mode, SearchHit, SearchNotesOut};
use super::compute::Found;
use crate::common::{page_line, tags_of, tags_text, time_text};
use crate::format::escape;
use crate::scope::Times;
use weft_search::dates::Zone;
use weft_vault::VaultIndex;

/// The structured answer of a page: what was found for what was asked.
pub(super) fn out(
    index: &VaultIndex,
    times: &dyn Times,
    zone: Zone,
    found: Found,
    asked: Asked,
) -> SearchNotesOut {
    let hits = found
        .hits
        .into_iter()
        .map(|hit| {
            let note = index.note(hit.note);
            SearchHit {
                path: note.id().to_string(),
                title: note.title.to_string(),
                score: hit.score,
                snippet: hit.snippet,
                tags: tags_of(note),
                modified: time_text(times.modified(&note.path), zone),
                why: hit.why,
            }
        })
        .collect();
    SearchNotesOut {
        query: asked.query,
        mode: asked.mode,
        total: found.total,
        offset: asked.offset,
        hits,
        next_cursor: asked.next_cursor,
        notes: found.remarks,
    }
}

/// What was searched for, after "Found 3 notes".
fn what(out: &SearchNotesOut) -> String {
    match (&out.query, out.mode) {
        (Some(q), Mode::Name) => format!(" named like `{q}`"),
        (Some(q), Mode::Tag) => format!(" tagged `{q}`"),
        (Some(q), Mode::Fulltext) => format!(" for `{q}`"),
        (Some(q), Mode::Semantic) => format!(" close in meaning to `{q}`"),
        (Some(q), Mode::Hybrid) => format!(" by words and meaning for `{q}`"),
        (None, _) => " matching the filters".to_string(),
    }
}

/// The page as Markdown; `filtered` when the link, tag or folder filters
/// narrowed it (an empty page suggests dropping some).
pub(super) fn markdown(out: &SearchNotesOut, filtered: bool) -> String {
    let what = what(out);
    let mut text = String::new();
    for n in &out.notes {
        text.push_str(&format!("_{n}_\n\n"));
    }
    if out.total == 0 {
        text.push_str(&format!("No notes found{what}."));
        if filtered {
            text.push_str(" Filters narrow the search; try without some of them.");
        } else if out.mode == Mode::Fulltext {
            text.push_str(" Try fewer or other words, or mode `name` for titles.");
        }
        return text;
    }
    text.push_str(&format!(
        "Found {}{what}",
        crate::format::plural(out.total, "note")
    ));
    if out.hits.len() < out.total {
        text.push_str(&format!(
            " (showing {}–{})",
            out.offset + 1,
            out.offset + out.hits.len()
        ));
    }
    text.push(':');
    for (i, hit) in out.hits.iter().enumerate() {
        text.push_str(&hit_line(out.offset + i + 1, hit));
    }
    let page = page_line(
        out.offset,
        out.hits.len(),
        out.total,
        out.next_cursor.as_deref(),
    );
    if out.next_cursor.is_some() {
        text.push_str(&format!("\n\n{page}"));
    } else if out.offset > 0 || out.hits.len() < out.total {
        text.push_str("\n\nNo more results.");
    }
    text
}

fn hit_line(n: usize, hit: &SearchHit) -> String {
    let mut line = format!("\n\n{n}. **{}** (`{}`)", escape(&hit.title), hit.path);
    if !hit.tags.is_empty() {
        line.push_str(&format!(" {}", tags_text(&hit.tags)));
    }
    if let Some(m) = &hit.modified {
        line.push_str(&format!(" · {}", &m[..10.min(m.len())]));
    }
    if let Some(why) = &hit.why {
        line.push_str(&format!(" — {why}"));
    }
    if let Some(snippet) = &hit.snippet {
        line.push_str(&format!("\n   {snippet}"));
    }
    line
}
