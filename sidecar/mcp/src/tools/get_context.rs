//! `get_context` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::get_context`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::get_context::*;

const DESCRIPTION: &str = "Evidence for a question: the best notes for `query` (words, meaning with a model; search_notes' syntax, filters), best passages within max_chars. around: a note's links.";

#[tool_router(router = get_context_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "get_context",
        description = DESCRIPTION,
        input_schema = schema::input::<GetContextArgs>(),
        output_schema = schema::output::<GetContextOut>()
    )]
    async fn get_context(&self, Parameters(args): Parameters<GetContextArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
