//! `search_notes`: full-text search (BM25) with the query language of
//! `search::query`, structured filters, name and tag modes, snippets with
//! the match marked, sorting and cursors.
//!
//! Arguments here: with the access rule they become THE note filter
//! (`vault::filter`, [`scope`]) and a request; the link filters
//! (`backlinks_to`, `links_from`) become path sets. The notes found, as
//! data, in `compute` (by words; by names before the full-text index is
//! built; by meaning); their words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use answer::Asked;
pub use answer::{Mode, SearchHit, SearchNotesOut, SearchSort};
pub use compute::{Found, Hit, SNIPPET_CHARS, by_meaning, by_names, by_words};

use super::args::lenient;
use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::retrieval::Matching;
use super::scope::{filter_args, judge, scope};
use super::state::ToolState;
use weft_search::find::{Request, Sort};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchNotesArgs {
    #[serde(default, alias = "q", alias = "text", alias = "search")]
    pub query: Option<String>,
    #[serde(default)]
    pub mode: Option<Mode>,
    /// All of these.
    #[serde(default, alias = "tags", deserialize_with = "lenient::strings")]
    pub tags_all: Option<Vec<String>>,
    /// Any of these.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags_any: Option<Vec<String>>,
    /// Folder.
    #[serde(default, alias = "folder", alias = "path", alias = "prefix")]
    pub path_prefix: Option<String>,
    /// Linking here.
    #[serde(default, alias = "links_to")]
    pub backlinks_to: Option<String>,
    /// Linked from here.
    #[serde(default, alias = "linked_from")]
    pub links_from: Option<String>,
    /// {key: value}; * = has key.
    #[serde(default, alias = "properties")]
    pub frontmatter: Option<serde_json::Map<String, Value>>,
    /// Date or 7d.
    #[serde(default, alias = "since")]
    pub modified_since: Option<String>,
    #[serde(default, alias = "order_by")]
    pub sort: Option<SearchSort>,
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// What a search asks, read from its arguments: the text query (none in
/// mode `tag`, whose query names tags) and the tags.
struct Plan {
    mode: Mode,
    query: Option<String>,
    text_query: Option<String>,
    tags_all: Vec<String>,
    tags_any: Vec<String>,
}

fn plan(args: &SearchNotesArgs) -> Result<Plan, ToolError> {
    let mode = args.mode.unwrap_or(Mode::Fulltext);
    let query = args
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    let mut plan = Plan {
        mode,
        text_query: query.clone(),
        query,
        tags_all: args.tags_all.clone().unwrap_or_default(),
        tags_any: args.tags_any.clone().unwrap_or_default(),
    };
    if mode == Mode::Tag {
        let Some(q) = &plan.query else {
            return Err(ToolError::new(
                "mode `tag` needs `query`: the tags to look for, like \"vc, project\".",
            )
            .hint("Separate tags with commas or spaces; write `a AND b` for notes with both."));
        };
        let tags = q
            .split([',', ' '])
            .map(|t| t.trim().trim_start_matches('#'))
            .filter(|t| !t.is_empty() && *t != "AND" && *t != "OR")
            .map(str::to_string);
        match q.contains(" AND ") {
            true => plan.tags_all.extend(tags),
            false => plan.tags_any.extend(tags),
        }
        plan.text_query = None;
    }
    Ok(plan)
}

/// The modes that need a query say so.
fn check_query(mode: Mode, query: Option<&str>) -> Result<(), ToolError> {
    if matches!(mode, Mode::Semantic | Mode::Hybrid) && query.is_none() {
        return Err(ToolError::new(format!(
            "mode `{}` needs `query`: the question or the idea to look for.",
            mode.as_str()
        )));
    }
    if mode == Mode::Name && query.is_none() {
        return Err(ToolError::new(
            "mode `name` needs `query`: part of a title, alias or path.",
        ));
    }
    Ok(())
}

pub fn run(state: &ToolState, args: SearchNotesArgs) -> ToolResult {
    let Plan {
        mode,
        query,
        text_query,
        tags_all,
        tags_any,
    } = plan(&args)?;
    let filter_args = filter_args!(args, &tags_all, &tags_any);
    if query.is_none() && !filter_args.any() {
        return Err(ToolError::new("search_notes needs at least one criterion.").hint(
            "Pass `query`, or a filter: tags_all, tags_any, path_prefix, backlinks_to, links_from, frontmatter, modified_since. list_notes browses without criteria.",
        ));
    }
    check_query(mode, query.as_deref())?;
    let limit = limit(args.limit, 10, 100);
    let index = state.index();
    let scope = scope(state, &index, &filter_args)?;
    let sort = match args.sort.unwrap_or(SearchSort::Relevance) {
        SearchSort::Relevance => Sort::Relevance,
        SearchSort::Modified => Sort::Modified,
        SearchSort::Created => Sort::Created,
        SearchSort::Alpha => Sort::Alpha,
    };
    let filter_key = format!("{:?}", scope.filter);
    let fingerprint = (&text_query, mode, &filter_key, sort, &args.query);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let search = state.search().cloned().filter(|_| mode != Mode::Name);
    let found = match (mode, &text_query, search) {
        (Mode::Semantic | Mode::Hybrid, Some(q), _) => {
            let matching = match mode {
                Mode::Semantic => Matching::Semantic,
                _ => Matching::Hybrid,
            };
            by_meaning(state, &index, q, matching, &scope, offset, limit)?
        }
        (_, _, Some(search)) => {
            let judge = judge(state, &index);
            let request = Request {
                query: text_query.as_deref(),
                filter: &scope.filter,
                judge: &judge,
                keys: &scope.keys,
                types: &scope.types,
                sort,
                offset,
                limit,
                snippet_chars: SNIPPET_CHARS,
                now: state.now(),
            };
            by_words(&search, &state.files, &index, &request)?
        }
        _ => by_names(
            &index,
            state,
            text_query.as_deref(),
            &scope.filter,
            sort,
            offset,
            limit,
            mode != Mode::Name,
        ),
    };
    let asked = Asked {
        next_cursor: next_cursor(offset, found.hits.len(), found.total, &fingerprint),
        query,
        mode,
        offset,
    };
    let out = render::out(&index, state, state.zone(), found, asked);
    drop(index);
    let filtered = args.backlinks_to.is_some()
        || args.links_from.is_some()
        || args.tags_all.is_some()
        || args.path_prefix.is_some();
    Ok(Reply::new(render::markdown(&out, filtered), &out))
}
