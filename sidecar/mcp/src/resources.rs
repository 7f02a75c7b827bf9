//! Resources (for clients that read them; Zed does not): `weft://note/{+path}`
//! (a note's text), `weft://index` (notes with title, outlinks, hash and
//! mtime; backlinks), `weft://stats`, `weft://tags`, `weft://guide`,
//! `weft://editor` (what the user is working on: `editor_state`); and
//! which resource URIs a change to some vault paths updates.
//!
//! Must not know how sessions subscribe or deliver notifications.

use std::collections::BTreeMap;

use percent_encoding::percent_decode_str;
use rmcp::ErrorData as McpError;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Value, json};

use weft_search::clock::unix_now;
use weft_search::index::sha256_hex;
use weft_search::names::match_names;
use weft_tools::common::{visible_stats, visible_tags};
use weft_tools::guide::GUIDE;
use weft_tools::state::ToolState;
use weft_vault::key::path_key;
use weft_vault::note::is_note_path;
use weft_vault::query::{Lookup, lookup, outgoing};

const NOTE_PREFIX: &str = "weft://note/";
const FIXED: &[(&str, &str, &str, &str)] = &[
    (
        "weft://index",
        "index",
        "application/json",
        "The link index: every note with title, outlinks, sha256 and mtime; backlinks.",
    ),
    (
        "weft://stats",
        "stats",
        "application/json",
        "Vault counts and the last update.",
    ),
    (
        "weft://tags",
        "tags",
        "application/json",
        "Tags with note and use counts.",
    ),
    (
        "weft://editor",
        "editor",
        "application/json",
        "What the user is working on: notes open in the editor, most recently edited first, with unsaved changes by section and the last edit.",
    ),
    (
        "weft://guide",
        "guide",
        "text/markdown",
        "How to use Weft's tools: naming, query syntax, views, paging.",
    ),
];

pub fn list() -> Vec<Resource> {
    FIXED
        .iter()
        .map(|(uri, name, mime, description)| {
            Resource::new(*uri, *name)
                .with_title(format!("Weft {name}"))
                .with_description(*description)
                .with_mime_type(*mime)
        })
        .collect()
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("weft://note/{+path}", "note")
            .with_title("Note")
            .with_description(
                "A note's Markdown text by vault path (.md optional), title or alias.",
            )
            .with_mime_type("text/markdown"),
    ]
}

fn not_found(message: String) -> McpError {
    McpError::resource_not_found(message, None)
}

pub fn read(state: &ToolState, uri: &str) -> Result<ReadResourceResult, McpError> {
    if let Some(rest) = uri.strip_prefix(NOTE_PREFIX) {
        return read_note(state, uri, rest);
    }
    let body = match uri {
        "weft://guide" => {
            return Ok(ReadResourceResult::new(vec![
                ResourceContents::text(GUIDE, uri).with_mime_type("text/markdown"),
            ]));
        }
        "weft://stats" => stats_json(state),
        "weft://tags" => tags_json(state),
        "weft://index" => index_json(state),
        "weft://editor" => editor_json(state),
        _ => {
            let known: Vec<&str> = FIXED.iter().map(|f| f.0).collect();
            return Err(not_found(format!(
                "Unknown resource `{uri}`. Resources: {}, and weft://note/{{path}}.",
                known.join(", ")
            )));
        }
    };
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(body.to_string(), uri).with_mime_type("application/json"),
    ]))
}

fn editor_json(state: &ToolState) -> Value {
    weft_tools::editor_state::run(state, Default::default())
        .map_or(Value::Null, |reply| reply.structured)
}

fn decode(rest: &str) -> String {
    percent_decode_str(rest)
        .decode_utf8_lossy()
        .trim_matches('/')
        .to_string()
}

fn read_note(state: &ToolState, uri: &str, rest: &str) -> Result<ReadResourceResult, McpError> {
    let policy = state.policy();
    let name = decode(rest);
    let index = state.index();
    let id = match lookup(&index, &name) {
        Lookup::Found(id) => id,
        Lookup::Ambiguous(ids) => {
            let paths: Vec<String> = ids
                .iter()
                .map(|i| index.note(*i).id().to_string())
                .collect();
            return Err(McpError::invalid_params(
                format!(
                    "`{name}` names several notes: {}; use the path.",
                    paths.join(", ")
                ),
                None,
            ));
        }
        _ => {
            let close: Vec<String> = match_names(&index, &name, 3)
                .into_iter()
                .map(|m| format!("{NOTE_PREFIX}{}", index.note(m.note).id()))
                .collect();
            let hint = if close.is_empty() {
                String::new()
            } else {
                format!(" Did you mean {}?", close.join(", "))
            };
            return Err(not_found(format!("No note `{name}`.{hint}")));
        }
    };
    let note = index.note(id);
    if !policy.access.sees(&note.path) {
        return Err(McpError::invalid_params(
            policy.hidden_message(&note.path, &name),
            None,
        ));
    }
    let path = note.path.to_string();
    drop(index);
    let text = state
        .read_text(&path)
        .ok_or_else(|| not_found(format!("`{path}` cannot be read now.")))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("text/markdown"),
    ]))
}

fn stats_json(state: &ToolState) -> Value {
    let policy = state.policy();
    let index = state.index();
    let s = visible_stats(&policy, &index);
    json!({
        "root": state.root().display().to_string(),
        "status": match state.phase() {
            weft_tools::state::Phase::Ready => "ready".to_string(),
            weft_tools::state::Phase::Loading | weft_tools::state::Phase::FullText => "indexing".to_string(),
            weft_tools::state::Phase::Failed(e) => format!("failed: {e}"),
        },
        "totalNotes": s.notes,
        "totalLinks": s.links,
        "resolvedLinks": s.resolved,
        "unresolvedLinks": s.unresolved,
        "ambiguousLinks": s.ambiguous,
        "attachments": s.attachments,
        "tags": s.tags,
        "headings": s.headings,
        "blocks": s.blocks,
        "orphans": s.orphans,
        "markdownBytes": s.bytes,
        "generation": index.generation(),
        "lastUpdated": unix_now() * 1000,
    })
}

fn tags_json(state: &ToolState) -> Value {
    let policy = state.policy();
    let index = state.index();
    let mut tags: Vec<(String, u32, u32)> = visible_tags(&policy.access, &index)
        .values()
        .map(|t| (t.display().to_string(), t.notes, t.uses))
        .collect();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    json!({
        "tags": tags.into_iter().map(|(tag, notes, uses)| json!({"tag": tag, "notes": notes, "uses": uses})).collect::<Vec<_>>(),
    })
}

fn index_json(state: &ToolState) -> Value {
    let policy = state.policy();
    let index = state.index();
    let mut backlinks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // (id, path, answer without hash and time): filled in once the index
    // is let go, as they read every file.
    let mut notes: Vec<(String, Box<str>, Value)> = Vec::new();
    for (id, note) in index.notes() {
        if !policy.access.sees(&note.path) {
            continue;
        }
        let mut outlinks: Vec<String> = Vec::new();
        for o in outgoing(&index, id) {
            let link = &note.links[o.link as usize];
            // A note the agent may not see is no answer to a link: the
            // link shows as written, as an unresolved one does.
            let target = match o.resolution.note() {
                Some(t) if policy.access.sees(&index.note(t).path) => {
                    index.note(t).id().to_string()
                }
                _ => path_key(link.target().trim_start_matches('/')),
            };
            if target.is_empty() || outlinks.contains(&target) {
                continue;
            }
            backlinks
                .entry(target.clone())
                .or_default()
                .push(note.id().to_string());
            outlinks.push(target);
        }
        notes.push((
            note.id().to_string(),
            note.path.clone(),
            json!({
                "path": note.path.to_string(),
                "title": note.title.to_string(),
                "aliases": note.aliases.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
                "tags": note.tags.iter().map(|t| t.name.to_string()).collect::<Vec<_>>(),
                "outlinks": outlinks,
            }),
        ));
    }
    drop(index);
    notes.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, path, answer) in &mut notes {
        // The text as the user sees it (an unsaved buffer included), hashed
        // now: the resource is the whole vault anyway.
        let hash = state.read_bytes(path).map(|b| sha256_hex(&b));
        let modified = state.modified(path);
        answer["hash"] = json!(hash);
        answer["mtime"] = json!(modified.map(|m| m * 1000));
    }
    for sources in backlinks.values_mut() {
        sources.sort();
        sources.dedup();
    }
    json!({
        "root": state.root().display().to_string(),
        "notes": notes.into_iter().map(|(id, _, v)| json!([id, v])).collect::<Vec<_>>(),
        "backlinks": backlinks.into_iter().map(|(t, s)| json!([t, s])).collect::<Vec<_>>(),
        "lastUpdated": unix_now() * 1000,
    })
}

/// The key under which a subscription to `uri` is kept; fails for URIs
/// that are not Weft resources.
pub(crate) fn subscription_key(state: &ToolState, uri: &str) -> Result<String, McpError> {
    if let Some(rest) = uri.strip_prefix(NOTE_PREFIX) {
        let name = decode(rest);
        if name.is_empty() {
            return Err(McpError::invalid_params(
                "A note URI needs a path: weft://note/{path}.",
                None,
            ));
        }
        let index = state.index();
        let key = match lookup(&index, &name) {
            Lookup::Found(id) => path_key(&index.note(id).path),
            _ => path_key(&name),
        };
        return Ok(format!("note:{key}"));
    }
    if FIXED.iter().any(|f| f.0 == uri) {
        return Ok(uri.to_string());
    }
    Err(McpError::invalid_params(
        format!(
            "`{uri}` is not a Weft resource; subscribe to weft://note/{{path}}, weft://index, weft://stats or weft://tags."
        ),
        None,
    ))
}

/// The subscription keys that changed vault paths update.
pub(crate) fn updated_uris(paths: &[String]) -> Vec<String> {
    let mut out: Vec<String> = paths
        .iter()
        .filter(|p| is_note_path(p))
        .map(|p| format!("note:{}", path_key(p)))
        .collect();
    if !out.is_empty() {
        out.extend(["weft://index", "weft://stats", "weft://tags"].map(String::from));
    }
    out
}
