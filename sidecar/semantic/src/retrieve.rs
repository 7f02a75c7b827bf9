//! Finding the notes that answer a question, three ways: by its words
//! (BM25 over any of them), by meaning (the closest passages), or both
//! fused, with link proximity. The one ranking behind `get_context`,
//! `search_notes`' `semantic` and `hybrid` modes and the evaluation.
//!
//! Fusion is a weighted sum of each list's scores brought to 0..=1 (BM25
//! over the best one's, cosines spread over the candidates'): words weigh
//! [`WORDS_WEIGHT`], meaning the rest. It beat reciprocal-rank fusion on the
//! evaluation set (`sidecar/bench/eval`), which lets a noisy list's order
//! outvote a confident one. Link proximity then adds, for each of the
//! first [`LINK_SEEDS`] fused notes, a small share to the notes it links to
//! or is linked from: a note near the best hits is likelier on topic than
//! one that merely shares a word.

use std::collections::HashMap;

use weft_search::find::{FindError, Request, Sort};
use weft_search::{FileSource, Judge, SearchIndex};
use weft_vault::filter::Filter;
use weft_vault::graph::{Direction, GraphNode, walk};
use weft_vault::{NoteId, VaultIndex};

use crate::semantic::SemanticIndex;
use crate::store::Close;

/// How a question is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Its words (BM25).
    Lexical,
    /// Its meaning (the closest passages).
    Semantic,
    /// Both, fused, with link proximity.
    Hybrid,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Lexical => "lexical",
            Mode::Semantic => "semantic",
            Mode::Hybrid => "hybrid",
        }
    }
}

/// The weight of words in the fusion (meaning has the rest).
const WORDS_WEIGHT: f32 = 0.3;
/// How many of the best fused notes lend their neighbours a share.
pub const LINK_SEEDS: usize = 3;
/// A neighbour's share of the note it is linked with.
const LINK_SHARE: f32 = 0.1;
/// Words of a question read at most.
const MAX_WORDS: usize = 32;

/// A question and where to look.
pub struct Question<'a> {
    pub text: &'a str,
    pub mode: Mode,
    /// Notes wanted.
    pub k: usize,
    pub index: &'a VaultIndex,
    pub search: Option<&'a SearchIndex>,
    pub semantic: Option<&'a SemanticIndex>,
    /// Which notes qualify (THE note filter, the access rule included).
    pub filter: &'a Filter,
    /// The vault index's say on what the full text cannot decide.
    pub judge: Judge<'a>,
    /// The frontmatter keys a query may name.
    pub keys: &'a [String],
    pub files: &'a dyn FileSource,
    /// The moment and zone `now` and dates in the question are read at.
    pub now: weft_search::dates::Now,
}

impl Question<'_> {
    /// Whether the note `id` passes the question's filter (THE note
    /// filter: its filters and the agent's sight), asked of the judge for
    /// the notes the full text did not filter itself.
    fn passes(&self, id: NoteId) -> bool {
        (self.judge)(&self.index.note(id).path, self.filter)
    }
}

/// A note found, with what found it.
#[derive(Debug, Clone)]
pub struct Found {
    pub note: NoteId,
    pub score: f32,
    /// Its rank (0-based) and BM25 score by words.
    pub lexical: Option<(usize, f32)>,
    /// Its rank by meaning and its closest passage.
    pub semantic: Option<(usize, Close)>,
    /// The better-ranked note it links with, when that lifted it.
    pub linked: Option<NoteId>,
}

/// The notes for `q`, best first. A mode whose index is missing (no full
/// text yet, no model) contributes nothing: the caller says so.
pub fn retrieve(q: &Question<'_>) -> Result<Vec<Found>, FindError> {
    let depth = (q.k * 4).max(30);
    let mut lexical: Vec<(NoteId, f32)> = Vec::new();
    if q.mode != Mode::Semantic
        && let (Some(search), Some(words)) = (q.search, any_words(q.text))
    {
        let page = search.find(
            &Request {
                query: Some(&words),
                filter: q.filter,
                judge: q.judge,
                keys: q.keys,
                types: q.index.types(),
                sort: Sort::Relevance,
                offset: 0,
                limit: depth,
                snippet_chars: 0,
                now: q.now,
            },
            q.files,
        )?;
        lexical = page
            .hits
            .into_iter()
            .filter_map(|h| Some((q.index.id_of(&h.path)?, h.score)))
            .filter(|(id, _)| q.passes(*id))
            .collect();
    }
    let mut semantic: Vec<(NoteId, Close)> = Vec::new();
    if q.mode != Mode::Lexical
        && let Some(vectors) = q.semantic
    {
        let passes = |path: &str| (q.judge)(path, q.filter);
        semantic = vectors
            .closest(q.text, depth, &passes)
            .into_iter()
            .filter_map(|c| Some((q.index.id_of(&c.path)?, c)))
            .collect();
    }
    let mut found: HashMap<NoteId, Found> = HashMap::new();
    // Each list's scores over 0..=1: BM25 over the best one's, cosines
    // spread between the worst and the best candidate's.
    let top_bm25 = lexical.first().map_or(1.0, |l| l.1).max(f32::MIN_POSITIVE);
    let (low, high) = semantic
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), (_, c)| {
            (l.min(c.score), h.max(c.score))
        });
    let words = if semantic.is_empty() {
        1.0
    } else {
        WORDS_WEIGHT
    };
    for (rank, (id, score)) in lexical.into_iter().enumerate() {
        let f = entry(&mut found, id);
        f.lexical = Some((rank, score));
        f.score += words * score / top_bm25;
    }
    for (rank, (id, close)) in semantic.into_iter().enumerate() {
        let f = entry(&mut found, id);
        let spread = if high > low {
            (close.score - low) / (high - low)
        } else {
            1.0
        };
        f.semantic = Some((rank, close));
        f.score += (1.0 - words) * spread;
    }
    let mut ranked: Vec<Found> = found.into_values().collect();
    sort(&mut ranked, q.index);
    if q.mode == Mode::Hybrid {
        lend_to_neighbours(q, &mut ranked);
        sort(&mut ranked, q.index);
    }
    ranked.truncate(q.k);
    Ok(ranked)
}

fn entry(found: &mut HashMap<NoteId, Found>, id: NoteId) -> &mut Found {
    found.entry(id).or_insert(Found {
        note: id,
        score: 0.0,
        lexical: None,
        semantic: None,
        linked: None,
    })
}

fn sort(ranked: &mut [Found], index: &VaultIndex) {
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| index.note(a.note).path.cmp(&index.note(b.note).path))
    });
}

/// Each of the first [`LINK_SEEDS`] notes lends [`LINK_SHARE`] of its score
/// to the notes one link away (either direction) that the caller keeps.
fn lend_to_neighbours(q: &Question<'_>, ranked: &mut Vec<Found>) {
    let seeds: Vec<(NoteId, f32)> = ranked
        .iter()
        .take(LINK_SEEDS)
        .map(|f| (f.note, f.score))
        .collect();
    let passes = |id: NoteId| q.passes(id);
    let mut lent: HashMap<NoteId, (f32, NoteId)> = HashMap::new();
    for (seed, score) in seeds {
        let graph = walk(
            q.index,
            GraphNode::Note(seed),
            Direction::Both,
            1,
            256,
            &passes,
        );
        for (node, distance) in graph.nodes {
            let GraphNode::Note(id) = node else { continue };
            if distance != 1 || id == seed {
                continue;
            }
            let share = score * LINK_SHARE;
            let best = lent.entry(id).or_insert((0.0, seed));
            if share > best.0 {
                *best = (share, seed);
            }
        }
    }
    for f in ranked.iter_mut() {
        if let Some((share, seed)) = lent.remove(&f.note) {
            f.score += share;
            f.linked = Some(seed);
        }
    }
    for (id, (share, seed)) in lent {
        ranked.push(Found {
            note: id,
            score: share,
            lexical: None,
            semantic: None,
            linked: Some(seed),
        });
    }
}

/// A question as a full-text query matching any of its words (each quoted,
/// so no word is read as an operator or a field), English function words
/// left out (a note titled "So" is not an answer to "so what…"), `None`
/// without words.
pub fn any_words(text: &str) -> Option<String> {
    let mut words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let content: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| {
            FUNCTION_WORDS
                .binary_search(&w.to_lowercase().as_str())
                .is_err()
        })
        .collect();
    // A question of function words alone ("to be or not to be") keeps them.
    if !content.is_empty() {
        words = content;
    }
    let quoted: Vec<String> = words
        .into_iter()
        .take(MAX_WORDS)
        .map(|w| format!("\"{w}\""))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// English function words: articles, pronouns, prepositions, conjunctions,
/// auxiliaries and question words. Sorted for a binary search.
const FUNCTION_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_becomes_any_of_its_words() {
        assert_eq!(
            any_words("How do NOT tag:x (programs) talk?").as_deref(),
            Some("\"tag\" OR \"x\" OR \"programs\" OR \"talk\"")
        );
        assert_eq!(
            any_words("to be or not").as_deref(),
            Some("\"to\" OR \"be\" OR \"or\" OR \"not\"")
        );
        assert!(FUNCTION_WORDS.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert_eq!(any_words(" ?! "), None);
        assert_eq!(
            any_words(&"word ".repeat(100))
                .unwrap()
                .matches("OR")
                .count(),
            MAX_WORDS - 1
        );
    }
}
