//! A question answered by words, meaning or both (`weft_semantic::retrieve`)
//! for `get_context` and `search_notes`: the mode asked for, what is ready
//! (no model configured: by words, as without this; a model loading or
//! broken: by words, saying so), and each note's passage found by meaning.

use weft_search::Filters;
use weft_search::find::FindError;
use weft_semantic::{Close, Found, Mode, Question, retrieve};
use weft_vault::headings::heading_path;
use weft_vault::lines::line_of;
use weft_vault::{Note, VaultIndex};
use weft_workspace::hub::SemanticStatus;

use super::args::choice;
use super::format::ToolError;
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

/// Finds the `k` best notes for `text` among those `filters` pass (the
/// full text applies them itself; `keep` tells for the rest).
pub fn ask(
    state: &ToolState,
    index: &VaultIndex,
    text: &str,
    asked: Option<Matching>,
    k: usize,
    filters: &Filters,
    keep: &dyn Fn(&Note) -> bool,
) -> Result<Answer, ToolError> {
    let mut remarks = Vec::new();
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
        text,
        mode,
        k,
        index,
        search: state.search().map(|s| &**s),
        semantic: semantic.as_deref(),
        filters,
        keep,
        files: &state.files,
        now: state.now(),
    })
    .map_err(|e| match e {
        FindError::Query(q) => ToolError::new(q.message).hint(q.hint),
        FindError::Internal(e) => ToolError::new(e.to_string()),
    })?;
    Ok(Answer {
        found,
        mode,
        remarks,
    })
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
