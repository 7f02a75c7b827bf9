//! `get_context`: evidence for a question — the best notes for `query`
//! (the search filters apply), found by words and, with a model, by
//! meaning (`retrieval`), each with the passage found by meaning and its
//! best-matching passages stitched with neighbouring paragraphs, within a
//! character budget; optionally the link neighbourhood of a note
//! (`around`, `depth`).
//!
//! An adapter over `retrieval` (ranking), `search` (terms, passages) and
//! `vault::related::walk`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::{Target, find_target, limit};
use super::format::{Reply, ToolError, ToolResult, escape, plural};
use super::retrieval::{Matching, ask, how, meaning_passage};
use super::scope::{filter_args, passes, scope, sees_note};
use super::state::ToolState;
use weft_search::index::{body_start, sha256_hex};
use weft_search::names::match_names;
use weft_search::passages::best_passages;
use weft_semantic::Found;
use weft_vault::NoteId;
use weft_vault::graph::{Direction, GraphNode, walk};

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetContextArgs {
    #[serde(default, alias = "q", alias = "question", alias = "topic")]
    pub query: Option<String>,
    #[serde(default, alias = "matching")]
    pub mode: Option<Matching>,
    // The filters are search_notes' (their docs there: each doc comment
    // here would be in the schema every agent reads).
    #[serde(default, alias = "tags", deserialize_with = "lenient::strings")]
    pub tags_all: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags_any: Option<Vec<String>>,
    #[serde(default, alias = "folder")]
    pub path_prefix: Option<String>,
    #[serde(default, alias = "links_to")]
    pub backlinks_to: Option<String>,
    #[serde(default, alias = "linked_from")]
    pub links_from: Option<String>,
    #[serde(default, alias = "properties")]
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(default, alias = "since")]
    pub modified_since: Option<String>,
    /// A note.
    #[serde(default, alias = "note", alias = "path")]
    pub around: Option<String>,
    /// Default 1, max 3.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    /// Default 5.
    #[serde(default, alias = "limit", deserialize_with = "lenient::usize")]
    pub top_k: Option<usize>,
    /// Default 6000.
    #[serde(
        default,
        alias = "budget",
        alias = "max_evidence_chars",
        deserialize_with = "lenient::usize"
    )]
    pub max_chars: Option<usize>,
    /// Paragraphs around a hit. Default 1.
    #[serde(
        default,
        alias = "neighbor_window",
        deserialize_with = "lenient::usize"
    )]
    pub window: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GetContextOut {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    pub applied_filters: AppliedFilters,
    pub notes: Vec<Evidence>,
    /// Characters of passage text returned.
    pub chars: usize,
    /// The budget ran out before every candidate note got passages.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remarks: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AppliedFilters {
    pub tags_all: Vec<String>,
    pub tags_any: Vec<String>,
    pub path_prefix: Option<String>,
    pub around: Option<String>,
    pub depth: u32,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Evidence {
    pub path: String,
    pub title: String,
    pub sha256: String,
    /// What found it: `words`, `meaning`, `words+meaning`, `links` (near a
    /// better hit, or from `around`).
    pub source: String,
    pub score: f32,
    /// Link steps from `around`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<u32>,
    pub passages: Vec<PassageOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PassageOut {
    /// The headings above it, as `Parent::Child`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// First and last line, 1-based.
    pub lines: [u32; 2],
    pub text: String,
}

/// A note chosen for the context, and how.
struct Picked {
    note: NoteId,
    source: &'static str,
    score: f32,
    /// Link steps from `around`.
    distance: Option<u32>,
    /// What found it, when a question did.
    found: Option<Found>,
}

pub fn run(state: &ToolState, args: GetContextArgs) -> ToolResult {
    let query = args
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    let around = args
        .around
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    if query.is_none() && around.is_none() {
        return Err(ToolError::new(
            "get_context needs `query` (the question) or `around` (a note).",
        )
        .hint("Example: {\"query\": \"why did we pick tantivy\", \"top_k\": 5}."));
    }
    let top_k = limit(args.top_k, 5, 20);
    let depth = args.depth.unwrap_or(1).min(3);
    let budget = args.max_chars.unwrap_or(6_000).clamp(200, 40_000);
    let window = args.window.unwrap_or(1).min(3);
    let tags_all = args.tags_all.clone().unwrap_or_default();
    let tags_any = args.tags_any.clone().unwrap_or_default();
    let index = state.index();
    let scope = scope(state, &index, &filter_args!(args, &tags_all, &tags_any))?;
    let mut remarks = Vec::new();
    let mut picked: Vec<Picked> = Vec::new();
    let mut terms = std::collections::BTreeMap::new();
    let mut num_docs = index.len() as u64;
    if let Some(q) = &query {
        match state.search() {
            Some(search) => {
                let answer = ask(state, &index, q, args.mode, top_k, &scope)?;
                remarks.extend(answer.remarks);
                let words = answer.words;
                for found in answer.found {
                    let score = found.score;
                    picked.push(Picked {
                        note: found.note,
                        source: how(&found),
                        score,
                        distance: None,
                        found: Some(found),
                    });
                }
                if let Ok(expr) = search.parse_query(
                    &weft_semantic::retrieve::any_words(&words).unwrap_or_default(),
                    state.now(),
                    &scope.keys,
                ) {
                    terms = search.body_terms(&expr);
                }
                num_docs = search.num_docs();
            }
            None => {
                remarks.push(
                    "The full-text index is still being built: notes were chosen by name only."
                        .into(),
                );
                for m in match_names(&index, q, top_k * 4) {
                    if picked.len() < top_k && passes(state, &index, m.note, &scope.filter) {
                        picked.push(Picked {
                            note: m.note,
                            source: "words",
                            score: m.score as f32,
                            distance: None,
                            found: None,
                        });
                    }
                }
                terms = weft_search::schema::terms(q)
                    .into_iter()
                    .map(|t| (t, 1))
                    .collect();
            }
        }
        if picked.is_empty() {
            remarks.push(format!("No note matches `{q}` with these filters."));
        }
    }
    if let Some(name) = &around {
        let Target::Note(center) = find_target(state, &index, name, "around")? else {
            return Err(ToolError::new(format!(
                "`around`: no note `{name}` exists yet."
            )));
        };
        let sees = sees_note(state, &index);
        let graph = walk(
            &index,
            GraphNode::Note(center),
            Direction::Both,
            depth,
            top_k * 4 + 1,
            &sees,
        );
        for (node, distance) in graph.nodes {
            let GraphNode::Note(id) = node else { continue };
            if picked.iter().any(|p| p.note == id) {
                continue;
            }
            if distance > 0 && !passes(state, &index, id, &scope.filter) {
                continue;
            }
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
    let per_note = (budget / picked.len().max(1)).max(300);
    let mut used = 0;
    let mut truncated = false;
    let mut notes = Vec::new();
    for Picked {
        note: id,
        source,
        score,
        distance,
        found,
    } in picked
    {
        if used >= budget {
            truncated = true;
            break;
        }
        let note = index.note(id);
        let Some(bytes) = state.read_bytes(&note.path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let room = per_note.min(budget - used);
        // The passage found by meaning first, then those matching words
        // elsewhere in the note.
        let mut passages: Vec<PassageOut> = found
            .as_ref()
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
        if left >= 80 {
            let words = best_passages(&text, body_start(&text), &terms, num_docs, window, 2, left);
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
        }
        used += passages
            .iter()
            .map(|p| p.text.chars().count())
            .sum::<usize>();
        notes.push(Evidence {
            path: note.id().to_string(),
            title: note.title.to_string(),
            sha256: sha256_hex(&bytes),
            source: source.to_string(),
            score: (score * 100.0).round() / 100.0,
            distance,
            passages,
        });
    }
    drop(index);
    let out = GetContextOut {
        query: query.clone(),
        applied_filters: AppliedFilters {
            tags_all,
            tags_any,
            path_prefix: args.path_prefix.clone().filter(|p| !p.trim().is_empty()),
            around,
            depth: if args.around.is_some() { depth } else { 0 },
        },
        notes,
        chars: used,
        truncated,
        remarks,
    };
    Ok(Reply::new(render(&out), &out))
}

fn render(out: &GetContextOut) -> String {
    let mut text = String::new();
    for r in &out.remarks {
        text.push_str(&format!("_{r}_\n\n"));
    }
    let subject = match (&out.query, &out.applied_filters.around) {
        (Some(q), Some(a)) => format!("`{q}` around `{a}`"),
        (Some(q), None) => format!("`{q}`"),
        (None, Some(a)) => format!("the neighbourhood of `{a}`"),
        (None, None) => String::new(),
    };
    text.push_str(&format!(
        "Context for {subject}: {}, {} characters",
        plural(out.notes.len(), "note"),
        out.chars
    ));
    let f = &out.applied_filters;
    let mut filters = Vec::new();
    if !f.tags_all.is_empty() {
        filters.push(format!("tags_all={}", f.tags_all.join(",")));
    }
    if !f.tags_any.is_empty() {
        filters.push(format!("tags_any={}", f.tags_any.join(",")));
    }
    if let Some(p) = &f.path_prefix {
        filters.push(format!("path_prefix={p}"));
    }
    if f.around.is_some() {
        filters.push(format!("depth={}", f.depth));
    }
    if !filters.is_empty() {
        text.push_str(&format!(" (filters: {})", filters.join(", ")));
    }
    text.push('.');
    for (i, e) in out.notes.iter().enumerate() {
        let how = match (e.source.as_str(), e.distance) {
            ("links", Some(0)) => "the `around` note".to_string(),
            ("links", Some(d)) => format!("{} from `around`", plural(d as usize, "link step")),
            _ => format!("{}, score {:.2}", e.source, e.score),
        };
        text.push_str(&format!(
            "\n\n### {}. {} (`{}`) — {how}",
            i + 1,
            escape(&e.title),
            e.path
        ));
        for p in &e.passages {
            // The section, unless it is the note's own title.
            let section = p
                .section
                .as_deref()
                .filter(|s| *s != e.title)
                .map(|s| format!("{s} · "))
                .unwrap_or_default();
            text.push_str(&format!("\n_{section}lines {}–{}_", p.lines[0], p.lines[1]));
            for line in p.text.lines() {
                match line {
                    "" => text.push_str("\n>"),
                    line => text.push_str(&format!("\n> {line}")),
                }
            }
        }
    }
    if out.truncated {
        text.push_str(
            "\n\n_The character budget ran out; raise `max_chars` or lower `top_k` for more._",
        );
    }
    text
}
