//! A question answered by words, meaning or both (`weft_semantic::retrieve`)
//! for `get_context` and `search_notes`: the mode asked for, what is ready
//! (no model configured: by words, as without this; a model loading or
//! broken: by words, saying so), and each note's passage found by meaning.

use weft_search::SearchIndex;
use weft_search::find::{FindError, Request, Sort};
use weft_semantic::{Close, Found, Mode, Question, retrieve};
use weft_vault::filter::Filter;
use weft_vault::headings::heading_path;
use weft_vault::lines::line_of;
use weft_vault::{Note, VaultIndex};
use weft_workspace::hub::SemanticStatus;

use super::args::choice;
use super::format::ToolError;
use super::scope::{Scope, judge};
use super::state::ToolState;

// How a question is matched (no doc comment: it would be in the schema).
choice! {
    pub enum Matching {
        Hybrid = "hybrid" | "auto" | "both",
        Lexical = "lexical" | "words" | "keyword" | "keywords" | "bm25",
        Semantic = "semantic" | "meaning" | "vector" | "embedding",
    }
}

impl Matching {
    fn mode(self) -> Mode {
        match self {
            Matching::Hybrid => Mode::Hybrid,
            Matching::Lexical => Mode::Lexical,
            Matching::Semantic => Mode::Semantic,
        }
    }
}

/// The notes found and how.
pub struct Answer {
    pub found: Vec<Found>,
    /// The mode that ran (hybrid falls back to lexical without a model).
    pub mode: Mode,
    pub remarks: Vec<String>,
    /// The question's words (the query less its filters).
    pub words: String,
}

/// Why finding by meaning is not available now, when it is not, and
/// whether it was ever configured.
pub fn meaning_unavailable(state: &ToolState) -> Option<(String, bool)> {
    match state.hub().semantic_status() {
        SemanticStatus::Ready { .. } => None,
        SemanticStatus::Off => Some((
            "Finding by meaning is off: set `[semantic] model` in .weft.toml to a model folder, \
             or to `sentence-transformers/all-MiniLM-L6-v2` after `weft model fetch \
             sentence-transformers/all-MiniLM-L6-v2` (or with `download = true`), to enable it."
                .into(),
            false,
        )),
        SemanticStatus::Downloading {
            id, done, total, ..
        } => Some((
            format!(
                "The semantic model {id} is being fetched ({} of {} MB): matched by words \
                 until it is loaded.",
                done / 1_000_000,
                total.div_ceil(1_000_000)
            ),
            true,
        )),
        SemanticStatus::Loading { .. } => Some((
            "The semantic index is still being built: matched by words only.".into(),
            true,
        )),
        SemanticStatus::Failed { error, .. } => {
            Some((format!("Finding by meaning is unavailable: {error}"), true))
        }
    }
}

/// Finds the `k` best notes for `text` among those `scope` passes. `text`
/// is read with the query language: its filters at the top level
/// (`tag:work status:active`) join the scope, its words are the question;
/// a question that does not read as a query is taken as plain words, and
/// the answer says so.
pub fn ask(
    state: &ToolState,
    index: &VaultIndex,
    text: &str,
    asked: Option<Matching>,
    k: usize,
    scope: &Scope,
) -> Result<Answer, ToolError> {
    let mut remarks = Vec::new();
    let search = state.search().map(|s| &**s);
    let (filter, question) = read_question(state, search, text, scope, &mut remarks)?;
    let judge = judge(state, index);
    if question.trim().is_empty() {
        // Only filters: the notes they select, newest first.
        let found = match search {
            Some(search) => newest(state, search, index, &filter, &judge, &scope.keys, k)?,
            None => Vec::new(),
        };
        return Ok(Answer {
            found,
            mode: Mode::Lexical,
            remarks,
            words: question,
        });
    }
    let semantic = state.hub().semantic();
    let mode = mode_ready(state, asked, semantic.is_some(), &mut remarks)?;
    let found = retrieve(&Question {
        text: &question,
        mode,
        k,
        index,
        search,
        semantic: semantic.as_deref(),
        filter: &filter,
        judge: &judge,
        keys: &scope.keys,
        files: &state.files,
        now: state.now(),
    })
    .map_err(find_error)?;
    Ok(Answer {
        found,
        mode,
        remarks,
        words: question,
    })
}

/// The question's filter (the scope and the filters it writes) and its
/// words.
fn read_question(
    state: &ToolState,
    search: Option<&SearchIndex>,
    text: &str,
    scope: &Scope,
    remarks: &mut Vec<String>,
) -> Result<(Filter, String), ToolError> {
    match search.map(|s| s.parse_query(text, &scope.context(state.now()))) {
        Some(Ok(expr)) => {
            let question = expr.question();
            if question.not_a_question {
                return Err(ToolError::new(
                    "A question reads words and filters joined by AND; `NOT`, `-` and filters inside `OR` are for search_notes.",
                )
                .hint("Write the filters at the top level, like `tag:work status:active budget`, or use search_notes."));
            }
            let mut all = vec![scope.filter.clone()];
            all.extend(question.filters);
            Ok((Filter::all_of(all), question.words.join(" ")))
        }
        Some(Err(e)) if e.nothing_to_search => Err(ToolError::new(e.message).hint(e.hint)),
        Some(Err(e)) => {
            remarks.push(format!("Read as plain words: {}", e.message));
            Ok((scope.filter.clone(), text.to_string()))
        }
        None => Ok((scope.filter.clone(), text.to_string())),
    }
}

/// The `k` newest notes `filter` selects, ranked in that order.
fn newest(
    state: &ToolState,
    search: &SearchIndex,
    index: &VaultIndex,
    filter: &Filter,
    judge: &dyn Fn(&str, &Filter) -> bool,
    keys: &[String],
    k: usize,
) -> Result<Vec<Found>, ToolError> {
    let request = Request {
        query: None,
        filter,
        judge,
        keys,
        types: index.types(),
        sort: Sort::Modified,
        offset: 0,
        limit: k,
        snippet_chars: 0,
        now: state.now(),
    };
    let page = search.find(&request, &state.files).map_err(find_error)?;
    Ok(page
        .hits
        .iter()
        .filter_map(|hit| index.id_of(&hit.path))
        .enumerate()
        .map(|(rank, note)| Found {
            note,
            score: 1.0 / (1.0 + rank as f32),
            lexical: Some((rank, 0.0)),
            semantic: None,
            linked: None,
        })
        .collect())
}

/// The mode that runs: the one asked for (hybrid by default), or by words
/// when meaning is not ready — an error when meaning alone was asked for,
/// a remark when it was configured or hybrid was asked for.
fn mode_ready(
    state: &ToolState,
    asked: Option<Matching>,
    meaning_ready: bool,
    remarks: &mut Vec<String>,
) -> Result<Mode, ToolError> {
    let mode = asked.unwrap_or(Matching::Hybrid).mode();
    if mode == Mode::Lexical || meaning_ready {
        return Ok(mode);
    }
    let (why, configured) = meaning_unavailable(state).unwrap_or_default();
    if asked == Some(Matching::Semantic) {
        return Err(
            ToolError::new(why).hint("Use `mode: \"lexical\"` (by words) until it is available.")
        );
    }
    if configured || asked == Some(Matching::Hybrid) {
        remarks.push(why);
    }
    Ok(Mode::Lexical)
}

/// A full-text query that failed, as the agent reads it: a query it can
/// fix, or a fault of Weft's.
pub(crate) fn find_error(e: FindError) -> ToolError {
    match e {
        FindError::Query(q) => ToolError::new(q.message).hint(q.hint),
        FindError::Internal(e) => ToolError::new(e.to_string())
            .hint("This is a bug in Weft; please report it with the query."),
    }
}

/// What found a note, in a word or two.
pub fn how(found: &Found) -> &'static str {
    match (found.lexical.is_some(), found.semantic.is_some()) {
        (true, true) => "words+meaning",
        (true, false) => "words",
        (false, true) => "meaning",
        (false, false) => "links",
    }
}

/// The passage `close` found by meaning in `note` (whose text is `text`): its
/// heading path, lines (1-based) and text, at most `max` characters; `None`
/// when the note changed so that its span no longer fits.
pub fn meaning_passage(
    note: &Note,
    text: &str,
    close: &Close,
    max: usize,
) -> Option<(Option<String>, [u32; 2], String)> {
    let (start, end) = (close.chunk.start as usize, close.chunk.end as usize);
    if start >= end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    let body = text[start..end].trim_end();
    let heading = note
        .headings
        .iter()
        .rposition(|h| h.span.start as usize <= start)
        .map(|i| heading_path(note, i, "::"));
    let first = line_of(text, start) as u32 + 1;
    let last = line_of(text, start + body.len().max(1) - 1) as u32 + 1;
    Some((heading, [first, last], super::format::clip(body, max)))
}
