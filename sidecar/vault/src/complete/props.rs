//! Candidates in the frontmatter: property names (the vault's keys with
//! their type and use, leaving out those this note has), and a property's
//! values (those the vault gives it, most used first; the tags for `tags`;
//! today for a date; `true`/`false` for a checkbox), written as YAML needs
//! them (quoted when plain YAML would read them otherwise).
//!
//! It must not know how types are inferred or values counted: the index's
//! [`crate::props::Props`] says; this file ranks and labels.

use std::ops::Range;

use super::model::{Completions, Item, ItemKind, Request};
use super::rank::link_bonus;
use crate::index::VaultIndex;
use crate::key::name_key;
use crate::matcher::Matcher;
use crate::props::{PropType, Types};

/// Property names for `typed`, at the start of a frontmatter line.
pub(super) fn keys(
    index: &VaultIndex,
    typed: &str,
    replace: Range<usize>,
    colon: bool,
    request: &Request<'_>,
) -> Completions {
    let matcher = Matcher::new(typed.trim());
    let none = Types::default();
    let types = request.types.unwrap_or(&none);
    let here: Vec<String> = request
        .note
        .and_then(|id| index.note(id).frontmatter.as_ref())
        .map(|f| f.keys().map(|k| name_key(k)).collect())
        .unwrap_or_default();
    let typed_key = name_key(typed.trim());
    let mut scored: Vec<(u32, &str, &str, u32)> = index
        .props()
        .iter()
        // A key this note has already is not offered again (the one being
        // typed is in the index as typed so far).
        .filter(|(key, _)| **key == *typed_key || !here.iter().any(|h| h == key))
        .filter(|(key, stat)| !(**key == *typed_key && stat.notes() <= 1))
        .filter_map(|(key, stat)| {
            let name = stat.display();
            let score = matcher.score(name)?;
            Some((
                score * 4 + link_bonus(stat.notes()),
                name,
                key,
                stat.notes(),
            ))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let incomplete = scored.len() > request.limit;
    let items = scored
        .into_iter()
        .take(request.limit)
        .map(|(_, name, key, notes)| {
            let kind = index.props().type_of(types, key).unwrap_or(PropType::Text);
            Item {
                label: name.to_string(),
                kind: ItemKind::Property,
                insert: if colon {
                    key_yaml(name)
                } else {
                    format!("{}: ", key_yaml(name))
                },
                filter: name.to_string(),
                detail: Some(format!("{} · {}", kind.name(), in_notes(notes))),
                documentation: None,
                note: None,
            }
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete,
    }
}

/// Values of the property `key` for `typed`.
pub(super) fn values(
    index: &VaultIndex,
    key: &str,
    typed: &str,
    replace: Range<usize>,
    request: &Request<'_>,
) -> Completions {
    let bare = typed.trim().trim_matches(['"', '\'']);
    let matcher = Matcher::new(bare);
    let none = Types::default();
    let types = request.types.unwrap_or(&none);
    let kind = index.props().type_of(types, key);
    // (score, value, notes)
    let mut scored: Vec<(u32, String, u32)> = Vec::new();
    match kind {
        Some(PropType::Tags) => {
            for stat in index.tags().values() {
                let name = stat.display();
                if let Some(score) = matcher.score(name) {
                    scored.push((score * 4 + link_bonus(stat.notes), name.into(), stat.notes));
                }
            }
        }
        _ => {
            if let Some(stat) = index.props().get(key) {
                for (value, notes) in stat.top_values(usize::MAX) {
                    if let Some(score) = matcher.score(value) {
                        scored.push((score * 4 + link_bonus(notes), value.into(), notes));
                    }
                }
            }
        }
    }
    // What a type always offers, first when it matches.
    let offered: Vec<String> = match kind {
        Some(PropType::Checkbox) => vec!["true".into(), "false".into()],
        Some(PropType::Date) => request
            .daily
            .map(|d| {
                let t = d.today;
                vec![format!("{:04}-{:02}-{:02}", t.year, t.month, t.day)]
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    for value in offered.into_iter().rev() {
        if matcher.score(&value).is_some() && !scored.iter().any(|s| s.1 == value) {
            scored.push((u32::MAX, value, 0));
        }
    }
    // The value being typed is in the index as typed so far.
    scored.retain(|s| !(s.1 == bare && s.2 <= 1));
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let incomplete = scored.len() > request.limit;
    let items = scored
        .into_iter()
        .take(request.limit)
        .map(|(_, value, notes)| Item {
            insert: value_yaml(&value),
            filter: value.clone(),
            detail: (notes > 0).then(|| in_notes(notes)),
            label: value,
            kind: ItemKind::Value,
            documentation: None,
            note: None,
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete,
    }
}

fn in_notes(n: u32) -> String {
    format!("{n} note{}", if n == 1 { "" } else { "s" })
}

/// A key as YAML writes it: as is when plain, else double-quoted.
fn key_yaml(key: &str) -> String {
    match plain(key) && !key.contains(':') {
        true => key.to_string(),
        false => quoted(key),
    }
}

/// A value as YAML must write it to read as this text: a `[[link]]`, a
/// text starting with a sign YAML gives a meaning, or holding `: ` or
/// ` #`, is double-quoted.
pub fn value_yaml(value: &str) -> String {
    match plain(value) {
        true => value.to_string(),
        false => quoted(value),
    }
}

/// Whether YAML reads `text` unquoted as this very text.
fn plain(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    !"[]{},&*!|>'\"%@`#?:-".contains(first)
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && text.trim() == text
        && !text.contains(['\n', '\r', '\t'])
}

fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
