//! `restore_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::restore_note`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::restore_note::*;
use weft_tools::versions::{HISTORY_WAIT, noting_loss};

const DESCRIPTION: &str = "Bring back a note_history version as a new version (history is kept), deleted and moved notes too. dry_run shows the diff.";

#[tool_router(router = restore_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "restore_note",
        description = DESCRIPTION,
        input_schema = schema::input::<RestoreNoteArgs>(),
        output_schema = schema::output::<RestoreNoteOut>()
    )]
    async fn restore_note(
        &self,
        Parameters(args): Parameters<RestoreNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.state.wait_history(HISTORY_WAIT).await;
        self.run_write(&context, move |state, actor| {
            noting_loss(state, run(state, actor, args))
        })
        .await
    }
}
