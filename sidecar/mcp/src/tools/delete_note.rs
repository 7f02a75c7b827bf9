//! `delete_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::delete_note`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::delete_note::*;

const DESCRIPTION: &str = "Move a note to .trash/ (restorable), listing the notes whose links it breaks; link_policy mark_deleted rewrites those links to [[name (deleted)]].";

#[tool_router(router = delete_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "delete_note",
        description = DESCRIPTION,
        input_schema = schema::input::<DeleteNoteArgs>(),
        output_schema = schema::output::<DeleteNoteOut>()
    )]
    async fn delete_note(
        &self,
        Parameters(args): Parameters<DeleteNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
