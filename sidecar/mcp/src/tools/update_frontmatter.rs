//! `update_frontmatter` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::update_frontmatter`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::update_frontmatter::*;

const DESCRIPTION: &str = "Change frontmatter: one note (path), several (paths) or all that `where` selects, all or nothing, YAML kept as written; add_/remove_ idempotent. dry_run.";

#[tool_router(router = update_frontmatter_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "update_frontmatter",
        description = DESCRIPTION,
        input_schema = schema::input::<UpdateFrontmatterArgs>(),
        output_schema = schema::output::<UpdateFrontmatterOut>()
    )]
    async fn update_frontmatter(
        &self,
        Parameters(args): Parameters<UpdateFrontmatterArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
