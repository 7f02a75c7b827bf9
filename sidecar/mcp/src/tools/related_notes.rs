//! `related_notes` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::related_notes`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::related_notes::*;

#[tool_router(router = related_notes_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "related_notes",
        description = "Notes related to a note (`path`) or a `text` by links (direct, shared targets, cited together), tags and wording, with reasons.",
        input_schema = schema::input::<RelatedNotesArgs>(),
        output_schema = schema::output::<RelatedNotesOut>()
    )]
    async fn related_notes(
        &self,
        Parameters(args): Parameters<RelatedNotesArgs>,
    ) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
