//! `get_links`: the link structure around a note, no bodies — backlinks
//! with line numbers and context (also for a note that does not exist
//! yet), outgoing links with what they resolve to, typed links (`rel`),
//! bounded walks (`depth`) and a nodes-and-edges graph.
//!
//! An adapter over `vault::query` and `vault::related::walk`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::common::{
    NoteRef, Target, cursor_offset, find_target, limit, link_contexts, next_cursor,
};
use super::format::{Reply, ToolError, ToolResult, escape, plural};
use super::scope::sees_note;
use super::state::ToolState;
use weft_vault::graph::{Direction, GraphNode, walk};
use weft_vault::headings::heading_paths;
use weft_vault::key::name_key;
use weft_vault::query::outgoing;
use weft_vault::resolve::{FragmentTarget, Resolution, resolve_fragment};
use weft_vault::{LinkRef, VaultIndex};

choice! {
    pub enum LinkDirection {
        In = "in" | "incoming" | "backlinks" | "back",
        Out = "out" | "outgoing" | "outlinks" | "forward",
        Both = "both" | "all",
    }
}

choice! {
    pub enum LinksFormat {
        List = "list",
        // names: the notes only, each with its count of links.
        Names = "names" | "paths" | "notes",
        Graph = "graph" | "nodes",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetLinksArgs {
    /// Path, title or alias (+#Heading or #^block: links to it); may not
    /// exist yet.
    #[serde(alias = "note", alias = "name", alias = "file")]
    pub path: String,
    /// Default both.
    #[serde(default)]
    pub direction: Option<LinkDirection>,
    /// Default 1, max 3.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    #[serde(default)]
    pub format: Option<LinksFormat>,
    /// Typed-link key (part_of); * = any.
    #[serde(default, alias = "relation", alias = "type")]
    pub rel: Option<String>,
    /// Default 100.
    #[serde(default, alias = "max_nodes", deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Lines a linking note shows in the text; its other links are counted.
const LINES_PER_NOTE: usize = 3;

#[derive(Debug, Serialize, JsonSchema)]
pub struct GetLinksOut {
    pub note: LinkedNote,
    pub direction: LinkDirection,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incoming: Option<Vec<LinkIn>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incoming_total: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outgoing: Option<Vec<LinkOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outgoing_total: Option<usize>,
    /// Notes reached within `depth` steps (depth > 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached: Option<Vec<Reached>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphOut>,
    /// The walk stopped at `limit` nodes.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkedNote {
    /// Vault path without `.md`, or the link target of a note not written yet.
    pub path: String,
    pub title: String,
    pub exists: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkIn {
    pub from: NoteRef,
    /// 1-based.
    pub line: u32,
    pub context: String,
    /// The frontmatter key of a typed link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkOut {
    /// The target as written.
    pub target: String,
    /// note, ambiguous, attachment, unresolved or self.
    pub status: String,
    /// The note or file it resolves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    /// Whether the heading or block the fragment names exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment_found: Option<bool>,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
    pub embed: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Reached {
    pub path: String,
    pub title: String,
    pub exists: bool,
    pub distance: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphOut {
    pub nodes: Vec<GraphNodeOut>,
    pub edges: Vec<GraphEdge>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphNodeOut {
    /// Index in `nodes`, used by edges.
    pub id: usize,
    pub path: String,
    pub title: String,
    pub exists: bool,
    pub distance: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    /// Links making the edge.
    pub links: u32,
}

fn rel_matches(wanted: Option<&str>, rel: Option<&str>) -> bool {
    match wanted {
        None => true,
        Some("*") => rel.is_some(),
        Some(w) => rel.is_some_and(|r| name_key(r) == name_key(w)),
    }
}

pub fn run(state: &ToolState, args: GetLinksArgs) -> ToolResult {
    let policy = state.policy();
    let direction = args.direction.unwrap_or(LinkDirection::Both);
    let format = args.format.unwrap_or(LinksFormat::List);
    // A graph of depth 0 is the note alone; a list always shows one step.
    let depth = match format {
        LinksFormat::Graph => args.depth.unwrap_or(1).min(3),
        LinksFormat::List | LinksFormat::Names => args.depth.unwrap_or(1).clamp(1, 3),
    };
    let rel = args.rel.as_deref().map(str::trim).filter(|r| !r.is_empty());
    let limit = limit(args.limit, 100, 1000);
    let fingerprint = (&args.path, direction, depth, format, rel);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let index = state.index();
    // `Note#Heading` / `Note#^block`: the links to that place only.
    let (name, fragment) = match args.path.split_once('#') {
        Some((name, fragment)) if !name.trim().is_empty() && !fragment.trim().is_empty() => {
            (name, Some(fragment.trim()))
        }
        _ => (args.path.as_str(), None),
    };
    let target = find_target(state, &index, name, "path")?;
    let place = match (&target, fragment) {
        (Target::Note(id), Some(fragment)) => {
            let note = index.note(*id);
            match resolve_fragment(note, fragment) {
                FragmentTarget::Missing => {
                    let headings = heading_paths(note, "#");
                    return Err(ToolError::new(format!(
                        "`{}` has no heading or block `{fragment}`.",
                        note.id()
                    ))
                    .hint(format!(
                        "Its headings: {}.",
                        if headings.is_empty() {
                            "none".to_string()
                        } else {
                            headings.join(", ")
                        }
                    )));
                }
                found => Some((*id, found)),
            }
        }
        _ => None,
    };
    let (note, start) = match &target {
        Target::Note(id) => {
            let n = index.note(*id);
            (
                LinkedNote {
                    path: n.id().to_string(),
                    title: n.title.to_string(),
                    exists: true,
                },
                GraphNode::Note(*id),
            )
        }
        Target::Missing { target, .. } => (
            LinkedNote {
                path: target.clone(),
                title: target.clone(),
                exists: false,
            },
            GraphNode::Unresolved(weft_vault::key::path_key(target.trim_start_matches('/'))),
        ),
    };
    let mut out = GetLinksOut {
        note,
        direction,
        incoming: None,
        incoming_total: None,
        outgoing: None,
        outgoing_total: None,
        reached: None,
        graph: None,
        truncated: false,
        next_cursor: None,
    };
    let sees = |path: &str| policy.access.sees(path);
    let mut more = false;
    if format != LinksFormat::Graph {
        if direction != LinkDirection::Out {
            let refs: Vec<LinkRef> = match &target {
                Target::Note(id) => index.backlinks(*id),
                Target::Missing { links, .. } => links.clone(),
            };
            let refs: Vec<LinkRef> = refs
                .into_iter()
                .filter(|r| sees(&index.note(r.source).path))
                .filter(|r| rel_matches(rel, index.link(*r).rel()))
                .filter(|r| match place {
                    Some((id, wanted)) => index
                        .link(*r)
                        .fragment()
                        .is_some_and(|f| resolve_fragment(index.note(id), f) == wanted),
                    None => true,
                })
                .collect();
            let total = refs.len();
            // Pages of linking notes, each with all its links: a note
            // linking a hundred times does not hide the others.
            let mut sources: Vec<(usize, usize)> = Vec::new();
            for (i, r) in refs.iter().enumerate() {
                match sources.last_mut() {
                    Some((_, end)) if refs[*end - 1].source == r.source => *end = i + 1,
                    _ => sources.push((i, i + 1)),
                }
            }
            let shown = &sources[offset.min(sources.len())..(offset + limit).min(sources.len())];
            let page: Vec<LinkRef> = shown
                .iter()
                .flat_map(|&(start, end)| refs[start..end].iter().copied())
                .collect();
            more |= offset + shown.len() < sources.len();
            let contexts = link_contexts(state, &index, &page);
            out.incoming = Some(
                contexts
                    .into_iter()
                    .zip(&page)
                    .map(|(context, r)| LinkIn {
                        from: NoteRef::of(index.note(r.source)),
                        line: index.link(*r).line + 1,
                        context,
                        rel: index.link(*r).rel().map(str::to_string),
                    })
                    .collect(),
            );
            out.incoming_total = Some(total);
        }
        if direction != LinkDirection::In {
            let links = match &target {
                Target::Note(id) => outgoing_links(state, &index, *id, rel),
                Target::Missing { .. } => Vec::new(),
            };
            let total = links.len();
            let page: Vec<LinkOut> = links.into_iter().skip(offset).take(limit).collect();
            more |= offset + page.len() < total;
            out.outgoing = Some(page);
            out.outgoing_total = Some(total);
        }
        if more {
            out.next_cursor = next_cursor(offset, limit, usize::MAX, &fingerprint);
        }
    }
    if depth > 1 || format == LinksFormat::Graph {
        let walk_direction = match direction {
            LinkDirection::In => Direction::In,
            LinkDirection::Out => Direction::Out,
            LinkDirection::Both => Direction::Both,
        };
        let sees = sees_note(state, &index);
        let graph = walk(&index, start, walk_direction, depth, limit, &sees);
        out.truncated = graph.truncated;
        let shown: Vec<Option<usize>> = {
            let mut next = 0;
            graph
                .nodes
                .iter()
                .map(|(node, d)| {
                    let keep = *d == 0 || node_seen(state, &index, node);
                    keep.then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect()
        };
        let nodes: Vec<GraphNodeOut> = graph
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, (node, d))| {
                let id = shown[i]?;
                let (path, title, exists) = describe(&index, node);
                Some(GraphNodeOut {
                    id,
                    path,
                    title,
                    exists,
                    distance: *d,
                })
            })
            .collect();
        let edges: Vec<GraphEdge> = graph
            .edges
            .iter()
            .filter_map(|&(a, b, n)| {
                Some(GraphEdge {
                    from: shown[a]?,
                    to: shown[b]?,
                    links: n,
                })
            })
            .collect();
        if format == LinksFormat::Graph {
            out.graph = Some(GraphOut { nodes, edges });
        } else {
            out.reached = Some(
                nodes
                    .into_iter()
                    .filter(|n| n.distance > 0)
                    .map(|n| Reached {
                        path: n.path,
                        title: n.title,
                        exists: n.exists,
                        distance: n.distance,
                    })
                    .collect(),
            );
        }
    }
    drop(index);
    let text = match format {
        LinksFormat::Names => render_names(&out, depth),
        _ => render(&out, depth),
    };
    Ok(Reply::new(text, &out))
}

fn node_seen(state: &ToolState, index: &VaultIndex, node: &GraphNode) -> bool {
    let policy = state.policy();
    match node {
        GraphNode::Note(id) => policy.access.sees(&index.note(*id).path),
        GraphNode::Unresolved(_) => true,
    }
}

fn describe(index: &VaultIndex, node: &GraphNode) -> (String, String, bool) {
    match node {
        GraphNode::Note(id) => {
            let n = index.note(*id);
            (n.id().to_string(), n.title.to_string(), true)
        }
        GraphNode::Unresolved(key) => (key.clone(), key.clone(), false),
    }
}

fn outgoing_links(
    state: &ToolState,
    index: &VaultIndex,
    id: weft_vault::NoteId,
    rel: Option<&str>,
) -> Vec<LinkOut> {
    let policy = state.policy();
    let note = index.note(id);
    outgoing(index, id)
        .into_iter()
        .filter_map(|o| {
            let link = &note.links[o.link as usize];
            if !rel_matches(rel, link.rel()) {
                return None;
            }
            let (status, to, title) = match &o.resolution {
                Resolution::Note(t) if *t == id => (
                    "self",
                    Some(note.id().to_string()),
                    Some(note.title.to_string()),
                ),
                Resolution::Note(t) => {
                    let n = index.note(*t);
                    if !policy.access.sees(&n.path) {
                        return None;
                    }
                    ("note", Some(n.id().to_string()), Some(n.title.to_string()))
                }
                Resolution::Ambiguous { chosen, .. } => {
                    let n = index.note(*chosen);
                    (
                        "ambiguous",
                        Some(n.id().to_string()),
                        Some(n.title.to_string()),
                    )
                }
                Resolution::Attachment(path) => ("attachment", Some(path.to_string()), None),
                Resolution::Unresolved => ("unresolved", None, None),
            };
            Some(LinkOut {
                target: link.target().to_string(),
                status: status.to_string(),
                to,
                title,
                fragment: link.fragment().map(str::to_string),
                fragment_found: o.fragment.map(|f| f != FragmentTarget::Missing),
                line: link.line + 1,
                rel: link.rel().map(str::to_string),
                embed: link.embed,
            })
        })
        .collect()
}

/// `format: names`: each linked note once, with its count of links.
fn render_names(out: &GetLinksOut, depth: u32) -> String {
    let n = &out.note;
    let mut text = format!(
        "Links of `{}`{}",
        n.path,
        if n.exists { "" } else { " (not written)" }
    );
    // One line per direction: each note once, with its count of links.
    let line = |label: &str, total: usize, paths: Vec<&str>| -> String {
        let mut runs: Vec<(&str, usize)> = Vec::new();
        for path in paths {
            match runs.iter_mut().find(|(p, _)| *p == path) {
                Some((_, count)) => *count += 1,
                None => runs.push((path, 1)),
            }
        }
        let notes: Vec<String> = runs
            .iter()
            .map(|(path, count)| match count {
                1 => format!("`{path}`"),
                _ => format!("`{path}` ({count})"),
            })
            .collect();
        let notes = if total == 0 {
            "nothing".to_string()
        } else {
            notes.join(", ")
        };
        format!("\n{label} ({}): {notes}", plural(total, "link"))
    };
    if let (Some(incoming), Some(total)) = (&out.incoming, out.incoming_total) {
        let paths = incoming.iter().map(|l| l.from.path.as_str()).collect();
        text.push_str(&line("Linked from", total, paths));
    }
    if let (Some(outgoing), Some(total)) = (&out.outgoing, out.outgoing_total)
        && n.exists
    {
        let paths = outgoing
            .iter()
            .map(|l| l.to.as_deref().unwrap_or(&l.target))
            .collect();
        text.push_str(&line("Links to", total, paths));
    }
    text.push_str(&render_reached(out, depth));
    text.push_str(&render_more(out));
    text
}

/// The notes a walk reached, by distance.
fn render_reached(out: &GetLinksOut, depth: u32) -> String {
    let mut text = String::new();
    if let Some(reached) = &out.reached {
        text.push_str(&format!(
            "\n\nWithin {depth} steps: {}",
            plural(reached.len(), "note")
        ));
        for d in 1..=depth {
            let at: Vec<String> = reached
                .iter()
                .filter(|r| r.distance == d)
                .map(|r| {
                    if r.exists {
                        format!("`{}`", r.path)
                    } else {
                        format!("`{}` (not written)", r.path)
                    }
                })
                .collect();
            if !at.is_empty() {
                text.push_str(&format!(
                    "\n- {}: {}",
                    plural(d as usize, "step"),
                    at.join(", ")
                ));
            }
        }
    }
    text
}

/// How to get the next page, when there is one.
fn render_more(out: &GetLinksOut) -> String {
    match &out.next_cursor {
        Some(next) => {
            format!("\n\nMore on the next page: the same arguments with `cursor: \"{next}\"`.")
        }
        None => String::new(),
    }
}

fn render(out: &GetLinksOut, depth: u32) -> String {
    let n = &out.note;
    let mut text = if n.exists {
        format!("Links of **{}** (`{}`)", escape(&n.title), n.path)
    } else {
        format!("Note `{}` does not exist yet.", n.path)
    };
    if let (Some(incoming), Some(total)) = (&out.incoming, out.incoming_total) {
        let sources: std::collections::BTreeSet<&str> =
            incoming.iter().map(|l| l.from.path.as_str()).collect();
        if total == 0 {
            text.push_str("\n\nNo notes link to it.");
        } else {
            text.push_str(&format!(
                "\n\n{} — {}{}:",
                if n.exists {
                    "Backlinks"
                } else {
                    "However, these notes link to it"
                },
                plural(total, "link"),
                if incoming.len() == total {
                    format!(" from {}", plural(sources.len(), "note"))
                } else {
                    String::new()
                }
            ));
            let mut last = "";
            let mut lines = 0;
            let mut i = 0;
            while i < incoming.len() {
                let l = &incoming[i];
                if l.from.path != last {
                    let links = incoming[i..]
                        .iter()
                        .take_while(|x| x.from.path == l.from.path)
                        .count();
                    text.push_str(&format!(
                        "\n- **{}** (`{}`){}",
                        escape(&l.from.title),
                        l.from.path,
                        if links > 1 {
                            format!(" — {links} links")
                        } else {
                            String::new()
                        }
                    ));
                    last = &l.from.path;
                    lines = 0;
                }
                // A note linking many times: its first lines, then a count.
                if lines == LINES_PER_NOTE {
                    let rest = incoming[i..]
                        .iter()
                        .take_while(|x| x.from.path == l.from.path)
                        .count();
                    let s = if rest == 1 { "" } else { "s" };
                    text.push_str(&format!("\n  - … and {rest} more link{s}"));
                    i += rest;
                    continue;
                }
                lines += 1;
                // Several links on one line: the line once.
                let same = incoming[i..]
                    .iter()
                    .take_while(|x| x.from.path == l.from.path && x.line == l.line)
                    .count();
                let times = if same > 1 {
                    format!(" ({same} links)")
                } else {
                    String::new()
                };
                let rel = l
                    .rel
                    .as_deref()
                    .map(|r| format!(" [{r}]"))
                    .unwrap_or_default();
                text.push_str(&format!("\n  - L{}{times}{rel}: {}", l.line, l.context));
                i += same;
            }
        }
    }
    if let (Some(outgoing), Some(total)) = (&out.outgoing, out.outgoing_total)
        && n.exists
    {
        if total == 0 {
            text.push_str("\n\nNo outgoing links.");
        } else {
            text.push_str(&format!("\n\nOutgoing — {}:", plural(total, "link")));
            for l in outgoing {
                let frag = l
                    .fragment
                    .as_deref()
                    .map(|f| format!("#{f}"))
                    .unwrap_or_default();
                let rel = l
                    .rel
                    .as_deref()
                    .map(|r| format!(" [{r}]"))
                    .unwrap_or_default();
                let mut line = format!("\n- L{}{rel} `{}{frag}` → ", l.line, l.target);
                match l.status.as_str() {
                    "unresolved" => line.push_str("unresolved (no such note yet)"),
                    "attachment" => {
                        line.push_str(&format!("file `{}`", l.to.as_deref().unwrap_or("")))
                    }
                    status => {
                        line.push_str(&format!(
                            "**{}** (`{}`)",
                            escape(l.title.as_deref().unwrap_or("")),
                            l.to.as_deref().unwrap_or("")
                        ));
                        if status == "ambiguous" {
                            line.push_str(", ambiguous (several notes have that name)");
                        }
                        if status == "self" {
                            line.push_str(" (this note)");
                        }
                    }
                }
                if l.fragment_found == Some(false) {
                    line.push_str(&format!(", but `{frag}` is not found there"));
                }
                text.push_str(&line);
            }
        }
    }
    text.push_str(&render_reached(out, depth));
    if let Some(graph) = &out.graph {
        text.push_str(&format!(
            "\n\nGraph, depth {depth}: {}, {}.\nNodes:",
            plural(graph.nodes.len(), "node"),
            plural(graph.edges.len(), "edge")
        ));
        for node in &graph.nodes {
            let missing = if node.exists { "" } else { " (not written)" };
            text.push_str(&format!(
                "\n{}. `{}`{missing} — distance {}",
                node.id, node.path, node.distance
            ));
        }
        if !graph.edges.is_empty() {
            text.push_str("\nEdges (from → to):");
            let mut by_source: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
            for e in &graph.edges {
                let label = if e.links > 1 {
                    format!("{}×{}", e.to, e.links)
                } else {
                    e.to.to_string()
                };
                by_source.entry(e.from).or_default().push(label);
            }
            for (from, to) in by_source {
                text.push_str(&format!("\n- {from} → {}", to.join(", ")));
            }
        }
    }
    if out.truncated {
        text.push_str("\n\n_The walk stopped at `limit` nodes; raise it or lower `depth`._");
    }
    text.push_str(&render_more(out));
    text
}
