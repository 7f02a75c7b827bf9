//! `list_notes` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::list_notes`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::list_notes::*;

const DESCRIPTION: &str = "Browse a folder: subfolders with note counts and its notes, or all below (recursive, depth); filter by tags, modified_since (7d); sort alpha or newest first (modified, created); format tree.";

#[tool_router(router = list_notes_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "list_notes",
        description = DESCRIPTION,
        input_schema = schema::input::<ListNotesArgs>(),
        output_schema = schema::output::<ListNotesOut>()
    )]
    async fn list_notes(&self, Parameters(args): Parameters<ListNotesArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
