//! `list_tags` as an MCP tool: its description, schemas and annotations; the
//! answer is [`weft_tools::list_tags`].

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
        title = "List tags",
        description = "Tags with note counts and hierarchical roll-up (`a` counts notes tagged `a/b`); prefix filters. facet keys lists frontmatter keys, values a key's values, rels typed-link keys.",
        input_schema = schema::input::<ListTagsArgs>(),
        output_schema = schema::output::<ListTagsOut>(),
        annotations(title = "List tags", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_tags(&self, Parameters(args): Parameters<ListTagsArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
