//! What `vault_info` computes of the index and of what the state reports,
//! without IO: the counts of what the agent may see, and which unreadable
//! files it may be told of.

use super::answer::Counts;
use weft_vault::VaultIndex;
use weft_vault::query::stats_of;
use weft_workspace::access::Access;

/// Files named as unreadable at most.
const MAX_UNREADABLE: usize = 20;

/// The vault's counts as the agent may see them (`vault::query::stats_of`).
pub fn counts(index: &VaultIndex, access: &Access) -> Counts {
    let sees = |path: &str| access.sees(path);
    let s = stats_of(index, access.restricts().then_some(&sees as _));
    Counts {
        notes: s.notes,
        attachments: s.attachments,
        markdown_bytes: s.bytes,
        links: s.links,
        unresolved_links: s.unresolved,
        ambiguous_links: s.ambiguous,
        tags: s.tags,
        orphans: s.orphans,
    }
}

/// The unreadable files (path, why) the agent may be told of, as
/// `path: why`: a path out of its reach is not named, even unreadable.
pub fn unreadable(errors: Vec<(String, String)>, access: &Access) -> Vec<String> {
    errors
        .into_iter()
        .filter(|(p, _)| access.sees_unknown_kind(p))
        .take(MAX_UNREADABLE)
        .map(|(p, m)| format!("{p}: {m}"))
        .collect()
}
