//! One-shot answers for the command line (`weft query backlinks|graph|
//! search|related`, and any read tool): the same Markdown text and
//! structured JSON the MCP tools give, on the vault's shared state (in the
//! index daemon) or on one opened for the occasion.
//! The requests behind the `backlinks`, `graph` and `related` prompts are
//! built here too, so a prompt, `weft query` and the Zed slash command
//! that runs it answer byte for byte alike.
//!
//! Must not know how the command line parses its arguments or prints.

use serde_json::{Value, json};

use super::format::{Reply, ToolError};
use super::registry;
use super::state::ToolState;
use super::{get_links, list_tasks, related_notes};

/// Runs a read tool by name with JSON arguments, as `tools/call` would.
pub fn call(state: &ToolState, tool: &str, arguments: Value) -> Result<Reply, ToolError> {
    state.check_usable()?;
    match registry::find(tool).and_then(|t| t.answer) {
        Some(answer) => answer(state, arguments),
        None => Err(ToolError::new(format!(
            "unknown tool `{tool}`; tools: {}",
            registry::names().collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The answer of a read tool as text (Markdown) or JSON (the structured
/// content, pretty-printed). `Err` holds the tool's error message.
pub(crate) fn tool_text(
    state: &ToolState,
    tool: &str,
    arguments: Value,
    format_json: bool,
) -> Result<String, String> {
    answer_text(state, format_json, |state| call(state, tool, arguments))
}

/// How many backlinks the `backlinks` prompt and `weft query backlinks`
/// list.
pub const BACKLINKS_LIMIT: usize = 200;
/// How far the `graph` prompt walks (and `weft query graph` by default).
pub const GRAPH_DEPTH: u32 = 2;
/// How many notes a graph shows at most by default.
pub const GRAPH_LIMIT: usize = 60;
/// How many notes the `related` prompt lists.
pub const RELATED_LIMIT: usize = 10;

/// The `get_links` request behind `/backlinks NOTE`.
pub fn backlinks_request(note: &str, limit: usize) -> get_links::GetLinksArgs {
    get_links::GetLinksArgs {
        path: note.to_string(),
        direction: Some(get_links::LinkDirection::In),
        depth: None,
        format: None,
        rel: None,
        limit: Some(limit),
        cursor: None,
    }
}

/// How many tasks the `tasks` prompt lists.
pub const TASKS_LIMIT: usize = 50;

/// The `list_tasks` request behind `/tasks [FILTER]`: open tasks, by due
/// date. The one argument is read as what people type after `/tasks`:
/// nothing (overdue and this week's: happening on or before this week's
/// end), `overdue`, `all`, a `#tag`, a folder ending in `/`, a day or
/// period (`today`, `next week`, `2024-05`: happening then), else words of
/// the tasks.
pub fn tasks_request(filter: &str, today: weft_vault::date::Date) -> list_tasks::ListTasksArgs {
    let filter = filter.trim();
    let mut args = list_tasks::ListTasksArgs {
        group_by: Some(list_tasks::Group::Due),
        limit: Some(TASKS_LIMIT),
        ..Default::default()
    };
    let lower = filter.to_ascii_lowercase();
    if filter.is_empty() {
        args.happens = Some("on or before this week".into());
    } else if lower == "overdue" {
        args.overdue = Some(true);
    } else if lower == "all" {
        // Every open task.
    } else if let Some(tag) = filter.strip_prefix('#') {
        args.tags = Some(vec![tag.to_string()]);
    } else if filter.ends_with('/') {
        args.folder = Some(filter.to_string());
    } else if weft_vault::tasks::select::When::parse(filter, today).is_ok() {
        args.happens = Some(filter.to_string());
    } else {
        args.text = Some(filter.to_string());
    }
    args
}

/// The `get_links` request behind `/graph NOTE DEPTH`.
pub fn graph_request(note: &str, depth: u32, limit: usize) -> get_links::GetLinksArgs {
    get_links::GetLinksArgs {
        path: note.to_string(),
        direction: None,
        depth: Some(depth),
        format: Some(get_links::LinksFormat::Graph),
        rel: None,
        limit: Some(limit),
        cursor: None,
    }
}

/// The `related_notes` request behind `/related NOTE`.
pub fn related_request(note: &str, limit: usize) -> related_notes::RelatedNotesArgs {
    related_notes::RelatedNotesArgs {
        path: Some(note.to_string()),
        text: None,
        limit: Some(limit),
    }
}

/// Runs `answer` on `state` and gives its text or JSON.
fn answer_text(
    state: &ToolState,
    format_json: bool,
    answer: impl FnOnce(&ToolState) -> Result<Reply, ToolError>,
) -> Result<String, String> {
    let reply = answer(state).map_err(|e| e.text())?;
    Ok(if format_json {
        serde_json::to_string_pretty(&reply.structured).unwrap_or_default()
    } else {
        reply.text
    })
}

/// `weft query backlinks NOTE`: what the `backlinks` prompt shows.
pub fn backlinks_text(
    state: &ToolState,
    note: &str,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    answer_text(state, format_json, |state| {
        get_links::run(state, backlinks_request(note, limit))
    })
}

/// `weft query links NOTE`: the note's outgoing links, as `get_links`
/// gives them.
pub fn links_text(state: &ToolState, note: &str, format_json: bool) -> Result<String, String> {
    answer_text(state, format_json, |state| {
        get_links::run(
            state,
            get_links::GetLinksArgs {
                path: note.to_string(),
                direction: Some(get_links::LinkDirection::Out),
                depth: None,
                format: None,
                rel: None,
                limit: Some(1000),
                cursor: None,
            },
        )
    })
}

/// `weft query graph NOTE`: what the `graph` prompt shows (at its depth).
pub fn graph_text(
    state: &ToolState,
    note: &str,
    depth: u32,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    answer_text(state, format_json, |state| {
        get_links::run(state, graph_request(note, depth, limit))
    })
}

/// `weft query search QUERY`: what `search_notes` answers for the query.
pub fn search_text(
    state: &ToolState,
    query: &str,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    tool_text(
        state,
        "search_notes",
        json!({"query": query, "limit": limit}),
        format_json,
    )
}

/// `weft query related NOTE`: what the `related` prompt shows.
pub fn related_text(
    state: &ToolState,
    note: &str,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    answer_text(state, format_json, |state| {
        related_notes::run(state, related_request(note, limit))
    })
}
