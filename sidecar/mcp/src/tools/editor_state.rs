//! `editor_state` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::editor_state`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::editor_state::*;

#[tool_router(router = editor_state_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "editor_state",
        description = "What the user is working on: notes open in their editor, most recently edited first, with unsaved changes by section and the last edit's line. For \"this note\", \"what I'm writing\".",
        input_schema = schema::input::<EditorStateArgs>(),
        output_schema = schema::output::<EditorStateOut>()
    )]
    async fn editor_state(&self, Parameters(args): Parameters<EditorStateArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
