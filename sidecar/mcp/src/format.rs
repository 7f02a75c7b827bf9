//! Tool answers (`tools::format::Reply`, `ToolError`) as rmcp results: the
//! only place they are turned into MCP types.

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock};

use weft_tools::format::ToolResult;

/// The rmcp result of a tool's answer.
pub(crate) fn to_call_result(result: ToolResult) -> CallToolResult {
    match result {
        Ok(reply) => {
            let mut out = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
            out.structured_content = Some(reply.structured);
            out
        }
        Err(error) => CallToolResult::error(vec![ContentBlock::text(error.text())]),
    }
}

/// The first text block of a result.
pub(crate) fn result_text(result: &CallToolResult) -> Option<&str> {
    result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.as_str()))
}

/// The value of a blocking task, carrying its panic on to the request's
/// boundary (where it is logged with the request and answered).
pub fn joined<T>(joined: Result<T, tokio::task::JoinError>) -> Result<T, McpError> {
    match joined {
        Ok(value) => Ok(value),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(McpError::internal_error(
            format!("the request was cancelled: {error}"),
            None,
        )),
    }
}
