//! `vault_info` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::vault_info`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::vault_info::*;

#[tool_router(router = vault_info_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "vault_info",
        description = "The vault: root, counts, indexing status, configuration and policy, the usage guide (query syntax, views, paging), auto-context notes, recent tool failures.",
        input_schema = schema::input::<VaultInfoArgs>(),
        output_schema = schema::output::<VaultInfoOut>()
    )]
    async fn vault_info(&self, Parameters(_args): Parameters<VaultInfoArgs>) -> CallToolResult {
        let offered: Vec<String> = self
            .tools()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        self.run(move |state| run(state, offered)).await
    }
}
