//! `resolve_note`: what a title, alias, `[[link]]` target, path or partial
//! name points to — the resolver's answer first, then ranked candidates,
//! each with why it matched.
//!
//! An adapter over `vault::query::lookup` and `search::names`: arguments
//! here, what the name means as data in `compute`, its words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{Candidate, ResolveNoteOut};
pub use compute::{Resolved, compute};

use super::args::lenient;
use super::common::{check_name, limit};
use super::format::{Reply, ToolResult};
use super::state::ToolState;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveNoteArgs {
    #[serde(
        alias = "name",
        alias = "path",
        alias = "note",
        alias = "target",
        alias = "title"
    )]
    pub query: String,
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
}

pub fn run(state: &ToolState, args: ResolveNoteArgs) -> ToolResult {
    let policy = state.policy();
    let query = check_name(&args.query, "query")?;
    let limit = limit(args.limit, 10, 50);
    let index = state.index();
    let resolved = compute(&index, &policy.access, &query, limit);
    let out = render::out(&index, &query, resolved);
    drop(index);
    Ok(Reply::new(render::markdown(&out), &out))
}
