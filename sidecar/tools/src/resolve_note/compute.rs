//! What a name means, as data: the note `[[name]]` resolves to from the
//! vault root (`vault::query::lookup`), whether others fit as well, the
//! links to a note not written yet, and the notes whose names match
//! (`search::names`), all among the notes the agent may see. No words:
//! `render` tells them.

use weft_search::names::{NameMatch, match_names};
use weft_vault::query::{Lookup, lookup};
use weft_vault::{LinkKind, NoteId, VaultIndex};
use weft_workspace::access::Access;

/// What a name means.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The note a link with the name leads to.
    pub resolves_to: Option<NoteId>,
    /// Several visible notes answer the name equally.
    pub ambiguous: bool,
    /// Visible links whose target is the name and that resolve nowhere.
    pub unresolved_links: usize,
    /// Best first, at most `limit`.
    pub candidates: Vec<NameMatch>,
}

/// A name as a link's target: `[[Plan]]` is `Plan`.
pub(super) fn link_target(name: &str) -> &str {
    let name = name.trim();
    name.strip_prefix("[[")
        .and_then(|n| n.strip_suffix("]]"))
        .unwrap_or(name)
}

/// What `name` (checked: `common::check_name`) means to the agent.
pub fn compute(index: &VaultIndex, access: &Access, name: &str, limit: usize) -> Resolved {
    let sees = |id| access.sees(&index.note(id).path);
    let (resolves_to, ambiguous, unresolved_links) = match lookup(index, name) {
        Lookup::Found(id) if sees(id) => (Some(id), false, 0),
        Lookup::Ambiguous(ids) => {
            let shown: Vec<_> = ids.iter().copied().filter(|id| sees(*id)).collect();
            let chosen = index
                .resolve("", link_target(name), LinkKind::Wiki)
                .note()
                .filter(|id| sees(*id));
            (chosen.or(shown.first().copied()), shown.len() > 1, 0)
        }
        Lookup::Unresolved { links, .. } => {
            (None, false, links.iter().filter(|r| sees(r.source)).count())
        }
        _ => (None, false, 0),
    };
    let candidates = match_names(index, name, limit * 3)
        .into_iter()
        .filter(|m| sees(m.note))
        .take(limit)
        .collect();
    Resolved {
        resolves_to,
        ambiguous,
        unresolved_links,
        candidates,
    }
}
