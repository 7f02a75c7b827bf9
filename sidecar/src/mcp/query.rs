//! One-shot answers for the command line (`weft query search`, `weft query
//! related`, and any read tool): the same Markdown text and structured
//! JSON the MCP tools give, on a vault opened for the occasion.
//!
//! Must not know how the command line parses its arguments or prints.

use std::sync::Arc;

use serde_json::{Value, json};

use super::format::{Reply, ToolError};
use super::server::TOOL_NAMES;
use super::state::McpState;
use super::{
    McpArgs, check_vault, get_context, get_links, list_notes, list_tags, read_note, related_notes,
    resolve_note, search_notes, vault_info,
};
use crate::io::LiveVault;

/// Runs a read tool by name with JSON arguments, as `tools/call` would.
pub fn call(state: &McpState, tool: &str, arguments: Value) -> Result<Reply, ToolError> {
    fn args<T: serde::de::DeserializeOwned>(tool: &str, v: Value) -> Result<T, ToolError> {
        serde_json::from_value(v)
            .map_err(|e| ToolError::new(format!("invalid arguments for `{tool}`: {e}")))
    }
    state.check_usable()?;
    match tool {
        "read_note" => read_note::run(state, args(tool, arguments)?),
        "resolve_note" => resolve_note::run(state, args(tool, arguments)?),
        "list_notes" => list_notes::run(state, args(tool, arguments)?),
        "search_notes" => search_notes::run(state, args(tool, arguments)?),
        "get_context" => get_context::run(state, args(tool, arguments)?),
        "get_links" => get_links::run(state, args(tool, arguments)?),
        "related_notes" => related_notes::run(state, args(tool, arguments)?),
        "list_tags" => list_tags::run(state, args(tool, arguments)?),
        "check_vault" => check_vault::run(state, args(tool, arguments)?),
        "vault_info" => {
            let _: vault_info::VaultInfoArgs = args(tool, arguments)?;
            vault_info::run(state, TOOL_NAMES.iter().map(|t| t.to_string()).collect())
        }
        other => Err(ToolError::new(format!(
            "unknown tool `{other}`; tools: {}",
            TOOL_NAMES.join(", ")
        ))),
    }
}

/// The answer of a read tool as text (Markdown) or JSON (the structured
/// content, pretty-printed). `Err` holds the tool's error message.
pub fn tool_text(
    vault: &Arc<LiveVault>,
    tool: &str,
    arguments: Value,
    format_json: bool,
) -> Result<String, String> {
    let fulltext = matches!(tool, "search_notes" | "get_context" | "related_notes");
    let state = McpState::from_live(vault.clone(), McpArgs::default(), fulltext)
        .map_err(|e| e.to_string())?;
    let reply = call(&state, tool, arguments).map_err(|e| e.text())?;
    Ok(if format_json {
        serde_json::to_string_pretty(&reply.structured).unwrap_or_default()
    } else {
        reply.text
    })
}

/// `weft query search QUERY`: what `search_notes` answers for the query.
pub fn search_text(
    vault: &Arc<LiveVault>,
    query: &str,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    tool_text(
        vault,
        "search_notes",
        json!({"query": query, "limit": limit}),
        format_json,
    )
}

/// `weft query related NOTE`: what `related_notes` answers for the note.
pub fn related_text(
    vault: &Arc<LiveVault>,
    note: &str,
    limit: usize,
    format_json: bool,
) -> Result<String, String> {
    tool_text(
        vault,
        "related_notes",
        json!({"path": note, "limit": limit}),
        format_json,
    )
}
