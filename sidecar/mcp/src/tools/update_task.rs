//! `update_task` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::update_task`].

use rmcp::RoleServer;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::update_task::*;

const DESCRIPTION: &str = "Change one checklist task as the Tasks plugin does: `status` done (stamps ✅ today; a recurring task gets its next copy), todo, in progress, cancelled, toggle or a symbol; set `due`, `scheduled`, `start`, `created` (`tomorrow`, `2024-05-01`, `none` clears), `priority`. Address it by `path` + `line` from list_tasks and `text` (words of the task, checked), or by `text` alone.";

#[tool_router(router = update_task_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "update_task",
        description = DESCRIPTION,
        input_schema = schema::input::<UpdateTaskArgs>(),
        output_schema = schema::output::<UpdateTaskOut>()
    )]
    async fn update_task(
        &self,
        Parameters(args): Parameters<UpdateTaskArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.run_write(&context, move |state, actor| run(state, actor, args))
            .await
    }
}
