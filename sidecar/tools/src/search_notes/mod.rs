//! `search_notes`: full-text search (BM25) with the query language of
//! `search::query`, structured filters, name and tag modes, snippets with
//! the match marked, sorting and cursors.
//!
//! An adapter: arguments and the access rule become THE note filter
//! (`vault::filter`, [`scope`]) and a request; the link filters
//! (`backlinks_to`, `links_from`) become path sets. Before the full-text index is built, names are searched instead.

use std::hash::Hash;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::{choice, lenient};
use super::common::{cursor_offset, limit, next_cursor, page_line, tags_of, tags_text, time_text};
use super::format::{Reply, ToolError, ToolResult, escape};
use super::retrieval::{Matching, ask, how, meaning_passage};
use super::scope::{filter_args, judge, passes, scope};
use super::state::ToolState;
use weft_search::find::{FindError, Request, Sort};
use weft_search::names::match_names;
use weft_vault::Note;
use weft_vault::key::path_key;

choice! {
    pub enum Mode {
        Fulltext = "fulltext" | "content" | "text" | "full_text" | "lexical" | "words" | "bm25",
        Name = "name" | "name_partial" | "title" | "path",
        Tag = "tag" | "tags",
        Semantic = "semantic" | "meaning" | "vector",
        Hybrid = "hybrid" | "both",
    }
}

choice! {
    pub enum SearchSort {
        Relevance = "relevance" | "score" | "best",
        Modified = "modified" | "updated" | "recent",
        Created = "created",
        Alpha = "alpha" | "name" | "path" | "title",
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchNotesArgs {
    #[serde(default, alias = "q", alias = "text", alias = "search")]
    pub query: Option<String>,
    #[serde(default)]
    pub mode: Option<Mode>,
    /// All of these tags.
    #[serde(default, alias = "tags", deserialize_with = "lenient::strings")]
    pub tags_all: Option<Vec<String>>,
    /// Any of these tags.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags_any: Option<Vec<String>>,
    /// Folder.
    #[serde(default, alias = "folder", alias = "path", alias = "prefix")]
    pub path_prefix: Option<String>,
    /// Notes linking to this note.
    #[serde(default, alias = "links_to")]
    pub backlinks_to: Option<String>,
    /// Notes this note links to.
    #[serde(default, alias = "linked_from")]
    pub links_from: Option<String>,
    /// {"key": value}; "*" = has key.
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

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchNotesOut {
    pub query: Option<String>,
    pub mode: Mode,
    /// Matching notes in all.
    pub total: usize,
    pub offset: usize,
    pub hits: Vec<SearchHit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Remarks on how the search ran (a fallback, indexing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// For name matches: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

const SNIPPET_CHARS: usize = 160;

pub fn run(state: &ToolState, args: SearchNotesArgs) -> ToolResult {
    let mode = args.mode.unwrap_or(Mode::Fulltext);
    let query = args
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    let mut tags_any = args.tags_any.clone().unwrap_or_default();
    let mut tags_all = args.tags_all.clone().unwrap_or_default();
    let mut text_query = query.clone();
    if mode == Mode::Tag {
        let Some(q) = &query else {
            return Err(ToolError::new(
                "mode `tag` needs `query`: the tags to look for, like \"vc, project\".",
            )
            .hint("Separate tags with commas or spaces; write `a AND b` for notes with both."));
        };
        let all = q.contains(" AND ");
        let tags: Vec<String> = q
            .split([',', ' '])
            .map(|t| t.trim().trim_start_matches('#'))
            .filter(|t| !t.is_empty() && *t != "AND" && *t != "OR")
            .map(str::to_string)
            .collect();
        if all {
            tags_all.extend(tags);
        } else {
            tags_any.extend(tags);
        }
        text_query = None;
    }
    let filter_args = filter_args!(args, &tags_all, &tags_any);
    let has_filters = filter_args.any();
    if query.is_none() && !has_filters {
        return Err(ToolError::new("search_notes needs at least one criterion.").hint(
            "Pass `query`, or a filter: tags_all, tags_any, path_prefix, backlinks_to, links_from, frontmatter, modified_since. list_notes browses without criteria.",
        ));
    }
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
    let mut notes = Vec::new();
    let mut hits = Vec::new();
    let total;
    let search = state.search().cloned().filter(|_| mode != Mode::Name);
    if let (Mode::Semantic | Mode::Hybrid, Some(q)) = (mode, &text_query) {
        let matching = if mode == Mode::Semantic {
            Matching::Semantic
        } else {
            Matching::Hybrid
        };
        // One more than the page, to know whether another follows.
        let answer = ask(state, &index, q, Some(matching), offset + limit + 1, &scope)?;
        notes.extend(answer.remarks);
        total = answer.found.len();
        for found in answer.found.iter().skip(offset).take(limit) {
            let note = index.note(found.note);
            let snippet = found.semantic.as_ref().and_then(|(_, close)| {
                let bytes = state.read_bytes(&note.path)?;
                let text = String::from_utf8_lossy(&bytes);
                meaning_passage(note, &text, close, SNIPPET_CHARS).map(|p| p.2)
            });
            hits.push(SearchHit {
                path: note.id().to_string(),
                title: note.title.to_string(),
                score: (found.score * 100.0).round() / 100.0,
                snippet,
                tags: tags_of(note),
                modified: time_text(state.modified(&note.path), state.zone()),
                why: Some(how(found).to_string()),
            });
        }
    } else if let Some(search) = search {
        let judge = judge(state, &index);
        let request = Request {
            query: text_query.as_deref(),
            filter: &scope.filter,
            judge: &judge,
            keys: &scope.keys,
            sort,
            offset,
            limit,
            snippet_chars: SNIPPET_CHARS,
            now: state.now(),
        };
        let page = search.find(&request, &state.files).map_err(|e| match e {
            FindError::Query(q) => ToolError::new(q.message).hint(q.hint),
            FindError::Internal(e) => ToolError::new(format!("{e}"))
                .hint("This is a bug in Weft; please report it with the query."),
        })?;
        total = page.total;
        for hit in page.hits {
            let Some(id) = index.id_of(&hit.path) else {
                continue;
            };
            let note = index.note(id);
            hits.push(SearchHit {
                path: note.id().to_string(),
                title: note.title.to_string(),
                score: (hit.score * 100.0).round() / 100.0,
                snippet: hit.snippet,
                tags: tags_of(note),
                modified: time_text(state.modified(&note.path), state.zone()),
                why: None,
            });
        }
    } else {
        if mode != Mode::Name {
            notes.push("Searched note names only (titles, aliases, paths) until the full-text index is built.".into());
        }
        let mut found: Vec<(f64, &Note, Option<String>)> = match &text_query {
            Some(q) => match_names(&index, q, usize::MAX)
                .into_iter()
                .filter(|m| passes(state, &index, m.note, &scope.filter))
                .map(|m| (m.score, index.note(m.note), Some(m.why)))
                .collect(),
            None => index
                .notes()
                .filter(|(id, _)| passes(state, &index, *id, &scope.filter))
                .map(|(_, n)| (0.0, n, None))
                .collect(),
        };
        match sort {
            Sort::Relevance if text_query.is_some() => {}
            Sort::Alpha | Sort::Relevance => found.sort_by_key(|a| path_key(&a.1.path)),
            Sort::Modified | Sort::Created => {
                let pick = |n: &Note| {
                    if sort == Sort::Modified {
                        state.modified(&n.path)
                    } else {
                        state.created(&n.path)
                    }
                };
                found.sort_by(|a, b| {
                    pick(b.1)
                        .cmp(&pick(a.1))
                        .then_with(|| a.1.path.cmp(&b.1.path))
                });
            }
        }
        total = found.len();
        for (score, note, why) in found.into_iter().skip(offset).take(limit) {
            hits.push(SearchHit {
                path: note.id().to_string(),
                title: note.title.to_string(),
                score: ((score * 100.0).round() / 100.0) as f32,
                snippet: None,
                tags: tags_of(note),
                modified: time_text(state.modified(&note.path), state.zone()),
                why,
            });
        }
    }
    drop(index);
    let next = next_cursor(offset, hits.len(), total, &fingerprint);
    let out = SearchNotesOut {
        query,
        mode,
        total,
        offset,
        hits,
        next_cursor: next,
        notes,
    };
    Ok(Reply::new(render(&out, &args), &out))
}

fn render(out: &SearchNotesOut, args: &SearchNotesArgs) -> String {
    let what = match (&out.query, out.mode) {
        (Some(q), Mode::Name) => format!(" named like `{q}`"),
        (Some(q), Mode::Tag) => format!(" tagged `{q}`"),
        (Some(q), Mode::Fulltext) => format!(" for `{q}`"),
        (Some(q), Mode::Semantic) => format!(" close in meaning to `{q}`"),
        (Some(q), Mode::Hybrid) => format!(" by words and meaning for `{q}`"),
        (None, _) => " matching the filters".to_string(),
    };
    let mut text = String::new();
    for n in &out.notes {
        text.push_str(&format!("_{n}_\n\n"));
    }
    if out.total == 0 {
        text.push_str(&format!("No notes found{what}."));
        if args.backlinks_to.is_some()
            || args.links_from.is_some()
            || args.tags_all.is_some()
            || args.path_prefix.is_some()
        {
            text.push_str(" Filters narrow the search; try without some of them.");
        } else if out.mode == Mode::Fulltext {
            text.push_str(" Try fewer or other words, or mode `name` for titles.");
        }
        return text;
    }
    text.push_str(&format!(
        "Found {}{what}",
        crate::format::plural(out.total, "note")
    ));
    if out.hits.len() < out.total {
        text.push_str(&format!(
            " (showing {}–{})",
            out.offset + 1,
            out.offset + out.hits.len()
        ));
    }
    text.push(':');
    for (i, hit) in out.hits.iter().enumerate() {
        let mut line = format!(
            "\n\n{}. **{}** (`{}`)",
            out.offset + i + 1,
            escape(&hit.title),
            hit.path
        );
        if !hit.tags.is_empty() {
            line.push_str(&format!(" {}", tags_text(&hit.tags)));
        }
        if let Some(m) = &hit.modified {
            line.push_str(&format!(" · {}", &m[..10.min(m.len())]));
        }
        if let Some(why) = &hit.why {
            line.push_str(&format!(" — {why}"));
        }
        if let Some(snippet) = &hit.snippet {
            line.push_str(&format!("\n   {snippet}"));
        }
        text.push_str(&line);
    }
    let page = page_line(
        out.offset,
        out.hits.len(),
        out.total,
        out.next_cursor.as_deref(),
    );
    if out.next_cursor.is_some() {
        text.push_str(&format!("\n\n{page}"));
    } else if out.offset > 0 || out.hits.len() < out.total {
        text.push_str("\n\nNo more results.");
    }
    text
}

#[allow(dead_code)]
fn hashable(_: &impl Hash) {}
