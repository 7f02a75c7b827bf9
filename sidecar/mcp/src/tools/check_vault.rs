//! `check_vault` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::check_vault`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::check_vault::*;

#[tool_router(router = check_vault_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "check_vault",
        description = "Vault health problems, each with its fix; kinds picks them (broken links, orphans, duplicates, property types).",
        input_schema = schema::input::<CheckVaultArgs>(),
        output_schema = schema::output::<CheckVaultOut>()
    )]
    async fn check_vault(&self, Parameters(args): Parameters<CheckVaultArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
