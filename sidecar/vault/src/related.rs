//! Link proximity: which notes are near a note in the link graph and why
//! (links either way, shared link targets, being cited together), and
//! bounded walks in one direction.
//!
//! Pure functions of the index, like `query.rs`; no IO, no protocol, no
//! text similarity (that lives with the full-text index).

use std::collections::{HashMap, HashSet};

use super::index::{NoteId, VaultIndex};
use super::query::outgoing;

/// How a note is near another in the link graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Affinity {
    /// The subject links to this note.
    pub links_to: bool,
    /// This note links to the subject.
    pub linked_from: bool,
    /// Notes both link to (bibliographic coupling), sorted.
    pub shared_targets: Vec<NoteId>,
    /// Notes linking to both (co-citation), sorted.
    pub co_cited_by: Vec<NoteId>,
    /// Weighted sum: 1 per direct link direction, and per shared neighbour
    /// a weight that falls with that neighbour's degree (a hub shared by
    /// everything says little).
    pub score: f64,
}

/// Neighbours with more links than this are not expanded (their weight is
/// near zero anyway, and their cost is not).
const MAX_FANOUT: usize = 400;

/// The notes near `id`, with why, best first (ties by path). Only notes
/// the caller `sees` (the agent's access rule) take part: as neighbours,
/// as the notes that cite or are cited.
pub fn link_affinity(
    index: &VaultIndex,
    id: NoteId,
    sees: &dyn Fn(NoteId) -> bool,
) -> Vec<(NoteId, Affinity)> {
    let targets = resolved_targets(index, id, sees);
    let mut sources: Vec<NoteId> = index
        .backlinks(id)
        .into_iter()
        .map(|r| r.source)
        .filter(|s| *s != id && sees(*s))
        .collect();
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
    sources.dedup();
    let mut near: HashMap<NoteId, Affinity> = HashMap::new();
    for &t in &targets {
        near.entry(t).or_default().links_to = true;
    }
    for &s in &sources {
        near.entry(s).or_default().linked_from = true;
    }
    // Co-citation: the other targets of the notes that cite `id`.
    for &s in sources.iter().take(MAX_FANOUT) {
        let others = resolved_targets(index, s, sees);
        if others.len() > MAX_FANOUT {
            continue;
        }
        for o in others {
            if o != id {
                near.entry(o).or_default().co_cited_by.push(s);
            }
        }
    }
    // Coupling: the other sources of the notes `id` cites.
    for &t in targets.iter().take(MAX_FANOUT) {
        let citing: HashSet<NoteId> = index
            .backlinks(t)
            .into_iter()
            .map(|r| r.source)
            .filter(|s| sees(*s))
            .collect();
        if citing.len() > MAX_FANOUT {
            continue;
        }
        for s in citing {
            if s != id && s != t {
                near.entry(s).or_default().shared_targets.push(t);
            }
        }
    }
    let mut out: Vec<(NoteId, Affinity)> = near
        .into_iter()
        .filter(|(n, _)| *n != id)
        .map(|(n, mut a)| {
            let by_path = |x: &NoteId, y: &NoteId| index.note(*x).path.cmp(&index.note(*y).path);
            a.shared_targets.sort_by(by_path);
            a.shared_targets.dedup();
            a.co_cited_by.sort_by(by_path);
            a.co_cited_by.dedup();
            let mut score = 0.0;
            if a.links_to {
                score += 1.0;
            }
            if a.linked_from {
                score += 1.0;
            }
            for &t in &a.shared_targets {
                score += weight(index.backlinks(t).len());
            }
            for &s in &a.co_cited_by {
                score += weight(index.note(s).links.len());
            }
            a.score = score;
            (n, a)
        })
        .collect();
    out.sort_by(|a, b| {
        b.1.score
            .total_cmp(&a.1.score)
            .then_with(|| index.note(a.0).path.cmp(&index.note(b.0).path))
    });
    out
}

fn weight(degree: usize) -> f64 {
    1.0 / (std::f64::consts::E + degree as f64).ln()
}

/// The distinct notes a note's links resolve to that the caller `sees`
/// (itself excluded).
fn resolved_targets(index: &VaultIndex, id: NoteId, sees: &dyn Fn(NoteId) -> bool) -> Vec<NoteId> {
    let mut out: Vec<NoteId> = outgoing(index, id)
        .into_iter()
        .filter_map(|o| o.resolution.note())
        .filter(|t| *t != id && sees(*t))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tests::fixture;

    /// Links among a few notes, for the tests of link proximity and walks.
    pub(crate) const VAULT: &str = r#"
//- /a.md
[[b]] [[c]]
//- /b.md
[[c]] [[hub]]
//- /c.md
[[hub]]
//- /d.md
[[a]] [[c]]
//- /hub.md
//- /lone.md
"#;

    /// (note, links to, linked from, shared targets, co-cited by)
    type Row = (String, bool, bool, Vec<String>, Vec<String>);

    fn name(index: &VaultIndex, id: NoteId) -> String {
        index.note(id).id().to_string()
    }

    #[test]
    fn affinity_explains_why() {
        let index = fixture(VAULT);
        let a = index.id_of("a").unwrap();
        let near: Vec<Row> = link_affinity(&index, a, &|_| true)
            .into_iter()
            .map(|(n, af)| {
                (
                    name(&index, n),
                    af.links_to,
                    af.linked_from,
                    af.shared_targets.iter().map(|t| name(&index, *t)).collect(),
                    af.co_cited_by.iter().map(|t| name(&index, *t)).collect(),
                )
            })
            .collect();
        // c: a links to it, d cites both a and c, b and a both link to c…
        assert_eq!(near[0].0, "c");
        assert!(near[0].1 && near[0].4 == ["d"], "{near:?}");
        let b = near.iter().find(|n| n.0 == "b").unwrap();
        assert!(b.1 && b.3 == ["c"], "{near:?}");
        let d = near.iter().find(|n| n.0 == "d").unwrap();
        assert!(d.2 && d.3 == ["c"], "{near:?}");
        assert!(near.iter().all(|n| n.0 != "lone" && n.0 != "a"));
    }
}
