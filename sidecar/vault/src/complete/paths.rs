//! Candidates for a Markdown link's destination, `[text](typed`: notes and
//! attachments as paths relative to the note's folder (percent-encoded
//! unless written `<like this>`), and after `#` the heading slugs of the
//! linked note.
//!
//! It is the one part of completion that writes paths. It must not know how
//! wikilinks name notes (stems, aliases: `notes.rs`), because the two link
//! forms name them differently.

use std::ops::Range;

use super::model::{Completions, Item, ItemKind, Request, Signals};
use super::rank::{NAME_PATH, Scored, link_bonus, scan_notes};
use crate::index::VaultIndex;
use crate::key::{encode_path, relative_path, slug};
use crate::matcher::Matcher;
use crate::note::{LinkKind, folder_of};

pub(super) fn markdown_paths(
    index: &VaultIndex,
    typed: &str,
    replace: Range<usize>,
    closed: bool,
    angle: bool,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> Completions {
    let from_folder = folder_of(request.path);
    let typed_path = typed.trim_start_matches("./");
    let matcher = Matcher::new(typed_path.rsplit("../").next().unwrap_or(typed_path));
    let pool = (request.limit * 2).max(32);
    let top = scan_notes(index, pool, |id, note| {
        if Some(id) == request.note {
            return None;
        }
        Some(Scored {
            score: matcher.score(&note.path)? * 4 + link_bonus(signals.backlinks(id)),
            id,
            name: NAME_PATH,
            at: usize::MAX,
        })
    });
    let matched = top.seen;
    let mut items: Vec<Item> = top
        .into_sorted()
        .into_iter()
        .take(request.limit)
        .map(|s| {
            let note = index.note(s.id);
            let rel = relative_path(from_folder, &note.path);
            let written = if angle {
                rel.clone()
            } else {
                encode_path(&rel)
            };
            Item {
                label: rel.clone(),
                kind: ItemKind::Path,
                insert: if closed {
                    written
                } else if angle {
                    format!("{written}>)")
                } else {
                    format!("{written})")
                },
                filter: rel,
                detail: Some(note.title.to_string()),
                documentation: None,
                note: Some(s.id),
            }
        })
        .collect();
    // Attachments, after notes.
    let room = request.limit.saturating_sub(items.len());
    if room > 0 {
        let mut found: Vec<(u32, &str)> = index
            .attachments()
            .filter_map(|p| Some((matcher.score(p)?, p)))
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (_, path) in found.into_iter().take(room) {
            let rel = relative_path(from_folder, path);
            let written = if angle {
                rel.clone()
            } else {
                encode_path(&rel)
            };
            items.push(Item {
                label: rel.clone(),
                kind: ItemKind::Path,
                insert: if closed {
                    written
                } else {
                    format!("{written})")
                },
                filter: rel,
                detail: Some("attachment".into()),
                documentation: None,
                note: None,
            });
        }
    }
    Completions {
        incomplete: matched > items.len(),
        items,
        replace,
    }
}

pub(super) fn markdown_headings(
    index: &VaultIndex,
    path: &str,
    typed: &str,
    replace: Range<usize>,
    closed: bool,
    request: &Request<'_>,
) -> Completions {
    let note = if path.is_empty() {
        request.note
    } else {
        index
            .resolve(folder_of(request.path), path, LinkKind::Markdown)
            .note()
    };
    let Some(id) = note else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    let matcher = Matcher::new(typed);
    let mut items: Vec<Item> = note
        .headings
        .iter()
        .filter(|h| matcher.score(&h.text).is_some())
        .map(|h| {
            let s = slug(&h.text);
            Item {
                label: h.text.to_string(),
                kind: ItemKind::Heading,
                insert: if closed { s.clone() } else { format!("{s})") },
                filter: s,
                detail: Some(format!("{} {}", "#".repeat(h.level as usize), note.path)),
                documentation: None,
                note: Some(id),
            }
        })
        .collect();
    let incomplete = items.len() > request.limit;
    items.truncate(request.limit);
    Completions {
        items,
        replace,
        incomplete,
    }
}
