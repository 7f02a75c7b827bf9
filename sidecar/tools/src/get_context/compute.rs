//! The evidence `get_context` gathers, as data: the notes a question finds
//! (by words and meaning through `retrieval`, or by names while the full
//! text is being built), the notes around one (a link walk), and for each
//! within the character budget its passages (the one found by meaning,
//! then those matching the question's words).

use std::collections::BTreeMap;

use super::answer::{Evidence, PassageOut};
use crate::format::ToolError;
use crate::retrieval::{Matching, ask, how, meaning_passage};
use crate::scope::{Scope, Times, passes};
use crate::state::ToolState;
use weft_search::index::{body_start, sha256_hex};
use weft_search::names::match_names;
use weft_search::passages::best_passages;
use weft_semantic::Found;
use weft_vault::filter::Filter;
use weft_vault::graph::{Direction, GraphNode, walk};
use weft_vault::{NoteId, VaultIndex};

/// A note chosen for the context, and how.
#[derive(Debug, Clone)]
pub struct Picked {
    pub note: NoteId,
    /// `words`, `meaning`, `words+meaning` or `links`.
    pub source: &'static str,
    pub score: f32,
    /// Link steps from `around`.
    pub distance: Option<u32>,
    /// What found it, when a question did.
    pub found: Option<Found>,
}

/// The notes a question picked, with the words its passages are chosen by
/// (term → document frequency) and the number of notes they count in.
#[derive(Debug, Default)]
pub struct Asked {
    pub picked: Vec<Picked>,
    pub terms: BTreeMap<String, u64>,
    pub num_docs: u64,
    pub remarks: Vec<String>,
}

/// By words and meaning (`retrieval`), the question's body terms from the
/// full-text index.
pub fn by_question(
    state: &ToolState,
    index: &VaultIndex,
    question: &str,
    mode: Option<Matching>,
    top_k: usize,
    scope: &Scope,
) -> Result<Asked, ToolError> {
    let Some(search) = state.search() else {
        return Ok(by_names(index, state, question, top_k, &scope.filter));
    };
    let answer = ask(state, index, question, mode, top_k, scope)?;
    let picked = answer
        .found
        .into_iter()
        .map(|found| Picked {
            note: found.note,
            source: how(&found),
            score: found.score,
            distance: None,
            found: Some(found),
        })
        .collect();
    let words = weft_semantic::retrieve::any_words(&answer.words).unwrap_or_default();
    let terms = match search.parse_query(&words, &scope.context(state.now())) {
        Ok(expr) => search.body_terms(&expr),
        Err(_) => BTreeMap::new(),
    };
    Ok(Asked {
        picked,
        terms,
        num_docs: search.num_docs(),
        remarks: answer.remarks,
    })
}

/// By names while the full-text index is being built (it says so).
pub fn by_names(
    index: &VaultIndex,
    times: &dyn Times,
    question: &str,
    top_k: usize,
    filter: &Filter,
) -> Asked {
    let mut picked = Vec::new();
    for m in match_names(index, question, top_k * 4) {
        if picked.len() < top_k && passes(times, index, m.note, filter) {
            picked.push(Picked {
                note: m.note,
                source: "words",
                score: m.score as f32,
                distance: None,
                found: None,
            });
        }
    }
    Asked {
        picked,
        terms: weft_search::schema::terms(question)
            .into_iter()
            .map(|t| (t, 1))
            .collect(),
        num_docs: index.len() as u64,
        remarks: vec![
            "The full-text index is still being built: notes were chosen by name only.".into(),
        ],
    }
}

/// The notes around `center` the agent sees, nearest first, up to `depth`
/// link steps and `top_k` of them; the others must pass `filter`, and
/// notes already picked are not picked twice.
#[allow(clippy::too_many_arguments)]
pub fn around(
    index: &VaultIndex,
    times: &dyn Times,
    sees: &dyn Fn(NoteId) -> bool,
    center: NoteId,
    depth: u32,
    top_k: usize,
    filter: &Filter,
    picked: &mut Vec<Picked>,
) {
    let graph = walk(
        index,
        GraphNode::Note(center),
        Direction::Both,
        depth,
        top_k * 4 + 1,
        sees,
    );
    for (node, distance) in graph.nodes {
        let GraphNode::Note(id) = node else { continue };
        if picked.iter().any(|p| p.note == id) {
            continue;
        }
        if distance > 0 && !passes(times, index, id, filter) {
            continue;
        }
        // Notes the question reached by links count too.
        if picked.iter().filter(|p| p.source == "links").count() >= top_k {
            break;
        }
        picked.push(Picked {
            note: id,
            source: "links",
            score: 0.0,
            distance: Some(distance),
            found: None,
        });
    }
}

/// The evidence gathered.
#[derive(Debug)]
pub struct Gathered {
    pub notes: Vec<Evidence>,
    /// Characters of passages in all.
    pub used: usize,
    /// The budget ran out before every picked note had its turn.
    pub truncated: bool,
}

/// What a note's passages are chosen by.
pub struct Wanted<'a> {
    /// Characters of passages in all (each note gets its share, at least
    /// 300).
    pub budget: usize,
    /// Paragraphs stitched on each side of a passage.
    pub window: usize,
    pub terms: &'a BTreeMap<String, u64>,
    pub num_docs: u64,
}

/// The passages of each picked note, in order, within the budget; `read`
/// gives a note's bytes (a note it cannot read is left out).
pub fn gather(
    index: &VaultIndex,
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    picked: Vec<Picked>,
    wanted: &Wanted<'_>,
) -> Gathered {
    let per_note = (wanted.budget / picked.len().max(1)).max(300);
    let mut out = Gathered {
        notes: Vec::new(),
        used: 0,
        truncated: false,
    };
    for p in picked {
        if out.used >= wanted.budget {
            out.truncated = true;
            break;
        }
        let note = index.note(p.note);
        let Some(bytes) = read(&note.path) else {
            continue;
        };
        let room = per_note.min(wanted.budget - out.used);
        let passages = passages(index, p.note, &bytes, p.found.as_ref(), room, wanted);
        out.used += passages
            .iter()
            .map(|p| p.text.chars().count())
            .sum::<usize>();
        out.notes.push(Evidence {
            path: note.id().to_string(),
            title: note.title.to_string(),
            sha256: sha256_hex(&bytes),
            source: p.source.to_string(),
            score: (p.score * 100.0).round() / 100.0,
            distance: p.distance,
            passages,
        });
    }
    out
}

/// A note's passages within `room` characters: the passage found by
/// meaning first, then those matching words elsewhere in the note.
fn passages(
    index: &VaultIndex,
    id: NoteId,
    bytes: &[u8],
    found: Option<&Found>,
    room: usize,
    wanted: &Wanted<'_>,
) -> Vec<PassageOut> {
    let note = index.note(id);
    let text = String::from_utf8_lossy(bytes);
    let mut passages: Vec<PassageOut> = found
        .and_then(|f| f.semantic.as_ref())
        .and_then(|(_, close)| meaning_passage(note, &text, close, room))
        .map(|(section, lines, text)| PassageOut {
            section,
            lines,
            text,
        })
        .into_iter()
        .collect();
    let left = room.saturating_sub(passages.iter().map(|p| p.text.chars().count()).sum());
    if left < 80 {
        return passages;
    }
    let words = best_passages(
        &text,
        body_start(&text),
        wanted.terms,
        wanted.num_docs,
        wanted.window,
        2,
        left,
    );
    let taken: Vec<[u32; 2]> = passages.iter().map(|p| p.lines).collect();
    passages.extend(
        words
            .into_iter()
            .filter(|p| {
                !taken
                    .iter()
                    .any(|m| p.start_line <= m[1] && m[0] <= p.end_line)
            })
            .map(|p| PassageOut {
                section: p.heading,
                lines: [p.start_line, p.end_line],
                text: p.text,
            }),
    );
    passages
}
