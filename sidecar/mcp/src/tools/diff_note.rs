//! `diff_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::diff_note`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::diff_note::*;
use weft_tools::versions::{HISTORY_WAIT, noting_loss};

const DESCRIPTION: &str = "Unified diff of a note between two note_history versions, or a version and now, with added/deleted line counts.";

#[tool_router(router = diff_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "diff_note",
        description = DESCRIPTION,
        input_schema = schema::input::<DiffNoteArgs>(),
        output_schema = schema::output::<DiffNoteOut>()
    )]
    async fn diff_note(&self, Parameters(args): Parameters<DiffNoteArgs>) -> CallToolResult {
        self.state.wait_history(HISTORY_WAIT).await;
        self.run(move |state| noting_loss(state, run(state, args)))
            .await
    }
}
