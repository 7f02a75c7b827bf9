//! What `read_note` computes of a note and its text, without IO: a page of
//! a text view (the full text, the body, a section found by its heading
//! path), the outline, and which backlinks the agent may see. `run` reads
//! the file and its times; these take what it read.

use super::out::{BlockOut, HeadingOut, NoteOut, View};
use crate::format::ToolError;
use weft_search::index::body_start;
use weft_vault::headings::{heading_path, heading_paths, resolve_section, section_parts};
use weft_vault::lines::line_of;
use weft_vault::{LinkRef, Note, NoteId, VaultIndex};
use weft_workspace::access::Access;

/// The links into note `id` from notes the agent may see, in the index's
/// order: all of them counted, the first `max` kept.
pub(super) fn visible_backlinks(
    index: &VaultIndex,
    access: &Access,
    id: NoteId,
    max: usize,
) -> (usize, Vec<LinkRef>) {
    let visible: Vec<LinkRef> = index
        .backlinks(id)
        .into_iter()
        .filter(|r| access.sees(&index.note(r.source).path))
        .collect();
    let count = visible.len();
    (count, visible.into_iter().take(max).collect())
}

/// The text views (full, body, section) of `note`, whose text is `text`:
/// one page of it into `out`.
pub(super) fn fill_text(
    out: &mut NoteOut,
    note: &Note,
    text: &str,
    section: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Result<(), ToolError> {
    match out.view {
        View::Section => {
            let wanted = section.unwrap_or_default();
            let (index_of, path) = find_section(note, wanted)?;
            let span = note.section_span(index_of);
            let body = &text[span.start as usize..(span.end as usize).min(text.len())];
            let last = note.headings[index_of].line + line_of(body, body.trim_end().len()) as u32;
            out.section = Some(path);
            out.lines = Some([note.headings[index_of].line + 1, last + 1]);
            page(out, body, offset, max_chars);
        }
        View::Body => page(out, &text[body_start(text)..], offset, max_chars),
        _ => page(out, text, offset, max_chars),
    }
    Ok(())
}

/// Puts one page of `text` into `out`.
fn page(out: &mut NoteOut, text: &str, offset: usize, max_chars: usize) {
    let total = text.chars().count();
    let offset = offset.min(total);
    let start = text
        .char_indices()
        .nth(offset)
        .map_or(text.len(), |(i, _)| i);
    let end = text[start..]
        .char_indices()
        .nth(max_chars)
        .map_or(text.len(), |(i, _)| start + i);
    out.content = Some(text[start..end].to_string());
    out.offset = Some(offset);
    out.total_chars = Some(total);
    let shown = text[start..end].chars().count();
    out.next_offset = (offset + shown < total).then_some(offset + shown);
}

/// The note's headings (with their section paths) and block ids.
pub(super) fn set_outline(out: &mut NoteOut, note: &Note) {
    let paths = heading_paths(note, "::");
    out.headings = Some(
        note.headings
            .iter()
            .zip(paths)
            .map(|(h, section)| HeadingOut {
                level: h.level,
                text: h.text.to_string(),
                line: h.line + 1,
                section,
            })
            .collect(),
    );
    out.blocks = Some(
        note.blocks
            .iter()
            .map(|b| BlockOut {
                id: b.id.to_string(),
                line: b.line + 1,
            })
            .collect(),
    );
}

/// Finds a section by `Heading` or `Parent::Child` through the domain's
/// heading paths (the rules `edit_note` and links use); a missing or
/// ambiguous heading is an error listing the choices.
pub fn find_section(note: &Note, wanted: &str) -> Result<(usize, String), ToolError> {
    if section_parts(wanted).is_empty() {
        return Err(ToolError::new("`section` is empty.")
            .hint("Name a heading, or `Parent::Child`; view `outline` lists the sections."));
    }
    match resolve_section(note, wanted) {
        Ok(i) => Ok((i, heading_path(note, i, "::"))),
        Err(e) => Err(ToolError::new(format!("In `{}`: {e}.", note.id()))
            .hint("view `outline` lists every section with the path to pass as `section`.")),
    }
}
