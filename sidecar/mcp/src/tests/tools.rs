//! Every read tool through a real MCP session: answers, structured content
//! against the output schema, and every error path with its recovery hint.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::{VAULT, session, session_prepared, session_with};
use crate::{Profile, ToolSet};
use weft_search::index::sha256_hex;

fn paths(v: &Value, list: &str, key: &str) -> Vec<String> {
    let mut out: Vec<String> = v[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {v:#}"))
        .iter()
        .map(|x| x[key].as_str().unwrap_or_default().to_string())
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_note_views_and_sha256() {
    let s = session(VAULT).await;
    let bytes = std::fs::read(s.root().join("Hub.md")).unwrap();
    let (text, v) = s.ok("read_note", json!({"path": "Hub"})).await;
    let note = &v["notes"][0];
    assert_eq!(note["path"], "Hub");
    assert_eq!(note["title"], "The Hub");
    assert_eq!(note["sha256"], sha256_hex(&bytes));
    assert!(text.starts_with("**The Hub** — `Hub`"), "{text}");
    assert!(
        text.contains(&format!("sha256 `{}`", sha256_hex(&bytes))),
        "{text}"
    );
    assert!(
        note["content"]
            .as_str()
            .unwrap()
            .contains("aliases: [Centre]")
    );
    assert_eq!(note["aliases"], json!(["Centre"]));
    // By alias, by title, with `.md`, with the `note` alias of `path`.
    for name in [
        json!({"note": "Centre"}),
        json!({"path": "the hub"}),
        json!({"name": "Hub.md"}),
    ] {
        let (_, v) = s.ok("read_note", name).await;
        assert_eq!(v["notes"][0]["path"], "Hub");
    }
    let absolute = s.root().canonicalize().unwrap().join("notes/A.md");
    let (_, v) = s
        .ok("read_note", json!({"path": absolute.to_str().unwrap()}))
        .await;
    assert_eq!(v["notes"][0]["path"], "notes/A");
    let (_, v) = s
        .ok("read_note", json!({"path": "Projects overview"}))
        .await;
    assert_eq!(v["notes"][0]["path"], "projects");

    let (_, v) = s
        .ok("read_note", json!({"path": "Hub", "view": "body"}))
        .await;
    assert!(
        v["notes"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("# The Hub")
    );

    let (text, v) = s
        .ok("read_note", json!({"path": "Hub", "view": "metadata"}))
        .await;
    let note = &v["notes"][0];
    assert!(note.get("content").is_none());
    assert_eq!(note["frontmatter"]["status"], "active");
    let backlink = note["backlinks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["from"]["path"] == "notes/A")
        .unwrap();
    assert_eq!(backlink["line"], 2);
    assert!(
        backlink["context"]
            .as_str()
            .unwrap()
            .contains("See [[Hub]]")
    );
    assert!(text.contains("Backlinks ("), "{text}");

    let (text, v) = s
        .ok("read_note", json!({"path": "Hub", "view": "OUTLINE"}))
        .await;
    let sections: Vec<&str> = v["notes"][0]["headings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["section"].as_str().unwrap())
        .collect();
    assert_eq!(
        sections,
        [
            "The Hub",
            "The Hub::Details",
            "The Hub::Details::Deep",
            "The Hub::Notes"
        ]
    );
    assert_eq!(v["notes"][0]["blocks"], json!([{"id": "intro", "line": 8}]));
    assert!(text.contains("Block ids: ^intro (L8)"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_note_sections_paging_and_several_notes() {
    let fixture = format!("{VAULT}//- /dup.md\n# A\n## Notes\nx\n# B\n## Notes\ny\n");
    let s = session(&fixture).await;
    let (_, v) = s
        .ok("read_note", json!({"path": "Hub", "section": "details"}))
        .await;
    let note = &v["notes"][0];
    assert_eq!(note["view"], "section");
    assert_eq!(note["section"], "The Hub::Details");
    assert_eq!(note["lines"], json!([10, 16]));
    let content = note["content"].as_str().unwrap();
    assert!(
        content.starts_with("## Details")
            && content.contains("### Deep")
            && !content.contains("## Notes")
    );
    let (_, v) = s
        .ok(
            "read_note",
            json!({"path": "Hub", "heading": "The Hub::Notes"}),
        )
        .await;
    assert!(
        v["notes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("First notes section.")
    );
    let e = s
        .err("read_note", json!({"path": "Hub", "section": "Nowhere"}))
        .await;
    assert!(
        e.contains("no section `Nowhere`") && e.contains("`The Hub::Details::Deep`"),
        "{e}"
    );
    let e = s
        .err("read_note", json!({"path": "dup", "section": "Notes"}))
        .await;
    assert!(
        e.contains("section `Notes` is ambiguous")
            && e.contains("`A::Notes` (line 2)")
            && e.contains("`B::Notes` (line 5)"),
        "{e}"
    );
    let (_, v) = s
        .ok("read_note", json!({"path": "dup", "section": "B::Notes"}))
        .await;
    assert_eq!(v["notes"][0]["content"], "## Notes\ny\n");
    let e = s
        .err("read_note", json!({"path": "dup", "view": "section"}))
        .await;
    assert!(e.contains("needs `section`"), "{e}");

    // Paging by characters.
    let (_, whole) = s.ok("read_note", json!({"path": "Hub"})).await;
    let whole = whole["notes"][0]["content"].as_str().unwrap().to_string();
    let (text, v) = s
        .ok("read_note", json!({"path": "Hub", "max_chars": "200"}))
        .await;
    let first = v["notes"][0].clone();
    assert_eq!(first["next_offset"], 200);
    assert!(text.contains("continue with `offset: 200`"), "{text}");
    let (_, v) = s
        .ok(
            "read_note",
            json!({"path": "Hub", "offset": 200, "max_chars": 10_000}),
        )
        .await;
    assert!(v["notes"][0].get("next_offset").is_none());
    let joined = format!(
        "{}{}",
        first["content"].as_str().unwrap(),
        v["notes"][0]["content"].as_str().unwrap()
    );
    assert_eq!(joined, whole);

    // Several notes, one missing.
    let (text, v) = s
        .ok("read_note", json!({"paths": ["Hub", "Nope", "x/Plan"]}))
        .await;
    assert_eq!(paths(&v, "notes", "path"), ["Hub", "x/Plan"]);
    assert_eq!(v["errors"][0]["input"], "Nope");
    assert!(text.contains("Could not read `Nope`"), "{text}");
    let e = s.err("read_note", json!({"paths": ["Nope", "Nada"]})).await;
    assert!(e.contains("None of the notes could be read"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_note_errors_say_how_to_recover() {
    let s = session(VAULT).await;
    let e = s.err("read_note", json!({"path": "Hubb"})).await;
    assert!(
        e.contains("No note matches `Hubb`.") && e.contains("Did you mean: **The Hub** (`Hub`)"),
        "{e}"
    );
    let e = s.err("read_note", json!({"path": "Plan"})).await;
    assert!(
        e.contains("`Plan` names 2 notes: **Plan X** (`x/Plan`), **Plan Y** (`y/Plan`)"),
        "{e}"
    );
    assert!(e.contains("Pass the path"), "{e}");
    let e = s.err("read_note", json!({"path": "Ghost"})).await;
    assert!(
        e.contains("No note `Ghost` exists yet; 1 link link to it")
            || e.contains("No note `Ghost` exists yet"),
        "{e}"
    );
    let e = s
        .err("read_note", json!({"path": "Hub", "version": "abc123"}))
        .await;
    assert!(
        e.contains("no version `abc123`") && e.contains("note_history lists"),
        "{e}"
    );
    let e = s.err("read_note", json!({"paht": "Hub"})).await;
    assert!(
        e.contains("`read_note` has no parameter `paht`. Did you mean `path`?"),
        "{e}"
    );
    assert!(e.contains("Accepted parameters: `max_chars`, `offset`, `path`, `paths`, `section`, `version`, `view`."), "{e}");
    let e = s
        .err("read_note", json!({"path": "../outside/secret"}))
        .await;
    assert!(e.contains("leaves the vault"), "{e}");
    let e = s.err("read_note", json!({})).await;
    assert!(e.contains("Pass `path`"), "{e}");
    let e = s
        .err("read_note", json!({"path": "Hub", "view": "everything"}))
        .await;
    assert!(
        e.contains("expected one of: full, body, metadata, outline, section"),
        "{e}"
    );
    let e = s
        .err("read_note", json!({"path": "Hub", "max_chars": -3}))
        .await;
    assert!(e.contains("whole number"), "{e}");
    let e = s
        .err(
            "read_note",
            json!({"paths": (0..11).map(|i| format!("n{i}")).collect::<Vec<_>>()}),
        )
        .await;
    assert!(e.contains("the limit is 10"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolve_note_ranks_candidates_with_reasons() {
    let s = session(VAULT).await;
    let (text, v) = s.ok("resolve_note", json!({"query": "Centre"})).await;
    assert_eq!(v["resolves_to"]["path"], "Hub");
    assert_eq!(v["candidates"][0]["why"], "alias “Centre”");
    assert!(
        text.starts_with("`[[Centre]]` resolves to **The Hub** (`Hub`)."),
        "{text}"
    );
    let (text, v) = s.ok("resolve_note", json!({"name": "[[Plan]]"})).await;
    assert_eq!(v["ambiguous"], true);
    assert_eq!(v["resolves_to"]["path"], "x/Plan");
    assert_eq!(paths(&v, "candidates", "path"), ["x/Plan", "y/Plan"]);
    assert!(text.contains("is ambiguous"), "{text}");
    let (text, v) = s.ok("resolve_note", json!({"query": "Ghost"})).await;
    assert_eq!(v["unresolved_links"], 1);
    assert!(text.contains("a note not written yet"), "{text}");
    let (_, v) = s
        .ok("resolve_note", json!({"query": "wef", "limit": 3}))
        .await;
    assert_eq!(v["candidates"][0]["path"], "projects/weft");
    let e = s.err("resolve_note", json!({"query": "  "})).await;
    assert!(e.contains("`query` is empty"), "{e}");
    let e = s.err("resolve_note", json!({})).await;
    assert!(e.contains("missing field `query`"), "{e}");
}

fn set_mtime(path: &std::path::Path, time: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(time).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_notes_browses_filters_sorts_and_pages() {
    // Every note a year old but one, an hour old.
    let s = session_prepared(VAULT, Profile::default(), true, |root| {
        let old = SystemTime::now() - Duration::from_secs(400 * 86_400);
        for entry in [
            "Hub.md",
            "notes/A.md",
            "notes/Café notes/Crème.md",
            "y/Plan.md",
            "projects.md",
            "projects/weft.md",
            "projects/loom/notes.md",
            "daily/2024-01-15.md",
        ] {
            set_mtime(&root.join(entry), old);
        }
        set_mtime(
            &root.join("x/Plan.md"),
            SystemTime::now() - Duration::from_secs(3_600),
        );
    })
    .await;
    let (text, v) = s.ok("list_notes", json!({})).await;
    assert_eq!(
        v["folders"],
        json!([
            {"path": "daily", "notes": 1},
            {"path": "notes", "notes": 2},
            {"path": "projects", "notes": 2},
            {"path": "x", "notes": 1},
            {"path": "y", "notes": 1}
        ])
    );
    assert_eq!(paths(&v, "notes", "path"), ["Hub", "projects"]);
    assert!(text.contains("- `projects/` (2 notes)"), "{text}");

    // A path that is a note and a folder.
    let (text, v) = s.ok("list_notes", json!({"folder": "projects/"})).await;
    assert_eq!(v["note"]["title"], "Projects overview");
    assert_eq!(v["folders"], json!([{"path": "projects/loom", "notes": 1}]));
    assert_eq!(paths(&v, "notes", "path"), ["projects/weft"]);
    assert!(
        text.contains("Note at this path: **Projects overview** (`projects`)"),
        "{text}"
    );

    let (_, v) = s.ok("list_notes", json!({"recursive": true})).await;
    assert_eq!(v["total"], 9);
    let (_, v) = s.ok("list_notes", json!({"depth": 1})).await;
    assert_eq!(v["total"], 7);
    let (_, v) = s
        .ok("list_notes", json!({"recursive": "yes", "tags": "project"}))
        .await;
    assert_eq!(
        paths(&v, "notes", "path"),
        ["Hub", "notes/A", "projects/weft"]
    );
    // THE note filter's tag and folder rules: `#` and case do not count, a
    // folder is the same however it is written, and `proj` is no folder
    // (regression: list_notes had its own folder and tag code).
    let (_, v) = s
        .ok(
            "list_notes",
            json!({"folder": "\\Projects\\", "recursive": true, "tags": ["#Project/WEFT"]}),
        )
        .await;
    assert_eq!(v["note"]["path"], "projects");
    assert_eq!(paths(&v, "notes", "path"), ["projects/weft"]);
    let e = s.err("list_notes", json!({"folder": "proj"})).await;
    assert!(e.contains("no folder or note `proj`"), "{e}");

    // Recent notes.
    let (_, v) = s.ok("list_notes", json!({"since": "7d"})).await;
    assert_eq!(paths(&v, "notes", "path"), ["x/Plan"]);
    let (_, v) = s
        .ok("list_notes", json!({"recursive": true, "sort": "modified"}))
        .await;
    assert_eq!(v["notes"][0]["path"], "x/Plan");

    // Tree.
    let (text, v) = s.ok("list_notes", json!({"format": "tree"})).await;
    assert!(
        text.contains("- projects/ (2 notes)\n  - loom/ (1 note)"),
        "{text}"
    );
    assert!(
        v["tree"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["path"] == "notes/Café notes" && e["kind"] == "folder")
    );

    // Pages.
    let (text, first) = s
        .ok("list_notes", json!({"recursive": true, "limit": 4}))
        .await;
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    assert!(
        text.contains("Showing 1–4 of 9.") && text.contains(&cursor),
        "{text}"
    );
    let (_, second) = s
        .ok(
            "list_notes",
            json!({"recursive": true, "limit": 4, "cursor": cursor}),
        )
        .await;
    assert_ne!(first["notes"][0]["path"], second["notes"][0]["path"]);
    let e = s
        .err("list_notes", json!({"folder": "notes", "cursor": cursor}))
        .await;
    assert!(e.contains("belongs to a different query"), "{e}");
    let e = s.err("list_notes", json!({"cursor": "garbage"})).await;
    assert!(e.contains("is not a cursor from this tool"), "{e}");

    let e = s.err("list_notes", json!({"folder": "projets"})).await;
    assert!(
        e.contains("no folder or note `projets`") && e.contains("Did you mean: `projects`"),
        "{e}"
    );
    let e = s.err("list_notes", json!({"folder": "../.."})).await;
    assert!(e.contains("leaves the vault"), "{e}");
    let e = s.err("list_notes", json!({"modified_since": "soon"})).await;
    assert!(e.contains("`modified_since`: cannot read `soon`"), "{e}");
}

/// Issue 39: the filters answer alike in every mode, by the one note
/// filter: a `[[Hub]]` property is found by `Hub` by name as by words; a
/// folder is the same however it is written, and never the start of a
/// longer name; a folder outside the vault is an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_filter_answers_alike_in_every_mode() {
    let s = session(VAULT).await;
    let part_of = json!({"part_of": "Hub"});
    let (_, words) = s.ok("search_notes", json!({"frontmatter": part_of})).await;
    let (_, names) = s
        .ok(
            "search_notes",
            json!({"mode": "name", "query": "proj", "frontmatter": part_of}),
        )
        .await;
    assert_eq!(paths(&words, "hits", "path"), ["projects", "projects/weft"]);
    assert_eq!(paths(&names, "hits", "path"), ["projects", "projects/weft"]);
    for written in ["projects\\", "/projects/", "./projects", "Projects"] {
        let (_, v) = s
            .ok(
                "search_notes",
                json!({"query": "tantivy", "path_prefix": written}),
            )
            .await;
        assert_eq!(paths(&v, "hits", "path"), ["projects/weft"], "{written}");
        let (_, v) = s
            .ok(
                "search_notes",
                json!({"mode": "name", "query": "weft", "path_prefix": written}),
            )
            .await;
        assert_eq!(paths(&v, "hits", "path"), ["projects/weft"], "{written}");
        let (text, _) = s.ok("check_vault", json!({"path_prefix": written})).await;
        assert!(!text.contains('\\'), "{written}: {text}");
    }
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"mode": "name", "query": "weft", "path_prefix": "proj"}),
        )
        .await;
    assert_eq!(paths(&v, "hits", "path"), Vec::<String>::new());
    let error = s
        .err(
            "search_notes",
            json!({"query": "x", "path_prefix": "../up"}),
        )
        .await;
    assert!(error.contains("names no folder of the vault"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_notes_query_syntax_filters_and_modes() {
    let s = session(VAULT).await;
    let (text, v) = s.ok("search_notes", json!({"query": "tantivy"})).await;
    assert_eq!(
        paths(&v, "hits", "path"),
        ["Hub", "projects/weft", "x/Plan"]
    );
    assert!(text.starts_with("Found 3 notes for `tantivy`:"), "{text}");
    assert!(text.contains("**tantivy**"), "{text}");
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"query": "tantivy AND NOT title:plan"}),
        )
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["Hub", "projects/weft"]);
    let (_, v) = s.ok("search_notes", json!({"q": "tag:project"})).await;
    assert_eq!(
        paths(&v, "hits", "path"),
        ["Hub", "notes/A", "projects/weft"]
    );
    let (_, v) = s
        .ok("search_notes", json!({"query": "folder:projects"}))
        .await;
    assert_eq!(
        paths(&v, "hits", "path"),
        ["projects", "projects/loom/notes", "projects/weft"]
    );
    let (_, v) = s
        .ok("search_notes", json!({"frontmatter": {"status": "ACTIVE"}}))
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["Hub"]);
    let (_, v) = s
        .ok("search_notes", json!({"frontmatter": {"part_of": "Hub"}}))
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["projects", "projects/weft"]);
    let (_, v) = s.ok("search_notes", json!({"query": "status:*"})).await;
    assert_eq!(paths(&v, "hits", "path"), ["Hub"]);
    let (_, v) = s.ok("search_notes", json!({"backlinks_to": "Hub"})).await;
    assert_eq!(
        paths(&v, "hits", "path"),
        [
            "notes/A",
            "notes/Café notes/Crème",
            "projects",
            "projects/weft"
        ]
    );
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"links_to": "Centre", "query": "tantivy"}),
        )
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["projects/weft"]);
    let (_, v) = s.ok("search_notes", json!({"links_from": "notes/A"})).await;
    assert_eq!(paths(&v, "hits", "path"), ["Hub"]);
    let (_, v) = s.ok("search_notes", json!({"backlinks_to": "Ghost"})).await;
    assert_eq!(paths(&v, "hits", "path"), ["notes/A"]);
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"tags_any": "draft, topic", "sort": "alpha"}),
        )
        .await;
    assert_eq!(v["hits"][0]["path"], "Hub");
    assert_eq!(v["total"], 2);
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"path_prefix": "notes", "tags": ["project/weft"]}),
        )
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["notes/A"]);

    let (text, v) = s
        .ok("search_notes", json!({"query": "plan", "mode": "name"}))
        .await;
    assert_eq!(paths(&v, "hits", "path"), ["x/Plan", "y/Plan"]);
    assert!(
        text.contains("named like `plan`") && text.contains("— file name"),
        "{text}"
    );
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"query": "project/weft", "mode": "tag"}),
        )
        .await;
    assert_eq!(
        paths(&v, "hits", "path"),
        ["Hub", "notes/A", "projects/weft"]
    );
    let (_, v) = s
        .ok(
            "search_notes",
            json!({"query": "topic AND draft", "mode": "tag"}),
        )
        .await;
    assert_eq!(v["total"], 0);

    // Pages and cursors.
    let (text, first) = s
        .ok("search_notes", json!({"query": "tantivy", "limit": "1"}))
        .await;
    assert_eq!(first["total"], 3);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    assert!(
        text.contains("(showing 1–1)") && text.contains(&cursor),
        "{text}"
    );
    let (_, second) = s
        .ok(
            "search_notes",
            json!({"query": "tantivy", "limit": 1, "cursor": cursor}),
        )
        .await;
    assert_eq!(second["offset"], 1);
    assert_ne!(first["hits"][0]["path"], second["hits"][0]["path"]);
    let e = s
        .err("search_notes", json!({"query": "weft", "cursor": cursor}))
        .await;
    assert!(e.contains("different query"), "{e}");

    // Errors.
    let e = s.err("search_notes", json!({})).await;
    assert!(
        e.contains("needs at least one criterion") && e.contains("tags_all"),
        "{e}"
    );
    let e = s.err("search_notes", json!({"query": "\"tantivy"})).await;
    assert!(
        e.contains("unclosed quote") && e.contains("Close the phrase"),
        "{e}"
    );
    let e = s
        .err("search_notes", json!({"query": "statsu:active"}))
        .await;
    assert!(e.contains("Did you mean `status:`?"), "{e}");
    let e = s
        .err("search_notes", json!({"query": "x", "mode": "regex"}))
        .await;
    assert!(e.contains("expected one of: fulltext, name, tag"), "{e}");
    let e = s.err("search_notes", json!({"backlinks_to": "Nope"})).await;
    assert!(e.contains("No note matches `Nope`"), "{e}");
    let e = s.err("search_notes", json!({"mode": "tag"})).await;
    assert!(e.contains("mode `tag` needs `query`"), "{e}");
    let (text, _) = s.ok("search_notes", json!({"query": "zebra"})).await;
    assert!(text.starts_with("No notes found for `zebra`."), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_context_stitches_passages_within_a_budget() {
    let s = session(VAULT).await;
    let (text, v) = s
        .ok(
            "get_context",
            json!({"query": "tantivy search", "top_k": 3}),
        )
        .await;
    let hub = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["path"] == "Hub")
        .unwrap();
    assert_eq!(hub["passages"][0]["section"], "The Hub");
    assert_eq!(hub["passages"][0]["lines"], json!([8, 8]));
    assert!(
        text.contains("> Intro paragraph about tantivy search. ^intro"),
        "{text}"
    );
    assert_eq!(v["applied_filters"]["depth"], 0);

    let (text, v) = s.ok("get_context", json!({"around": "Hub"})).await;
    let notes = paths(&v, "notes", "path");
    assert!(
        notes.contains(&"Hub".to_string()) && notes.contains(&"notes/A".to_string()),
        "{notes:?}"
    );
    assert_eq!(v["notes"][0]["distance"], 0);
    assert!(text.contains("the `around` note"), "{text}");

    let (_, v) = s
        .ok(
            "get_context",
            json!({"question": "tantivy", "max_chars": 200, "tags_any": ["project"]}),
        )
        .await;
    assert!(v["chars"].as_u64().unwrap() <= 210, "{v:#}");
    assert_eq!(v["applied_filters"]["tags_any"], json!(["project"]));
    let e = s.err("get_context", json!({"top_k": 3})).await;
    assert!(e.contains("needs `query`"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_links_lists_walks_and_graphs() {
    let s = session(VAULT).await;
    let (text, v) = s.ok("get_links", json!({"path": "Hub"})).await;
    let sources = paths(&v, "incoming", "line");
    assert!(!sources.is_empty());
    let from: Vec<&str> = v["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["from"]["path"].as_str().unwrap())
        .collect();
    assert!(
        from.contains(&"notes/A") && from.contains(&"projects"),
        "{from:?}"
    );
    assert_eq!(v["outgoing_total"], 0);
    assert!(
        text.contains("Backlinks — 7 links from 4 notes:")
            && text.contains("  - L2 (3 links): See [[Hub]]"),
        "{text}"
    );

    let (text, v) = s
        .ok("get_links", json!({"note": "notes/A", "direction": "out"}))
        .await;
    let statuses: Vec<(String, String)> = v["outgoing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_string(),
                l["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        statuses.contains(&("Ghost".into(), "unresolved".into())),
        "{statuses:?}"
    );
    assert!(
        v["outgoing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["fragment"] == "Nowhere" && l["fragment_found"] == false)
    );
    assert!(text.contains("but `#Nowhere` is not found there"), "{text}");

    let (text, v) = s
        .ok("get_links", json!({"path": "Ghost", "direction": "in"}))
        .await;
    assert_eq!(v["note"]["exists"], false);
    assert!(
        text.starts_with("Note `Ghost` does not exist yet.")
            && text.contains("However, these notes link to it"),
        "{text}"
    );

    let (_, v) = s
        .ok(
            "get_links",
            json!({"path": "Hub", "direction": "in", "rel": "part_of"}),
        )
        .await;
    let from: Vec<&str> = v["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["from"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["projects", "projects/weft"]);

    let (text, v) = s
        .ok(
            "get_links",
            json!({"path": "daily/2024-01-15", "direction": "out", "depth": 2}),
        )
        .await;
    let reached: Vec<(String, u64)> = v["reached"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["distance"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reached,
        [("projects/weft".to_string(), 1), ("Hub".to_string(), 2)]
    );
    assert!(text.contains("Within 2 steps"), "{text}");

    let (text, v) = s
        .ok(
            "get_links",
            json!({"path": "Hub", "format": "graph", "depth": 2}),
        )
        .await;
    assert_eq!(v["graph"]["nodes"][0]["path"], "Hub");
    assert!(!v["graph"]["edges"].as_array().unwrap().is_empty());
    assert!(text.contains("Edges (from → to):"), "{text}");

    let (_, v) = s
        .ok(
            "get_links",
            json!({"path": "Hub", "format": "graph", "depth": 0}),
        )
        .await;
    assert_eq!(v["graph"]["nodes"].as_array().unwrap().len(), 1);
    // Backlinks page by linking note, each with all its links: notes/A
    // links to Hub three times on line 2, then once on line 3.
    let (_, first) = s
        .ok(
            "get_links",
            json!({"path": "Hub", "direction": "in", "limit": 1}),
        )
        .await;
    let lines: Vec<(String, u64)> = first["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["from"]["path"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let a = |line| ("notes/A".to_string(), line);
    assert!(
        lines.iter().all(|l| l.0 == lines[0].0),
        "one note per page: {lines:?}"
    );
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let (text, second) = s
        .ok(
            "get_links",
            json!({"path": "Hub", "direction": "in", "limit": 1, "cursor": cursor}),
        )
        .await;
    assert_ne!(
        second["incoming"][0]["from"]["path"], first["incoming"][0]["from"]["path"],
        "{text}"
    );
    assert_eq!(second["incoming_total"], first["incoming_total"]);
    let (_, all) = s
        .ok("get_links", json!({"path": "Hub", "direction": "in"}))
        .await;
    let of_a: Vec<(String, u64)> = all["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["from"]["path"] == "notes/A")
        .map(|l| {
            (
                l["from"]["path"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(of_a, [a(2), a(2), a(2), a(3)]);
    // `Note#Heading`: the links to that heading only; a missing one says
    // what the note has.
    let (text, v) = s
        .ok(
            "get_links",
            json!({"path": "Hub#Details", "direction": "in"}),
        )
        .await;
    let to_details: Vec<&str> = v["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["context"].as_str().unwrap())
        .collect();
    assert!(
        !to_details.is_empty() && to_details.iter().all(|c| c.contains("#Details")),
        "{text}"
    );
    assert!(v["incoming_total"].as_u64() < all["incoming_total"].as_u64());
    let e = s
        .err(
            "get_links",
            json!({"path": "Hub#Nowhere", "direction": "in"}),
        )
        .await;
    assert!(
        e.contains("has no heading or block `Nowhere`") && e.contains("Details"),
        "{e}"
    );

    let e = s.err("get_links", json!({"path": "Nope"})).await;
    assert!(e.contains("No note matches `Nope`"), "{e}");
    let e = s
        .err("get_links", json!({"path": "Hub", "direction": "sideways"}))
        .await;
    assert!(e.contains("expected one of: in, out, both"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn related_notes_give_reasons() {
    let s = session(VAULT).await;
    let (text, v) = s
        .ok("related_notes", json!({"path": "projects/weft"}))
        .await;
    let reasons = |p: &str| -> Vec<String> {
        v["related"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"] == p)
            .map(|r| {
                r["reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        reasons("Hub").contains(&"this note links to it".to_string()),
        "{v:#}"
    );
    assert!(
        reasons("daily/2024-01-15").contains(&"links to this note".to_string()),
        "{v:#}"
    );
    assert!(
        reasons("notes/A")
            .iter()
            .any(|r| r.starts_with("shared tags #project/weft")),
        "{v:#}"
    );
    assert!(
        text.starts_with("Related to **Weft** (`projects/weft`):"),
        "{text}"
    );
    let (_, v) = s
        .ok(
            "related_notes",
            json!({"text": "search engines with tantivy"}),
        )
        .await;
    assert!(
        paths(&v, "related", "path").contains(&"x/Plan".to_string()),
        "{v:#}"
    );
    let e = s.err("related_notes", json!({})).await;
    assert!(e.contains("needs `path`"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_tags_counts_rolls_up_and_lists_facets() {
    let s = session(VAULT).await;
    let (text, v) = s.ok("list_tags", json!({})).await;
    let item = |name: &str| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(item("project")["notes"], 0);
    assert_eq!(item("project")["notes_with_subtags"], 3);
    assert_eq!(item("project/weft")["notes"], 3);
    assert!(
        text.contains("- #project — 0 notes (3 with subtags)"),
        "{text}"
    );
    let (_, v) = s
        .ok("list_tags", json!({"prefix": "#proj", "sort": "name"}))
        .await;
    assert_eq!(paths(&v, "items", "name"), ["project", "project/weft"]);
    let (_, v) = s.ok("list_tags", json!({"facet": "keys"})).await;
    assert_eq!(
        paths(&v, "items", "name"),
        ["aliases", "part_of", "status", "tags", "title"]
    );
    let (_, v) = s
        .ok("list_tags", json!({"facet": "values", "key": "status"}))
        .await;
    assert_eq!(
        v["items"],
        json!([{"name": "active", "notes": 1, "uses": 1}])
    );
    let (_, v) = s.ok("list_tags", json!({"facet": "rels"})).await;
    assert_eq!(
        v["items"],
        json!([{"name": "part_of", "notes": 2, "uses": 2}])
    );
    let (_, v) = s.ok("list_tags", json!({"limit": 1})).await;
    assert!(v["next_cursor"].is_string());
    let e = s.err("list_tags", json!({"facet": "values"})).await;
    assert!(e.contains("needs `key`"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_vault_reports_every_kind_with_fixes() {
    let fixture = format!(
        "{VAULT}//- /.weft.toml\n[[tags.rules]]\ntag = \"project\"\nrequire_keys = [\"status\"]\n\
         //- /twin.md\n---\naliases: [Centre]\n---\n//- /spelled.md\n#Draft\n"
    );
    let s = session(&fixture).await;
    let (text, v) = s.ok("check_vault", json!({})).await;
    let counts = &v["counts"];
    for kind in [
        "unresolved",
        "ambiguous",
        "fragment",
        "orphan",
        "duplicate",
        "rule",
        "tag",
    ] {
        assert!(counts[kind].as_u64().unwrap_or(0) > 0, "no {kind} in {v:#}");
    }
    assert!(
        text.contains(
            "[unresolved] `notes/A` L3: `[[Ghost]]` links to a note that does not exist."
        ),
        "{text}"
    );
    assert!(
        text.contains("Write the path: [[x/Plan]] or [[y/Plan]]."),
        "{text}"
    );
    assert!(text.contains("Headings in `Hub`:"), "{text}");
    assert!(text.contains("“centre” names 2 notes"), "{text}");
    assert!(
        text.contains("Tagged #project but has no `status`"),
        "{text}"
    );
    let (_, v) = s.ok("check_vault", json!({"kinds": ["orphan"]})).await;
    assert!(
        v["issues"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["kind"] == "orphan")
    );
    assert!(paths(&v, "issues", "path").contains(&"projects/loom/notes".to_string()));
    let (_, v) = s.ok("check_vault", json!({"folder": "notes"})).await;
    assert!(
        paths(&v, "issues", "path")
            .iter()
            .all(|p| p.starts_with("notes/")),
        "{v:#}"
    );
    let (_, v) = s.ok("check_vault", json!({"limit": 2})).await;
    assert_eq!(v["issues"].as_array().unwrap().len(), 2);
    assert!(v["next_cursor"].is_string());
    let e = s
        .err("check_vault", json!({"kinds": ["spelling", "nonsense"]}))
        .await;
    assert!(e.contains("`nonsense` is not accepted"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vault_info_reports_status_policy_guide_and_failures() {
    let s = session(VAULT).await;
    let _ = s.err("read_note", json!({"path": "Nope"})).await;
    let (text, v) = s.ok("vault_info", json!({})).await;
    assert_eq!(v["status"]["phase"], "ready");
    assert_eq!(v["counts"]["notes"], 9);
    assert_eq!(v["policy"]["tools"], "full");
    assert!(v["guide"].as_str().unwrap().contains("Query syntax"));
    assert_eq!(v["failures"][0]["tool"], "read_note");
    assert!(
        v["failures"][0]["error"]
            .as_str()
            .unwrap()
            .contains("No note matches `Nope`")
    );
    assert!(
        text.contains("status: ready") && text.contains("## Recent tool failures"),
        "{text}"
    );
    let e = s.err("vault_info", json!({"verbose": true})).await;
    assert!(e.contains("has no parameter `verbose`"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_policy_hides_notes_from_every_tool() {
    let fixture = format!(
        "{VAULT}//- /.weft.toml\n[agent]\ndeny = [\"private/\"]\n//- /private/secret.md\n# Secret\ntantivy secret [[Hub]]\n"
    );
    let s = session(&fixture).await;
    let e = s.err("read_note", json!({"path": "private/secret"})).await;
    assert!(
        e.contains("outside what this agent may access (`[agent] deny`"),
        "{e}"
    );
    let (_, v) = s.ok("search_notes", json!({"query": "secret"})).await;
    assert_eq!(v["total"], 0);
    let (_, v) = s.ok("list_notes", json!({"recursive": true})).await;
    assert_eq!(v["total"], 9);
    let (_, v) = s
        .ok("get_links", json!({"path": "Hub", "direction": "in"}))
        .await;
    assert!(!v.to_string().contains("private"));
    let (_, v) = s.ok("vault_info", json!({})).await;
    assert_eq!(v["policy"]["deny"], json!(["private/"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_context_goes_out_once_per_session() {
    let fixture = "//- /.weft.toml\n[tags]\nauto_context_tag = \"ai-context\"\n\
        //- /rules.md\n---\ntags: [ai-context]\ndescription: Read before writing text\n---\n# Rules\n\
        //- /nodesc.md\n---\ntags: [ai-context, style]\n---\n# No Desc\n";
    let s = session(fixture).await;
    let (first, _) = s.ok("list_tags", json!({})).await;
    assert!(
        first.contains("\n\n---\n## Your personal notes (#ai-context)"),
        "{first}"
    );
    assert!(
        first.contains("- \"Rules\" (`rules`) — Read before writing text"),
        "{first}"
    );
    assert!(
        first.contains("- \"No Desc\" (`nodesc`) — ⚠️ No description."),
        "{first}"
    );
    assert!(
        first.contains("## Allowed tags\nUse only these tags") && first.contains("#style"),
        "{first}"
    );
    let (second, _) = s.ok("list_tags", json!({})).await;
    assert!(!second.contains("Your personal notes"), "{second}");
    let (info, v) = s.ok("vault_info", json!({})).await;
    assert!(
        v["auto_context"]
            .as_str()
            .unwrap()
            .contains("Read before writing text")
    );
    assert!(info.contains("## Your personal notes"));
    // Without the setting, nothing is appended.
    let plain = session(VAULT).await;
    let (text, v) = plain.ok("list_tags", json!({})).await;
    assert!(!text.contains("Your personal notes") && v.get("auto_context").is_none());
}

/// Issue 18: no answer from a partial index. A call waits for what its
/// tool needs; past the wait's bound it fails, saying how far indexing is
/// and when to retry, never answering from what is indexed so far.
/// `vault_info` answers at once with the state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_wait_for_the_index_or_say_to_retry() {
    let s = session_with(VAULT, Profile::default(), false).await;
    s.state.set_index_wait(Duration::from_millis(300));
    let e = s.err("read_note", json!({"path": "Hub"})).await;
    assert!(
        e.contains("Still indexing: reading the vault's notes") && e.contains("Retry in about"),
        "{e}"
    );
    let e = s.err("search_notes", json!({"query": "tantivy"})).await;
    assert!(e.contains("Still indexing"), "{e}");
    let (_, v) = s.ok("vault_info", json!({})).await;
    assert_eq!(v["status"]["phase"], "loading");
    assert_eq!(s.state.phase(), crate::Phase::Loading);
    // Loading starts while a call waits: it answers, complete.
    s.state.set_index_wait(Duration::from_secs(60));
    let state = s.state.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        state.start();
    });
    let result = s
        .call_with_progress("search_notes", json!({"query": "tantivy"}))
        .await;
    let text = super::text_of(&result);
    assert_eq!(result.is_error, Some(false), "{text}");
    assert!(text.starts_with("Found 3 notes for `tantivy`"), "{text}");
    // While it waited, the client heard how far indexing was.
    let mut s = s;
    let heard = s.updates.recv().await.expect("a progress notification");
    assert!(heard.starts_with("progress: "), "{heard}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiles_limit_the_tools_not_the_reads() {
    for args in [
        Profile {
            read_only: true,
            tools: ToolSet::Full,
        },
        Profile {
            read_only: false,
            tools: ToolSet::Read,
        },
    ] {
        let s = session_with(VAULT, args, true).await;
        let tools = s.client.list_all_tools().await.unwrap();
        // Every read tool; restore_note is a write.
        assert_eq!(tools.len(), 15);
        let result = s.call_raw("write_note", json!({"path": "x"})).await;
        assert_eq!(result.is_error, Some(true));
        let text = super::text_of(&result);
        if args.read_only {
            assert!(text.contains("this server is read-only"), "{text}");
        } else {
            assert!(text.contains("not available with `--tools read`"), "{text}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_context_reads_only_around_the_link() {
    // A huge note with a link in the middle of a very long line.
    let long = format!(
        "{}{} see [[Target]] here {}\n",
        "é".repeat(3_000),
        " word".repeat(100),
        "tail ".repeat(400)
    );
    let fixture = format!(
        "//- /Target.md\n# Target\n//- /big.md\n# Big\n{}\n{long}",
        "filler line\n".repeat(20_000)
    );
    let s = session(&fixture).await;
    let (_, v) = s
        .ok("get_links", json!({"path": "Target", "direction": "in"}))
        .await;
    let link = &v["incoming"][0];
    assert_eq!(link["line"], 20_003);
    let context = link["context"].as_str().unwrap();
    assert!(
        context.starts_with('…')
            && context.ends_with('…')
            && context.contains("see [[Target]] here"),
        "{context}"
    );
    assert!(context.chars().count() <= 170, "{context}");
}

/// A note that links many times shows its first lines and a count, so the
/// other linking notes stay in view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backlinks_from_a_note_linking_many_times_are_counted_not_listed() {
    let mut many = String::from("//- /Long.md\n# Long\n");
    for i in 0..8 {
        many.push_str(&format!("Step {i} uses [[Target]].\n"));
    }
    let fixture = format!("//- /Target.md\n# Target\n{many}//- /Short.md\nSee [[Target]].\n");
    let s = session(&fixture).await;
    let (text, v) = s
        .ok("get_links", json!({"path": "Target", "direction": "in"}))
        .await;
    assert_eq!(v["incoming"].as_array().unwrap().len(), 9, "{v:#}");
    assert!(
        text.contains("- **Long** (`Long`) — 8 links")
            && text.contains("  - L4: Step 2 uses [[Target]].")
            && !text.contains("Step 3 uses")
            && text.contains("  - … and 5 more links")
            && text.contains("- **Short** (`Short`)"),
        "{text}"
    );
    // `format: names`: each note once, with its count.
    let (text, v) = s
        .ok(
            "get_links",
            json!({"path": "Target", "direction": "in", "format": "names"}),
        )
        .await;
    assert_eq!(
        text, "Links of `Target`\nLinked from (9 links): `Long` (8), `Short`",
        "{v:#}"
    );
    assert_eq!(v["incoming_total"], 9);
}

/// Evidence reads compactly: a passage under the note's own title is not
/// labelled with it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_passages_do_not_repeat_the_title() {
    let s = session("//- /Tides.md\n# Tides\n\nThe Severn barrage turns tides into power.\n").await;
    s.state.wait_ready().await;
    let (text, _) = s
        .ok(
            "get_context",
            json!({"query": "severn barrage", "top_k": 1}),
        )
        .await;
    assert!(
        text.contains("\n_lines 3–3_\n> The Severn barrage") && !text.contains("Tides · "),
        "{text}"
    );
}
