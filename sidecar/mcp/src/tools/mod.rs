//! The tools as MCP tools: one file each with its description, schemas and
//! annotations, calling the tool's answer in `weft_tools`.

use rmcp::handler::server::tool::ToolRouter;

use super::server::Server;

mod check_vault;
mod daily_note;
mod delete_note;
mod diff_note;
mod edit_note;
mod get_context;
mod get_links;
mod list_notes;
mod list_tags;
mod move_note;
mod note_history;
mod read_note;
mod related_notes;
mod resolve_note;
mod restore_note;
mod search_notes;
mod update_frontmatter;
mod vault_info;
mod write_note;

/// Every tool, in the order of [`weft_tools::TOOL_NAMES`].
pub fn router() -> ToolRouter<Server> {
    Server::read_note_router()
        + Server::resolve_note_router()
        + Server::list_notes_router()
        + Server::search_notes_router()
        + Server::get_context_router()
        + Server::get_links_router()
        + Server::related_notes_router()
        + Server::list_tags_router()
        + Server::check_vault_router()
        + Server::vault_info_router()
        + Server::write_note_router()
        + Server::edit_note_router()
        + Server::update_frontmatter_router()
        + Server::move_note_router()
        + Server::delete_note_router()
        + Server::daily_note_router()
        + Server::note_history_router()
        + Server::diff_note_router()
        + Server::restore_note_router()
}
