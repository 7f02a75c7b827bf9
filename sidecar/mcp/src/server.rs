//! One MCP session: the rmcp `ServerHandler` that routes tools (filtered by
//! the profile), prompts, completions and resources, appends the
//! auto-context block to the session's first answer, turns bad arguments
//! into errors that list the accepted parameters, records failures, and
//! forwards `resources/updated` for subscribed notes.
//!
//! Must not know how any tool computes its answer.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse,
    ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use super::format::{joined, result_text, to_call_result};
use super::{prompts, resources};
use weft_tools::format::ToolError;
use weft_tools::format::ToolResult;
use weft_tools::guide::INSTRUCTIONS;
use weft_tools::state::ToolState;
use weft_tools::{Needs, context, registry};
use weft_workspace::sync::lock;

/// How long a write waits for indexing to finish before it gives up.
const WRITE_WAIT: Duration = Duration::from_secs(30);

/// The history author for a request: the client's name from the handshake
/// (or, with `server/discover`, from the request's metadata), else `agent`.
pub(crate) fn actor_of(context: &RequestContext<RoleServer>) -> String {
    context
        .client_info()
        .map(|info| info.name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "agent".to_string())
}

/// One MCP session over a shared [`ToolState`].
pub struct Server {
    pub(crate) state: Arc<ToolState>,
    tools: ToolRouter<Server>,
    session: Arc<Session>,
}

/// What one session remembers.
#[derive(Default)]
struct Session {
    /// The auto-context block went out.
    context_sent: AtomicBool,
    /// The tools last listed to the client (`None` before `tools/list`).
    listed: Mutex<Option<Vec<String>>>,
    /// Legacy `resources/subscribe`: URI key → URI as the client wrote it.
    subscriptions: Mutex<HashMap<String, String>>,
    forwarding: AtomicBool,
}

impl Server {
    /// A session over `state` offering `tools` (`mcp::tools::router`).
    pub fn new(state: Arc<ToolState>, tools: ToolRouter<Server>) -> Server {
        Server {
            state,
            tools,
            session: Arc::new(Session::default()),
        }
    }

    /// The tools this session offers, under the configuration now (a
    /// `read_only` added to `.weft.toml` withdraws the writing tools).
    pub fn tools(&self) -> Vec<Tool> {
        let policy = self.state.policy();
        let mut tools = self.tools.list_all();
        tools.retain(|t| policy.offers(&t.name));
        tools
    }

    /// Tells the client its tool list changed when the configuration now
    /// offers other tools than it was last given (`read_only` toggled).
    pub(super) async fn announce_tool_changes(&self, peer: &rmcp::Peer<RoleServer>) {
        let offered: Vec<String> = self
            .tools()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        let changed = {
            let mut listed = lock(&self.session.listed);
            match listed.as_mut() {
                Some(listed) if *listed != offered => {
                    *listed = offered;
                    true
                }
                _ => false,
            }
        };
        if changed && let Err(e) = peer.notify_tool_list_changed().await {
            tracing::debug!("telling the client its tools changed failed: {e}");
        }
    }

    /// Runs a write tool's body once the vault is indexed, with the actor.
    pub(crate) async fn run_write<F>(
        &self,
        context: &RequestContext<RoleServer>,
        body: F,
    ) -> CallToolResult
    where
        F: FnOnce(&ToolState, &str) -> ToolResult + Send + 'static,
    {
        let actor = actor_of(context);
        self.state.wait_writable(WRITE_WAIT).await;
        self.run(move |state| body(state, &actor)).await
    }

    /// Runs a tool's body on a blocking thread (it takes index locks and
    /// reads files) and turns its answer into a result. A panic in the body
    /// goes on to the session's panic boundary (`boundary`).
    pub(crate) async fn run<F>(&self, body: F) -> CallToolResult
    where
        F: FnOnce(&ToolState) -> ToolResult + Send + 'static,
    {
        let state = self.state.clone();
        let answer = tokio::task::spawn_blocking(move || {
            state.check_usable()?;
            body(&state)
        })
        .await;
        match joined(answer) {
            Ok(result) => to_call_result(result),
            Err(e) => {
                CallToolResult::error(vec![ContentBlock::text(format!("Error: {}", e.message))])
            }
        }
    }

    /// Waits until the index holds what a tool `needs` (bounded), with a
    /// progress notification about four times a second when the client
    /// asked for progress.
    async fn wait_for_index(
        &self,
        needs: Needs,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ToolError> {
        // Writes wait on their own (longer, and refuse in their own words).
        if needs == Needs::Everything || self.state.has(needs) {
            return Ok(());
        }
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let mut step = 0.0;
        self.state
            .wait_for(needs, |indexing| {
                let Some(token) = token.clone() else { return };
                step += 1.0;
                let mut note =
                    ProgressNotificationParam::new(token, indexing.done.map_or(step, |d| d as f64))
                        .with_message(indexing.message.clone());
                if let Some(total) = indexing.total {
                    note = note.with_total(total as f64);
                }
                let peer = peer.clone();
                tokio::spawn(async move {
                    let _ = peer.notify_progress(note).await;
                });
            })
            .await
    }

    /// Rewrites rmcp's argument error so it says what the tool accepts.
    fn explain_arguments(&self, tool: &str, result: &mut CallToolResult) {
        let Some(text) = result_text(result) else {
            return;
        };
        let Some(detail) = text.strip_prefix("failed to deserialize parameters: ") else {
            return;
        };
        let accepted: Vec<String> = self
            .tools
            .get(tool)
            .and_then(|t| t.input_schema.get("properties").cloned())
            .and_then(|p| p.as_object().map(|o| o.keys().cloned().collect()))
            .unwrap_or_default();
        let mut message = format!("Error: invalid arguments for `{tool}`: {detail}.");
        if let Some(unknown) = detail
            .strip_prefix("unknown field `")
            .and_then(|r| r.split('`').next())
        {
            let best = accepted
                .iter()
                .map(|a| (strsim::jaro_winkler(unknown, a), a))
                .filter(|(s, _)| *s >= 0.7)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            message = format!("Error: `{tool}` has no parameter `{unknown}`.");
            if let Some((_, best)) = best {
                message.push_str(&format!(" Did you mean `{best}`?"));
            }
        }
        if detail.starts_with("missing field") && tool != "vault_info" {
            message.push_str(" Pass it and call again.");
        }
        message.push_str(&format!(
            "\nAccepted parameters: {}.",
            accepted
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        result.content = vec![ContentBlock::text(message)];
    }

    /// Appends the auto-context block to the first successful answer of the
    /// session, once the notes are indexed.
    fn add_auto_context(&self, result: &mut CallToolResult) {
        if self.state.config().tags.auto_context_tag.is_none()
            || self.state.live().is_none()
            || self.session.context_sent.load(Ordering::SeqCst)
        {
            return;
        }
        let Some(block) = context::auto_context(&self.state) else {
            return;
        };
        if self.session.context_sent.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Some(ContentBlock::Text(text)) = result.content.first_mut() {
            text.text.push_str("\n\n---\n");
            text.text.push_str(&block);
            text.text.push_str("\n---");
        }
    }

    /// Starts forwarding changes to this session's legacy subscriptions.
    fn forward_changes(&self, peer: rmcp::Peer<RoleServer>) {
        if self.session.forwarding.swap(true, Ordering::SeqCst) {
            return;
        }
        // Subscribed before `resources/subscribe` returns: no change after
        // it is missed.
        let mut changes = self.state.subscribe_changes();
        let session = self.session.clone();
        tokio::spawn(async move {
            loop {
                let paths = match changes.recv().await {
                    Ok(paths) => paths,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => break,
                };
                let uris: Vec<String> = {
                    let subs = lock(&session.subscriptions);
                    resources::updated_uris(&paths)
                        .into_iter()
                        .filter_map(|key| subs.get(&key).cloned())
                        .collect()
                };
                for uri in uris {
                    if peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
            }
        });
    }
}

/// A short account of the arguments for the failure log.
fn summarize(arguments: Option<&serde_json::Map<String, Value>>) -> String {
    let Some(arguments) = arguments else {
        return String::new();
    };
    let mut out: BTreeMap<&str, String> = BTreeMap::new();
    for (k, v) in arguments {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.insert(k, weft_tools::format::clip(&text, 60));
    }
    out.into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut info = Implementation::new("weft", env!("CARGO_PKG_VERSION"));
        info.title = Some("Weft".into());
        info.description = Some(
            "A Markdown vault with [[wikilinks]]: notes, links, tags and full-text search.".into(),
        );
        ServerConfig::new(capabilities)
            .with_server_info(info)
            .with_instructions(INSTRUCTIONS)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let policy = self.state.policy();
        if !self.tools.has_route(&name) || !policy.offers(&name) {
            if registry::find(&name).is_some() && !policy.offers(&name) {
                let message = policy.why_not_offered(&name);
                self.state.record_failure(&name, String::new(), &message);
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "Error: {message}"
                ))])
                .into());
            }
            let offered: Vec<String> = self
                .tools()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            let best = offered
                .iter()
                .map(|t| (strsim::jaro_winkler(&name, t), t))
                .filter(|(s, _)| *s >= 0.75)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, t)| format!(" Did you mean `{t}`?"))
                .unwrap_or_default();
            return Err(McpError::invalid_params(
                format!(
                    "Unknown tool `{name}`.{best} Tools: {}.",
                    offered.join(", ")
                ),
                None,
            ));
        }
        let input = summarize(request.arguments.as_ref());
        // Never an answer from a partial index: wait for what the tool
        // needs, telling the client how far indexing is.
        let needs = registry::find(&name).map_or(Needs::Nothing, |tool| tool.needs);
        if let Err(error) = self.wait_for_index(needs, &context).await {
            let text = error.text();
            self.state
                .record_failure(&name, input, text.trim_start_matches("Error: "));
            return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
        }
        let call = ToolCallContext::new(self, request, context);
        match self.tools.call(call).await? {
            CallToolResponse::Complete(mut result) => {
                if result.is_error == Some(true) {
                    self.explain_arguments(&name, &mut result);
                    let text = result_text(&result)
                        .unwrap_or("")
                        .trim_start_matches("Error: ")
                        .to_string();
                    self.state.record_failure(&name, input, &text);
                } else {
                    self.add_auto_context(&mut result);
                }
                Ok(result.into())
            }
            other => Ok(other),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.tools();
        *lock(&self.session.listed) = Some(tools.iter().map(|t| t.name.to_string()).collect());
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let offered = self.state.policy().offers(name);
        self.tools.get(name).filter(|_| offered).cloned()
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let state = self.state.clone();
        joined(tokio::task::spawn_blocking(move || prompts::get(&state, request)).await)?
            .map(GetPromptResponse::from)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let state = self.state.clone();
        joined(tokio::task::spawn_blocking(move || prompts::complete(&state, request)).await)?
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let state = self.state.clone();
        joined(tokio::task::spawn_blocking(move || resources::read(&state, &request.uri)).await)?
            .map(Into::into)
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let key = resources::subscription_key(&self.state, &request.uri)?;
        lock(&self.session.subscriptions).insert(key, request.uri);
        self.forward_changes(context.peer);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let key = resources::subscription_key(&self.state, &request.uri)?;
        lock(&self.session.subscriptions).remove(&key);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| resources::subscription_key(&self.state, uri).is_ok())
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let wanted: HashMap<String, String> = context
            .accepted()
            .resource_subscriptions
            .iter()
            .flatten()
            .filter_map(|uri| {
                resources::subscription_key(&self.state, uri)
                    .ok()
                    .map(|k| (k, uri.clone()))
            })
            .collect();
        let mut changes = self.state.subscribe_changes();
        let sink = context.sink().clone();
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                received = changes.recv() => {
                    let paths = match received {
                        Ok(paths) => paths,
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => return Ok(()),
                    };
                    for key in resources::updated_uris(&paths) {
                        if let Some(uri) = wanted.get(&key)
                            && sink.notify_resource_updated(uri.clone()).await.is_err() {
                                return Ok(());
                            }
                    }
                }
            }
        }
    }
}
