//! The tools as MCP tools: one file each with its description, schemas and
//! annotations, calling the tool's answer in `weft_tools`.

use rmcp::handler::server::tool::ToolRouter;
use rmcp::model::ToolAnnotations;
use weft_tools::ToolClass;
use weft_tools::registry::{self, ToolInfo};

use super::server::Server;

mod check_vault;
mod daily_note;
mod delete_note;
mod diff_note;
mod edit_note;
mod editor_state;
mod get_context;
mod get_links;
mod list_notes;
mod list_tags;
mod list_tasks;
mod move_note;
mod note_history;
mod query_notes;
mod read_note;
mod related_notes;
mod resolve_note;
mod restore_note;
mod search_notes;
mod update_frontmatter;
mod update_task;
mod vault_info;
mod write_note;

/// Every tool, its title and hints from [`weft_tools::registry`]. The list
/// below only wires each tool's file in; a test checks it holds exactly the
/// registry's tools.
pub(crate) fn router() -> ToolRouter<Server> {
    let mut router = Server::read_note_router()
        + Server::resolve_note_router()
        + Server::list_notes_router()
        + Server::search_notes_router()
        + Server::get_context_router()
        + Server::get_links_router()
        + Server::related_notes_router()
        + Server::list_tags_router()
        + Server::query_notes_router()
        + Server::list_tasks_router()
        + Server::check_vault_router()
        + Server::editor_state_router()
        + Server::vault_info_router()
        + Server::write_note_router()
        + Server::edit_note_router()
        + Server::update_frontmatter_router()
        + Server::update_task_router()
        + Server::move_note_router()
        + Server::delete_note_router()
        + Server::daily_note_router()
        + Server::note_history_router()
        + Server::diff_note_router()
        + Server::restore_note_router();
    for route in router.map.values_mut() {
        if let Some(info) = registry::find(&route.attr.name) {
            route.attr.title = Some(info.title.to_string());
            route.attr.annotations = Some(annotations(info));
        }
    }
    router
}

/// A tool's MCP annotations, from its class and hints.
fn annotations(info: &ToolInfo) -> ToolAnnotations {
    ToolAnnotations::with_title(info.title)
        .read_only(info.class == ToolClass::Read)
        .destructive(info.destructive)
        .idempotent(info.idempotent)
        .open_world(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool the registry names has its MCP declaration, and nothing
    /// else is declared.
    #[test]
    fn the_router_declares_exactly_the_registry() {
        let router = router();
        let mut declared: Vec<&str> = router.map.keys().map(|name| name.as_ref()).collect();
        declared.sort_unstable();
        let mut registered: Vec<&str> = registry::names().collect();
        registered.sort_unstable();
        assert_eq!(declared, registered);
    }
}
