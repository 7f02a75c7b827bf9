//! `edit_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::edit_note`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::edit_note::*;

const DESCRIPTION: &str = "Change a note: ops in order, all or nothing; each field says which ops use \
it (prepend goes after frontmatter). \
expected_sha256 from read_note; dry_run shows the diff.";

#[tool_router(router = edit_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "edit_note",
        description = DESCRIPTION,
        input_schema = schema::input::<EditNoteArgs>(),
        output_schema = schema::output::<EditNoteOut>()
    )]
    async fn edit_note(
        &self,
        Parameters(args): Parameters<EditNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
