//! `resolve_note`: what a title, alias, `[[link]]` target, path or partial
//! name points to — the resolver's answer first, then ranked candidates,
//! each with why it matched.
//!
//! An adapter over `vault::query::lookup` and `search::names`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::{NoteRef, check_name, limit};
use super::format::{Reply, ToolResult, escape, plural};
use super::state::ToolState;
use weft_search::names::match_names;
use weft_vault::query::{Lookup, lookup};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveNoteArgs {
    /// Title, alias, [[link]] target, path or part of a name.
    #[serde(
        alias = "name",
        alias = "path",
        alias = "note",
        alias = "target",
        alias = "title"
    )]
    pub query: String,
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ResolveNoteOut {
    pub query: String,
    /// The note `[[query]]` links to from the vault root, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolves_to: Option<NoteRef>,
    /// Several notes answer the name equally (the link picks `resolves_to`).
    pub ambiguous: bool,
    /// Links in the vault whose target is `query` and that resolve nowhere.
    pub unresolved_links: usize,
    pub candidates: Vec<Candidate>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Candidate {
    pub path: String,
    pub title: String,
    /// 0..1.
    pub score: f64,
    pub why: String,
}

pub fn run(state: &ToolState, args: ResolveNoteArgs) -> ToolResult {
    let policy = state.policy();
    let query = check_name(&args.query, "query")?;
    let limit = limit(args.limit, 10, 50);
    let index = state.index();
    let sees = |id| policy.access.sees(&index.note(id).path);
    let (resolves_to, ambiguous, unresolved_links) = match lookup(&index, &query) {
        Lookup::Found(id) if sees(id) => (Some(id), false, 0),
        Lookup::Ambiguous(ids) => {
            let shown: Vec<_> = ids.iter().copied().filter(|id| sees(*id)).collect();
            let chosen = index
                .resolve(
                    "",
                    query.trim_start_matches("[[").trim_end_matches("]]"),
                    weft_vault::LinkKind::Wiki,
                )
                .note()
                .filter(|id| sees(*id));
            (chosen.or(shown.first().copied()), shown.len() > 1, 0)
        }
        Lookup::Unresolved { links, .. } => {
            (None, false, links.iter().filter(|r| sees(r.source)).count())
        }
        _ => (None, false, 0),
    };
    let candidates: Vec<Candidate> = match_names(&index, &query, limit * 3)
        .into_iter()
        .filter(|m| sees(m.note))
        .take(limit)
        .map(|m| {
            let note = index.note(m.note);
            Candidate {
                path: note.id().to_string(),
                title: note.title.to_string(),
                score: (m.score * 100.0).round() / 100.0,
                why: m.why,
            }
        })
        .collect();
    let out = ResolveNoteOut {
        query: query.clone(),
        resolves_to: resolves_to.map(|id| NoteRef::of(index.note(id))),
        ambiguous,
        unresolved_links,
        candidates,
    };
    drop(index);
    let mut text = match (&out.resolves_to, out.ambiguous) {
        (Some(n), false) => format!(
            "`[[{query}]]` resolves to **{}** (`{}`).",
            escape(&n.title),
            n.path
        ),
        (Some(n), true) => format!(
            "`[[{query}]]` is ambiguous; the resolver picks **{}** (`{}`). Pass a path to choose.",
            escape(&n.title),
            n.path
        ),
        (None, _) if out.unresolved_links > 0 => format!(
            "No note `{query}` exists; {} point to it (a note not written yet).",
            plural(out.unresolved_links, "link")
        ),
        (None, _) => format!("No note is named `{query}`."),
    };
    if out.candidates.is_empty() {
        text.push_str("\nNo candidates by name; search_notes searches the text.");
    } else {
        text.push_str("\n\nCandidates:");
        for (i, c) in out.candidates.iter().enumerate() {
            text.push_str(&format!(
                "\n{}. **{}** (`{}`) — {} ({:.2})",
                i + 1,
                escape(&c.title),
                c.path,
                c.why,
                c.score
            ));
        }
    }
    Ok(Reply::new(text, &out))
}
