//! The `weft` command line, run as a person runs it: the built binary on a
//! vault written to disk. Each test runs in a sandbox of its own and stops
//! the daemons it started.

use std::process::Output;

use weft_e2e::{Sandbox, TempVault};

const VAULT: &str = r#"
//- /Hub.md
---
aliases: [Centre]
tags: [topic]
---
# The Hub

Intro paragraph. ^intro

## Details
//- /notes/A.md
# A
See [[Hub]] and [[Centre|the centre]] 🙂, and [[Hub#Details]].
Broken: [[Hub#Nowhere]] and [[Ghost]].
//- /notes/Café notes/Crème.md
Back to [[hub]] and [[Plan]].
//- /x/Plan.md
//- /y/Plan.md
//- /.obsidian/ignored.md
[[Hub]]
"#;

fn run(vault: &TempVault, args: &[&str]) -> (String, String, i32) {
    let Output {
        status,
        stdout,
        stderr,
    } = vault.weft(args).output().expect("run weft");
    (
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
        status.code().unwrap_or(-1),
    )
}

#[test]
fn backlinks_show_titles_paths_lines_and_context() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, err, code) = run(&vault, &["query", "backlinks", "Hub"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Links of **The Hub** (`Hub`)\n"), "{out}");
    assert!(out.contains("Backlinks — 5 links from 2 notes:"), "{out}");
    assert!(out.contains("- **A** (`notes/A`) — 4 links\n  - L2 (3 links): See [[Hub]] and [[Centre|the centre]] 🙂, and [[Hub#Details]]."), "{out}");
    assert!(
        out.contains("(`notes/Café notes/Crème`)\n  - L1: Back to [[hub]] and [[Plan]]."),
        "{out}"
    );
    // Dot-folders are not part of the vault.
    assert!(!out.contains(".obsidian"), "{out}");
    sandbox.stop_daemons();
}

#[test]
fn backlinks_as_json_and_for_a_missing_note() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, err, code) = run(
        &vault,
        &["query", "backlinks", "centre", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["incoming_total"], 5);
    assert_eq!(v["note"]["path"], "Hub");
    assert_eq!(v["incoming"][0]["line"], 2);
    assert_eq!(v["incoming"][0]["from"]["path"], "notes/A");

    let (out, err, code) = run(&vault, &["query", "backlinks", "Ghost"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("`Ghost` does not exist yet") && out.contains("L3: Broken"),
        "{out}"
    );
    sandbox.stop_daemons();
}

#[test]
fn links_graph_and_resolve() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, _, code) = run(&vault, &["query", "links", "notes/A"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("- L3 `Hub#Nowhere` → **The Hub** (`Hub`), but `#Nowhere` is not found there"),
        "{out}"
    );
    assert!(out.contains("- L3 `Ghost` → unresolved"), "{out}");

    let (out, _, code) = run(
        &vault,
        &["query", "graph", "Hub", "--depth", "2", "--format", "json"],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let paths: Vec<&str> = v["graph"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths[0], "Hub");
    assert!(
        paths.contains(&"notes/A") && paths.contains(&"ghost"),
        "{paths:?}"
    );

    let (out, _, _) = run(&vault, &["query", "resolve", "Plan"]);
    assert!(out.contains("ambiguous: `x/Plan.md`, `y/Plan.md`"), "{out}");
    sandbox.stop_daemons();
}

#[test]
fn check_lists_problems_with_file_and_line_and_exits_1() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, _, code) = run(&vault, &["check"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("- `notes/A.md:3` `[[Ghost]]` links to a note that does not exist."),
        "{out}"
    );
    assert!(out.contains("- `notes/A.md:3` `[[Hub#Nowhere]]`: `Hub` has no `#Nowhere`. Fix: Headings in `Hub`: `The Hub`, `Details`."), "{out}");
    assert!(
        out.contains("`notes/Café notes/Crème.md:1` `[[Plan]]` matches 2 notes"),
        "{out}"
    );

    let clean = sandbox.vault("//- /a.md\n[[b]]\n//- /b.md\n");
    let (out, _, code) = run(&clean, &["check"]);
    assert_eq!(
        (code, out.as_str()),
        (0, "# Vault check\n\nNo problems found.\n")
    );
    sandbox.stop_daemons();
}

/// Issue 39: `--path-prefix proj` is the folder (or note) `proj`, never
/// `projects/`, however it is written; one outside the vault is refused.
#[test]
fn check_takes_a_folder_with_its_boundary() {
    let sandbox = Sandbox::new();
    let vault = sandbox
        .vault("//- /projects/a.md\n[[Gone]]\n//- /proj/b.md\n[[Lost]]\n//- /c.md\n[[Away]]\n");
    for written in ["proj", "proj/", "/proj", "./proj", "proj\\", "PROJ"] {
        let (out, _, code) = run(&vault, &["check", "--path-prefix", written]);
        assert_eq!(code, 1, "{written}: {out}");
        assert!(
            out.contains("`proj/b.md:1` `[[Lost]]` links to a note that does not exist"),
            "{written}: {out}"
        );
        assert!(
            !out.contains("projects/a.md") && !out.contains("c.md"),
            "{written}: {out}"
        );
    }
    let (out, _, code) = run(&vault, &["check", "--path-prefix", "projects"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("projects/a.md") && !out.contains("proj/b.md"),
        "{out}"
    );
    let (_, err, code) = run(&vault, &["check", "--path-prefix", "../elsewhere"]);
    assert_ne!(code, 0);
    assert!(err.contains("names no folder of the vault"), "{err}");
    sandbox.stop_daemons();
}

#[test]
fn stats_count_the_vault() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, _, code) = run(&vault, &["stats", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            v["notes"].as_u64(),
            v["links"].as_u64(),
            v["unresolved"].as_u64()
        ),
        (Some(5), Some(7), Some(1))
    );
    sandbox.stop_daemons();
}

#[test]
fn errors_say_what_to_do_and_exit_2() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (_, err, code) = run(&vault, &["query", "backlinks", "Hubb"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("weft: No note matches `Hubb`.\nDid you mean: **The Hub** (`Hub`)?"),
        "{err}"
    );
    let (_, err, code) = run(&vault, &["query", "links", "Plan"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`Plan` names 2 notes: `x/Plan`, `y/Plan`"),
        "{err}"
    );

    let out = sandbox
        .weft()
        .args(["stats", "--vault", "/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to index `/`"));

    let out = sandbox
        .weft()
        .args(["stats", "--vault", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be opened"));
    sandbox.stop_daemons();
}

#[test]
fn help_documents_every_command() {
    let sandbox = Sandbox::new();
    let out = sandbox.weft().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for word in ["query", "stats", "check", "--vault", "--format"] {
        assert!(help.contains(word), "{help}");
    }
    sandbox.stop_daemons();
}

#[test]
fn notes_complete_names_by_prefix_title_and_alias() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, _, code) = run(&vault, &["query", "notes", "cen", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v[0]["path"], "Hub.md",
        "an alias prefix finds the note: {out}"
    );
    let (out, _, _) = run(&vault, &["query", "notes", "CRÈ"]);
    assert_eq!(out, "- Crème (`notes/Café notes/Crème.md`)\n");
    // Without a prefix: the most linked notes first.
    let (out, _, _) = run(&vault, &["query", "notes", "--limit", "1"]);
    assert_eq!(out, "- The Hub (`Hub.md`)\n");
    sandbox.stop_daemons();
}

/// Regression: `weft check | head` panicked on the closed pipe.
#[test]
fn a_closed_pipe_is_not_a_crash() {
    use std::io::Read;
    let mut fixture = String::new();
    for i in 0..3000 {
        fixture.push_str(&format!("//- /n{i}.md\n[[missing{i}]]\n"));
    }
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(&fixture);
    let mut child = vault
        .weft(&["check"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(1), "{stderr}");
    sandbox.stop_daemons();
}

#[test]
fn search_and_related_answer_from_the_full_text_index() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let (out, err, code) = run(
        &vault,
        &["query", "search", "intro OR details", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hits"][0]["path"], "Hub", "{out}");

    let (out, err, code) = run(&vault, &["query", "related", "notes/A"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("**The Hub** (`Hub`)") && out.contains("this note links to it"),
        "{out}"
    );

    let (_, err, code) = run(&vault, &["query", "related", "Nowhere"]);
    assert_eq!(code, 2);
    assert!(err.contains("No note matches `Nowhere`"), "{err}");
    sandbox.stop_daemons();
}

/// Issue 39's reproductions, as a person types them: a comparison on a
/// property selects by the value's type (it used to match nothing), a
/// `[[link]]` property is found by where it leads, and a query of symbols
/// only says there is nothing to search for (it used to list every note).
#[test]
fn search_compares_properties_by_type_and_refuses_symbols_only() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        r#"
//- /projects/alpha.md
---
type: project
status: active
due: 2026-12-01
part_of: "[[Hub]]"
---
//- /projects/beta.md
---
type: project
status: active
due: 2027-02-01
part_of: "[[projects/Hub|the hub]]"
---
//- /projects/gamma.md
---
type: project
status: done
due: 2026-11-15
---
//- /projects/Hub.md
# Hub
"#,
    );
    let paths = |query: &str| {
        let (out, err, code) = run(&vault, &["query", "search", query, "--format", "json"]);
        assert_eq!(code, 0, "{query}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let mut found: Vec<String> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["path"].as_str().unwrap().to_string())
            .collect();
        found.sort();
        found
    };
    assert_eq!(
        paths("type:project status:active due:<2026-12-28"),
        ["projects/alpha"]
    );
    assert_eq!(
        paths("due:>=2026-12-01"),
        ["projects/alpha", "projects/beta"]
    );
    assert_eq!(
        paths("due:[2026-11-01 TO 2026-12-31] -status:done"),
        ["projects/alpha"]
    );
    assert_eq!(paths("part_of:Hub"), ["projects/alpha", "projects/beta"]);
    // (`- [ ]` would be read as an option here: the MCP test asks it.)
    for query in ["[ ]", "📅", "???"] {
        let (_, err, code) = run(&vault, &["query", "search", query]);
        assert_eq!(code, 2, "{query}");
        assert!(err.contains("nothing to search for"), "{query}: {err}");
    }
    sandbox.stop_daemons();
}

/// `weft base`: a base's view as Markdown, JSON or CSV, paged; a view by
/// name, a note's block; `--format csv` elsewhere is refused.
#[test]
fn base_runs_a_view_in_every_format() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        r#"
//- /Reading.base
filters: 'file.inFolder("books")'
formulas:
  pages_k: 'pages / 1000'
views:
  - type: table
    name: All
    order: [file.name, author, formula.pages_k]
    sort: [{property: pages, direction: DESC}]
    summaries: {formula.pages_k: Sum}
  - type: table
    name: Short
    filters: 'pages < 400'
    order: [file.name]
//- /books/Dune.md
---
author: Frank Herbert
pages: 412
---
//- /books/Emma, a novel.md
---
author: Jane Austen
pages: 300
---
//- /Shelf.md
# Shelf
```base
filters: 'file.hasLink(this)'
views: [{type: table, name: Linked, order: [file.name]}]
```
//- /Linker.md
[[Shelf]]
"#,
    );
    let (out, err, code) = run(&vault, &["base", "Reading.base"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| file.name | author | formula.pages_k |"),
        "{out}"
    );
    let dune = out
        .find("| Dune | Frank Herbert | 0.412 |")
        .expect("Dune's row");
    let emma = out
        .find("| Emma, a novel | Jane Austen | 0.3 |")
        .expect("Emma's row");
    assert!(dune < emma, "sorted by pages, descending: {out}");
    assert!(out.contains("**0.712**"), "the summary: {out}");

    let (out, _, code) = run(
        &vault,
        &["base", "Reading.base", "--view", "short", "--format", "csv"],
    );
    assert_eq!(code, 0);
    assert_eq!(out, "file.name\r\n\"Emma, a novel\"\r\n");

    let (out, _, _) = run(
        &vault,
        &["base", "Reading.base", "--format", "json", "--limit", "1"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        v["rows"],
        serde_json::json!([["Dune", "Frank Herbert", 0.412]])
    );
    assert_eq!(v["total"], 2);
    let (out, _, _) = run(
        &vault,
        &["base", "Reading.base", "--offset", "1", "--limit", "1"],
    );
    assert!(out.contains("Emma") && !out.contains("Dune"), "{out}");

    let (out, err, code) = run(&vault, &["base", "Shelf"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| Linker |"),
        "this is the note with the block: {out}"
    );

    let (_, err, code) = run(&vault, &["base", "Reading.base", "--view", "Nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("All, Short"), "{err}");
    let (_, err, code) = run(&vault, &["stats", "--format", "csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("`weft base`"), "{err}");
    sandbox.stop_daemons();
}

/// `weft tasks`: the vault's tasks with `list_tasks`' filters, through the
/// daemon and in-process alike, Markdown or JSON; a day not understood is
/// an error (exit 2) that names it.
#[test]
fn tasks_lists_by_dates_status_and_tags_in_both_formats() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        "
//- /work/Plan.md
# Plan
- [ ] call Bob #work 📅 2021-04-25 ⏫
- [/] write report [due:: 2021-05-01]
- [x] file taxes 📅 2021-04-15 ✅ 2021-04-10
//- /Home.md
- [ ] water plants 🔁 every week 🛫 2099-01-04
```
- [ ] not a task: code
```
",
    );
    let (out, err, code) = run(&vault, &["tasks", "--due", "before 2021-06-01"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Found 2 tasks (due before 2021-06-01) in 1 note.\n\n### work/Plan.md\n"),
        "{out}"
    );
    assert!(
        out.contains("- L3 [/] write report — due 2021-05-01"),
        "{out}"
    );
    assert!(
        out.contains("- L2 [ ] call Bob #work — due 2021-04-25 ("),
        "{out}"
    );
    let (out, _, code) = run(
        &vault,
        &[
            "tasks",
            "--status",
            "any",
            "--group-by",
            "none",
            "--format",
            "json",
            "--tag",
            "work",
        ],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["total"], 1);
    assert_eq!(v["groups"][0]["tasks"][0]["path"], "work/Plan.md");
    assert_eq!(v["groups"][0]["tasks"][0]["priority"], "high");
    let (out, _, _) = run(&vault, &["--no-daemon", "tasks", "--recurring", "true"]);
    assert!(
        out.contains("water plants") && !out.contains("call Bob"),
        "{out}"
    );
    let (_, err, code) = run(&vault, &["tasks", "--due", "before soon"]);
    assert_eq!(code, 2);
    assert!(err.contains("`due`: cannot read `soon`"), "{err}");
    sandbox.stop_daemons();
}

/// `weft tasks --query`: a note's ```tasks blocks (each, or one), a
/// query's text, or a file holding one; a line Weft cannot run is an
/// error naming it.
#[test]
fn tasks_runs_query_blocks_texts_and_files() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        "
//- /work/Plan.md
- [ ] call Bob #work 📅 2021-04-25 ⏫
- [x] file taxes #work 📅 2021-04-15 ✅ 2021-04-10
- [ ] water plants 🔁 every week 🛫 2099-01-04
//- /Today.md
# Today
```tasks
not done
tags include #work
```
```tasks
is recurring
group by filename
```
```tasks
filter by function task.urgency > 1
```
",
    );
    let (out, err, code) = run(&vault, &["tasks", "--query", "Today.md"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("## `Today` block 1 (line 2)\n\n1 task matches in 1 note.\n- work/Plan.md:1 [ ] call Bob #work"),
        "{out}"
    );
    assert!(
        out.contains("### [[Plan]]\n- work/Plan.md:3 [ ] water plants"),
        "{out}"
    );
    assert!(
        out.contains("Not run: line 11: `filter by function task.urgency > 1`: `filter by function` runs JavaScript"),
        "{out}"
    );
    let (out, err, code) = run(
        &vault,
        &[
            "--no-daemon",
            "tasks",
            "--query",
            "Today.md",
            "--block",
            "2",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("1 task matches in 1 note."), "{out}");
    let (out, _, code) = run(
        &vault,
        &["tasks", "--query", "done\nsort by due", "--format", "json"],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        v["groups"][0]["tasks"][0]["description"],
        "file taxes #work"
    );
    let file = sandbox.root().join("query.txt");
    std::fs::write(&file, "not done\nhas due date\n").unwrap();
    let (out, _, code) = run(&vault, &["tasks", "--query", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.starts_with("1 task matches in 1 note."), "{out}");
    let (_, err, code) = run(&vault, &["tasks", "--query", "Today.md", "--block", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 11") && err.contains("JavaScript"),
        "{err}"
    );
    sandbox.stop_daemons();
}
