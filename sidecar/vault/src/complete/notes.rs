//! Candidates for `[[typed`: notes by stem, title, alias or path, targets
//! other notes link to that do not exist yet, and today's, yesterday's and
//! tomorrow's daily notes, each written as a link should name it.
//!
//! It must not read the text being edited (the context comes in) nor the
//! clock (today's date comes in the request), so that completion answers
//! the same in every face and in tests.

use super::context::LinkSlot;
use super::model::{Completions, DailySettings, Item, ItemKind, Request, Signals};
use super::rank::{
    NAME_PATH, NAME_STEM, NAME_TITLE, Scored, best_name, link_bonus, recency_bonus, scan_notes,
    scan_table,
};
use crate::daily::daily_note_path;
use crate::index::{NoteId, VaultIndex};
use crate::key::path_key;
use crate::matcher::Matcher;
use crate::note::{LinkKind, folder_of, strip_md};
use crate::resolve::Resolution;

/// How a link from the note at `from_path` should name `target`: its stem
/// when that resolves to it without ambiguity, else its path without `.md`.
pub(crate) fn link_target_for(index: &VaultIndex, from_path: &str, target: NoteId) -> String {
    let note = index.note(target);
    let stem = note.stem();
    match index.resolve(folder_of(from_path), stem, LinkKind::Wiki) {
        Resolution::Note(id) if id == target => stem.to_string(),
        _ => note.id().to_string(),
    }
}

pub(super) fn notes(
    index: &VaultIndex,
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> Completions {
    let matcher = Matcher::new(typed.trim());
    let with_path = typed.contains('/');
    // Rank by name and links first, over every note; only the best few get
    // the costlier signals (recency) and the final order.
    let pool = (request.limit * 2).max(50);
    let top = match request.names {
        Some(table) => scan_table(index, table, pool, &matcher, with_path, request, signals),
        None => scan_notes(index, pool, |id, note| {
            if Some(id) == request.note {
                return None;
            }
            let (score, name) = best_name(&matcher, note, with_path)?;
            Some(Scored {
                score: score * 4 + link_bonus(signals.backlinks(id)),
                id,
                name,
                at: usize::MAX,
            })
        }),
    };
    let mut matched = top.seen;
    let mut ranked: Vec<Scored> = top
        .into_sorted()
        .into_iter()
        .map(|s| {
            let note = index.note(s.id);
            Scored {
                score: s.score + recency_bonus(signals.age_days(s.id, &note.path)),
                ..s
            }
        })
        .collect();
    ranked.sort();

    let close = |s: String| -> String {
        if link.closed || link.has_tail {
            s
        } else {
            format!("{s}]]")
        }
    };
    // (score, item): notes and unresolved targets compete on one scale.
    let mut scored: Vec<(u32, Item)> = Vec::new();
    for s in ranked.iter().take(request.limit) {
        let note = index.note(s.id);
        let target = link_target_for(index, request.path, s.id);
        let stem = note.stem();
        let detail = Some(if *note.title != *stem {
            format!("{} — {}", note.title, note.path)
        } else {
            note.path.to_string()
        });
        let (label, kind, insert) = match s.name {
            NAME_STEM => (stem.to_string(), ItemKind::Note, target),
            NAME_TITLE => (note.title.to_string(), ItemKind::Note, target),
            NAME_PATH => (note.id().to_string(), ItemKind::Note, target),
            alias => {
                let alias = &note.aliases[alias];
                let insert = if link.has_tail {
                    target
                } else {
                    format!("{target}|{alias}")
                };
                (alias.to_string(), ItemKind::Alias, insert)
            }
        };
        scored.push((
            s.score,
            Item {
                filter: label.clone(),
                label,
                kind,
                insert: close(insert),
                detail,
                documentation: None,
                note: Some(s.id),
            },
        ));
    }
    // Targets other notes link to that do not exist yet (not the link
    // being typed: a target only this note links to is left out).
    let only_here = |target: &str| {
        index
            .unresolved_links_to(target)
            .iter()
            .all(|r| Some(r.source) == request.note)
    };
    let typed_key = path_key(typed);
    for (target, count) in signals.unresolved() {
        let Some(score) = matcher.score(target) else {
            continue;
        };
        if path_key(target) == typed_key && only_here(target) {
            continue;
        }
        let count = *count;
        matched += 1;
        scored.push((
            score * 4 + link_bonus(count),
            Item {
                label: target.clone(),
                kind: ItemKind::Unresolved,
                insert: close(target.clone()),
                filter: target.clone(),
                detail: Some(format!(
                    "not created yet; {count} link{}",
                    if count == 1 { "" } else { "s" }
                )),
                documentation: None,
                note: None,
            },
        ));
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.label.cmp(&b.1.label)));
    let mut items: Vec<Item> = Vec::new();
    // Daily notes first when the typed word is one of their names.
    if let Some(daily) = request.daily {
        items.extend(daily_items(index, typed, request.path, daily, &close));
    }
    items.extend(scored.into_iter().map(|(_, item)| item));
    let incomplete = matched > items.len() || items.len() > request.limit;
    items.truncate(request.limit.max(1));
    Completions {
        items,
        replace: link.replace.clone(),
        incomplete,
    }
}

fn daily_items(
    index: &VaultIndex,
    typed: &str,
    from_path: &str,
    daily: &DailySettings,
    close: &dyn Fn(String) -> String,
) -> Vec<Item> {
    let typed = typed.trim().to_ascii_lowercase();
    if typed.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (word, days) in [("today", 0), ("yesterday", -1), ("tomorrow", 1)] {
        if !word.starts_with(&typed) {
            continue;
        }
        let date = daily.today.add_days(days);
        let path = daily_note_path(&daily.folder, &daily.format, date);
        let (target, exists) = match index.id_of(&path) {
            Some(id) => (link_target_for(index, from_path, id), true),
            None => {
                // Not created yet: name it so that creating it resolves the
                // link: its stem unless that is taken elsewhere.
                let id = strip_md(&path);
                let stem = id.rsplit('/').next().unwrap_or(id);
                let free = matches!(
                    index.resolve(folder_of(from_path), stem, LinkKind::Wiki),
                    Resolution::Unresolved
                );
                (if free { stem } else { id }.to_string(), false)
            }
        };
        out.push(Item {
            label: format!("{word}: {target}"),
            kind: ItemKind::Daily,
            insert: close(target),
            filter: word.to_string(),
            detail: Some(if exists {
                format!("daily note {path}")
            } else {
                format!("daily note {path} (not created yet)")
            }),
            documentation: None,
            note: index.id_of(&path),
        });
    }
    out
}
