//! `write_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::write_note`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::write_note::*;

const DESCRIPTION: &str = "Create a note (overwrite: true replaces one). content may hold frontmatter; title, tags, aliases and frontmatter merge into it; template fills {{title}}/{{date}}. Reports sha256 and unresolved links; dry_run the diff.";

#[tool_router(router = write_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "write_note",
        description = DESCRIPTION,
        input_schema = schema::input::<WriteNoteArgs>(),
        output_schema = schema::output::<WriteNoteOut>()
    )]
    async fn write_note(
        &self,
        Parameters(args): Parameters<WriteNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
