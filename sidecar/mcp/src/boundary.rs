//! What every request of an MCP session passes before its handler:
//!
//! - the vault's configuration is brought up to date (two `stat`s when
//!   nothing changed), so a `deny` rule or `read_only` added to `.weft.toml`
//!   applies to the very next request, and a session whose offered tools
//!   changed is told (`notifications/tools/list_changed`);
//! - a standard request whose parameters rmcp could not read (it takes it
//!   for an unknown method) is answered "invalid params", not "method not
//!   found";
//! - the panic boundary: a request whose handler panics is answered with an
//!   error (for a tool, a tool error the agent can read, also kept for
//!   `vault_info`), the panic is logged with the request, and the session,
//!   the daemon and every other session go on.
//!
//! Must not know any tool: it sees requests whole.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use rmcp::model::{
    CallToolResult, ClientNotification, ClientRequest, ContentBlock, ProtocolVersion, ServerResult,
};
use rmcp::service::{NotificationContext, RequestContext, Service};
use rmcp::{ErrorData as McpError, RoleServer};

use super::server::Server;

/// [`Server`] behind the boundary.
pub(crate) struct Boundary {
    inner: Server,
}

impl Boundary {
    pub fn new(inner: Server) -> Boundary {
        Boundary { inner }
    }
}

/// The MCP specification's requests from a client: rmcp reads one whose
/// parameters it cannot parse as a custom request of that name.
const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// Where a request enters: its method, and for a tool call the tool.
fn fault_point(request: &ClientRequest) -> String {
    match request {
        ClientRequest::CallToolRequest(call) => {
            format!("{}:{}", request.method(), call.params.name)
        }
        other => other.method().to_string(),
    }
}

/// The request for the log: its method, tool and arguments, clipped.
fn describe(request: &ClientRequest) -> String {
    match request {
        ClientRequest::CallToolRequest(call) => {
            let arguments = call
                .params
                .arguments
                .as_ref()
                .map(|a| serde_json::Value::Object(a.clone()).to_string())
                .unwrap_or_default();
            format!(
                "tools/call `{}` {}",
                call.params.name,
                weft_tools::format::clip(&arguments, 300)
            )
        }
        other => format!("`{}`", other.method()),
    }
}

impl Service<RoleServer> for Boundary {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        if let ClientRequest::CustomRequest(custom) = &request
            && CLIENT_METHODS.contains(&custom.method.as_str())
        {
            // rmcp reads a known method whose parameters it cannot as an
            // unknown one; the client is told what is wrong instead.
            return Err(McpError::invalid_params(
                format!(
                    "the parameters of `{}` are not of the shape the MCP specification gives                      it (a member missing or of the wrong type)",
                    custom.method
                ),
                None,
            ));
        }
        let point = fault_point(&request);
        let what = describe(&request);
        let tool = match &request {
            ClientRequest::CallToolRequest(call) => Some(call.params.name.to_string()),
            _ => None,
        };
        let id = context.id.clone();
        // Results carry `resultType` from 2026-07-28 on only (as rmcp's own
        // handler does it).
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let answer = AssertUnwindSafe(async {
            self.inner.state.refresh_config().await;
            self.inner.announce_tool_changes(&context.peer).await;
            weft_wire::fault_point(&point);
            self.inner.handle_request(request, context).await
        })
        .catch_unwind()
        .await;
        let payload = match answer {
            Ok(answer) => return answer,
            Err(payload) => payload,
        };
        let why = weft_wire::panic_text(&*payload);
        tracing::error!(
            "weft mcp: a panic while answering {what} (request {id}): {why}; that request failed, the session goes on"
        );
        let message = format!(
            "Weft failed while answering this request: {why}. This is a bug in Weft: the request did \
             nothing, and other requests still work. Please report it with the arguments you used."
        );
        match tool {
            Some(tool) => {
                self.inner
                    .state
                    .record_failure(&tool, String::new(), &message);
                let mut result =
                    ServerResult::CallToolResult(CallToolResult::error(vec![ContentBlock::text(
                        format!("Error: {message}"),
                    )]));
                if !modern {
                    result.strip_result_type_for_legacy_peer();
                }
                Ok(result)
            }
            None => Err(McpError::internal_error(message, None)),
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        let answer = AssertUnwindSafe(self.inner.handle_notification(notification, context))
            .catch_unwind()
            .await;
        answer.unwrap_or_else(|payload| {
            tracing::error!(
                "weft mcp: a panic while handling a notification: {}; the session goes on",
                weft_wire::panic_text(&*payload)
            );
            Ok(())
        })
    }

    fn get_info(&self) -> rmcp::model::ServerConfig {
        <Server as Service<RoleServer>>::get_info(&self.inner)
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        <Server as Service<RoleServer>>::supported_protocol_versions(&self.inner)
    }
}
