//! `get_links` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::get_links`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::get_links::*;

const DESCRIPTION: &str = "Links around a note, no bodies: in (backlinks with line and context), out or both; depth walks further; format graph: nodes and edges; rel: typed links (frontmatter keys like part_of).";

#[tool_router(router = get_links_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "get_links",
        description = DESCRIPTION,
        input_schema = schema::input::<GetLinksArgs>(),
        output_schema = schema::output::<GetLinksOut>()
    )]
    async fn get_links(&self, Parameters(args): Parameters<GetLinksArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
