//! `get_links`: the link structure around a note, no bodies — backlinks
//! with line numbers and context (also for a note that does not exist
//! yet), outgoing links with what they resolve to, typed links (`rel`),
//! bounded walks (`depth`) and a nodes-and-edges graph.
//!
//! An adapter over `vault::query` and `vault::graph::walk`: arguments
//! here, the links as data in `compute`, their words in `render`; the
//! lines around the backlinks are read from the files here, between the
//! two.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{
    GetLinksOut, GraphEdge, GraphNodeOut, GraphOut, LinkDirection, LinkIn, LinkOut, LinkedNote,
    LinksFormat, Reached,
};
pub use compute::{Links, Outgoing, Paged, Query, To, Walked, compute, place};

use super::args::lenient;
use super::common::{Target, cursor_offset, find_target, limit, link_contexts, next_cursor};
use super::format::{Reply, ToolResult};
use super::state::ToolState;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetLinksArgs {
    /// Path, title or alias (+#Heading or #^block); may not exist yet.
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

pub fn run(state: &ToolState, args: GetLinksArgs) -> ToolResult {
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
    let policy = state.policy();
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
        (Target::Note(id), Some(fragment)) => Some(
            place(&index, *id, fragment).ok_or_else(|| render::no_place(&index, *id, fragment))?,
        ),
        _ => None,
    };
    let query = Query {
        direction,
        format,
        depth,
        rel: rel.map(str::to_string),
        place,
        offset,
        limit,
    };
    let links = compute(&index, &policy.access, &target, &query);
    // The lines around the backlinks shown, from their files.
    let contexts = match &links.incoming {
        Some(incoming) => link_contexts(state, &index, &incoming.page),
        None => Vec::new(),
    };
    let next = match links.more {
        true => next_cursor(offset, limit, usize::MAX, &fingerprint),
        false => None,
    };
    let out = render::out(&index, &target, links, contexts, &query, next);
    drop(index);
    Ok(Reply::new(render::markdown(&out, depth, format), &out))
}
