//! A question answered by words, meaning or both (`weft_semantic::retrieve`)
//! for `get_context` and `search_notes`: the mode asked for, what is ready
//! (no model configured: by words, as without this; a model loading or
//! broken: by words, saying so), and each note's passage found by meaning.

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
    let (filter, question) = match search.map(|s| s.parse_query(text, state.now(), &scope.keys)) {
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
            (Filter::all_of(all), question.words.join(" "))
        }
        Some(Err(e)) if e.nothing_to_search => {
            return Err(ToolError::new(e.message).hint(e.hint));
        }
        Some(Err(e)) => {
            remarks.push(format!("Read as plain words: {}", e.message));
            (scope.filter.clone(), text.to_string())
        }
        None => (scope.filter.clone(), text.to_string()),
    };
    let judge = judge(state, index);
    if question.trim().is_empty() {
        // Only filters: the notes they select, newest first.
        let Some(search) = search else {
            return Ok(Answer {
                found: Vec::new(),
                mode: Mode::Lexical,
                remarks,
                words: question,
            });
        };
        let page = search
            .find(
                &Request {
                    query: None,
                    filter: &filter,
                    judge: &judge,
                    keys: &scope.keys,
                    sort: Sort::Modified,
                    offset: 0,
                    limit: k,
                    snippet_chars: 0,
                    now: state.now(),
                },
                &state.files,
            )
            .map_err(find_error)?;
        let found = page
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
            .collect();
        return Ok(Answer {
            found,
            mode: Mode::Lexical,
            remarks,
            words: question,
        });
    }
    let semantic = state.hub().semantic();
    let mut mode = asked.unwrap_or(Matching::Hybrid).mode();
    if mode != Mode::Lexical && semantic.is_none() {
        let (why, configured) = meaning_unavailable(state).unwrap_or_default();
        if asked == Some(Matching::Semantic) {
            return Err(ToolError::new(why)
                .hint("Use `mode: \"lexical\"` (by words) until it is available."));
        }
        if configured || asked == Some(Matching::Hybrid) {
            remarks.push(why);
        }
        mode = Mode::Lexical;
    }
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

fn find_error(e: FindError) -> ToolError {
    match e {
        FindError::Query(q) => ToolError::new(q.message).hint(q.hint),
        FindError::Internal(e) => ToolError::new(e.to_string()),
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
