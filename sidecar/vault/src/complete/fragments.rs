//! Candidates for `[[target#` and `[[target#^`: the headings of the target
//! note (under the headings already named) and its block ids, each with a
//! preview of its text.
//!
//! It must not know how notes are ranked or how links name them: the
//! resolver finds the one note a fragment is in, and matching its headings
//! and blocks is all that is left to do here.

use super::context::LinkSlot;
use super::model::{Completions, Item, ItemKind, Request};
use crate::index::{NoteId, VaultIndex};
use crate::matcher::Matcher;
use crate::note::{LinkKind, folder_of};
use crate::query::TextSource;
use crate::resolve::{FragmentTarget, resolve_fragment};

/// The note a fragment completion is about: `target` from `path`, or the
/// note itself for `""`.
fn fragment_note(index: &VaultIndex, target: &str, request: &Request<'_>) -> Option<NoteId> {
    if target.is_empty() {
        return request.note;
    }
    index
        .resolve(folder_of(request.path), target, LinkKind::Wiki)
        .note()
}

pub(super) fn headings(
    index: &VaultIndex,
    target: &str,
    scope: &[String],
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
) -> Completions {
    let replace = link.replace.clone();
    let Some(id) = fragment_note(index, target, request) else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    // Under `#H1#`, only the headings inside H1's section.
    let range = if scope.is_empty() {
        0..note.headings.len()
    } else {
        match resolve_fragment(note, &scope.join("#")) {
            FragmentTarget::Heading(i) => {
                let level = note.headings[i].level;
                let end = note.headings[i + 1..]
                    .iter()
                    .position(|h| h.level <= level)
                    .map_or(note.headings.len(), |p| i + 1 + p);
                i + 1..end
            }
            _ => 0..0,
        }
    };
    let matcher = Matcher::new(typed);
    let mut scored: Vec<(u32, usize)> = range
        .filter_map(|i| Some((matcher.score(&note.headings[i].text)?, i)))
        .filter(|(_, i)| !note.headings[*i].text.is_empty())
        .collect();
    if !matcher.is_empty() {
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    let incomplete = scored.len() > request.limit;
    let items = scored
        .into_iter()
        .take(request.limit)
        .map(|(_, i)| {
            let heading = &note.headings[i];
            let insert = heading.text.to_string();
            Item {
                label: heading.text.to_string(),
                kind: ItemKind::Heading,
                insert: if link.closed || link.has_tail {
                    insert
                } else {
                    format!("{insert}]]")
                },
                filter: heading.text.to_string(),
                detail: Some(format!(
                    "{} {}",
                    "#".repeat(heading.level as usize),
                    note.path
                )),
                documentation: None,
                note: Some(id),
            }
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete,
    }
}

pub(super) fn blocks(
    index: &VaultIndex,
    target: &str,
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
    texts: &dyn TextSource,
) -> Completions {
    let replace = link.replace.clone();
    let Some(id) = fragment_note(index, target, request) else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    let text = texts.text(&note.path);
    let matcher = Matcher::new(typed);
    let mut items: Vec<Item> = Vec::new();
    for block in &note.blocks {
        if matcher.score(&block.id).is_none() {
            continue;
        }
        let preview = text.as_deref().and_then(|t| {
            let span = block.block_span.start as usize..block.span.start as usize;
            t.get(span).map(|s| bounded(s.trim(), 200))
        });
        let insert = block.id.to_string();
        items.push(Item {
            label: format!("^{}", block.id),
            kind: ItemKind::Block,
            insert: if link.closed || link.has_tail {
                insert
            } else {
                format!("{insert}]]")
            },
            filter: block.id.to_string(),
            detail: preview.clone(),
            documentation: preview,
            note: Some(id),
        });
    }
    let incomplete = items.len() > request.limit;
    items.truncate(request.limit);
    Completions {
        items,
        replace,
        incomplete,
    }
}

/// Cuts `text` to about `max` characters, marking the cut with `…`.
pub fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
    }
}
