//! `resolve_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::resolve_note`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::resolve_note::*;

#[tool_router(router = resolve_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "resolve_note",
        description = "Turn a title, alias, [[link]] target, path or partial name into ranked candidate notes with why each matched, and what a link to it resolves to.",
        input_schema = schema::input::<ResolveNoteArgs>(),
        output_schema = schema::output::<ResolveNoteOut>()
    )]
    async fn resolve_note(&self, Parameters(args): Parameters<ResolveNoteArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
