//! `list_tags` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::list_tags`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::list_tags::*;

#[tool_router(router = list_tags_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "list_tags",
        description = "Tags with note counts, rolled up (`a` counts notes tagged `a/b`); prefix filters. facet keys lists frontmatter keys, values a key's values, rels typed-link keys.",
        input_schema = schema::input::<ListTagsArgs>(),
        output_schema = schema::output::<ListTagsOut>()
    )]
    async fn list_tags(&self, Parameters(args): Parameters<ListTagsArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
