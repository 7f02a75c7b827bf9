//! `list_tags`: tags with note counts and hierarchical roll-up (`a` counts
//! the notes of `a/b`), or frontmatter keys, one key's values, or
//! typed-link keys (`facet`); prefix filter, sort, paging.
//!
//! An adapter over the vault index (no full text needed): arguments here,
//! the counts as data in `compute`, their words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{Facet, Item, ListTagsOut, TagSort};
pub use compute::{Listed, Query, Tally, compute};

use super::args::lenient;
use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use weft_vault::key::name_key;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTagsArgs {
    #[serde(default, alias = "tag", alias = "query")]
    pub prefix: Option<String>,
    #[serde(default)]
    pub facet: Option<Facet>,
    /// For facet values.
    #[serde(default, alias = "field")]
    pub key: Option<String>,
    #[serde(default, alias = "order_by")]
    pub sort: Option<TagSort>,
    /// Default 100.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

pub fn run(state: &ToolState, args: ListTagsArgs) -> ToolResult {
    let facet = args.facet.unwrap_or(Facet::Tags);
    let sort = args.sort.unwrap_or(TagSort::Count);
    let prefix = args
        .prefix
        .as_deref()
        .map(|p| name_key(p.trim().trim_start_matches('#')))
        .unwrap_or_default();
    let key = args
        .key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    if facet == Facet::Values && key.is_none() {
        return Err(ToolError::new(
            "facet `values` needs `key`: the frontmatter key whose values to list.",
        )
        .hint("facet `keys` lists the keys in use."));
    }
    let fingerprint = (facet, sort, &prefix, &key);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let query = Query {
        facet,
        sort,
        prefix: prefix.clone(),
        key: key.clone(),
        offset,
        limit: limit(args.limit, 100, 1000),
    };
    let policy = state.policy();
    let listed = compute(&state.index(), &policy.access, &query);
    let next = next_cursor(offset, listed.page.len(), listed.total, &fingerprint);
    let out = render::out(listed, &query, next);
    Ok(Reply::new(render::markdown(&out, offset), &out))
}
