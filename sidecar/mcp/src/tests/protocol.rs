//! The protocol around the tools: both handshakes, the tool list and its
//! size, unknown methods and tools, prompts, completion, resources and
//! `resources/updated` in both subscription styles, and the full-text
//! index following changes on disk.

use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequestParams, CustomRequest, ErrorCode,
    GetPromptRequestParams, ProtocolVersion, ReadResourceRequestParams, Reference,
    ResourceContents, ServerNotification, SubscribeRequestParams, SubscriptionFilter,
};
use rmcp::service::ServiceError;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{DEADLINE, TestClient, VAULT, session, text_of, write_fixture};
use crate::{Profile, ToolState, serve};

/// Tools Zed's agent has built in; ours must not collide with them.
const ZED_TOOLS: &[&str] = &[
    "read_file",
    "edit_file",
    "grep",
    "find_path",
    "list_directory",
    "create_directory",
    "delete_path",
    "copy_path",
    "move_path",
    "now",
    "open",
    "terminal",
    "thinking",
    "fetch",
    "web_search",
    "diagnostics",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_names_weft_and_carries_instructions() {
    let s = session(VAULT).await;
    let info = s.client.peer_info().expect("server info");
    let server = info.server_info.clone().expect("server info");
    assert_eq!(server.name, "weft");
    assert_eq!(server.title.as_deref(), Some("Weft"));
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("expected_sha256")
            && instructions.contains("without .md")
            && instructions.contains("dry_run")
    );
    let caps = &info.capabilities;
    assert!(caps.tools.is_some() && caps.prompts.is_some() && caps.completions.is_some());
    assert_eq!(
        caps.resources.as_ref().and_then(|r| r.subscribe),
        Some(true)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_discover_handshake_works_and_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), VAULT);
    let state = ToolState::open(dir.path(), Profile::default()).unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(serve(state.clone(), server_read, server_write));
    let (tx, _rx) = mpsc::unbounded_channel();
    // The handshake does not wait for indexing (which starts with it).
    let client = tokio::time::timeout(
        DEADLINE,
        TestClient {
            info: Default::default(),
            updates: tx,
        }
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    )
    .await
    .expect("discover answered")
    .expect("discover handshake");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 23);
    tokio::time::timeout(DEADLINE, state.wait_ready())
        .await
        .unwrap();
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("search_notes")
                .with_arguments(json!({"query": "tantivy"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert!(
        text_of(&result).contains("Found 3 notes"),
        "{}",
        text_of(&result)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_is_complete_annotated_and_small() {
    let s = session(VAULT).await;
    let tools = s.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "check_vault",
            "diff_note",
            "editor_state",
            "get_context",
            "get_links",
            "list_notes",
            "list_tags",
            "list_tasks",
            "note_history",
            "query_notes",
            "read_note",
            "related_notes",
            "resolve_note",
            "restore_note",
            "search_notes",
            "vault_info"
        ]
        .iter()
        .chain(&[
            "daily_note",
            "delete_note",
            "edit_note",
            "move_note",
            "update_frontmatter",
            "update_task",
            "write_note"
        ])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .copied()
        .collect::<Vec<_>>()
    );
    let mut size = 0;
    for t in &tools {
        assert!(
            !ZED_TOOLS.contains(&t.name.as_ref()),
            "{} collides with a Zed tool",
            t.name
        );
        assert!(t.title.is_some(), "{} has no title", t.name);
        let a = t
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no annotations", t.name));
        // Write tools: destructive unless they only add (daily notes),
        // idempotent where a repeat changes nothing more.
        let expected = match t.name.as_ref() {
            "write_note" | "update_frontmatter" => (Some(false), Some(true), Some(true)),
            "edit_note" | "move_note" | "delete_note" | "update_task" => {
                (Some(false), Some(true), Some(false))
            }
            "daily_note" => (Some(false), Some(false), Some(false)),
            // An old text over the current one; restoring twice changes nothing more.
            "restore_note" => (Some(false), Some(true), Some(true)),
            _ => (Some(true), Some(false), Some(true)),
        };
        assert_eq!(
            (
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint
            ),
            (expected.0, expected.1, expected.2, Some(false)),
            "{}",
            t.name
        );
        assert!(t.output_schema.is_some(), "{} has no output schema", t.name);
        let schema = serde_json::to_string(&*t.input_schema).unwrap();
        assert!(
            !schema.contains("$ref") && !schema.contains("\"null\""),
            "{}: {schema}",
            t.name
        );
        let definition = json!({
            "name": t.name,
            "description": t.description,
            "inputSchema": &*t.input_schema,
        });
        let bytes = python_json_len(&definition);
        eprintln!("{:>5} {}", bytes, t.name);
        if std::env::var_os("WEFT_SHOW_TOOL").is_some_and(|n| n == t.name.as_ref()) {
            eprintln!("{definition}");
        }
        size += bytes;
    }
    // What every agent pays before it starts, measured as the definitions'
    // JSON the way Python's `json.dumps` writes it (default separators,
    // ASCII only). The brief's budget is 14,000 bytes for its 19 tools:
    // 737 a tool on average, which tools added since (Bases, tasks) keep.
    eprintln!("tool definitions: {size} bytes");
    assert!(
        size <= 737 * tools.len(),
        "the {} tools' names, descriptions and input schemas take {size} bytes",
        tools.len()
    );
}

/// The length of `value` as Python's `json.dumps` writes it by default:
/// `", "` and `": "` between items, non-ASCII characters as `\uXXXX`.
fn python_json_len(value: &Value) -> usize {
    let string_len = |s: &str| {
        2 + s
            .chars()
            .map(|c| match c {
                '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
                c if (c as u32) < 0x20 => 6,
                c if c.is_ascii() => 1,
                c => 6 * c.len_utf16(),
            })
            .sum::<usize>()
    };
    match value {
        Value::String(s) => string_len(s),
        Value::Array(items) => {
            2 + items.iter().map(python_json_len).sum::<usize>() + 2 * items.len().saturating_sub(1)
        }
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| string_len(k) + 2 + python_json_len(v))
                .sum::<usize>()
                + 2 * map.len().saturating_sub(1)
        }
        other => other.to_string().len(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_methods_and_tools_are_protocol_errors() {
    let s = session(VAULT).await;
    let error = s
        .client
        .send_request(ClientRequest::CustomRequest(CustomRequest::new(
            "weft/nonsense",
            None,
        )))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(e) => assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND),
        other => panic!("{other:?}"),
    }
    let error = s
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("serch_notes"))
        .await
        .unwrap_err();
    match error {
        ServiceError::McpError(e) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert!(
                e.message.contains("Did you mean `search_notes`?"),
                "{}",
                e.message
            );
        }
        other => panic!("{other:?}"),
    }
}

/// Regression (issue 21): a standard request whose parameters rmcp cannot
/// read came as an unknown method (-32601); it is invalid params.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_method_with_parameters_of_the_wrong_shape_is_invalid_params() {
    let s = session(VAULT).await;
    for (method, params) in [
        ("tools/call", json!({"name": "read_note", "arguments": "x"})),
        ("prompts/get", json!({"name": 5})),
        ("resources/read", json!({"uri": ["weft://index"]})),
    ] {
        let error = s
            .client
            .send_request(ClientRequest::CustomRequest(CustomRequest::new(
                method,
                Some(params),
            )))
            .await
            .unwrap_err();
        match error {
            ServiceError::McpError(e) => {
                assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{method}: {e:?}");
                assert!(e.message.contains(method), "{}", e.message);
            }
            other => panic!("{method}: {other:?}"),
        }
    }
    // The session goes on.
    assert_eq!(s.client.list_all_tools().await.unwrap().len(), 23);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_are_slash_commands_with_one_argument() {
    let s = session(VAULT).await;
    let prompts = s.client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "backlinks",
            "graph",
            "related",
            "daily",
            "context",
            "recent",
            "base",
            "tasks"
        ]
    );
    for p in &prompts {
        assert!(
            p.arguments.as_ref().is_some_and(|a| a.len() <= 1),
            "{}",
            p.name
        );
        assert!(p.title.is_some());
    }
    let get = |name: &str, args: Value| {
        let params =
            GetPromptRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
        s.client.get_prompt(params)
    };
    for (name, args, expect) in [
        ("backlinks", json!({"note": "Hub"}), "Backlinks — "),
        ("graph", json!({"note": "Hub"}), "Graph, depth 2"),
        (
            "related",
            json!({"note": "projects/weft"}),
            "Related to **Weft**",
        ),
        (
            "daily",
            json!({"date": "2024-01-15"}),
            "Met about [[projects/weft]]",
        ),
        (
            "daily",
            json!({"date": "2023-01-01"}),
            "There is no daily note for 2023-01-01 yet",
        ),
        (
            "context",
            json!({"topic": "tantivy"}),
            "## Notes about “tantivy”",
        ),
        ("context", json!({}), "## Weft usage guide"),
        ("recent", json!({"since": "3650d"}), "Notes here and below"),
    ] {
        let result = get(name, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{name} {args}: {e}"));
        assert_eq!(result.messages.len(), 1);
        let message = &result.messages[0];
        assert_eq!(message.role, rmcp::model::Role::User);
        let text = message
            .content
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        assert!(text.contains(expect), "{name}: {text}");
    }
    for (name, args, expect) in [
        ("backlinks", json!({}), "needs `note`"),
        (
            "backlinks",
            json!({"note": "Nope"}),
            "No note matches `Nope`",
        ),
        ("graph", json!({"path": "Hub"}), "takes only `note`"),
        ("nonsense", json!({}), "Unknown prompt"),
    ] {
        match get(name, args).await.unwrap_err() {
            ServiceError::McpError(e) => {
                assert!(e.message.contains(expect), "{name}: {}", e.message)
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_note_names() {
    let s = session(VAULT).await;
    let complete = |reference: Reference, name: &str, value: &str| {
        s.client.complete(CompleteRequestParams::new(
            reference,
            ArgumentInfo::new(name, value),
        ))
    };
    let result = complete(Reference::for_prompt("backlinks"), "note", "pla")
        .await
        .unwrap();
    assert_eq!(result.completion.values[..2], ["x/Plan", "y/Plan"]);
    let result = complete(Reference::for_prompt("related"), "note", "")
        .await
        .unwrap();
    assert_eq!(result.completion.values.len(), 9);
    let result = complete(Reference::for_prompt("recent"), "since", "7")
        .await
        .unwrap();
    assert_eq!(result.completion.values, ["7d"]);
    let result = complete(
        Reference::for_resource("weft://note/{+path}"),
        "path",
        "centre",
    )
    .await
    .unwrap();
    assert_eq!(result.completion.values[0], "Hub");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_serve_notes_index_stats_tags_and_guide() {
    let s = session(VAULT).await;
    let resources = s.client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "weft://index",
            "weft://stats",
            "weft://tags",
            "weft://editor",
            "weft://guide"
        ]
    );
    let templates = s.client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "weft://note/{+path}");
    let read = |uri: &str| s.client.read_resource(ReadResourceRequestParams::new(uri));
    let text = |contents: &[ResourceContents]| match &contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    };
    let note = read("weft://note/notes/Caf%C3%A9%20notes/Cr%C3%A8me")
        .await
        .unwrap();
    assert!(text(&note.contents).contains("Back to [[hub]]"));
    let note = read("weft://note/Centre").await.unwrap();
    assert!(text(&note.contents).starts_with("---\naliases: [Centre]"));
    let index: Value =
        serde_json::from_str(&text(&read("weft://index").await.unwrap().contents)).unwrap();
    let hub = index["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n[0] == "Hub")
        .unwrap();
    assert_eq!(hub[1]["title"], "The Hub");
    assert_eq!(
        hub[1]["hash"],
        weft_search::index::sha256_hex(&std::fs::read(s.root().join("Hub.md")).unwrap())
    );
    assert!(
        index["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b[0] == "Hub")
    );
    let stats: Value =
        serde_json::from_str(&text(&read("weft://stats").await.unwrap().contents)).unwrap();
    assert_eq!(stats["totalNotes"], 9);
    let tags: Value =
        serde_json::from_str(&text(&read("weft://tags").await.unwrap().contents)).unwrap();
    assert!(
        tags["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["tag"] == "project/weft")
    );
    assert!(text(&read("weft://guide").await.unwrap().contents).contains("## Weft usage guide"));
    for (uri, expect) in [
        ("weft://note/Nope", "No note `Nope`"),
        ("weft://nothing", "Unknown resource"),
        ("weft://note/Plan", "names several notes"),
    ] {
        match read(uri).await.unwrap_err() {
            ServiceError::McpError(e) => {
                assert!(e.message.contains(expect), "{uri}: {}", e.message)
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)]
async fn subscribed_notes_notify_updates_and_full_text_follows() {
    let mut s = session(VAULT).await;
    s.client
        .subscribe(SubscribeRequestParams::new("weft://note/Hub"))
        .await
        .unwrap();
    s.client
        .subscribe(SubscribeRequestParams::new("weft://stats"))
        .await
        .unwrap();
    match s
        .client
        .subscribe(SubscribeRequestParams::new("file:///etc/passwd"))
        .await
        .unwrap_err()
    {
        ServiceError::McpError(e) => {
            assert!(e.message.contains("not a Weft resource"), "{}", e.message)
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(s.root().join("Hub.md"), "# The Hub\nNow about zeppelins.\n").unwrap();
    let mut seen = Vec::new();
    while !(seen.contains(&"weft://note/Hub".to_string())
        && seen.contains(&"weft://stats".to_string()))
    {
        let uri = tokio::time::timeout(DEADLINE, s.updates.recv())
            .await
            .expect("notified in time")
            .unwrap();
        seen.push(uri);
    }
    // One changed note updates the full-text index, no rebuild.
    s.eventually("the new word to be searchable", || async {
        let (_, v) = s.ok("search_notes", json!({"query": "zeppelins"})).await;
        v["total"] == 1
    })
    .await;
    let (_, v) = s.ok("search_notes", json!({"query": "tantivy"})).await;
    assert_eq!(v["total"], 2);
    std::fs::remove_file(s.root().join("x/Plan.md")).unwrap();
    s.eventually("the deleted note to leave the index", || async {
        let (_, v) = s.ok("search_notes", json!({"query": "tantivy"})).await;
        v["total"] == 1
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_subscriptions_notify_updates() {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path(), VAULT);
    let state = ToolState::open(dir.path(), Profile::default()).unwrap();
    state.start();
    tokio::time::timeout(DEADLINE, state.wait_ready())
        .await
        .unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(serve(state.clone(), server_read, server_write));
    let (tx, _rx) = mpsc::unbounded_channel();
    let client = TestClient {
        info: Default::default(),
        updates: tx,
    }
    .serve_with_lifecycle(
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap();
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec!["weft://note/x/Plan".into(), "bogus://x".into()]);
    let mut subscription = client.peer().listen(filter).await.unwrap();
    assert_eq!(
        subscription.acknowledged().resource_subscriptions,
        Some(vec!["weft://note/x/Plan".to_string()])
    );
    // The server starts listening just after its acknowledgment; a change in
    // between is not replayed (clients refetch after listening), so the
    // change is repeated until one is seen.
    let start = std::time::Instant::now();
    let mut version = 0;
    let notification = loop {
        version += 1;
        std::fs::write(
            dir.path().join("x/Plan.md"),
            format!("# Plan X\nChanged {version}.\n"),
        )
        .unwrap();
        if let Ok(next) = tokio::time::timeout(Duration::from_secs(3), subscription.next()).await {
            break next.unwrap();
        }
        assert!(
            start.elapsed() < DEADLINE,
            "no resources/updated on the listen stream"
        );
    };
    match notification {
        Some(ServerNotification::ResourceUpdatedNotification(n)) => {
            assert_eq!(n.params.uri, "weft://note/x/Plan")
        }
        other => panic!("{other:?}"),
    }
}

/// `/base`: a base's view as a table, the view picked as Obsidian embeds
/// one (`file#View`); its argument completes to the vault's bases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_base_prompt_shows_a_view() {
    let fixture = format!(
        "{VAULT}//- /Reading.base\nfilters: 'file.hasTag(\"book\")'\nviews:\n  - type: table\n    name: All\n    order: [file.name, author]\n  - type: table\n    name: Dune only\n    filters: 'author == \"Frank Herbert\"'\n    order: [file.name]\n\
         //- /books/Dune.md\n---\nauthor: Frank Herbert\ntags: [book]\n---\n\
         //- /books/Emma.md\n---\nauthor: Jane Austen\ntags: [book]\n---\n"
    );
    let s = session(&fixture).await;
    let get = |args: Value| {
        let params =
            GetPromptRequestParams::new("base").with_arguments(args.as_object().unwrap().clone());
        s.client.get_prompt(params)
    };
    let text_of_prompt = |r: rmcp::model::GetPromptResult| {
        r.messages[0]
            .content
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default()
    };
    let all = text_of_prompt(get(json!({"base": "Reading.base"})).await.unwrap());
    assert!(all.contains("| Dune | Frank Herbert |"), "{all}");
    assert!(all.contains("| Emma | Jane Austen |"), "{all}");
    let one = text_of_prompt(
        get(json!({"base": "Reading.base#Dune only"}))
            .await
            .unwrap(),
    );
    assert!(one.contains("| Dune |") && !one.contains("Emma"), "{one}");
    let e = get(json!({"base": "Reading.base#Nope"})).await.unwrap_err();
    assert!(e.to_string().contains("All, Dune only"), "{e}");
    let done = s
        .client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("base"),
            ArgumentInfo::new("base", "read"),
        ))
        .await
        .unwrap();
    assert_eq!(
        done.completion.values.first().map(String::as_str),
        Some("Reading.base")
    );
}

/// `/tasks`: open tasks by due date, the one argument read as people type
/// it (nothing, `overdue`, a period, a `#tag`, a folder, words).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tasks_prompt_lists_open_tasks_by_due_date() {
    let today = weft_search::clock::Now::read(Default::default()).today();
    let day = |n: i64| weft_vault::daily::format_date(today.add_days(n), "YYYY-MM-DD");
    let fixture = format!(
        "{VAULT}//- /work/Todo.md\n- [ ] late report #work 📅 {}\n- [ ] far future 📅 {}\n- [x] done one 📅 {}\n- [ ] no date at all\n",
        day(-3),
        day(400),
        day(-1)
    );
    let s = session(&fixture).await;
    let get = |args: Value| {
        let params =
            GetPromptRequestParams::new("tasks").with_arguments(args.as_object().unwrap().clone());
        s.client.get_prompt(params)
    };
    let text = |r: rmcp::model::GetPromptResult| {
        r.messages[0]
            .content
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default()
    };
    let default = text(get(json!({})).await.unwrap());
    assert!(
        default.contains("late report") && default.contains("3 days overdue"),
        "{default}"
    );
    assert!(
        !default.contains("far future") && !default.contains("done one"),
        "{default}"
    );
    let all = text(get(json!({"filter": "all"})).await.unwrap());
    assert!(
        all.contains("far future") && all.contains("no date at all"),
        "{all}"
    );
    assert!(all.contains("### no due date"), "{all}");
    let tagged = text(get(json!({"filter": "#work"})).await.unwrap());
    assert!(
        tagged.contains("late report") && !tagged.contains("far future"),
        "{tagged}"
    );
    let words = text(get(json!({"filter": "future"})).await.unwrap());
    assert!(
        words.contains("far future") && !words.contains("late report"),
        "{words}"
    );
    let done = s
        .client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("tasks"),
            ArgumentInfo::new("filter", "#wo"),
        ))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["#work"]);
}
