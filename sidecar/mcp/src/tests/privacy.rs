//! A note the agent may not see leaks through nothing: not through any
//! tool's text or structured content, prompt, resource, completion, error
//! or "did you mean" list, history or diff (regression: `weft://tags`
//! listed tags only a denied note carried, `weft://stats` counted it, and
//! `weft://index` named it as a visible note's outlink).
//!
//! Every tool the server lists must be in the sweep below, so a tool added
//! later is checked too.

use std::collections::BTreeSet;

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
    Reference, ResourceContents,
};
use serde_json::{Value, json};

use super::{DEADLINE, Session, session};

/// A vault where `private/` is denied to the agent. Every word in
/// [`SECRETS`] appears in the denied folder only; a visible note links to
/// the denied one by a name that gives nothing away (`Side Door`), so
/// where that link leads must not be told either.
const FIXTURE: &str = r#"
//- /.weft.toml
[agent]
deny = ["private/"]
[daily]
folder = "private"
[tags]
policy = "existing"
//- /Hub.md
---
tags: [topic, shared]
---
# The Hub
Alpha words, shared with the private note. See [[Plan]].
## Details
More alpha.
//- /Plan.md
# Plan
Alpha plan, linking [[Hub#Details]] and [[Side Door]].
//- /private/quokka-den.md
---
aliases: [Dingo Alias, Side Door]
tags: [platypustag, shared]
kookaburra_key: cassowary value
---
# Wombat Plans
Alpha bilbywordsecret, about [[Hub]] and [[Hub#Details]] and [[Plan]] and [[Taipan Missing]] #echidnatag
## Numbat heading
Body. ^wallabyblock
![[koala.png]]
- [ ] feed the numbat #shared 📅 2024-01-15 🔁 every day
//- /private/koala.png
png
//- /private/2024-01-15.md
# Bandicoot day
//- /private/numbat-nest/Plan.md
# Another plan
//- /private/emusecret.md
# Moved out later
plain words
"#;

const SECRETS: &[&str] = &[
    "quokka",
    "wombat",
    "numbat",
    "echidna",
    "platypus",
    "dingo",
    "bilby",
    "kookaburra",
    "cassowary",
    "wallaby",
    "taipan",
    "koala",
    "bandicoot",
    "emusecret",
];

/// The secrets an answer gives away (one the request named itself does not
/// count: echoing what the agent typed tells it nothing).
fn leaks(what: &str, answer: &str) -> Vec<String> {
    let lower = answer.to_lowercase();
    let asked = what.to_lowercase();
    SECRETS
        .iter()
        .filter(|s| lower.contains(*s) && !asked.contains(*s))
        .map(|s| format!("{what} leaks `{s}`: {}", clip(answer)))
        .collect()
}

fn clip(s: &str) -> String {
    s.chars().take(600).collect()
}

/// The tool calls of the sweep: (tool, arguments). None names a secret.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("read_note", json!({"path": "Hub"})),
        ("read_note", json!({"paths": ["Hub", "Plan", "Missing"]})),
        ("read_note", json!({"path": "Hub", "view": "outline"})),
        ("read_note", json!({"path": "Hub", "view": "metadata"})),
        ("read_note", json!({"path": "Wmbat Plans"})),
        ("read_note", json!({"path": "din"})),
        ("resolve_note", json!({"query": "wom"})),
        ("resolve_note", json!({"query": "qu"})),
        ("resolve_note", json!({"query": "Din"})),
        ("resolve_note", json!({"query": "Hub"})),
        ("list_notes", json!({"recursive": true})),
        ("list_notes", json!({"folder": "private"})),
        ("list_notes", json!({"recursive": true, "format": "tree"})),
        ("search_notes", json!({"query": "alpha"})),
        ("search_notes", json!({"query": "shared"})),
        ("search_notes", json!({"mode": "name", "query": "w"})),
        ("search_notes", json!({"mode": "tag", "query": "shared"})),
        ("search_notes", json!({"tags_any": ["shared"]})),
        ("search_notes", json!({"backlinks_to": "Hub"})),
        ("search_notes", json!({"query": "kooka*"})),
        ("get_context", json!({"query": "alpha"})),
        ("get_context", json!({"around": "Hub", "depth": 2})),
        ("get_context", json!({"tags_any": ["shared"]})),
        ("get_links", json!({"path": "Hub", "direction": "both"})),
        ("get_links", json!({"path": "Plan", "direction": "in"})),
        (
            "get_links",
            json!({"path": "Hub", "format": "graph", "depth": 3}),
        ),
        ("related_notes", json!({"path": "Hub"})),
        ("related_notes", json!({"text": "alpha shared plans"})),
        (
            "query_notes",
            json!({"filter": "true", "columns": ["file.path", "file.tags", "file.backlinks", "file.links", "file.embeds", "tags"]}),
        ),
        (
            "query_notes",
            json!({"filter": "file.links.map(value.asFile()).filter(value).length > 0", "columns": ["file.name"], "group_by": "file.folder"}),
        ),
        ("query_notes", json!({"base": "private/x.base"})),
        ("query_notes", json!({"base": "Plan"})),
        ("list_tasks", json!({"status": "any"})),
        (
            "update_task",
            json!({"path": "Side Door", "text": "feed", "status": "done", "dry_run": true}),
        ),
        (
            "update_task",
            json!({"path": "Hub", "text": "feed", "status": "done", "dry_run": true}),
        ),
        (
            "list_tasks",
            json!({"tags": "shared", "group_by": "heading"}),
        ),
        ("list_tags", json!({})),
        ("list_tags", json!({"facet": "keys"})),
        ("list_tags", json!({"facet": "values"})),
        ("list_tags", json!({"facet": "rels"})),
        ("check_vault", json!({})),
        ("vault_info", json!({})),
        ("note_history", json!({})),
        ("note_history", json!({"path": "Hub"})),
        ("daily_note", json!({"op": "read"})),
        ("daily_note", json!({"op": "read", "date": "2024-01-15"})),
        (
            "write_note",
            json!({"path": "fromtemplate", "template": "private/quokka-den", "dry_run": true}),
        ),
        (
            "write_note",
            json!({"path": "tagged", "content": "# T\n#brandnew\n", "dry_run": true}),
        ),
        (
            "edit_note",
            json!({"path": "Side Door", "ops": [{"op": "append", "text": "x"}], "dry_run": true}),
        ),
        (
            "edit_note",
            json!({"path": "Hub", "ops": [{"op": "delete_section", "section": "Details"}], "dry_run": true}),
        ),
        (
            "delete_note",
            json!({"path": "Hub", "link_policy": "mark_deleted", "dry_run": true}),
        ),
        ("search_notes", json!({"query": "kookabura:x"})),
        ("search_notes", json!({"query": "nosuchfield:x"})),
        (
            "write_note",
            json!({"path": "new", "content": "# New\nAlpha [[Hub]].\n", "dry_run": true}),
        ),
        (
            "edit_note",
            json!({"path": "Hub", "ops": [{"op": "append", "text": "\nMore.\n"}], "dry_run": true}),
        ),
        (
            "update_frontmatter",
            json!({"path": "Hub", "add_tags": ["x"], "dry_run": true}),
        ),
        (
            "move_note",
            json!({"path": "Hub", "new_path": "Centre", "dry_run": true}),
        ),
        ("editor_state", json!({})),
        ("move_note", json!({"path": "Plan", "new_path": "Plan2"})),
        ("delete_note", json!({"path": "Hub", "dry_run": true})),
        (
            "restore_note",
            json!({"path": "Plan2", "version": "HEAD", "dry_run": true}),
        ),
    ]
}

async fn tool_answer(s: &Session, tool: &str, args: Value) -> String {
    let result = s.call_raw(tool, args).await;
    let mut out = serde_json::to_string(&result.content).unwrap();
    if let Some(structured) = &result.structured_content {
        out.push_str(&structured.to_string());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_note_leaks_through_no_answer() {
    let s = session(FIXTURE).await;
    s.state.wait_history(DEADLINE).await;
    let mut found: Vec<String> = Vec::new();
    // A note moved out of the denied folder by hand: history must not tell
    // where it was.
    std::fs::rename(
        s.root().join("private/emusecret.md"),
        s.root().join("Opened.md"),
    )
    .unwrap();
    s.eventually("the move is in history", || async {
        let result = s.call_raw("note_history", json!({"path": "Opened"})).await;
        result.is_error != Some(true)
            && result
                .structured_content
                .as_ref()
                .is_some_and(|v| v["versions"].as_array().is_some_and(|v| !v.is_empty()))
    })
    .await;

    // The editor has the denied note open, typed in, after a visible one.
    let hub = s.state.hub();
    let editor = hub.new_session();
    let live = hub.live().cloned();
    hub.buffers.set(
        live.as_deref(),
        editor,
        "Hub.md",
        std::sync::Arc::new(std::fs::read_to_string(s.root().join("Hub.md")).unwrap()),
    );
    let private = std::fs::read_to_string(s.root().join("private/quokka-den.md")).unwrap();
    hub.buffers.set(
        live.as_deref(),
        editor,
        "private/quokka-den.md",
        std::sync::Arc::new(private.clone()),
    );
    hub.buffers.set(
        live.as_deref(),
        editor,
        "private/quokka-den.md",
        std::sync::Arc::new(format!("{private}\nMore wombat words typed.\n")),
    );
    let seen = tool_answer(&s, "editor_state", json!({})).await;
    assert!(
        seen.contains("Hub.md"),
        "the visible open note is shown: {seen}"
    );

    // Every tool the server offers is swept.
    let listed: BTreeSet<String> = s
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    let swept: BTreeSet<String> = calls()
        .iter()
        .map(|(t, _)| t.to_string())
        .chain(["diff_note".to_string()])
        .collect();
    assert_eq!(listed, swept, "every tool is in the sweep");
    for (tool, args) in calls() {
        let answer = tool_answer(&s, tool, args.clone()).await;
        found.extend(leaks(&format!("{tool} {args}"), &answer));
    }
    for path in ["Opened", "Plan"] {
        for (tool, args) in [
            ("note_history", json!({"path": path})),
            ("note_history", json!({})),
        ] {
            let answer = tool_answer(&s, tool, args.clone()).await;
            found.extend(leaks(&format!("{tool} {args}"), &answer));
        }
        let (_, v) = s.ok("note_history", json!({"path": path})).await;
        for version in v["versions"].as_array().unwrap() {
            let id = version["id"].as_str().unwrap();
            for (tool, args) in [
                ("read_note", json!({"path": path, "version": id})),
                ("diff_note", json!({"path": path, "from": id})),
                (
                    "restore_note",
                    json!({"path": path, "version": id, "dry_run": true}),
                ),
            ] {
                let answer = tool_answer(&s, tool, args.clone()).await;
                found.extend(leaks(&format!("{tool} {args}"), &answer));
            }
        }
    }
    // A version id for the history tools.
    let (_, v) = s.ok("note_history", json!({"path": "Hub"})).await;
    let id = v["versions"][0]["id"].as_str().unwrap().to_string();
    for (tool, args) in [
        ("read_note", json!({"path": "Hub", "version": id})),
        ("diff_note", json!({"path": "Hub", "from": id})),
    ] {
        let answer = tool_answer(&s, tool, args.clone()).await;
        found.extend(leaks(&format!("{tool} {args}"), &answer));
    }

    // Prompts.
    for (name, args) in [
        ("backlinks", json!({"note": "Hub"})),
        ("backlinks", json!({"note": "Plan2"})),
        ("graph", json!({"note": "Hub"})),
        ("related", json!({"note": "Hub"})),
        ("daily", json!({})),
        ("daily", json!({"date": "2024-01-15"})),
        ("context", json!({"topic": "alpha"})),
        ("context", json!({})),
        ("recent", json!({"since": "3650d"})),
        ("base", json!({"base": "Plan"})),
        ("base", json!({"base": "private/x.base#v"})),
        ("tasks", json!({})),
        ("tasks", json!({"filter": "all"})),
        ("tasks", json!({"filter": "#shared"})),
    ] {
        let params =
            GetPromptRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
        let answer = match s.client.get_prompt(params).await {
            Ok(result) => serde_json::to_string(&result).unwrap(),
            Err(e) => e.to_string(),
        };
        if name == "context" {
            assert!(
                answer.contains("Open in the editor") && answer.contains("Hub.md"),
                "the context prompt shows the open notes: {answer}"
            );
        }
        found.extend(leaks(&format!("prompt {name} {args}"), &answer));
    }

    // Resources.
    for uri in [
        "weft://index",
        "weft://stats",
        "weft://tags",
        "weft://guide",
        "weft://editor",
        "weft://note/Hub",
        "weft://note/Wmbat",
    ] {
        let answer = match s
            .client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Ok(result) => result
                .contents
                .iter()
                .map(|c| match c {
                    ResourceContents::TextResourceContents { text, .. } => text.clone(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => e.to_string(),
        };
        found.extend(leaks(&format!("resource {uri}"), &answer));
    }

    // Completions.
    for (reference, argument, value) in [
        (Reference::for_prompt("backlinks"), "note", ""),
        (Reference::for_prompt("backlinks"), "note", "w"),
        (Reference::for_prompt("graph"), "note", "q"),
        (Reference::for_prompt("related"), "note", "d"),
        (Reference::for_prompt("base"), "base", ""),
        (Reference::for_prompt("base"), "base", "q"),
        (Reference::for_prompt("context"), "topic", ""),
        (Reference::for_prompt("context"), "topic", "p"),
        (Reference::for_prompt("context"), "topic", "e"),
        (Reference::for_prompt("tasks"), "filter", "#"),
        (Reference::for_resource("weft://note/{+path}"), "path", ""),
        (Reference::for_resource("weft://note/{+path}"), "path", "k"),
    ] {
        let answer = match s
            .client
            .complete(CompleteRequestParams::new(
                reference.clone(),
                ArgumentInfo::new(argument, value),
            ))
            .await
        {
            Ok(result) => serde_json::to_string(&result).unwrap(),
            Err(e) => e.to_string(),
        };
        found.extend(leaks(&format!("completion {argument}={value:?}"), &answer));
    }
    assert!(found.is_empty(), "{}", found.join("\n\n"));

    // Nor do counts give it away.
    let (_, info) = s.ok("vault_info", json!({})).await;
    let stats: Value = {
        let result = s
            .client
            .read_resource(ReadResourceRequestParams::new("weft://stats"))
            .await
            .unwrap();
        let ResourceContents::TextResourceContents { text, .. } = &result.contents[0] else {
            panic!("text")
        };
        serde_json::from_str(text).unwrap()
    };
    let visible_notes = info["counts"]["notes"].as_u64().unwrap();
    assert_eq!(
        stats["totalNotes"].as_u64().unwrap(),
        visible_notes,
        "{stats}"
    );
    let (_, listed) = s.ok("list_notes", json!({"recursive": true})).await;
    assert_eq!(listed["total"].as_u64().unwrap(), visible_notes, "{listed}");
}

/// Regression: `read_note` counted the links into a note from notes the
/// agent may not see (`links_in`), and the auto-context block (the first
/// answer of a session, `vault_info`, the `context` prompt) listed as
/// "allowed tags" tags only a denied note carries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_counts_and_the_context_blocks_tags_leave_unseen_notes_out() {
    let s = session(
        r#"
//- /.weft.toml
[agent]
deny = ["private/"]
[tags]
auto_context_tag = "ctx"
//- /Hub.md
---
description: the hub
---
# Hub
Read me first. #ctx
//- /Plan.md
See [[Hub]].
//- /private/quokka-den.md
See [[Hub]] and [[Hub]] again. #platypustag
"#,
    )
    .await;
    let (text, out) = s.ok("read_note", json!({"path": "Hub"})).await;
    assert_eq!(out["notes"][0]["links_in"], 1, "{out}");
    assert!(!text.contains("3 links"), "{text}");
    let (_, info) = s.ok("vault_info", json!({})).await;
    let block = info["auto_context"].as_str().unwrap();
    assert!(block.contains("#ctx"), "{block}");
    assert!(!block.contains("platypus"), "{block}");
}
