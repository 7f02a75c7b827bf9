//! `weft mcp` driven by real MCP clients nobody on this team wrote: the
//! official Python SDK (in its default mode, which opens with
//! `server/discover`, and in legacy mode, which opens with `initialize`)
//! and the MCP Inspector CLI; plus the raw wire for what clients hide
//! (unknown methods, the working directory as the vault, refusing `/`).
//! Each test runs in a sandbox of its own and stops the daemons it started.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use weft_e2e::{
    McpWire, Sandbox, TempVault, mcp_inspector, python_report, python_script, weft_bin,
};

/// Bounds a failing run only; nothing is timed.
const DEADLINE: Duration = Duration::from_secs(120);

const VAULT: &str = r#"
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
//- /chores/Weekly.md
# Weekly

- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25
- [ ] water the plants
//- /Projects.base
filters: 'file.hasTag("project")'
views:
  - type: table
    name: All
    order: [file.name, status]
    sort: [{property: file.name, direction: ASC}]
"#;

fn run_python_client(mode: &str) -> Value {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let report = python_client_on(&sandbox, &vault, mode);
    same_as_slash_commands(&vault, &report);
    sandbox.stop_daemons();
    report
}

/// Zed shows the prompts as `/` commands, and text threads run the
/// extension's slash commands, which print `weft query …`: both must say
/// the same, byte for byte.
fn same_as_slash_commands(vault: &TempVault, report: &Value) {
    for (prompt, query) in [
        ("backlinks", &["query", "backlinks", "Hub"][..]),
        ("graph", &["query", "graph", "Hub"][..]),
    ] {
        let output = vault.weft(query).output().expect("run weft query");
        assert!(output.status.success(), "{query:?}: {output:?}");
        let cli = String::from_utf8(output.stdout).unwrap();
        let text = report["prompt_texts"][prompt].as_str().unwrap_or_default();
        assert_eq!(
            cli.trim_end(),
            text.trim_end(),
            "prompt {prompt} vs {query:?}"
        );
    }
}

fn python_client_on(sandbox: &Sandbox, vault: &TempVault, mode: &str) -> Value {
    python_report(sandbox, "mcp_client.py", vault.path(), &[mode])
}

fn check_report(report: &Value) {
    assert_eq!(report["server"]["name"], "weft");
    assert_eq!(
        report["tools"],
        serde_json::json!([
            "check_vault",
            "daily_note",
            "delete_note",
            "diff_note",
            "edit_note",
            "editor_state",
            "get_context",
            "get_links",
            "list_notes",
            "list_tags",
            "list_tasks",
            "move_note",
            "note_history",
            "query_notes",
            "read_note",
            "related_notes",
            "resolve_note",
            "restore_note",
            "search_notes",
            "update_frontmatter",
            "update_task",
            "vault_info",
            "write_note"
        ])
    );
    assert_eq!(report["notes"], 8);
    assert_eq!(
        report["task_lines"][0],
        "- [ ] take out the trash 🔁 every week on Sunday 📅 2021-05-02"
    );
    assert_eq!(report["calls"].as_array().unwrap().len(), 26);
    assert_eq!(report["updated"], "weft://note/Hub");
}

#[test]
fn python_sdk_default_mode_discovers_and_uses_every_read_capability() {
    let report = run_python_client("auto");
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    check_report(&report);
}

#[test]
fn python_sdk_legacy_mode_initializes_and_uses_every_read_capability() {
    let report = run_python_client("legacy");
    assert_ne!(report["protocol_version"], "2026-07-28", "{report}");
    check_report(&report);
}

fn inspector(sandbox: &Sandbox, vault: &TempVault, method_args: &[&str]) -> Value {
    let output = sandbox
        .command(mcp_inspector())
        .arg("--cli")
        .arg(weft_bin())
        .args(["mcp", "--vault"])
        .arg(vault.path())
        .args(method_args)
        .output()
        .expect("run the MCP Inspector");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Inspector failed:\n{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn inspector_cli_lists_the_tools() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let listed = inspector(&sandbox, &vault, &["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"search_notes")
            && names.contains(&"write_note")
            && names.contains(&"note_history")
            && names.len() == 23,
        "{names:?}"
    );
    let read = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_note")
        .unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true);
    assert!(read["outputSchema"].is_object());
    sandbox.stop_daemons();
}

#[test]
fn inspector_cli_calls_a_tool() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    // Each Inspector run is a fresh face; the daemon it starts indexes in
    // the background, so the first calls may answer "Indexing…" and are
    // repeated.
    let start = Instant::now();
    loop {
        let called = inspector(
            &sandbox,
            &vault,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "search_notes",
                "--tool-arg",
                "query=tantivy",
                "--tool-arg",
                "limit=5",
            ],
        );
        let text = called["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if !text.contains("Indexing") {
            assert_eq!(called["isError"], false, "{called}");
            assert!(text.contains("Found 3 notes for `tantivy`"), "{text}");
            assert_eq!(called["structuredContent"]["total"], 3);
            break;
        }
        assert!(start.elapsed() < DEADLINE, "still indexing: {text}");
        std::thread::sleep(Duration::from_millis(200));
    }
    sandbox.stop_daemons();
}

#[test]
fn the_wire_answers_unknown_methods_with_method_not_found_and_uses_the_working_directory() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    // No --vault (nor WEFT_VAULT): the working directory is the vault.
    let wire = McpWire::start(
        sandbox
            .weft()
            .arg("mcp")
            .current_dir(vault.path())
            .stderr(Stdio::inherit()),
    );
    wire.send(&serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire", "version": "0"}}
    }));
    let init = wire.response(0);
    assert_eq!(init["result"]["serverInfo"]["name"], "weft", "{init}");
    wire.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    wire.send(
        &serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "weft/nonsense", "params": {}}),
    );
    let unknown = wire.response(1);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let start = Instant::now();
    loop {
        wire.send(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "vault_info", "arguments": {}}}));
        let info = wire.response(2);
        let status = &info["result"]["structuredContent"]["status"];
        if status["phase"] == "ready" {
            let root = info["result"]["structuredContent"]["root"]
                .as_str()
                .unwrap()
                .to_string();
            assert_eq!(PathBuf::from(root), vault.path().canonicalize().unwrap());
            break;
        }
        assert!(start.elapsed() < DEADLINE, "{info}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(wire);
    sandbox.stop_daemons();
}

#[test]
fn the_file_system_root_is_refused_with_a_clear_message() {
    let sandbox = Sandbox::new();
    let output = sandbox
        .weft()
        .args(["mcp", "--vault", "/"])
        .output()
        .expect("run weft");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("root of the file system") && stderr.contains("--vault"),
        "{stderr}"
    );
    let output = sandbox
        .weft()
        .arg("mcp")
        .current_dir("/")
        .env("WEFT_VAULT", "/")
        .output()
        .expect("run weft");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(sandbox.stop_daemons(), 0, "no daemon for `/`");
}

/// Issue 15: with `[agent] deny`, nothing of a denied note — its name,
/// title, headings, tags, aliases, words, properties, block ids, the notes
/// it alone links to, its attachments — reaches the agent through any tool,
/// prompt, resource or completion of the official Python SDK (regression:
/// `weft://tags` listed its tags, `weft://index` named it as a visible
/// note's outlink, a graph walked through it, related notes cited it).
#[test]
fn a_denied_note_leaks_through_no_answer_to_the_python_sdk() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        "
//- /.weft.toml
[agent]
deny = [\"private/\"]
//- /Hub.md
---
tags: [topic, shared]
---
# The Hub
Alpha words. See [[Plan]].
//- /Plan.md
# Plan
Alpha plan, linking [[Hub]] and [[Side Door]].
//- /private/quokka-den.md
---
aliases: [Dingo Alias, Side Door]
tags: [platypustag, shared]
kookaburra_key: cassowary value
---
# Wombat Plans
Alpha bilbywordsecret, about [[Hub]] and [[Plan]] and [[Taipan Missing]] #echidnatag
## Numbat heading
Body. ^wallabyblock
![[koala.png]]
- [ ] feed the numbat #shared 📅 2024-01-15
//- /private/koala.png
png
",
    );
    let secrets = [
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
    ];
    let report = python_report(&sandbox, "privacy_sweep.py", vault.path(), &secrets);
    assert!(report["answers"].as_u64().unwrap() > 40, "{report}");
    sandbox.stop_daemons();
}

/// Issue 15 through the official Python SDK: a frontmatter edit changes
/// only its own key's bytes (regression: `"a:b"` was filed as `a` and
/// overwritten; `subtags:` was taken for `tags:`) and refuses one that
/// would change another key; `A::C` names the direct child for read_note
/// and edit_note alike (regression: "ambiguous"); `c++` and `2024` are no
/// tags for reading and writing alike (regression: indexed, then refused
/// on write).
#[test]
fn notes_keep_every_key_and_one_rule_holds_for_sections_and_tags() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        "
//- /keys.md
---
\"a:b\": 1
subtags: [s]
# a comment between keys
base: &b {x: 1}
other: *b
---
Body with a: colon
//- /sec.md
# A
## B
### C
under B
## C
under A
//- /tags.md
---
tags: [c++, \"2024\", good]
---
# Tags
",
    );
    python_script(&sandbox, "notes_trust.py", vault.path(), &[]);
    sandbox.stop_daemons();
}
