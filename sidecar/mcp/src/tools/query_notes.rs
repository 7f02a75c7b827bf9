//! `query_notes` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::query_notes`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::query_notes::*;

#[tool_router(router = query_notes_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "query_notes",
        description = "Notes as a table of properties (Obsidian Bases): a `base` (.base file or note with ```base) and `view`, or a `filter` Bases expression (`status == 'active' && due < today() + '7d'`), `columns`, `sort` (-due), `group_by`.",
        input_schema = schema::input::<QueryNotesArgs>(),
        output_schema = schema::output::<QueryNotesOut>()
    )]
    async fn query_notes(&self, Parameters(args): Parameters<QueryNotesArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
