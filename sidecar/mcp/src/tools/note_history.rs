//! `note_history` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::note_history`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::note_history::*;
use weft_tools::versions::{HISTORY_WAIT, noting_loss};

const DESCRIPTION: &str = "Versions of a note (across renames and deletion) or, without path, the vault's recent changes: id, time, author, message, source. Use ids in read_note(version), diff_note, restore_note.";

#[tool_router(router = note_history_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "note_history",
        description = DESCRIPTION,
        input_schema = schema::input::<NoteHistoryArgs>(),
        output_schema = schema::output::<NoteHistoryOut>()
    )]
    async fn note_history(&self, Parameters(args): Parameters<NoteHistoryArgs>) -> CallToolResult {
        self.state.wait_history(HISTORY_WAIT).await;
        self.run(move |state| noting_loss(state, run(state, args)))
            .await
    }
}
