//! `list_tasks` as an MCP tool: its description and schemas (its title and
//! hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::list_tasks`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::list_tasks::*;

#[tool_router(router = list_tasks_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "list_tasks",
        description = "Checklist tasks (Tasks plugin format), each with the path and line `update_task` takes. Date filters `due`, `scheduled`, `start`, `done`, `created`, `happens`: `before today`, `on or after 2024-05-01`, `this week`, `none`, `any`. `status`: not done (default), todo, in progress, done, cancelled, any. `priority`: high, above medium. Or `query`: a ```tasks query (plugin syntax); `query_note`: run a note's ```tasks blocks.",
        input_schema = schema::input::<ListTasksArgs>(),
        output_schema = schema::output::<ListTasksOut>()
    )]
    async fn list_tasks(&self, Parameters(args): Parameters<ListTasksArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
