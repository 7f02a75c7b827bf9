//! Candidates for `#typed`: the vault's tags, ranked by match and use,
//! without the tag being typed when this note is its only user.
//!
//! It must not know notes' names or paths: the index counts tags, and this
//! file only ranks and labels them.

use std::ops::Range;

use super::model::{Completions, Item, ItemKind, Request};
use super::rank::link_bonus;
use crate::index::VaultIndex;
use crate::key::name_key;
use crate::matcher::Matcher;

pub(super) fn tags(
    index: &VaultIndex,
    typed: &str,
    replace: Range<usize>,
    request: &Request<'_>,
) -> Completions {
    let limit = request.limit;
    let matcher = Matcher::new(typed);
    // The tag being typed is in the index already: leave it out when this
    // note is its only user.
    let typed_key = name_key(typed);
    let uses_here = request.note.map_or(0, |id| {
        index
            .note(id)
            .tags
            .iter()
            .filter(|t| name_key(&t.name) == typed_key)
            .count() as u32
    });
    let mut scored: Vec<(u32, &str, u32, u32)> = index
        .tags()
        .iter()
        .filter(|(key, stat)| !(***key == *typed_key && stat.uses <= uses_here))
        .map(|(_, stat)| stat)
        .filter_map(|stat| {
            let name = stat.display();
            let score = matcher.score(name)?;
            Some((
                score * 4 + link_bonus(stat.uses),
                name,
                stat.uses,
                stat.notes,
            ))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let incomplete = scored.len() > limit;
    let items = scored
        .into_iter()
        .take(limit)
        .map(|(_, name, uses, notes)| Item {
            label: format!("#{name}"),
            kind: ItemKind::Tag,
            insert: name.to_string(),
            filter: name.to_string(),
            detail: Some(format!(
                "{uses} use{} in {notes} note{}",
                if uses == 1 { "" } else { "s" },
                if notes == 1 { "" } else { "s" }
            )),
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
