//! The notes a search finds, as data: by words (the full-text index), by
//! names (before it is built, or in mode `name`), by meaning
//! (`retrieval`). A page of note ids with their scores, snippets and why
//! they matched; no words for the model.

use crate::format::ToolError;
use crate::retrieval::{Matching, ask, find_error, how, meaning_passage};
use crate::scope::{Scope, Times, passes};
use crate::state::ToolState;
use weft_search::find::{Request, Sort};
use weft_search::names::match_names;
use weft_search::{FileSource, SearchIndex};
use weft_vault::filter::Filter;
use weft_vault::key::path_key;
use weft_vault::{NoteId, VaultIndex};

/// The longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 160;

/// A page of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Matching notes in all.
    pub total: usize,
    pub hits: Vec<Hit>,
    /// Remarks on how the search ran (a fallback, indexing).
    pub remarks: Vec<String>,
}

/// A note found.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub note: NoteId,
    /// Rounded to two decimals.
    pub score: f32,
    /// The passage matched, the match marked.
    pub snippet: Option<String>,
    /// For name and meaning matches: how it matched.
    pub why: Option<String>,
}

/// Two decimals, computed in the score's own precision.
fn rounded(score: f64) -> f32 {
    ((score * 100.0).round() / 100.0) as f32
}

fn rounded32(score: f32) -> f32 {
    (score * 100.0).round() / 100.0
}

/// By words: the full-text index answers `request` (its query language,
/// the filter, the sort, the page).
pub fn by_words(
    search: &SearchIndex,
    files: &dyn FileSource,
    index: &VaultIndex,
    request: &Request<'_>,
) -> Result<Found, ToolError> {
    let page = search.find(request, files).map_err(find_error)?;
    let hits = page
        .hits
        .into_iter()
        .filter_map(|hit| {
            Some(Hit {
                note: index.id_of(&hit.path)?,
                score: rounded32(hit.score),
                snippet: hit.snippet,
                why: None,
            })
        })
        .collect();
    Ok(Found {
        total: page.total,
        hits,
        remarks: Vec::new(),
    })
}

/// By names (titles, aliases, paths) of the notes passing `filter`, or
/// every such note without a query; `fallback` when it stands in for the
/// full text not built yet (it says so).
#[allow(clippy::too_many_arguments)]
pub fn by_names(
    index: &VaultIndex,
    times: &dyn Times,
    query: Option<&str>,
    filter: &Filter,
    sort: Sort,
    offset: usize,
    limit: usize,
    fallback: bool,
) -> Found {
    let mut remarks = Vec::new();
    if fallback {
        remarks.push(
            "Searched note names only (titles, aliases, paths) until the full-text index is built."
                .into(),
        );
    }
    let mut found: Vec<(f64, NoteId, Option<String>)> = match query {
        Some(q) => match_names(index, q, usize::MAX)
            .into_iter()
            .filter(|m| passes(times, index, m.note, filter))
            .map(|m| (m.score, m.note, Some(m.why)))
            .collect(),
        None => index
            .notes()
            .filter(|(id, _)| passes(times, index, *id, filter))
            .map(|(id, _)| (0.0, id, None))
            .collect(),
    };
    let path = |id: NoteId| &index.note(id).path;
    match sort {
        Sort::Relevance if query.is_some() => {}
        Sort::Alpha | Sort::Relevance => found.sort_by_key(|a| path_key(path(a.1))),
        Sort::Modified | Sort::Created => {
            let pick = |id: NoteId| match sort {
                Sort::Modified => times.modified(path(id)),
                _ => times.created(path(id)),
            };
            found.sort_by(|a, b| {
                pick(b.1)
                    .cmp(&pick(a.1))
                    .then_with(|| path(a.1).cmp(path(b.1)))
            });
        }
    }
    let total = found.len();
    let hits = found
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(score, note, why)| Hit {
            note,
            score: rounded(score),
            snippet: None,
            why,
        })
        .collect();
    Found {
        total,
        hits,
        remarks,
    }
}

/// By meaning, or by words and meaning (`retrieval`): the page, each note
/// with the passage closest in meaning.
pub fn by_meaning(
    state: &ToolState,
    index: &VaultIndex,
    query: &str,
    matching: Matching,
    scope: &Scope,
    offset: usize,
    limit: usize,
) -> Result<Found, ToolError> {
    // One more than the page, to know whether another follows.
    let answer = ask(
        state,
        index,
        query,
        Some(matching),
        offset + limit + 1,
        scope,
    )?;
    let hits = answer
        .found
        .iter()
        .skip(offset)
        .take(limit)
        .map(|found| {
            let note = index.note(found.note);
            let snippet = found.semantic.as_ref().and_then(|(_, close)| {
                let bytes = state.read_bytes(&note.path)?;
                let text = String::from_utf8_lossy(&bytes);
                meaning_passage(note, &text, close, SNIPPET_CHARS).map(|p| p.2)
            });
            Hit {
                note: found.note,
                score: rounded32(found.score),
                snippet,
                why: Some(how(found).to_string()),
            }
        })
        .collect();
    Ok(Found {
        total: answer.found.len(),
        hits,
        remarks: answer.remarks,
    })
}
