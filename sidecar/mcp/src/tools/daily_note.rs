//! `daily_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::daily_note`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::daily_note::*;

const DESCRIPTION: &str = "Today's (or date's) daily note, created from the template when missing. op defaults to append with content, else read; *_section ops take section A::B.";

#[tool_router(router = daily_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "daily_note",
        description = DESCRIPTION,
        input_schema = schema::input::<DailyNoteArgs>(),
        output_schema = schema::output::<DailyNoteOut>()
    )]
    async fn daily_note(
        &self,
        Parameters(args): Parameters<DailyNoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
