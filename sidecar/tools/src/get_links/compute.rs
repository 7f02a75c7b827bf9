//! What `get_links` finds, as data: the backlinks of a note (or of a name
//! no note has yet) by linking note, its outgoing links with what they
//! resolve to, and the notes a bounded walk reaches; paged, with what the
//! agent may not see left out. No words and no files read: the lines
//! around the backlinks are `run`'s, their words `render`'s.

use super::answer::{LinkDirection, LinksFormat};
use crate::common::Target;
use weft_vault::filter::FileMeta;
use weft_vault::graph::{Direction, GraphNode, walk};
use weft_vault::key::{name_key, path_key};
use weft_vault::query::outgoing as outgoing_of;
use weft_vault::resolve::{FragmentTarget, Resolution, resolve_fragment};
use weft_vault::{LinkRef, NoteId, VaultIndex};
use weft_workspace::access::Access;

/// A `get_links` request, read and checked.
#[derive(Debug, Clone)]
pub struct Query {
    pub direction: LinkDirection,
    pub format: LinksFormat,
    /// 1 to 3; 0 for a graph of the note alone.
    pub depth: u32,
    /// A typed-link key, `*` for any.
    pub rel: Option<String>,
    /// `Note#Heading` / `Note#^block`: the links to that place only.
    pub place: Option<(NoteId, FragmentTarget)>,
    /// Linking notes (incoming) or links (outgoing) to skip.
    pub offset: usize,
    pub limit: usize,
}

/// What the links of a note are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Links {
    /// The backlinks on the page, all of each linking note, grouped by it;
    /// absent for direction `out` and for a graph.
    pub incoming: Option<Paged<LinkRef>>,
    /// The outgoing links on the page (none for a note not written yet);
    /// absent for direction `in` and for a graph.
    pub outgoing: Option<Paged<Outgoing>>,
    /// Whether a next page has more.
    pub more: bool,
    /// With `depth` over 1, or for a graph.
    pub walk: Option<Walked>,
}

/// A page and the count of all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paged<T> {
    pub page: Vec<T>,
    pub total: usize,
}

/// An outgoing link and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub link: LinkRef,
    pub to: To,
    /// For a fragment into a note: whether what it names exists there.
    pub fragment_found: Option<bool>,
}

/// Where a link leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum To {
    /// The note it is in.
    Itself,
    Note(NoteId),
    /// One of several notes with the name: the one the tie-break picks.
    Ambiguous(NoteId),
    /// A file, by vault path.
    Attachment(String),
    Unresolved,
}

/// The notes a walk reached that the agent may see, numbered anew, and
/// the edges between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    /// With the distance from the start, in breadth-first order.
    pub nodes: Vec<(GraphNode, u32)>,
    /// `from → to` (indices in `nodes`) with how many links make them.
    pub edges: Vec<(usize, usize, u32)>,
    /// The walk stopped at `limit` nodes.
    pub truncated: bool,
}

/// What `fragment` names in the note `id`; `None` when it has no such
/// heading or block.
pub fn place(index: &VaultIndex, id: NoteId, fragment: &str) -> Option<(NoteId, FragmentTarget)> {
    match resolve_fragment(index.note(id), fragment) {
        FragmentTarget::Missing => None,
        found => Some((id, found)),
    }
}

/// The links of `target` the query asks for.
pub fn compute(index: &VaultIndex, access: &Access, target: &Target, query: &Query) -> Links {
    let mut links = Links {
        incoming: None,
        outgoing: None,
        more: false,
        walk: None,
    };
    if query.format != LinksFormat::Graph {
        if query.direction != LinkDirection::Out {
            let (page, more) = incoming(index, access, target, query);
            links.incoming = Some(page);
            links.more |= more;
        }
        if query.direction != LinkDirection::In {
            let all = match target {
                Target::Note(id) => outgoing(index, access, *id, query.rel.as_deref()),
                Target::Missing { .. } => Vec::new(),
            };
            let total = all.len();
            let page: Vec<Outgoing> = all
                .into_iter()
                .skip(query.offset)
                .take(query.limit)
                .collect();
            links.more |= query.offset + page.len() < total;
            links.outgoing = Some(Paged { page, total });
        }
    }
    if query.depth > 1 || query.format == LinksFormat::Graph {
        links.walk = Some(walked(index, access, target, query));
    }
    links
}

/// Whether a link's `rel` is the one wanted (`*`: any typed link).
fn rel_matches(wanted: Option<&str>, rel: Option<&str>) -> bool {
    match wanted {
        None => true,
        Some("*") => rel.is_some(),
        Some(w) => rel.is_some_and(|r| name_key(r) == name_key(w)),
    }
}

/// The page of backlinks, and whether more linking notes follow.
fn incoming(
    index: &VaultIndex,
    access: &Access,
    target: &Target,
    query: &Query,
) -> (Paged<LinkRef>, bool) {
    let refs: Vec<LinkRef> = match target {
        Target::Note(id) => index.backlinks(*id),
        Target::Missing { links, .. } => links.clone(),
    };
    let refs: Vec<LinkRef> = refs
        .into_iter()
        .filter(|r| access.sees(&index.note(r.source).path))
        .filter(|r| rel_matches(query.rel.as_deref(), index.link(*r).rel()))
        .filter(|r| match query.place {
            Some((id, wanted)) => index
                .link(*r)
                .fragment()
                .is_some_and(|f| resolve_fragment(index.note(id), f) == wanted),
            None => true,
        })
        .collect();
    let total = refs.len();
    // Pages of linking notes, each with all its links: a note linking a
    // hundred times does not hide the others.
    let mut sources: Vec<(usize, usize)> = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        match sources.last_mut() {
            Some((_, end)) if refs[*end - 1].source == r.source => *end = i + 1,
            _ => sources.push((i, i + 1)),
        }
    }
    let (offset, limit) = (query.offset, query.limit);
    let shown = &sources[offset.min(sources.len())..(offset + limit).min(sources.len())];
    let page: Vec<LinkRef> = shown
        .iter()
        .flat_map(|&(start, end)| refs[start..end].iter().copied())
        .collect();
    let more = offset + shown.len() < sources.len();
    (Paged { page, total }, more)
}

/// The links of note `id` with `rel`, but those into notes the agent may
/// not see.
fn outgoing(index: &VaultIndex, access: &Access, id: NoteId, rel: Option<&str>) -> Vec<Outgoing> {
    let note = index.note(id);
    outgoing_of(index, id)
        .into_iter()
        .filter_map(|o| {
            let link = &note.links[o.link as usize];
            if !rel_matches(rel, link.rel()) {
                return None;
            }
            let to = match o.resolution {
                Resolution::Note(t) if t == id => To::Itself,
                Resolution::Note(t) if !access.sees(&index.note(t).path) => return None,
                Resolution::Note(t) => To::Note(t),
                Resolution::Ambiguous { chosen, .. } => To::Ambiguous(chosen),
                Resolution::Attachment(path) => To::Attachment(path.to_string()),
                Resolution::Unresolved => To::Unresolved,
            };
            Some(Outgoing {
                link: LinkRef {
                    source: id,
                    link: o.link,
                },
                to,
                fragment_found: o.fragment.map(|f| f != FragmentTarget::Missing),
            })
        })
        .collect()
}

/// The walk from `target`, without the notes the agent may not see.
fn walked(index: &VaultIndex, access: &Access, target: &Target, query: &Query) -> Walked {
    let start = match target {
        Target::Note(id) => GraphNode::Note(*id),
        Target::Missing { target, .. } => {
            GraphNode::Unresolved(path_key(target.trim_start_matches('/')))
        }
    };
    let direction = match query.direction {
        LinkDirection::In => Direction::In,
        LinkDirection::Out => Direction::Out,
        LinkDirection::Both => Direction::Both,
    };
    let sight = access.sight(index);
    let sees = |id: NoteId| sight.matches(index, id, &FileMeta::default());
    let graph = walk(index, start, direction, query.depth, query.limit, &sees);
    // Each node kept gets the next number; edges follow their nodes.
    let mut next = 0;
    let shown: Vec<Option<usize>> = graph
        .nodes
        .iter()
        .map(|(node, d)| {
            let keep = *d == 0
                || match node {
                    GraphNode::Note(id) => access.sees(&index.note(*id).path),
                    GraphNode::Unresolved(_) => true,
                };
            keep.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let edges = graph
        .edges
        .iter()
        .filter_map(|&(a, b, n)| Some((shown[a]?, shown[b]?, n)))
        .collect();
    let nodes = graph
        .nodes
        .into_iter()
        .zip(&shown)
        .filter_map(|(node, s)| s.map(|_| node))
        .collect();
    Walked {
        nodes,
        edges,
        truncated: graph.truncated,
    }
}
