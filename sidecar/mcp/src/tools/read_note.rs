//! `read_note` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::read_note`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::read_note::*;
use weft_tools::versions::HISTORY_WAIT;

const DESCRIPTION: &str = "Read a note (or up to 10: paths) with its sha256. view: full (default), body, metadata (frontmatter, backlinks with context), outline (sections as A::B, block ids, keys), section. Long text: next_offset as offset. version: a note_history id.";

#[tool_router(router = read_note_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "read_note",
        description = DESCRIPTION,
        input_schema = schema::input::<ReadNoteArgs>(),
        output_schema = schema::output::<ReadNoteOut>()
    )]
    async fn read_note(&self, Parameters(args): Parameters<ReadNoteArgs>) -> CallToolResult {
        if args.version.is_some() {
            self.state.wait_history(HISTORY_WAIT).await;
        }
        self.run(move |state| run(state, args)).await
    }
}
