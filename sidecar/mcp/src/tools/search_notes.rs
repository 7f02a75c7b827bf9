//! `search_notes` as an MCP tool: its description and schemas (its title
//! and hints are in `weft_tools::registry`); the answer is
//! [`weft_tools::search_notes`].

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_router};

use crate::schema;
use crate::server::Server;
use weft_tools::search_notes::*;

const DESCRIPTION: &str = "Search with snippets. query: words, \"phrase\", title:x, tag:x, folder:x, key:value|*|>=2|[a TO b] (frontmatter), AND, OR, -x, ( ), modified:>=now-7d. mode name: fuzzy names; tag: lists tags.";

#[tool_router(router = search_notes_router, vis = "pub(crate)")]
impl Server {
    #[tool(
        name = "search_notes",
        description = DESCRIPTION,
        input_schema = schema::input::<SearchNotesArgs>(),
        output_schema = schema::output::<SearchNotesOut>()
    )]
    async fn search_notes(&self, Parameters(args): Parameters<SearchNotesArgs>) -> CallToolResult {
        self.run(move |state| run(state, args)).await
    }
}
