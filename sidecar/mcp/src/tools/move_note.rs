//! `move_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::move_note`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::move_note::*;

const DESCRIPTION: &str = "Move or rename a note, attachment or folder. update_links (default true) rewrites every link to it, keeping |alias, #heading, #^block and style; false lists the links left behind.";

#[tool_router(router = move_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "move_note",
        description = DESCRIPTION,
        input_schema = schema::input::<MoveNoteArgs>(),
        output_schema = schema::output::<MoveNoteOut>()
    )]
    async fn move_note(
        &self,
        Parameters(args): Parameters<MoveNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
