//! An in-process MCP client session for tests: the server over a tokio
//! duplex pipe, driven by rmcp's client, on fixture vaults written to a
//! temporary folder (`//- /path.md` starts a file). Every successful tool
//! result's structured content is checked against the tool's declared
//! output schema. For this crate's tests and, with the `test-support`
//! feature, tests of the crates above (editors and agents on one vault).

mod schema_check;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, NumberOrString, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, RequestMetaObject, ResourceUpdatedNotificationParam, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::{Phase, Profile, Server, ToolState, serve};

/// How long a test waits for something that should happen at once on an
/// idle machine; it only bounds a failing run.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A client that records `resources/updated` notifications.
pub struct TestClient {
    pub info: ClientConfig,
    pub updates: mpsc::UnboundedSender<String>,
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updates.send(params.uri);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self
            .updates
            .send(format!("progress: {}", params.message.unwrap_or_default()));
    }
}

pub struct Session {
    pub dir: tempfile::TempDir,
    pub state: Arc<ToolState>,
    pub client: RunningService<RoleClient, TestClient>,
    pub updates: mpsc::UnboundedReceiver<String>,
    schemas: Mutex<HashMap<String, Tool>>,
}

/// Writes `//- /path` fixture files under `root`.
pub fn write_fixture(root: &Path, fixture: &str) {
    weft_workspace::fixture::write(root, fixture);
}

/// A legacy (initialize) client info.
pub fn legacy_info() -> ClientConfig {
    ClientConfig::default().with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// A session on a fixture vault, after the vault is fully indexed.
pub async fn session(fixture: &str) -> Session {
    session_with(fixture, Profile::default(), true).await
}

pub async fn session_with(fixture: &str, args: Profile, wait: bool) -> Session {
    session_prepared(fixture, args, wait, |_| {}).await
}

/// A session on a fixture changed by `prepare` before indexing.
pub async fn session_prepared(
    fixture: &str,
    args: Profile,
    wait: bool,
    prepare: impl FnOnce(&Path),
) -> Session {
    let dir = tempfile::tempdir().expect("temp dir");
    write_fixture(dir.path(), fixture);
    prepare(dir.path());
    let state = ToolState::open(dir.path(), args).expect("opens");
    if wait {
        state.start();
        let phase = tokio::time::timeout(DEADLINE, state.wait_ready())
            .await
            .expect("indexed in time");
        assert_eq!(phase, Phase::Ready);
    }
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let served = state.clone();
    if wait {
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(async move { serve(served, server_read, server_write).await });
    } else {
        // Never loaded: every answer comes from an empty index, as during
        // indexing.
        tokio::spawn(async move {
            if let Ok(running) = Server::new(served, crate::tools::router())
                .serve(server_io)
                .await
            {
                let _ = running.waiting().await;
            }
        });
    }
    let (tx, updates) = mpsc::unbounded_channel();
    let client = TestClient {
        info: legacy_info(),
        updates: tx,
    }
    .serve(client_io)
    .await
    .expect("handshake");
    Session {
        dir,
        state,
        client,
        updates,
        schemas: Mutex::new(HashMap::new()),
    }
}

impl Session {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub async fn call_raw(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args else {
            panic!("arguments must be an object")
        };
        tokio::time::timeout(
            DEADLINE,
            self.client
                .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map)),
        )
        .await
        .expect("answered in time")
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
    }

    /// [`Session::call_raw`] asking for progress notifications (they arrive
    /// in `updates` as `progress: <message>`).
    pub async fn call_with_progress(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args else {
            panic!("arguments must be an object")
        };
        let mut params = CallToolRequestParams::new(tool.to_string()).with_arguments(map);
        params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
            NumberOrString::Number(7),
        )));
        tokio::time::timeout(DEADLINE, self.client.call_tool(params))
            .await
            .expect("answered in time")
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
    }

    /// Calls a tool that must succeed; returns its text and structured
    /// content, checked against the output schema.
    pub async fn ok(&self, tool: &str, args: Value) -> (String, Value) {
        let result = self.call_raw(tool, args.clone()).await;
        let text = text_of(&result);
        assert_ne!(result.is_error, Some(true), "{tool} {args} failed:\n{text}");
        let structured = result
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("{tool}: no structured content"));
        let schema = self
            .tool(tool)
            .await
            .output_schema
            .unwrap_or_else(|| panic!("{tool}: no output schema"));
        let schema = Value::Object((*schema).clone());
        if let Err(errors) = schema_check::validate(&schema, &structured) {
            panic!(
                "{tool}: structured content does not match the output schema:\n{}\n{structured:#}",
                errors.join("\n")
            );
        }
        (text, structured)
    }

    /// Calls a tool that must fail with a tool error; returns its text.
    pub async fn err(&self, tool: &str, args: Value) -> String {
        let result = self.call_raw(tool, args.clone()).await;
        let text = text_of(&result);
        assert_eq!(
            result.is_error,
            Some(true),
            "{tool} {args} should fail but answered:\n{text}"
        );
        assert!(text.starts_with("Error: "), "{text}");
        text
    }

    pub async fn tool(&self, name: &str) -> Tool {
        if let Some(t) = self.schemas.lock().unwrap().get(name) {
            return t.clone();
        }
        let tools = self.client.list_all_tools().await.expect("tools/list");
        let mut cache = self.schemas.lock().unwrap();
        for t in tools {
            cache.insert(t.name.to_string(), t);
        }
        cache
            .get(name)
            .cloned()
            .unwrap_or_else(|| panic!("no tool {name}"))
    }

    /// Waits until `check` passes, polling; the deadline only bounds a
    /// failing run.
    pub async fn eventually<F, Fut>(&self, what: &str, mut check: F)
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        let start = std::time::Instant::now();
        loop {
            if check().await {
                return;
            }
            assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The fixture most tests share.
pub const VAULT: &str = r#"
//- /Hub.md
---
aliases: [Centre]
tags: [topic, project/weft]
status: active
---
# The Hub

Intro paragraph about tantivy search. ^intro

## Details

The details of the hub.

### Deep

Deeper still.

## Notes

First notes section.
//- /notes/A.md
# A
See [[Hub]] and [[Centre|the centre]], and [[Hub#Details]].
Broken: [[Hub#Nowhere]] and [[Ghost]].
#project/weft #draft
//- /notes/Café notes/Crème.md
Back to [[hub]] and [[Plan]].
//- /x/Plan.md
# Plan X
Planning with tantivy and search engines.
## Next
Do the next thing.
//- /y/Plan.md
# Plan Y
//- /projects.md
---
title: Projects overview
part_of: "[[Hub]]"
---
The projects note, also a folder.
//- /projects/weft.md
---
tags: [project/weft]
part_of: "[[Hub]]"
---
# Weft
Weft makes vaults first-class. Search uses tantivy.
//- /projects/loom/notes.md
# Loom notes
Nothing links here.
//- /daily/2024-01-15.md
# Monday
Met about [[projects/weft]].
//- /.obsidian/ignored.md
[[Hub]]
"#;
