//! The handshake, encodings, unknown methods, requests before the vault is
//! loaded, workspace folders, incremental sync and watched files.

use serde_json::{Value, json};

use super::{Options, TestClient};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_negotiates_utf8_and_answers_unknown_methods_with_32601() {
    let client = TestClient::start("//- /a.md\n# A\n").await;
    assert_eq!(client.encoding, super::Encoding::Utf8);
    let response = client.request_raw("weft/noSuchMethod", json!({})).await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
    let response = client
        .request_raw("textDocument/noSuchThing", json!({}))
        .await;
    assert_eq!(response["error"]["code"], -32601, "{response}");

    let utf16 = TestClient::start_with(
        "//- /a.md\n# A\n",
        Options {
            encodings: vec!["utf-16"],
            ..Options::default()
        },
    )
    .await;
    assert_eq!(utf16.encoding, super::Encoding::Utf16);
    // No positionEncodings at all: UTF-16.
    let none = TestClient::start_with(
        "//- /a.md\n# A\n",
        Options {
            encodings: vec![],
            ..Options::default()
        },
    )
    .await;
    assert_eq!(none.encoding, super::Encoding::Utf16);
}

/// Regression (issue 21): after `shutdown` every request is answered
/// InvalidRequest, as the specification says; an unknown method got
/// "method not found" and a custom one an answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_after_shutdown_are_invalid_requests() {
    let client = TestClient::start("//- /a.md\n# A\n").await;
    let shutdown = client.request_raw("shutdown", Value::Null).await;
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    for method in [
        "weft/status",
        "weft/noSuchMethod",
        "shutdown",
        "textDocument/hover",
    ] {
        let response = client.request_raw(method, client.at("a.md", "# $0A")).await;
        assert_eq!(response["error"]["code"], -32600, "{method}: {response}");
    }
}

/// Issue 18: no answer from a partial index. `initialized` is never sent,
/// so the vault never loads: a request that needs the index waits for it
/// (bounded) and fails saying so, rather than answering from the open
/// buffer alone; a request about the buffer alone answers at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_before_loading_wait_for_the_index_or_fail_saying_so() {
    let client = TestClient::start_with(
        "//- /a.md\n# Top\n## Sub\nsee [[#\n//- /b.md\n# B\n",
        Options {
            wait_ready: false,
            index_wait: std::time::Duration::from_millis(300),
            ..Options::default()
        },
    )
    .await;
    let status = client.request("weft/status", Value::Null).await;
    assert_eq!(status["ready"], false, "{status}");
    client.open("a.md").await;
    let response = client
        .request_raw("textDocument/completion", client.at("a.md", "[[#$0"))
        .await;
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        response["error"]["code"] == -32803 && message.starts_with("Still indexing"),
        "{response}"
    );
    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": client.uri("a.md")}}),
        )
        .await;
    assert_eq!(symbols.as_array().unwrap().len(), 1, "{symbols}");
}

/// A client that shows work-done progress hears the vault being read: one
/// report begun when loading starts cold and ended when it is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_load_is_reported_as_work_done_progress() {
    let client = TestClient::start_with(
        "//- /a.md\n# A\n",
        Options {
            progress: true,
            ..Options::default()
        },
    )
    .await;
    // Begun only once the client made the token, and ended.
    let begun = client
        .notification("$/progress", |n| n["params"]["value"]["kind"] == "begin")
        .await;
    let token = begun["params"]["token"].clone();
    let created = client.server_requests("window/workDoneProgress/create");
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(created[0]["params"]["token"], token);
    client
        .notification("$/progress", |n| {
            n["params"]["token"] == token && n["params"]["value"]["kind"] == "end"
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_folders_and_settings_from_the_client() {
    let client = TestClient::start_with(
        "//- /a.md\n[[Ghost]]\n//- /.weft.toml\n[diagnostics]\nunresolved = \"hint\"\n",
        Options {
            as_workspace_folder: true,
            initialization_options: json!({"diagnostics": {"unresolved": "error"}}),
            configuration: Some(json!({"diagnostics": {"unresolved": "information"}})),
            ..Options::default()
        },
    )
    .await;
    // workspace/configuration (asked at start) wins over initializationOptions.
    assert_eq!(client.server_requests("workspace/configuration").len(), 1);
    client.open("a.md").await;
    let diagnostics = client.diagnostics("a.md", |d| !d.is_empty()).await;
    assert_eq!(diagnostics[0]["severity"], 3, "{diagnostics:?}");
    // A settings change applies to open notes.
    client
        .notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"weft": {"diagnostics": {"unresolved": "off"}}}}),
        )
        .await;
    client.diagnostics("a.md", |d| d.is_empty()).await;
    // The watcher was registered for Markdown files.
    let registrations = client.server_requests("client/registerCapability");
    assert_eq!(
        registrations[0]["params"]["registrations"][0]["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.md"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_edits_and_watched_files_keep_the_index_current() {
    let client = TestClient::start("//- /a.md\nSee [[b]].\n//- /c.md\n# C\n").await;
    client.open("a.md").await;
    client.diagnostics("a.md", |d| d.len() == 1).await;
    // b.md appears on disk: the client's watcher tells the server.
    std::fs::write(client.path("b.md"), "# B\n").unwrap();
    client.files_changed(&[("b.md", 1)]).await;
    client.diagnostics("a.md", |d| d.is_empty()).await;
    // An incremental edit: `[[b]]` becomes `[[bx]]` (unresolved again).
    client
        .edit(
            "a.md",
            json!({"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 7}}),
            "x",
        )
        .await;
    let diagnostics = client.diagnostics("a.md", |d| d.len() == 1).await;
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("`[[bx]]`"),
        "{diagnostics:?}"
    );
    // Unsaved text is indexed: c.md's buffer links to a.md.
    client.open_text("c.md", "# C\n[[a]]\n").await;
    let refs = references_to_a(&client).await;
    assert_eq!(refs.as_array().unwrap().len(), 1, "{refs}");
    // Closing the buffer: the disk (no link) is the truth again.
    client
        .notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": client.uri("c.md")}}),
        )
        .await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let refs = references_to_a(&client).await;
        if refs.as_array().unwrap().is_empty() {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{refs}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The references to `a.md` (from its first line), declaration left out.
async fn references_to_a(client: &TestClient) -> Value {
    client
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": client.uri("a.md")}, "position": {"line": 0, "character": 0}, "context": {"includeDeclaration": false}}),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_own_watcher_follows_the_disk_without_client_watching() {
    let client = TestClient::start_with(
        "//- /a.md\nSee [[b]].\n",
        Options {
            watch: false,
            ..Options::default()
        },
    )
    .await;
    client.open("a.md").await;
    client.diagnostics("a.md", |d| d.len() == 1).await;
    std::fs::write(client.path("b.md"), "# B\n").unwrap();
    client.diagnostics("a.md", |d| d.is_empty()).await;
    assert!(
        client
            .server_requests("client/registerCapability")
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_workspace_folder_is_its_own_vault() {
    let client = TestClient::start_with(
        "//- /one/a.md\n[[x]]\n//- /one/x.md\n# X one\n//- /two/b.md\n[[x]]\n//- /two/sub/c.md\n",
        Options {
            folders: vec!["one", "two"],
            ..Options::default()
        },
    )
    .await;
    let status = client.request("weft/status", Value::Null).await;
    assert_eq!(status["vaults"].as_array().unwrap().len(), 2, "{status}");
    // `[[x]]` resolves in the vault of the note that holds it.
    let definition = client
        .request("textDocument/definition", client.at("one/a.md", "[[$0x]]"))
        .await;
    assert_eq!(client.show_location(&definition), "one/x.md:0:0-0:0");
    client.open("two/b.md").await;
    let diagnostics = client.diagnostics("two/b.md", |d| d.len() == 1).await;
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("`[[x]]`")
    );
    // A folder added later is served too; a removed one no longer is.
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {
                "added": [{"uri": client.uri("two/sub"), "name": "sub"}],
                "removed": [{"uri": client.uri("one"), "name": "one"}],
            }}),
        )
        .await;
    client.wait_ready().await;
    let status = client.request("weft/status", Value::Null).await;
    let roots: Vec<String> = status["vaults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| client.rel_of(&format!("file://{}", v["root"].as_str().unwrap())))
        .collect();
    assert_eq!(roots, ["two", "two/sub"]);
}
