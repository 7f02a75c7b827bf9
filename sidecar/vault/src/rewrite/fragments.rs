//! Renaming a heading or a block id, and every link fragment that leads
//! through it (`[[Note#Old]]`, `[[Note#Parent#Old]]`, `[x](note.md#old)`,
//! `[[Note#^old]]`), by the heading-path rules every link resolves with
//! (`crate::headings`), in the form each link wrote it (text or slug).
//!
//! It must not know moves or tags: a fragment rename never changes a link's
//! path, so the link's target is only resolved, never rewritten.

use std::ops::Range;

use super::plan::{Check, Collector, Edit, Plan, RewriteError, error};
use crate::headings::{find_heading, fragment_parts, heading_steps};
use crate::index::{NoteId, VaultIndex};
use crate::key::{encode_path, heading_key, slug};
use crate::note::{Link, LinkKind, Note, folder_of};
use crate::query::TextSource;

/// The byte range of a link's fragment (after the first `#`) in `text`.
fn fragment_range(link: &Link, text: &str) -> Option<Range<usize>> {
    let span = link.span.start as usize..link.span.end as usize;
    let raw = text.get(span.clone())?;
    let from = match link.kind {
        LinkKind::Wiki => link.target_span.end as usize - span.start,
        LinkKind::Markdown => raw.rfind("](").map(|i| i + 2)?,
    };
    let hash = from + raw[from..].find('#')?;
    let end = match link.kind {
        LinkKind::Wiki => raw[hash..].find(['|', ']']).map_or(raw.len(), |i| hash + i),
        LinkKind::Markdown => raw[hash..]
            .find([')', '>', ' ', '"'])
            .map_or(raw.len(), |i| hash + i),
    };
    Some(span.start + hash + 1..span.start + end)
}

/// The notes that may link into `target`: its backlinks and itself.
fn fragment_sources(index: &VaultIndex, target: NoteId) -> Vec<NoteId> {
    let mut sources: Vec<NoteId> = index
        .backlinks(target)
        .into_iter()
        .map(|r| r.source)
        .collect();
    sources.push(target);
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
    sources.dedup();
    sources
}

/// Whether `link` (in `source`, fresh from `text`) leads to note `target`.
fn leads_to(index: &VaultIndex, source: NoteId, link: &Link, target: NoteId) -> bool {
    if link.is_self_link() {
        return source == target;
    }
    index
        .resolve(
            folder_of(&index.note(source).path),
            link.target(),
            link.kind,
        )
        .note()
        == Some(target)
}

/// Renames heading `heading` of note `note` to `new_text`, and every link
/// to it.
pub fn rename_heading(
    index: &VaultIndex,
    note: NoteId,
    heading: usize,
    new_text: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let new_text = new_text.trim();
    if new_text.is_empty() || new_text.contains(['\n', '#', '|', '[', ']', '^']) {
        return error(
            "a heading linked to cannot be empty or contain a line break, `#`, `|`, `[`, `]` or `^`",
        );
    }
    let target = index.note(note);
    let Some(old) = target.headings.get(heading) else {
        return error("no such heading");
    };
    let old_text = old.text.to_string();
    let mut collector = Collector::new(texts);
    for source in fragment_sources(index, note) {
        let path = index.note(source).path.to_string();
        let Some((text, fresh)) = collector.read(&path) else {
            continue;
        };
        if source == note {
            // The heading line itself, found again in the fresh parse.
            if let Some(h) = fresh.headings.get(heading).filter(|h| *h.text == *old_text)
                && let Some(range) =
                    heading_text_range(&text, h.span.start as usize..h.span.end as usize)
            {
                collector.push(
                    &path,
                    &text,
                    Edit {
                        range,
                        new_text: new_text.to_string(),
                    },
                );
            }
        }
        for link in &fresh.links {
            let Some(fragment) = link.fragment() else {
                continue;
            };
            if fragment.starts_with('^') || !leads_to(index, source, link, note) {
                continue;
            }
            let target_note = index.note(note);
            let Some(part) = fragment_part_naming(target_note, fragment, heading) else {
                continue;
            };
            let Some(range) = fragment_range(link, &text) else {
                continue;
            };
            let Some(part_range) = nth_part(&text, range, part) else {
                continue;
            };
            let written = &text[part_range.clone()];
            let new_part = match link.kind {
                LinkKind::Wiki => {
                    if heading_key(written) == heading_key(&old_text) {
                        new_text.to_string()
                    } else {
                        slug(new_text)
                    }
                }
                LinkKind::Markdown => {
                    let decoded = percent_encoding::percent_decode_str(written).decode_utf8_lossy();
                    if heading_key(&decoded) == heading_key(&old_text) && decoded != slug(&old_text)
                    {
                        encode_path(new_text)
                    } else {
                        slug(new_text)
                    }
                }
            };
            collector.push(
                &path,
                &text,
                Edit {
                    range: part_range,
                    new_text: new_part,
                },
            );
        }
    }
    collector.finish(Vec::new(), Vec::new(), Check::Standing)
}

/// Which `#`-separated part of `fragment` (counting empty parts, as
/// [`nth_part`] does) names heading `heading` of `note` on the way to the
/// heading the fragment leads to, by the heading-path rules every link
/// resolves with. `None` when the fragment does not lead through it.
fn fragment_part_naming(note: &Note, fragment: &str, heading: usize) -> Option<usize> {
    let parts = fragment_parts(fragment);
    let target = find_heading(note, &parts).first()?;
    let steps = heading_steps(note, &parts, target)?;
    let step = steps.iter().position(|&s| s == heading)?;
    fragment
        .split('#')
        .enumerate()
        .filter(|(_, part)| !part.trim().is_empty())
        .nth(step)
        .map(|(i, _)| i)
}

/// The byte range of the `n`th `#`-separated part of `range`, trimmed.
fn nth_part(text: &str, range: Range<usize>, n: usize) -> Option<Range<usize>> {
    let fragment = text.get(range.clone())?;
    let mut start = 0;
    for (i, part) in fragment.split('#').enumerate() {
        if i == n {
            let lead = part.len() - part.trim_start().len();
            let s = range.start + start + lead;
            return Some(s..s + part.trim().len());
        }
        start += part.len() + 1;
    }
    None
}

/// The range of a heading's text on its line: after the `#` markers,
/// before closing `#`s; for a Setext heading, its first line.
pub fn heading_text_range(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let raw = text.get(span.clone())?;
    let first_line = raw[..crate::lines::line_end_at(raw, 0)].trim_end_matches('\r');
    let indent = first_line.len() - first_line.trim_start().len();
    let line = &first_line[indent..];
    if line.starts_with('#') {
        let hashes = line.len() - line.trim_start_matches('#').len();
        let content = &line[hashes..];
        let lead = content.len() - content.trim_start().len();
        let mut body = content.trim();
        // Closing sequence: ` ##` at the end.
        let stripped = body.trim_end_matches('#');
        if stripped.len() != body.len() && (stripped.is_empty() || stripped.ends_with(' ')) {
            body = stripped.trim_end();
        }
        let start = span.start + indent + hashes + lead;
        Some(start..start + body.len())
    } else {
        let body = line.trim_end();
        Some(span.start + indent..span.start + indent + body.len())
    }
}

/// Renames block `block` of `note` to `new_id`, and every link to it.
pub fn rename_block(
    index: &VaultIndex,
    note: NoteId,
    block: usize,
    new_id: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let new_id = new_id.trim().trim_start_matches('^');
    if new_id.is_empty()
        || !new_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return error("a block id is made of letters, digits and `-` (like `idea-2`)");
    }
    let target = index.note(note);
    let Some(old) = target.blocks.get(block) else {
        return error("no such block");
    };
    let old_id = old.id.to_string();
    if target
        .blocks
        .iter()
        .enumerate()
        .any(|(i, b)| i != block && b.id.eq_ignore_ascii_case(new_id))
    {
        return error(format!("the note already has a block ^{new_id}"));
    }
    let mut collector = Collector::new(texts);
    for source in fragment_sources(index, note) {
        let path = index.note(source).path.to_string();
        let Some((text, fresh)) = collector.read(&path) else {
            continue;
        };
        if source == note
            && let Some(b) = fresh
                .blocks
                .iter()
                .find(|b| b.id.eq_ignore_ascii_case(&old_id))
        {
            collector.push(
                &path,
                &text,
                Edit {
                    range: b.span.start as usize + 1..b.span.end as usize,
                    new_text: new_id.to_string(),
                },
            );
        }
        for link in &fresh.links {
            let Some(fragment) = link.fragment() else {
                continue;
            };
            let Some(id) = fragment.strip_prefix('^') else {
                continue;
            };
            if !id.trim().eq_ignore_ascii_case(&old_id) || !leads_to(index, source, link, note) {
                continue;
            }
            let Some(range) = fragment_range(link, &text) else {
                continue;
            };
            let written = &text[range.clone()];
            let Some(caret) = written.find('^') else {
                continue;
            };
            let id_start = range.start + caret + 1;
            let id_len = written[caret + 1..].trim_end().len();
            collector.push(
                &path,
                &text,
                Edit {
                    range: id_start..id_start + id_len,
                    new_text: new_id.to_string(),
                },
            );
        }
    }
    collector.finish(Vec::new(), Vec::new(), Check::Standing)
}
