//! Editors and agents on one vault in one process (as in the index daemon,
//! which runs the language server and the MCP server over one hub):
//! they share one index, so what one writes or types the others see; an
//! agent never overwrites text the user has not saved.

use std::time::Instant;

use serde_json::json;

use weft_lsp::testing::{Options, TestClient};
use weft_mcp::testing::session;

const VAULT: &str = "
//- /a.md
# A
See [[Ghost]] and [[c]].
//- /b.md
# B
Back to [[a#Later]].
//- /c.md
# C
";

/// The notes a `get_links` answer lists as linking in.
fn linked_from(links: &serde_json::Value) -> Vec<String> {
    links["incoming"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| l["from"]["path"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// An editor session attached to the agent's vault.
async fn editor(root: &std::path::Path) -> TestClient {
    TestClient::start_with(
        "",
        Options {
            attach: Some(root.to_path_buf()),
            ..Options::default()
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_write_updates_the_editor_diagnostics_at_once() {
    let agent = session(VAULT).await;
    let editor = editor(agent.root()).await;
    editor.open("a.md").await;
    let before = editor.diagnostics("a.md", |d| d.len() == 1).await;
    assert!(before[0]["message"].as_str().unwrap().contains("Ghost"));
    let started = Instant::now();
    agent
        .ok(
            "write_note",
            json!({"path": "Ghost", "content": "# Ghost\n"}),
        )
        .await;
    // No file event is needed: the write reaches the editor's session
    // through the shared state (the watcher finds nothing left to apply).
    editor.diagnostics("a.md", <[_]>::is_empty).await;
    eprintln!(
        "agent write → editor diagnostics: {} ms",
        started.elapsed().as_millis()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_editors_and_an_agent_see_each_others_unsaved_text() {
    let agent = session(VAULT).await;
    let first = editor(agent.root()).await;
    let second = editor(agent.root()).await;
    second.open("b.md").await;
    second
        .diagnostics("b.md", |d| {
            d.len() == 1 && d[0]["message"].as_str().unwrap_or("").contains("Later")
        })
        .await;
    // The first editor types a heading without saving: the second
    // editor's broken link to it resolves.
    first.open("a.md").await;
    first
        .change("a.md", "# A\nSee [[Ghost]] and [[c]].\n## Later\n")
        .await;
    second.diagnostics("b.md", <[_]>::is_empty).await;
    // The agent reads the editor's text, marked unsaved, and its links.
    let (text, read) = agent.ok("read_note", json!({"path": "a"})).await;
    assert!(text.contains("unsaved changes in the editor"), "{text}");
    assert_eq!(read["notes"][0]["unsaved"], true);
    assert!(
        read["notes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("## Later")
    );
    let (_, links) = agent
        .ok("get_links", json!({"path": "a#Later", "direction": "in"}))
        .await;
    assert_eq!(linked_from(&links), ["b"], "{links}");
    // The disk still has the saved text.
    assert!(
        !std::fs::read_to_string(agent.root().join("a.md"))
            .unwrap()
            .contains("Later")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_write_over_unsaved_text_is_refused() {
    let agent = session(VAULT).await;
    let editor = editor(agent.root()).await;
    editor.open("a.md").await;
    let typed = "# A\nSee [[Ghost]] and [[c]].\nTyped, not saved.\n";
    editor.change("a.md", typed).await;
    // The editor's notification and the agent's call race; wait for it.
    agent
        .eventually("the typed text reaches the agent", || async {
            let (_, read) = agent.ok("read_note", json!({"path": "a"})).await;
            read["notes"][0]["unsaved"] == true
        })
        .await;
    let disk = std::fs::read(agent.root().join("a.md")).unwrap();
    let error = agent
        .err(
            "edit_note",
            json!({"path": "a", "ops": [{"op": "append", "text": "agent line"}]}),
        )
        .await;
    assert!(error.contains("unsaved changes in the editor"), "{error}");
    // A dry run says so too (its diff would be against the saved text).
    let error = agent
        .err(
            "edit_note",
            json!({"path": "a", "ops": [{"op": "append", "text": "x"}], "dry_run": true}),
        )
        .await;
    assert!(error.contains("unsaved changes in the editor"), "{error}");
    // A move of c with link updates would rewrite a.md: refused too.
    let error = agent
        .err(
            "move_note",
            json!({"path": "c", "new_path": "archive/d", "update_links": true}),
        )
        .await;
    assert!(error.contains("`a.md` has unsaved changes"), "{error}");
    assert!(agent.root().join("c.md").exists());
    assert_eq!(std::fs::read(agent.root().join("a.md")).unwrap(), disk);
    // Saved: the write goes through, and the buffer, now older than the
    // disk, no longer stands for the note.
    std::fs::write(agent.root().join("a.md"), typed).unwrap();
    agent
        .ok(
            "edit_note",
            json!({"path": "a", "ops": [{"op": "append", "text": "agent line"}]}),
        )
        .await;
    let (text, read) = agent.ok("read_note", json!({"path": "a"})).await;
    assert!(text.contains("agent line"), "{text}");
    assert!(read["notes"][0].get("unsaved").is_none(), "{read}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_departed_editor_leaves_no_unsaved_text_behind() {
    let agent = session(VAULT).await;
    let editor = editor(agent.root()).await;
    editor.open("c.md").await;
    editor.change("c.md", "# C\n[[a]] typed\n").await;
    agent
        .eventually("the typed link is indexed", || async {
            let (_, links) = agent
                .ok("get_links", json!({"path": "a", "direction": "in"}))
                .await;
            linked_from(&links).contains(&"c".to_string())
        })
        .await;
    // The editor goes away without closing the note (a crash).
    editor.disconnect().await;
    agent
        .eventually("the disk is the truth again", || async {
            let (_, links) = agent
                .ok("get_links", json!({"path": "a", "direction": "in"}))
                .await;
            !linked_from(&links).contains(&"c".to_string())
        })
        .await;
    agent
        .ok(
            "edit_note",
            json!({"path": "c", "ops": [{"op": "append", "text": "fine"}]}),
        )
        .await;
}
