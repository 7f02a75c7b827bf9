//! The six write tools through a real MCP session: each tool's answer and
//! structured content (checked against its output schema), reads right
//! after writes (index and full text), `resources/updated` for written
//! notes, dry runs and conflicts that change nothing, every error path
//! leaving the vault byte for byte as it was, and the policy (read-only,
//! `--tools write`, path deny lists) refusing with clear errors.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::{DEADLINE, Session, session, session_with};
use crate::{Profile, ToolSet};
use weft_workspace::ops::sha256_hex;

const VAULT: &str = r#"
//- /.weft.toml
[daily]
folder = "journal"
format = "YYYY-MM-DD"
template = "templates/day"
//- /templates/day.md
# {{date:dddd D MMMM}}
## Log

## Tasks
//- /templates/meeting.md
---
tags: [meeting]
type: meeting
---
# {{title}}
Held on {{date}}.
## Attendees
//- /Hub.md
---
aliases: [Centre]
tags: [topic]
status: active
---
# The Hub

Intro paragraph. ^intro

## Plan

### Next

Do the next thing.

## Notes

First notes section.
//- /notes/A.md
# A
See [[Hub]], [[Centre|the centre]] and [[Hub#Plan]].
Embed: ![[Hub#^intro]] and [md](../Hub.md).
//- /notes/B.md
# B
Also [[Hub]]. Twice twice.
//- /private/secret.md
# Secret
Links to [[Hub]].
"#;

const DENY: &str = "[agent]\ndeny = [\"private/\"]\n";

/// Every file of the vault with its bytes (Weft's own `.weft/` left out).
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == ".weft" {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn read(s: &Session, rel: &str) -> String {
    std::fs::read_to_string(s.root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn sha(s: &Session, rel: &str) -> String {
    sha256_hex(&std::fs::read(s.root().join(rel)).unwrap())
}

impl Session {
    /// A tool call that must fail and leave every file as it was.
    async fn refused(&self, tool: &str, args: Value) -> String {
        let before = snapshot(self.root());
        let text = self.err(tool, args.clone()).await;
        assert_eq!(
            snapshot(self.root()),
            before,
            "{tool} {args} changed the vault although it failed:\n{text}"
        );
        text
    }

    /// A dry run that must succeed and leave every file as it was.
    async fn dry(&self, tool: &str, args: Value) -> (String, Value) {
        let before = snapshot(self.root());
        let answer = self.ok(tool, args.clone()).await;
        assert_eq!(
            snapshot(self.root()),
            before,
            "the dry run {tool} {args} changed the vault"
        );
        assert_eq!(answer.1["dry_run"], true);
        answer
    }

    async fn search_total(&self, query: &str) -> u64 {
        let (_, v) = self.ok("search_notes", json!({"query": query})).await;
        v["total"].as_u64().unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_note_creates_from_template_with_frontmatter_and_reports_links() {
    let s = session(VAULT).await;
    let (text, v) = s
        .ok(
            "write_note",
            json!({
                "folder": "meetings",
                "title": "Weekly sync",
                "template": "meeting",
                "content": "---\nproject: weft\n---\nTalked about [[Hub]] and [[Nowhere yet]].\n",
                "tags": "weekly, meeting",
                "aliases": ["Sync"],
                "frontmatter": {"status": "draft"}
            }),
        )
        .await;
    assert_eq!(v["path"], "meetings/Weekly sync");
    assert_eq!(v["overwritten"], false);
    assert_eq!(v["change"]["kind"], "created");
    let written = read(&s, "meetings/Weekly sync.md");
    assert_eq!(v["change"]["sha256"], sha256_hex(written.as_bytes()));
    assert_eq!(v["change"]["bytes_after"], written.len());
    assert!(
        written.starts_with("---\ntags: [meeting, weekly]\ntype: meeting\nproject: weft\n")
            || written.contains("tags:"),
        "{written}"
    );
    for part in [
        "type: meeting",
        "project: weft",
        "status: draft",
        "Sync",
        "weekly",
        "# Weekly sync\nHeld on ",
        "## Attendees",
        "Talked about [[Hub]] and [[Nowhere yet]].",
    ] {
        assert!(written.contains(part), "{part:?} missing from:\n{written}");
    }
    assert!(!written.contains("{{"), "{written}");
    assert_eq!(v["unresolved"], json!(["Nowhere yet"]));
    assert_eq!(v["links_total"], 2);
    assert_eq!(v["links"][0]["resolved"], "Hub");
    assert!(text.starts_with("Created `meetings/Weekly sync`"), "{text}");
    assert!(
        text.contains("unresolved (no such note yet): `Nowhere yet`"),
        "{text}"
    );
    assert!(text.contains(&format!("sha256 `{}`", sha256_hex(written.as_bytes()))));

    // Seen at once by every read: name, alias, tags, full text, backlinks.
    let (_, r) = s.ok("read_note", json!({"path": "Sync"})).await;
    assert_eq!(r["notes"][0]["path"], "meetings/Weekly sync");
    assert_eq!(r["notes"][0]["sha256"], v["change"]["sha256"]);
    assert_eq!(s.search_total("\"Talked about\"").await, 1);
    assert_eq!(s.search_total("tag:weekly").await, 1);
    let (_, l) = s
        .ok("get_links", json!({"path": "Hub", "direction": "in"}))
        .await;
    assert!(l.to_string().contains("meetings/Weekly sync"), "{l}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_note_refuses_existing_notes_and_stale_hashes() {
    let s = session(VAULT).await;
    let text = s
        .refused("write_note", json!({"path": "notes/A", "content": "x"}))
        .await;
    assert!(
        text.contains("`notes/A.md` already exists") && text.contains("overwrite: true"),
        "{text}"
    );
    let current = sha(&s, "notes/A.md");
    let text = s
        .refused(
            "write_note",
            json!({"path": "notes/A.md", "content": "x", "overwrite": true, "expected_sha256": "0".repeat(64)}),
        )
        .await;
    assert!(
        text.contains(&format!("current sha256 {current}")) && text.contains("nothing was written"),
        "{text}"
    );
    // A dry run of the overwrite shows the diff; the real one replaces.
    let (text, v) = s
        .dry(
            "write_note",
            json!({"path": "notes/A", "content": "# A\nNew text.\n", "overwrite": "true", "expected_sha256": current, "dry_run": true}),
        )
        .await;
    assert!(
        text.starts_with("**Dry run: nothing was written.**"),
        "{text}"
    );
    assert!(
        text.contains("```diff\n--- a/notes/A.md\n+++ b/notes/A.md\n"),
        "{text}"
    );
    assert!(text.contains("+New text."), "{text}");
    assert!(v["change"]["diff"].as_str().unwrap().contains("+New text."));
    let (text, v) = s
        .ok(
            "write_note",
            json!({"note": "notes/A", "text": "# A\nNew text.\n", "upsert": true, "sha256": current}),
        )
        .await;
    assert_eq!(v["overwritten"], true);
    assert!(text.starts_with("Replaced `notes/A`"), "{text}");
    assert_eq!(read(&s, "notes/A.md"), "# A\nNew text.\n");
    // Paths that leave the vault or name nothing are refused.
    for (path, expect) in [
        ("../escape", "cannot use"),
        ("/etc/passwd", "cannot use"),
        (".hidden/x", "cannot use"),
    ] {
        let text = s
            .refused("write_note", json!({"path": path, "content": "x"}))
            .await;
        assert!(text.contains(expect), "{path}: {text}");
    }
    let text = s.refused("write_note", json!({"content": "x"})).await;
    assert!(text.contains("give `path`"), "{text}");
    let text = s
        .refused("write_note", json!({"path": "x", "contents": "x"}))
        .await;
    assert!(text.contains("Did you mean `content`?"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_note_applies_ops_in_order_and_reports_sizes_and_hash() {
    let s = session(VAULT).await;
    let before = read(&s, "Hub.md");
    let (text, v) = s
        .ok(
            "edit_note",
            json!({
                "path": "Centre",
                "expected_sha256": sha256_hex(before.as_bytes()),
                "ops": [
                    {"op": "append_section", "section": "Plan::Next", "content": "- [ ] ship writes"},
                    {"op": "replace_section", "section": "Notes", "content": "Rewritten notes.\n"},
                    {"op": "replace_text", "old_text": "Intro paragraph.", "new_text": "Opening paragraph."},
                    {"op": "insert_after", "anchor": "# The Hub", "content": "Inserted line."},
                    {"op": "append", "content": "Appended at the end."}
                ]
            }),
        )
        .await;
    let after = read(&s, "Hub.md");
    assert_eq!(
        after,
        "---\naliases: [Centre]\ntags: [topic]\nstatus: active\n---\n# The Hub\nInserted line.\n\n\
         Opening paragraph. ^intro\n\n## Plan\n\n### Next\n\nDo the next thing.\n- [ ] ship writes\n\n\
         ## Notes\nRewritten notes.\nAppended at the end.\n"
    );
    assert_eq!(v["change"]["bytes_before"], before.len());
    assert_eq!(v["change"]["bytes_after"], after.len());
    assert_eq!(v["change"]["sha256"], sha256_hex(after.as_bytes()));
    assert_eq!(v["ops"].as_array().unwrap().len(), 5);
    assert!(
        text.starts_with(&format!(
            "Changed `Hub`: {} → {} bytes, sha256 `{}`",
            before.len(),
            after.len(),
            sha256_hex(after.as_bytes())
        )),
        "{text}"
    );
    // Read after write: the new text is searchable at once.
    assert_eq!(s.search_total("\"ship writes\"").await, 1);

    // replace_all counts; a single op may come as an object.
    let (text, v) = s
        .ok(
            "edit_note",
            json!({"path": "notes/B", "ops": {"op": "replace_text", "find": "twice", "replace": "once", "replace_all": true}}),
        )
        .await;
    assert_eq!(v["ops"][0]["count"], 1, "{text}");
    assert!(text.contains("replace_text ×1"), "{text}");
    let (_, v) = s
        .ok(
            "edit_note",
            json!({"path": "notes/B", "ops": "[{\"op\": \"delete_lines\", \"from\": 1}]"}),
        )
        .await;
    assert_eq!(v["changed"], true);
    assert_eq!(read(&s, "notes/B.md"), "Also [[Hub]]. Twice once.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_note_errors_say_how_to_fix_and_change_nothing() {
    let s = session(VAULT).await;
    let cases: Vec<(Value, &str)> = vec![
        (
            json!([{"op": "replace_text", "find": "Nope", "replace": "x"}]),
            "does not occur in the note",
        ),
        (
            json!([{"op": "replace_text", "find": "Hub", "replace": "x"}]),
            "include more surrounding text",
        ),
        (
            json!([{"op": "append_section", "section": "Nowhere", "content": "x"}]),
            "view: outline",
        ),
        (
            json!([{"op": "append", "content": "fine"}, {"op": "delete_section", "section": "Missing"}]),
            "operation 2 (delete_section)",
        ),
        (
            json!([{"op": "replace_lines", "from": 40, "to": 41, "content": "x"}]),
            "outside the note",
        ),
        (json!([{"op": "explode"}]), "expected one of: append"),
        (
            json!([{"op": "append", "colour": "red"}]),
            "unknown field `colour`",
        ),
        (
            json!([{"op": "append_section", "content": "x"}]),
            "needs `section`",
        ),
        (json!([]), "`ops` is empty"),
    ];
    for (ops, expect) in cases {
        let text = s
            .refused("edit_note", json!({"path": "notes/A", "ops": ops}))
            .await;
        assert!(
            text.contains(expect),
            "{ops}: expected {expect:?} in\n{text}"
        );
    }
    // A stale hash: the current one is in the error.
    let current = sha(&s, "notes/A.md");
    let text = s
        .refused(
            "edit_note",
            json!({"path": "notes/A", "expected_sha256": "abc", "ops": [{"op": "append", "content": "x"}]}),
        )
        .await;
    assert!(
        text.contains(&format!("retry with expected_sha256 = {current}")),
        "{text}"
    );
    let text = s
        .refused(
            "edit_note",
            json!({"path": "Ghost", "ops": [{"op": "append", "content": "x"}]}),
        )
        .await;
    assert!(text.contains("no note `Ghost`"), "{text}");
    // A dry run shows the diff and writes nothing.
    let (text, v) = s
        .dry(
            "edit_note",
            json!({"path": "notes/A", "dry_run": true, "ops": [{"op": "prepend", "content": "Top line."}]}),
        )
        .await;
    assert!(
        text.contains("```diff") && text.contains("+Top line."),
        "{text}"
    );
    assert_eq!(v["change"]["sha256"].as_str().unwrap().len(), 64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crlf_notes_stay_crlf() {
    let s = session("//- /win.md\n# Win\n").await;
    std::fs::write(
        s.root().join("win.md"),
        "---\r\ntags: [a]\r\n---\r\n# Win\r\n## Log\r\nfirst\r\n",
    )
    .unwrap();
    s.ok(
        "edit_note",
        json!({"path": "win", "ops": [{"op": "append_section", "section": "Log", "content": "second\nthird"}]}),
    )
    .await;
    s.ok(
        "update_frontmatter",
        json!({"path": "win", "add_tags": ["b"]}),
    )
    .await;
    let text = read(&s, "win.md");
    assert!(text.contains("first\r\nsecond\r\nthird\r\n"), "{text:?}");
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "a bare LF crept in: {text:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn update_frontmatter_edits_keys_tags_and_aliases() {
    let s = session(VAULT).await;
    let (text, v) = s
        .ok(
            "update_frontmatter",
            json!({
                "path": "Hub",
                "set": {"status": "done", "reviewed": true},
                "add_tags": ["project/weft"],
                "remove_tags": "topic",
                "add_aliases": ["Center"],
                "title": "The Hub Note"
            }),
        )
        .await;
    assert_eq!(v["tags"], json!(["project/weft"]));
    assert_eq!(v["aliases"], json!(["Centre", "Center"]));
    assert_eq!(v["frontmatter"]["status"], "done");
    assert_eq!(v["frontmatter"]["reviewed"], true);
    assert!(text.contains("Tags: `project/weft`"), "{text}");
    let hub = read(&s, "Hub.md");
    assert!(
        hub.starts_with("---\naliases: [Centre, Center]\ntags: [project/weft]\nstatus: done\n"),
        "key order kept:\n{hub}"
    );
    assert_eq!(s.search_total("tag:project/weft").await, 1);
    let (_, r) = s.ok("resolve_note", json!({"query": "Center"})).await;
    assert_eq!(r["resolves_to"]["path"], "Hub");
    // Idempotent: the same call again changes nothing.
    let (text, v) = s
        .ok(
            "update_frontmatter",
            json!({"path": "Hub", "add_tags": ["project/weft"]}),
        )
        .await;
    assert_eq!(v["changed"], false);
    assert!(text.contains("nothing changed"), "{text}");
    // Mixing replace and add/remove is refused.
    let text = s
        .refused(
            "update_frontmatter",
            json!({"path": "Hub", "tags": ["a"], "add_tags": ["b"]}),
        )
        .await;
    assert!(text.contains("add_tags"), "{text}");
    let text = s
        .refused(
            "update_frontmatter",
            json!({"path": "Hub", "set": "status"}),
        )
        .await;
    assert!(text.contains("expected an object of properties"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tag_policy_lists_the_allowed_tags() {
    let fixture = VAULT.replacen(
        "//- /.weft.toml\n",
        "//- /.weft.toml\n[tags]\npolicy = \"existing\"\n",
        1,
    );
    let s = session(&fixture).await;
    let text = s
        .refused(
            "update_frontmatter",
            json!({"path": "notes/A", "add_tags": ["brand-new"]}),
        )
        .await;
    assert!(
        text.contains("`brand-new`") && text.contains("Allowed tags:") && text.contains("`topic`"),
        "{text}"
    );
    s.ok(
        "update_frontmatter",
        json!({"path": "notes/A", "add_tags": ["topic"]}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_note_rewrites_every_link_and_lists_stale_ones_without() {
    let s = session(VAULT).await;
    // Dry run first: every file and link that would change, nothing written.
    let (text, v) = s
        .dry(
            "move_note",
            json!({"path": "Hub", "new_path": "archive/Big Hub", "dry_run": true}),
        )
        .await;
    assert!(
        text.starts_with("Would move note `Hub` → `archive/Big Hub`."),
        "{text}"
    );
    assert!(text.contains("```diff"), "{text}");
    assert!(v["link_edits_total"].as_u64().unwrap() >= 6, "{v:#}");

    let (text, v) = s
        .ok(
            "move_note",
            json!({"from": "Hub", "to": "archive/Big Hub", "update_backlinks": true}),
        )
        .await;
    assert!(
        text.starts_with("Moved note `Hub` → `archive/Big Hub`."),
        "{text}"
    );
    assert!(!s.root().join("Hub.md").exists());
    assert!(s.root().join("archive/Big Hub.md").exists());
    assert_eq!(
        read(&s, "notes/A.md"),
        "# A\nSee [[Big Hub]], [[Centre|the centre]] and [[Big Hub#Plan]].\n\
         Embed: ![[Big Hub#^intro]] and [md](../archive/Big%20Hub.md).\n"
    );
    assert_eq!(
        read(&s, "notes/B.md"),
        "# B\nAlso [[Big Hub]]. Twice twice.\n"
    );
    let kinds: Vec<&str> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"moved") && kinds.contains(&"modified"),
        "{v:#}"
    );
    // Every link still resolves, to the new place.
    let (_, l) = s
        .ok(
            "get_links",
            json!({"path": "archive/Big Hub", "direction": "in"}),
        )
        .await;
    assert!(l.to_string().contains("notes/A"), "{l}");
    let (_, c) = s.ok("check_vault", json!({})).await;
    assert!(!c.to_string().contains("Big Hub#"), "{c}");

    // Without update_links: the links that name the old path are listed.
    let (text, v) = s
        .ok(
            "move_note",
            json!({"path": "notes/B", "new_path": "elsewhere/", "update_links": false}),
        )
        .await;
    assert_eq!(v["new_path"], "elsewhere/B");
    assert_eq!(v["update_links"], false);
    assert!(
        text.contains("Moved note `notes/B` → `elsewhere/B`"),
        "{text}"
    );
    // A move onto an existing note is refused.
    let text = s
        .refused(
            "move_note",
            json!({"path": "notes/A", "new_path": "elsewhere/B"}),
        )
        .await;
    assert!(text.contains("already exists"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_note_moves_to_the_trash_and_lists_or_marks_broken_links() {
    let s = session(VAULT).await;
    let (text, v) = s
        .dry("delete_note", json!({"path": "notes/B", "dry_run": true}))
        .await;
    assert!(
        text.starts_with("Would move `notes/B` to the trash"),
        "{text}"
    );
    assert_eq!(v["broken"], json!([]));

    let (text, v) = s.ok("delete_note", json!({"path": "Centre"})).await;
    assert_eq!(v["trash_path"], ".trash/Hub.md");
    assert!(s.root().join(".trash/Hub.md").exists());
    assert!(!s.root().join("Hub.md").exists());
    let broken: Vec<&str> = v["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["path"].as_str().unwrap())
        .collect();
    assert_eq!(broken, ["notes/A", "notes/B", "private/secret"], "{v:#}");
    assert!(text.contains("are now broken"), "{text}");
    assert!(text.contains("- `notes/A`: "), "{text}");
    // Never edited silently.
    assert!(read(&s, "notes/B.md").contains("[[Hub]]"));
    assert_eq!(s.search_total("\"Intro paragraph\"").await, 0);

    // mark_deleted rewrites the links.
    let (text, v) = s
        .ok(
            "delete_note",
            json!({"path": "notes/A", "link_policy": "mark_deleted"}),
        )
        .await;
    assert_eq!(v["broken"], json!([]), "{text}");
    s.ok(
        "write_note",
        json!({"path": "D", "content": "See [[E|the E note]].\n"}),
    )
    .await;
    s.ok("write_note", json!({"path": "E", "content": "# E\n"}))
        .await;
    let (text, v) = s
        .ok(
            "delete_note",
            json!({"path": "E", "link_policy": "mark_deleted"}),
        )
        .await;
    assert_eq!(v["link_edits_total"], 1, "{text}");
    assert_eq!(read(&s, "D.md"), "See [[E (deleted)|the E note]].\n");
    assert!(text.contains("Marked as deleted:"), "{text}");
    let text = s.refused("delete_note", json!({"path": "E"})).await;
    assert!(text.contains("no note `E`"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daily_note_is_made_from_the_template_and_takes_section_ops() {
    let s = session(VAULT).await;
    let (text, v) = s
        .ok(
            "daily_note",
            json!({"date": "2024-03-09", "op": "append_section", "section": "Log", "content": "- woke up"}),
        )
        .await;
    assert_eq!(v["path"], "journal/2024-03-09");
    assert_eq!(v["created"], true);
    assert!(text.contains("(created from the template)"), "{text}");
    assert_eq!(
        read(&s, "journal/2024-03-09.md"),
        "# Saturday 9 March\n## Log\n- woke up\n\n## Tasks\n"
    );
    let (_, v) = s
        .ok(
            "daily_note",
            json!({"day": "2024-03-09", "content": "appended by default"}),
        )
        .await;
    assert_eq!(v["op"], "append");
    assert_eq!(v["created"], false);
    let (text, v) = s.ok("daily_note", json!({"date": "2024-03-09"})).await;
    assert_eq!(v["op"], "read");
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .ends_with("appended by default\n")
    );
    assert!(text.contains("```markdown\n# Saturday 9 March"), "{text}");
    assert_eq!(v["sha256"], sha(&s, "journal/2024-03-09.md"));
    assert_eq!(s.search_total("\"woke up\"").await, 1);
    let text = s
        .refused(
            "daily_note",
            json!({"date": "2024-03-09", "op": "append_section", "section": "Dreams", "content": "x"}),
        )
        .await;
    assert!(text.contains("no section `Dreams`"), "{text}");
    let text = s
        .refused("daily_note", json!({"date": "2024-13-45", "content": "x"}))
        .await;
    assert!(text.to_lowercase().contains("date"), "{text}");
    let text = s
        .refused(
            "daily_note",
            json!({"op": "prepend_section", "content": "x"}),
        )
        .await;
    assert!(text.contains("needs `section`"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)]
async fn writes_notify_subscribers() {
    let mut s = session(VAULT).await;
    s.client
        .subscribe(rmcp::model::SubscribeRequestParams::new(
            "weft://note/notes/A",
        ))
        .await
        .unwrap();
    s.ok(
        "edit_note",
        json!({"path": "notes/A", "ops": [{"op": "append", "content": "zeppelin"}]}),
    )
    .await;
    let uri = tokio::time::timeout(DEADLINE, s.updates.recv())
        .await
        .expect("notified in time")
        .unwrap();
    assert_eq!(uri, "weft://note/notes/A");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deny_list_refuses_every_write_there() {
    let fixture = VAULT.replacen("//- /.weft.toml\n", &format!("//- /.weft.toml\n{DENY}"), 1);
    let s = session(&fixture).await;
    let calls = [
        ("write_note", json!({"path": "private/new", "content": "x"})),
        (
            "edit_note",
            json!({"path": "private/secret", "ops": [{"op": "append", "content": "x"}]}),
        ),
        (
            "update_frontmatter",
            json!({"path": "private/secret", "set": {"a": 1}}),
        ),
        (
            "move_note",
            json!({"path": "notes/B", "new_path": "private/B"}),
        ),
        (
            "move_note",
            json!({"path": "private/secret", "new_path": "open"}),
        ),
        ("delete_note", json!({"path": "private/secret"})),
    ];
    for (tool, args) in calls {
        let text = s.refused(tool, args.clone()).await;
        // A new path is refused by the rule; an existing denied note is
        // outside the agent's access and named only as the agent named it.
        assert!(
            (text.contains("is not allowed")
                || text.contains("is outside what this agent may access"))
                && text.contains("nothing was written"),
            "{tool} {args}: {text}"
        );
    }
    // Rewriting the link in private/secret.md would write there: refused,
    // without naming the note the agent may not see.
    let text = s
        .refused("move_note", json!({"path": "Hub", "new_path": "Hub2"}))
        .await;
    assert!(
        text.contains("a note this agent may not access") && text.contains("nothing was written"),
        "{text}"
    );
    assert!(!text.contains("private/secret"), "{text}");
    // Moving without rewriting is allowed; the link left behind in the
    // hidden note is counted, not named.
    let (text, v) = s
        .ok(
            "move_note",
            json!({"path": "Hub", "new_path": "Hub2", "update_links": false}),
        )
        .await;
    assert!(!v.to_string().contains("private/secret"), "{v:#}");
    assert!(
        text.contains("1 link in 1 note outside what this agent may access"),
        "{text}"
    );
    let (_, v) = s.ok("delete_note", json!({"path": "Hub2"})).await;
    assert!(!v.to_string().contains("private/secret"), "{v:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiles_and_read_only_refuse_writes() {
    let s = session_with(
        VAULT,
        Profile {
            read_only: false,
            tools: ToolSet::Write,
        },
        true,
    )
    .await;
    let names: Vec<String> = s
        .client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        names.contains(&"edit_note".to_string())
            && names.contains(&"note_history".to_string())
            && !names.contains(&"restore_note".to_string())
            && names.len() == 20,
        "{names:?}"
    );
    let before = snapshot(s.root());
    let result = s.call_raw("delete_note", json!({"path": "notes/A"})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(super::text_of(&result).contains("--tools full"));
    s.ok("write_note", json!({"path": "new", "content": "x"}))
        .await;

    let s = session_with(
        VAULT,
        Profile {
            read_only: true,
            tools: ToolSet::Full,
        },
        true,
    )
    .await;
    for tool in ["write_note", "edit_note", "move_note", "daily_note"] {
        let result = s.call_raw(tool, json!({"path": "notes/A"})).await;
        assert_eq!(result.is_error, Some(true));
        assert!(super::text_of(&result).contains("read-only"));
    }
    assert_eq!(snapshot(s.root()).len(), before.len());

    // `[agent] read_only` in the config: the same.
    let fixture = VAULT.replacen(
        "//- /.weft.toml\n",
        "//- /.weft.toml\n[agent]\nread_only = true\n",
        1,
    );
    let s = session(&fixture).await;
    let result = s
        .call_raw("write_note", json!({"path": "x", "content": "x"}))
        .await;
    assert!(super::text_of(&result).contains("read-only"));
    assert!(!s.root().join("x.md").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_wait_for_indexing_or_refuse_clearly() {
    // Never loaded: the write cannot be made safely and says so.
    let s = session_with(VAULT, Profile::default(), false).await;
    let text = s
        .refused("write_note", json!({"path": "new", "content": "x"}))
        .await;
    assert!(
        text.contains("still being indexed") && text.contains("Retry"),
        "{text}"
    );
}

/// Regression (issue 15): `read_note`'s `section` and `edit_note`'s section
/// ops resolved `A::B` by different rules, and with `# A / ## B / ### C /
/// ## C` the direct child `A::C` was "ambiguous" in both. One resolver now:
/// each path names the same heading for both tools, their errors list the
/// same full paths, and `check_vault` reports a link fragment that fits
/// several headings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_note_and_edit_note_name_the_same_sections() {
    let s = session(
        "//- /n.md\n# A\n## B\n### C\nin b\n## C\nin a\n## Next Steps\n//- /links.md\n[[n#C]] [[n#A#C]] [[n#B#C]]\n",
    )
    .await;
    let (_, v) = s
        .ok("read_note", json!({"path": "n", "section": "A::C"}))
        .await;
    assert_eq!(v["notes"][0]["section"], "A::C");
    assert_eq!(v["notes"][0]["content"], "## C\nin a\n");

    // `C` alone fits two headings: both tools refuse and list both paths.
    let ambiguous =
        "section `C` is ambiguous: `A::B::C` (line 3), `A::C` (line 5); name the full path";
    let by_read = s
        .err("read_note", json!({"path": "n", "section": "C"}))
        .await;
    assert!(by_read.contains(ambiguous), "{by_read}");
    let by_edit = s
        .refused(
            "edit_note",
            json!({"path": "n", "ops": [{"op": "replace_section", "section": "C", "content": "x"}]}),
        )
        .await;
    assert!(by_edit.contains(ambiguous), "{by_edit}");
    // A missing one: both list every section by its path.
    for text in [
        s.err("read_note", json!({"path": "n", "section": "A::D"}))
            .await,
        s.refused(
            "edit_note",
            json!({"path": "n", "ops": [{"op": "delete_section", "section": "A::D"}]}),
        )
        .await,
    ] {
        assert!(
            text.contains("no section `A::D`; the note's sections are `A` (line 1), `A::B` (line 2), `A::B::C` (line 3), `A::C` (line 5), `A::Next Steps` (line 7)"),
            "{text}"
        );
    }

    // A fragment that fits both is an ambiguous link; the exact path is not.
    let (text, v) = s.ok("check_vault", json!({"kinds": ["ambiguous"]})).await;
    assert_eq!(v["total"], 1, "{text}");
    assert!(
        text.contains(
            "`links` L1: `[[n#C]]`: `#C` fits 2 headings of `n`: `#A#B#C` (L3), `#A#C` (L5); it leads to the first."
        ) && text.contains("Fix: Write the full path of the heading you mean: `#A#B#C` or `#A#C`."),
        "{text}"
    );

    // Each path names one heading: edit_note marks it, and read_note reads
    // that very section with the mark under its heading.
    let cases = [
        ("A::C", "A::C", "## C"),
        ("A::B::C", "A::B::C", "### C"),
        ("B::C", "A::B::C", "### C"),
        ("a::b::c", "A::B::C", "### C"),
        ("a::next-steps", "A::Next Steps", "## Next Steps"),
        ("Next Steps", "A::Next Steps", "## Next Steps"),
        ("b", "A::B", "## B"),
    ];
    for (i, (section, full, heading)) in cases.into_iter().enumerate() {
        let mark = format!("mark {i}");
        s.ok(
            "edit_note",
            json!({"path": "n", "ops": [{"op": "prepend_section", "section": section, "content": mark}]}),
        )
        .await;
        let (_, v) = s
            .ok("read_note", json!({"path": "n", "section": section}))
            .await;
        let note = &v["notes"][0];
        assert_eq!(note["section"], full, "{section}");
        let content = note["content"].as_str().unwrap();
        assert!(
            content.starts_with(&format!("{heading}\n{mark}\n")),
            "{section}: {content:?}"
        );
    }
    assert_eq!(
        read(&s, "n.md"),
        "# A\n## B\nmark 6\n### C\nmark 3\nmark 2\nmark 1\nin b\n## C\nmark 0\nin a\n## Next Steps\nmark 5\nmark 4\n"
    );
}

/// Regression (issue 15 siblings): the `daily` prompt computed the daily
/// note's path its own way (UTC, eleven format tokens, any note of that file
/// name), the `daily_note` tool another (local time, every token, the exact
/// path): with `GGGG-[W]WW` the prompt looked for `GGGG-WWW`. Both now ask
/// the same functions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daily_prompt_and_tool_find_the_same_note() {
    let fixture = "//- /.weft.toml\n[daily]\nfolder = \"journal\"\nformat = \"GGGG-[W]WW\"\n//- /Hub.md\n# Hub\n";
    let s = session(fixture).await;
    let (_, v) = s
        .ok(
            "daily_note",
            json!({"op": "append", "content": "weekly words"}),
        )
        .await;
    let path = v["path"].as_str().unwrap().to_string();
    assert!(
        path.starts_with("journal/") && path.contains("-W"),
        "{path}"
    );
    let prompt = s
        .client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("daily"))
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt).unwrap();
    assert!(text.contains("weekly words"), "{text}");
}

/// Every tool takes a note's name the same way: a vault path, `./` before
/// it, or the absolute path an editor shows (one normalization,
/// `common::vault_input`, for reads, writes and history).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_takes_the_same_spellings_of_a_path() {
    let s = session(VAULT).await;
    let absolute = s.root().canonicalize().unwrap().join("notes/B.md");
    let spellings = [
        "notes/B.md".to_string(),
        " ./notes/B ".to_string(),
        absolute.to_str().unwrap().to_string(),
    ];
    for (i, name) in spellings.iter().enumerate() {
        let (_, read) = s.ok("read_note", json!({"path": name})).await;
        assert_eq!(read["notes"][0]["path"], "notes/B", "{name}");
        let (_, edit) = s
            .ok(
                "edit_note",
                json!({"path": name, "ops": [{"op": "append", "content": format!("line {i}")}]}),
            )
            .await;
        assert_eq!(edit["path"], "notes/B", "{name}: {edit}");
        let (_, history) = s.ok("note_history", json!({"path": name})).await;
        assert!(
            history["versions"]
                .as_array()
                .is_some_and(|v| !v.is_empty()),
            "{name}: {history}"
        );
    }
    assert!(read(&s, "notes/B.md").ends_with("line 0\nline 1\nline 2\n"));
    assert!(
        !s.root()
            .join("notes/./B.md")
            .with_file_name("B.md.md")
            .exists()
    );
}

/// Write answers say what changed once: a daily note's new hash once, and
/// tags and aliases only when the call changed them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_answers_say_each_thing_once() {
    let s = session(VAULT).await;
    s.state.wait_ready().await;
    let (text, v) = s
        .ok(
            "daily_note",
            json!({"op": "append", "content": "- one more"}),
        )
        .await;
    let sha = v["sha256"].as_str().unwrap();
    assert_eq!(text.matches(sha).count(), 1, "{text}");
    let (text, _) = s
        .ok(
            "update_frontmatter",
            json!({"path": "Hub", "set": {"reviewed": true}}),
        )
        .await;
    assert!(!text.contains("Tags:") && !text.contains("Keys:"), "{text}");
    let (text, _) = s
        .ok(
            "update_frontmatter",
            json!({"path": "Hub", "add_tags": ["checked"]}),
        )
        .await;
    assert!(
        text.contains("Tags:") && text.contains("`checked`"),
        "{text}"
    );
}
