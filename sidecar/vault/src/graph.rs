//! Walks of the link graph: the notes (and not-yet-existing targets)
//! within a few links of a start, breadth first and bounded, with every
//! link between those reached as an edge. `get_links`' graph, the graph
//! prompt and `get_context`'s neighbourhood all walk here.
//!
//! A pure function of the index, like `query.rs`; no IO, no protocol.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::index::{NoteId, VaultIndex};
use super::key::path_key;
use super::query::outgoing;
use super::resolve::Resolution;

/// A node of a link graph: a note, or a target that does not exist yet.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GraphNode {
    Note(NoteId),
    Unresolved(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// Nodes with their distance from the start, in breadth-first order.
    pub nodes: Vec<(GraphNode, u32)>,
    /// Directed edges `from → to` with how many links make them.
    pub edges: Vec<(usize, usize, u32)>,
    /// Whether `max_nodes` cut the walk short.
    pub truncated: bool,
}

/// Walks links both ways from `start` up to `depth` steps, at most
/// `max_nodes` nodes, hiding nothing.
pub fn graph(index: &VaultIndex, start: GraphNode, depth: u32, max_nodes: usize) -> Graph {
    walk(index, start, Direction::Both, depth, max_nodes, &|_| true)
}

/// Which links a walk follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Backlinks: from a note to the notes linking to it.
    In,
    /// Outgoing links.
    Out,
    Both,
}

/// Walks links in `direction` from `start` up to `depth` steps, at most
/// `max_nodes` nodes; edges are every link between reached notes (as in
/// [`graph`], which walks both ways). Only notes the caller `sees` (the
/// agent's access rule, or every note) are reached and walked through, so
/// nothing only an unseen note links to is reached either.
pub fn walk(
    index: &VaultIndex,
    start: GraphNode,
    direction: Direction,
    depth: u32,
    max_nodes: usize,
    sees: &dyn Fn(NoteId) -> bool,
) -> Graph {
    let mut order: Vec<(GraphNode, u32)> = vec![(start.clone(), 0)];
    let mut seen: HashMap<GraphNode, usize> = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([(start, 0u32)]);
    let mut truncated = false;
    'walk: while let Some((node, d)) = queue.pop_front() {
        if d >= depth {
            continue;
        }
        for next in neighbours(index, &node, direction) {
            if seen.contains_key(&next) || matches!(next, GraphNode::Note(n) if !sees(n)) {
                continue;
            }
            if order.len() >= max_nodes {
                truncated = true;
                break 'walk;
            }
            seen.insert(next.clone(), order.len());
            order.push((next.clone(), d + 1));
            queue.push_back((next, d + 1));
        }
    }
    let mut edges: BTreeMap<(usize, usize), u32> = BTreeMap::new();
    for (from, (node, _)) in order.iter().enumerate() {
        let GraphNode::Note(id) = node else { continue };
        for out in outgoing(index, *id) {
            let to = match &out.resolution {
                Resolution::Unresolved => {
                    GraphNode::Unresolved(unresolved_key(index, *id, out.link))
                }
                r => match r.note() {
                    Some(n) => GraphNode::Note(n),
                    None => continue,
                },
            };
            if let Some(&to) = seen.get(&to)
                && to != from
            {
                *edges.entry((from, to)).or_default() += 1;
            }
        }
    }
    Graph {
        nodes: order,
        edges: edges.into_iter().map(|((a, b), n)| (a, b, n)).collect(),
        truncated,
    }
}

/// The key of an unresolved link's target, as graph nodes name it.
pub(crate) fn unresolved_key(index: &VaultIndex, source: NoteId, link: u32) -> String {
    let link = &index.note(source).links[link as usize];
    path_key(link.target().trim_start_matches('/'))
}

fn neighbours(index: &VaultIndex, node: &GraphNode, direction: Direction) -> Vec<GraphNode> {
    let mut out: Vec<GraphNode> = Vec::new();
    match node {
        GraphNode::Note(id) => {
            if direction != Direction::In {
                for o in outgoing(index, *id) {
                    match &o.resolution {
                        Resolution::Unresolved => {
                            out.push(GraphNode::Unresolved(unresolved_key(index, *id, o.link)));
                        }
                        r => out.extend(r.note().filter(|n| n != id).map(GraphNode::Note)),
                    }
                }
            }
            if direction != Direction::Out {
                out.extend(
                    index
                        .backlinks(*id)
                        .into_iter()
                        .map(|r| r.source)
                        .filter(|s| s != id)
                        .map(GraphNode::Note),
                );
            }
        }
        GraphNode::Unresolved(key) => {
            if direction != Direction::Out {
                out.extend(
                    index
                        .unresolved_links_to(key)
                        .into_iter()
                        .map(|r| GraphNode::Note(r.source)),
                );
            }
        }
    }
    let mut unique = Vec::with_capacity(out.len());
    for n in out {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::related::tests::VAULT;
    use crate::tests::fixture;

    fn name(index: &VaultIndex, id: NoteId) -> String {
        index.note(id).id().to_string()
    }

    #[test]
    fn walks_follow_one_direction() {
        let index = fixture(VAULT);
        let c = GraphNode::Note(index.id_of("c").unwrap());
        let names = |g: &Graph| -> Vec<(String, u32)> {
            g.nodes
                .iter()
                .map(|(n, d)| match n {
                    GraphNode::Note(id) => (name(&index, *id), *d),
                    GraphNode::Unresolved(k) => (format!("?{k}"), *d),
                })
                .collect()
        };
        let back = walk(&index, c.clone(), Direction::In, 2, 100, &|_| true);
        assert_eq!(
            names(&back),
            [
                ("c".into(), 0),
                ("a".into(), 1),
                ("b".into(), 1),
                ("d".into(), 1)
            ]
        );
        let out = walk(&index, c.clone(), Direction::Out, 3, 100, &|_| true);
        assert_eq!(names(&out), [("c".into(), 0), ("hub".into(), 1)]);
        let capped = walk(&index, c, Direction::Both, 3, 3, &|_| true);
        assert!(capped.truncated);
        assert_eq!(capped.nodes.len(), 3);
    }
}
