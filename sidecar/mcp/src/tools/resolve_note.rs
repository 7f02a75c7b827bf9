//! `resolve_note` as an MCP tool: its description, schemas and annotations; the
//! answer is [`weft_tools::resolve_note`].

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
        title = "Resolve note name",
        description = "Turn a title, alias, [[link]] target, path or partial name into ranked candidate notes, each with why it matched, and say what a link to it resolves to.",
        input_schema = schema::input::<ResolveNoteArgs>(),
        output_schema = schema::output::<ResolveNoteOut>(),
        annotations(title = "Resolve note name", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn resolve_note(&self, Parameters(args): Parameters<ResolveNoteArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
