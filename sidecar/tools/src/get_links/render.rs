//! `get_links`'s links in words: the structured content, the list (or the
//! names, or the graph) as Markdown, and the error for a heading or block
//! the note does not have.

use std::collections::{BTreeMap, BTreeSet};

use super::answer::{
    GetLinksOut, GraphEdge, GraphNodeOut, GraphOut, LinkIn, LinkOut, LinkedNote, LinksFormat,
    Reached,
};
use super::compute::{Links, Outgoing, Query, To, Walked};
use crate::common::{NoteRef, Target};
use crate::format::{ToolError, escape, plural};
use weft_vault::VaultIndex;
use weft_vault::graph::GraphNode;
use weft_vault::headings::heading_paths;

/// Lines a linking note shows in the text; its other links are counted.
const LINES_PER_NOTE: usize = 3;

/// The note has no heading or block `fragment`: which it has.
pub(super) fn no_place(index: &VaultIndex, id: weft_vault::NoteId, fragment: &str) -> ToolError {
    let note = index.note(id);
    let headings = heading_paths(note, "#");
    ToolError::new(format!(
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
    ))
}

/// The structured answer; `contexts` are the lines around the backlinks
/// on the page, in their order.
pub(super) fn out(
    index: &VaultIndex,
    target: &Target,
    links: Links,
    contexts: Vec<String>,
    query: &Query,
    next_cursor: Option<String>,
) -> GetLinksOut {
    let note = match target {
        Target::Note(id) => {
            let n = index.note(*id);
            LinkedNote {
                path: n.id().to_string(),
                title: n.title.to_string(),
                exists: true,
            }
        }
        Target::Missing { target, .. } => LinkedNote {
            path: target.clone(),
            title: target.clone(),
            exists: false,
        },
    };
    let incoming = links.incoming.map(|incoming| {
        let page = contexts
            .into_iter()
            .zip(&incoming.page)
            .map(|(context, r)| LinkIn {
                from: NoteRef::of(index.note(r.source)),
                line: index.link(*r).line + 1,
                context,
                rel: index.link(*r).rel().map(str::to_string),
            })
            .collect();
        (page, incoming.total)
    });
    let outgoing = links.outgoing.map(|outgoing| {
        let page = outgoing.page.iter().map(|o| link_out(index, o)).collect();
        (page, outgoing.total)
    });
    let (reached, graph, truncated) = match links.walk {
        Some(walk) => {
            let truncated = walk.truncated;
            let (reached, graph) = walked(index, walk, query.format);
            (reached, graph, truncated)
        }
        None => (None, None, false),
    };
    GetLinksOut {
        note,
        direction: query.direction,
        incoming_total: incoming.as_ref().map(|(_, total)| *total),
        incoming: incoming.map(|(page, _)| page),
        outgoing_total: outgoing.as_ref().map(|(_, total)| *total),
        outgoing: outgoing.map(|(page, _)| page),
        reached,
        graph,
        truncated,
        next_cursor,
    }
}

fn link_out(index: &VaultIndex, o: &Outgoing) -> LinkOut {
    let link = index.link(o.link);
    let note = |id| {
        let n = index.note(id);
        (Some(n.id().to_string()), Some(n.title.to_string()))
    };
    let (status, (to, title)) = match &o.to {
        To::Itself => ("self", note(o.link.source)),
        To::Note(id) => ("note", note(*id)),
        To::Ambiguous(id) => ("ambiguous", note(*id)),
        To::Attachment(path) => ("attachment", (Some(path.clone()), None)),
        To::Unresolved => ("unresolved", (None, None)),
    };
    LinkOut {
        target: link.target().to_string(),
        status: status.to_string(),
        to,
        title,
        fragment: link.fragment().map(str::to_string),
        fragment_found: o.fragment_found,
        line: link.line + 1,
        rel: link.rel().map(str::to_string),
        embed: link.embed,
    }
}

/// The walk as the notes reached (a list) or as nodes and edges (a graph).
fn walked(
    index: &VaultIndex,
    walk: Walked,
    format: LinksFormat,
) -> (Option<Vec<Reached>>, Option<GraphOut>) {
    let nodes: Vec<GraphNodeOut> = walk
        .nodes
        .iter()
        .enumerate()
        .map(|(id, (node, distance))| {
            let (path, title, exists) = match node {
                GraphNode::Note(id) => {
                    let n = index.note(*id);
                    (n.id().to_string(), n.title.to_string(), true)
                }
                GraphNode::Unresolved(key) => (key.clone(), key.clone(), false),
            };
            GraphNodeOut {
                id,
                path,
                title,
                exists,
                distance: *distance,
            }
        })
        .collect();
    if format == LinksFormat::Graph {
        let edges = walk
            .edges
            .iter()
            .map(|&(from, to, links)| GraphEdge { from, to, links })
            .collect();
        return (None, Some(GraphOut { nodes, edges }));
    }
    let reached = nodes
        .into_iter()
        .filter(|n| n.distance > 0)
        .map(|n| Reached {
            path: n.path,
            title: n.title,
            exists: n.exists,
            distance: n.distance,
        })
        .collect();
    (Some(reached), None)
}

/// The Markdown of the answer in `format`.
pub(super) fn markdown(out: &GetLinksOut, depth: u32, format: LinksFormat) -> String {
    let mut text = match format {
        LinksFormat::Names => names(out),
        LinksFormat::List | LinksFormat::Graph => list(out),
    };
    text.push_str(&reached(out, depth));
    if format != LinksFormat::Names {
        text.push_str(&graph(out, depth));
        if out.truncated {
            text.push_str("\n\n_The walk stopped at `limit` nodes; raise it or lower `depth`._");
        }
    }
    text.push_str(&more(out));
    text
}

/// `format: names`: each linked note once, with its count of links.
fn names(out: &GetLinksOut) -> String {
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
    text
}

/// The notes a walk reached, by distance.
fn reached(out: &GetLinksOut, depth: u32) -> String {
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
fn more(out: &GetLinksOut) -> String {
    match &out.next_cursor {
        Some(next) => {
            format!("\n\nMore on the next page: the same arguments with `cursor: \"{next}\"`.")
        }
        None => String::new(),
    }
}

/// `format: list` (and the head of a graph): the note, its backlinks with
/// their lines, its outgoing links.
fn list(out: &GetLinksOut) -> String {
    let n = &out.note;
    let mut text = if n.exists {
        format!("Links of **{}** (`{}`)", escape(&n.title), n.path)
    } else {
        format!("Note `{}` does not exist yet.", n.path)
    };
    if let (Some(incoming), Some(total)) = (&out.incoming, out.incoming_total) {
        text.push_str(&backlinks(incoming, total, n.exists));
    }
    if let (Some(outgoing), Some(total)) = (&out.outgoing, out.outgoing_total)
        && n.exists
    {
        if total == 0 {
            text.push_str("\n\nNo outgoing links.");
        } else {
            text.push_str(&format!("\n\nOutgoing — {}:", plural(total, "link")));
            for l in outgoing {
                text.push_str(&outgoing_line(l));
            }
        }
    }
    text
}

/// The backlinks by linking note: a few lines of each, a line once however
/// many links it holds.
fn backlinks(incoming: &[LinkIn], total: usize, exists: bool) -> String {
    if total == 0 {
        return "\n\nNo notes link to it.".to_string();
    }
    let sources: BTreeSet<&str> = incoming.iter().map(|l| l.from.path.as_str()).collect();
    let mut text = format!(
        "\n\n{} — {}{}:",
        if exists {
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
    );
    let mut last = "";
    let mut lines = 0;
    let mut i = 0;
    while i < incoming.len() {
        let l = &incoming[i];
        let of_note = incoming[i..]
            .iter()
            .take_while(|x| x.from.path == l.from.path)
            .count();
        if l.from.path != last {
            text.push_str(&format!(
                "\n- **{}** (`{}`){}",
                escape(&l.from.title),
                l.from.path,
                if of_note > 1 {
                    format!(" — {of_note} links")
                } else {
                    String::new()
                }
            ));
            last = &l.from.path;
            lines = 0;
        }
        // A note linking many times: its first lines, then a count.
        if lines == LINES_PER_NOTE {
            let s = if of_note == 1 { "" } else { "s" };
            text.push_str(&format!("\n  - … and {of_note} more link{s}"));
            i += of_note;
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
    text
}

/// One outgoing link: where it is, as written, and where it leads.
fn outgoing_line(l: &LinkOut) -> String {
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
        "attachment" => line.push_str(&format!("file `{}`", l.to.as_deref().unwrap_or(""))),
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
    line
}

/// The nodes and edges of a graph, edges grouped by their source.
fn graph(out: &GetLinksOut, depth: u32) -> String {
    let Some(graph) = &out.graph else {
        return String::new();
    };
    let mut text = format!(
        "\n\nGraph, depth {depth}: {}, {}.\nNodes:",
        plural(graph.nodes.len(), "node"),
        plural(graph.edges.len(), "edge")
    );
    for node in &graph.nodes {
        let missing = if node.exists { "" } else { " (not written)" };
        text.push_str(&format!(
            "\n{}. `{}`{missing} — distance {}",
            node.id, node.path, node.distance
        ));
    }
    if !graph.edges.is_empty() {
        text.push_str("\nEdges (from → to):");
        let mut by_source: BTreeMap<usize, Vec<String>> = Default::default();
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
    text
}
