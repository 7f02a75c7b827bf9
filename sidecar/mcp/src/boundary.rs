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
//! A `ServerHandler` over [`Server`]'s, method by method, so that rmcp's
//! transports take it as they take any handler (Streamable HTTP needs
//! one). Must not know any tool: it sees requests whole.

use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::server::Server;

/// [`Server`] behind the boundary.
pub(crate) struct Boundary {
    inner: Server,
}

impl Boundary {
    pub fn new(inner: Server) -> Boundary {
        Boundary { inner }
    }

    /// Runs one request's `answer` behind the boundary: `method` (and
    /// `detail`, for the log) name it, `point` is its fault point, and
    /// `failed` turns a panic's message into the request's answer.
    async fn guard<T>(
        &self,
        point: String,
        detail: String,
        context: &RequestContext<RoleServer>,
        answer: impl Future<Output = Result<T, McpError>>,
        failed: impl FnOnce(String) -> Result<T, McpError>,
    ) -> Result<T, McpError> {
        self.inner.state.refresh_config().await;
        self.inner.announce_tool_changes(&context.peer).await;
        let answer = AssertUnwindSafe(async {
            weft_wire::fault_point(&point);
            answer.await
        })
        .catch_unwind()
        .await;
        let payload = match answer {
            Ok(answer) => return answer,
            Err(payload) => payload,
        };
        let why = weft_wire::panic_text(&*payload);
        tracing::error!(
            "weft mcp: a panic while answering {detail} (request {}): {why}; that request failed, the session goes on",
            context.id
        );
        failed(format!(
            "Weft failed while answering this request: {why}. This is a bug in Weft: the request did \
             nothing, and other requests still work. Please report it with the arguments you used."
        ))
    }

    /// A request other than a tool call, behind the boundary.
    async fn plain<T>(
        &self,
        method: &str,
        context: &RequestContext<RoleServer>,
        answer: impl Future<Output = Result<T, McpError>>,
    ) -> Result<T, McpError> {
        self.guard(
            method.to_string(),
            format!("`{method}`"),
            context,
            answer,
            |message| Err(McpError::internal_error(message, None)),
        )
        .await
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

impl ServerHandler for Boundary {
    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let tool = request.name.to_string();
        let arguments = request
            .arguments
            .as_ref()
            .map(|a| serde_json::Value::Object(a.clone()).to_string())
            .unwrap_or_default();
        let detail = format!(
            "tools/call `{tool}` {}",
            weft_tools::format::clip(&arguments, 300)
        );
        let answer = self.inner.call_tool(request, context.clone());
        self.guard(
            format!("tools/call:{tool}"),
            detail,
            &context,
            answer,
            |message| {
                self.inner
                    .state
                    .record_failure(&tool, String::new(), &message);
                Ok(
                    CallToolResult::error(vec![ContentBlock::text(format!("Error: {message}"))])
                        .into(),
                )
            },
        )
        .await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let answer = self.inner.list_tools(request, context.clone());
        self.plain("tools/list", &context, answer).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let answer = self.inner.list_prompts(request, context.clone());
        self.plain("prompts/list", &context, answer).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let answer = self.inner.get_prompt(request, context.clone());
        self.plain("prompts/get", &context, answer).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let answer = self.inner.complete(request, context.clone());
        self.plain("completion/complete", &context, answer).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let answer = self.inner.list_resources(request, context.clone());
        self.plain("resources/list", &context, answer).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let answer = self.inner.list_resource_templates(request, context.clone());
        self.plain("resources/templates/list", &context, answer)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let answer = self.inner.read_resource(request, context.clone());
        self.plain("resources/read", &context, answer).await
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let answer = self.inner.subscribe(request, context.clone());
        self.plain("resources/subscribe", &context, answer).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let answer = self.inner.unsubscribe(request, context.clone());
        self.plain("resources/unsubscribe", &context, answer).await
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let answer = AssertUnwindSafe(self.inner.listen(context))
            .catch_unwind()
            .await;
        answer.unwrap_or_else(|payload| {
            tracing::error!(
                "weft mcp: a panic while forwarding subscribed changes: {}; the session goes on",
                weft_wire::panic_text(&*payload)
            );
            Ok(())
        })
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        if CLIENT_METHODS.contains(&request.method.as_str()) {
            // rmcp reads a known method whose parameters it cannot as an
            // unknown one; the client is told what is wrong instead.
            return Err(McpError::invalid_params(
                format!(
                    "the parameters of `{}` are not of the shape the MCP specification gives \
                     it (a member missing or of the wrong type)",
                    request.method
                ),
                None,
            ));
        }
        self.inner.on_custom_request(request, context).await
    }
}
