//! `get_context`: evidence for a question — the best notes for `query`
//! (the search filters apply), found by words and, with a model, by
//! meaning (`retrieval`), each with the passage found by meaning and its
//! best-matching passages stitched with neighbouring paragraphs, within a
//! character budget; optionally the link neighbourhood of a note
//! (`around`, `depth`).
//!
//! Arguments here; the notes and passages gathered, as data, in `compute`
//! (over `retrieval`, `search` and `vault::graph::walk`); the Markdown in
//! `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{AppliedFilters, Evidence, GetContextOut, PassageOut};
pub use compute::{Asked, Gathered, Picked, Wanted, around, by_names, by_question, gather};

use super::args::lenient;
use super::common::{Target, find_target, limit};
use super::format::{Reply, ToolError, ToolResult};
use super::retrieval::Matching;
use super::scope::{filter_args, scope, sees_note};
use super::state::ToolState;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetContextArgs {
    #[serde(default, alias = "q", alias = "question", alias = "topic")]
    pub query: Option<String>,
    #[serde(default, alias = "matching")]
    pub mode: Option<Matching>,
    // The filters are search_notes' (their docs there: each doc comment
    // here would be in the schema every agent reads).
    #[serde(default, alias = "tags", deserialize_with = "lenient::strings")]
    pub tags_all: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags_any: Option<Vec<String>>,
    #[serde(default, alias = "folder")]
    pub path_prefix: Option<String>,
    #[serde(default, alias = "links_to")]
    pub backlinks_to: Option<String>,
    #[serde(default, alias = "linked_from")]
    pub links_from: Option<String>,
    #[serde(default, alias = "properties")]
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default, alias = "since")]
    pub modified_since: Option<String>,
    #[serde(default, alias = "note", alias = "path")]
    pub around: Option<String>,
    /// Default 1, max 3.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Default 5.
    #[serde(default, alias = "limit", deserialize_with = "lenient::usize")]
    pub top_k: Option<usize>,
    /// Default 6000.
    #[serde(
        default,
        alias = "budget",
        alias = "max_evidence_chars",
        deserialize_with = "lenient::usize"
    )]
    pub max_chars: Option<usize>,
    /// Paragraphs around a hit. Default 1.
    #[serde(
        default,
        alias = "neighbor_window",
        deserialize_with = "lenient::usize"
    )]
    pub window: Option<usize>,
}

fn trimmed(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string)
}

pub fn run(state: &ToolState, args: GetContextArgs) -> ToolResult {
    let query = trimmed(args.query.as_deref());
    let around_name = trimmed(args.around.as_deref());
    if query.is_none() && around_name.is_none() {
        return Err(ToolError::new(
            "get_context needs `query` (the question) or `around` (a note).",
        )
        .hint("Example: {\"query\": \"why did we pick tantivy\", \"top_k\": 5}."));
    }
    let top_k = limit(args.top_k, 5, 20);
    let depth = args.depth.unwrap_or(1).min(3);
    let tags_all = args.tags_all.clone().unwrap_or_default();
    let tags_any = args.tags_any.clone().unwrap_or_default();
    let index = state.index();
    let scope = scope(state, &index, &filter_args!(args, &tags_all, &tags_any))?;
    let mut asked = Asked {
        num_docs: index.len() as u64,
        ..Asked::default()
    };
    if let Some(q) = &query {
        asked = by_question(state, &index, q, args.mode, top_k, &scope)?;
        if asked.picked.is_empty() {
            asked
                .remarks
                .push(format!("No note matches `{q}` with these filters."));
        }
    }
    if let Some(name) = &around_name {
        let Target::Note(center) = find_target(state, &index, name, "around")? else {
            return Err(ToolError::new(format!(
                "`around`: no note `{name}` exists yet."
            )));
        };
        let sees = sees_note(&state.policy().access, &index);
        around(
            &index,
            state,
            &sees,
            center,
            depth,
            top_k,
            &scope.filter,
            &mut asked.picked,
        );
    }
    let wanted = Wanted {
        budget: args.max_chars.unwrap_or(6_000).clamp(200, 40_000),
        window: args.window.unwrap_or(1).min(3),
        terms: &asked.terms,
        num_docs: asked.num_docs,
    };
    let gathered = gather(
        &index,
        &|path| state.read_bytes(path),
        asked.picked,
        &wanted,
    );
    drop(index);
    let out = GetContextOut {
        query,
        applied_filters: AppliedFilters {
            tags_all,
            tags_any,
            path_prefix: args.path_prefix.clone().filter(|p| !p.trim().is_empty()),
            around: around_name,
            depth: if args.around.is_some() { depth } else { 0 },
        },
        notes: gathered.notes,
        chars: gathered.used,
        truncated: gathered.truncated,
        remarks: asked.remarks,
    };
    Ok(Reply::new(render::markdown(&out), &out))
}
