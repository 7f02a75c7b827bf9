//! `query_notes`: Obsidian Bases on the vault index, for the agent — a
//! base run by path (a `.base` file, or a note's ```` ```base ```` block)
//! and view, or a query written as a Bases filter expression with the
//! columns, sort, group and limit it wants. A page of the table in
//! Markdown, and its rows as data.
//!
//! An adapter over `weft_bases` (the engine): arguments here, the table
//! as data in `compute`, its words in `render`.

mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use compute::{Asked, Source, compute};
pub use render::{GroupOut, QueryNotesOut, out as render_out};

use super::args::lenient;
use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryNotesArgs {
    #[serde(default, alias = "path", alias = "file")]
    pub base: Option<String>,
    /// From 1.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub block: Option<usize>,
    #[serde(default)]
    pub view: Option<String>,
    #[serde(default, alias = "expression")]
    pub filter: Option<String>,
    #[serde(default, alias = "order", deserialize_with = "lenient::strings")]
    pub columns: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub sort: Option<Vec<String>>,
    #[serde(default, alias = "groupBy")]
    pub group_by: Option<String>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

pub fn run(state: &ToolState, args: QueryNotesArgs) -> ToolResult {
    let base = args
        .base
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty());
    let source = match base {
        Some(path) => {
            if args.filter.is_some() || args.columns.is_some() || args.sort.is_some() {
                return Err(ToolError::new(
                    "`base` runs the base's own view: `filter`, `columns` and `sort` are for a query without a base.",
                )
                .hint("Pick the view with `view`, or leave `base` out and write the query."));
            }
            Source::Base {
                path: path.to_string(),
                block: args.block,
                view: args.view.clone(),
            }
        }
        None => Source::Query {
            filter: args.filter.clone(),
            columns: args.columns.clone().unwrap_or_default(),
            sort: args.sort.clone().unwrap_or_default(),
            group_by: args.group_by.clone(),
        },
    };
    let page = limit(args.limit, 50, 500);
    let fingerprint = (&source, page);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let asked = compute(state, &source, offset, page)?;
    let next = next_cursor(offset, asked.shown, asked.table.total, &fingerprint);
    let out = render::out(&asked, next);
    Ok(Reply::new(render::markdown(&asked, &out), &out))
}
