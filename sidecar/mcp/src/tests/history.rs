//! The history tools in process: versions of a note and of the vault,
//! outside edits recorded by the watcher, reading and diffing old versions,
//! restoring (dry run, the sha256 guard, a deleted note), and history off or
//! damaged (clear errors; reads keep working).

use std::time::Instant;

use serde_json::{Value, json};

use super::{DEADLINE, Session, session, session_prepared};
use crate::Profile;

const VAULT: &str = r#"
//- /Plan.md
# Plan
morning text
//- /notes/Idea.md
---
tags: [idea]
---
# Idea
An idea, linked from [[Plan]].
"#;

/// Polls `note_history` until `done` holds (the watcher and the history's
/// debounce take a moment); the deadline only bounds a failing run.
async fn history_until(s: &Session, args: Value, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (_, v) = s.ok("note_history", args.clone()).await;
        if done(&v) {
            return v;
        }
        assert!(start.elapsed() < DEADLINE, "history never got there: {v:#}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

fn versions(v: &Value) -> &Vec<Value> {
    v["versions"].as_array().expect("versions")
}

/// The versions' messages, newest first.
fn messages(v: &Value) -> Vec<&str> {
    versions(v)
        .iter()
        .map(|x| x["message"].as_str().unwrap())
        .collect()
}

/// Replaces `rel` at once (a temporary file renamed over it), as editors
/// save: the watcher never sees it empty or half written, which would be a
/// version of its own.
fn save(s: &Session, rel: &str, text: &str) {
    let tmp = s.root().join(format!(".{rel}.saving"));
    std::fs::write(&tmp, text).expect("write");
    std::fs::rename(&tmp, s.root().join(rel)).expect("rename");
}

fn read(s: &Session, rel: &str) -> String {
    std::fs::read_to_string(s.root().join(rel)).expect("read")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_changed_today_is_listed_diffed_and_undone() {
    let s = session(VAULT).await;
    let (text, v) = s.ok("note_history", json!({"path": "Plan"})).await;
    assert_eq!(versions(&v).len(), 1, "{text}");
    let baseline = versions(&v)[0]["short_id"].as_str().unwrap().to_string();
    assert_eq!(versions(&v)[0]["source"], "external");
    assert_eq!(v["exists"], true);

    // An outside edit (an editor) becomes an external version.
    save(&s, "Plan.md", "# Plan\nafternoon text\n");
    let v = history_until(&s, json!({"note": "Plan"}), |v| versions(v).len() == 2).await;
    let edit = &versions(&v)[0];
    assert_eq!(edit["source"], "external");
    assert_eq!(edit["author"], "external");
    assert_eq!(edit["read_only"], false);
    assert_eq!(edit["message"], "external: Plan.md");

    // The vault's changes today, short and full ids alike.
    let (text, all) = s.ok("note_history", json!({"since": "today"})).await;
    assert!(
        text.contains("Recent changes in the vault since today"),
        "{text}"
    );
    assert_eq!(versions(&all).len(), 2, "{text}");
    assert_eq!(versions(&all)[0]["changes"][0]["path"], "Plan");

    let (text, d) = s
        .ok("diff_note", json!({"path": "Plan", "from": baseline}))
        .await;
    assert_eq!(
        (d["additions"].as_u64(), d["deletions"].as_u64()),
        (Some(1), Some(1))
    );
    assert!(text.contains("-morning text\n+afternoon text"), "{text}");
    let full = edit["id"].as_str().unwrap();
    let (_, d) = s
        .ok(
            "diff_note",
            json!({"path": "Plan.md", "from": baseline, "to": full}),
        )
        .await;
    assert_eq!(d["to"]["id"], full);
    assert_eq!(d["additions"], 1);
    let (_, d) = s
        .ok(
            "diff_note",
            json!({"path": "Plan", "from": full, "to": "current"}),
        )
        .await;
    assert_eq!(
        (d["additions"].as_u64(), d["diff"].as_str()),
        (Some(0), Some(""))
    );

    let (text, r) = s
        .ok("read_note", json!({"path": "Plan", "version": baseline}))
        .await;
    let note = &r["notes"][0];
    assert_eq!(note["content"], "# Plan\nmorning text\n");
    assert_eq!(note["version"]["short_id"], baseline.as_str());
    assert!(text.contains("as of version"), "{text}");

    // A dry run shows the diff and writes nothing.
    let (text, r) = s
        .ok(
            "restore_note",
            json!({"path": "Plan", "version": baseline, "dry_run": true}),
        )
        .await;
    assert!(text.starts_with("Dry run"), "{text}");
    assert!(r["diff"].as_str().unwrap().contains("+morning text"), "{r}");
    assert_eq!(read(&s, "Plan.md"), "# Plan\nafternoon text\n");

    // The sha256 guard: a stale one is a conflict naming the current one.
    let (_, now) = s.ok("read_note", json!({"path": "Plan"})).await;
    let sha = now["notes"][0]["sha256"].as_str().unwrap().to_string();
    let e = s
        .err(
            "restore_note",
            json!({"path": "Plan", "version": baseline, "expected_sha256": "0".repeat(64)}),
        )
        .await;
    assert!(
        e.contains("changed since it was read") && e.contains(&sha),
        "{e}"
    );
    assert_eq!(read(&s, "Plan.md"), "# Plan\nafternoon text\n");

    let (text, r) = s
        .ok(
            "restore_note",
            json!({"path": "Plan", "version": baseline, "expected_sha256": sha}),
        )
        .await;
    assert_eq!(read(&s, "Plan.md"), "# Plan\nmorning text\n");
    assert_eq!(r["recreated"], false);
    let recorded = r["new_version"]["short_id"]
        .as_str()
        .expect("recorded")
        .to_string();
    assert!(
        text.contains(&format!("recorded as version `{recorded}`")),
        "{text}"
    );
    // The index follows at once.
    let (_, found) = s.ok("search_notes", json!({"query": "morning"})).await;
    assert_eq!(found["total"], 1, "{found}");

    // The restore is one Weft version by the client, never an external one
    // too, however long the watcher takes: once an outside change made
    // after it is recorded, the watcher and the history have seen the
    // restore's own write too.
    save(&s, "Sentinel.md", "# Sentinel\n");
    history_until(&s, json!({}), |v| {
        versions(v)
            .iter()
            .any(|x| x["changes"].to_string().contains("\"Sentinel\""))
    })
    .await;
    let (_, v) = s
        .ok("note_history", json!({"path": "Plan", "limit": 10}))
        .await;
    let messages = messages(&v);
    assert_eq!(
        messages,
        ["restore_note: Plan.md", "external: Plan.md", messages[2]],
        "{v:#}"
    );
    assert_eq!(versions(&v)[0]["source"], "weft");
    assert_ne!(versions(&v)[0]["author"], "external");
    // Restoring it again changes nothing.
    let (text, r) = s
        .ok("restore_note", json!({"path": "Plan", "version": baseline}))
        .await;
    assert_eq!(r["unchanged"], true, "{text}");
}

/// Every write tool is one version, by the client, named after the tool,
/// and a note's versions follow it through a move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_tools_record_one_version_each() {
    let s = session(VAULT).await;
    s.ok(
        "edit_note",
        json!({"path": "Plan", "ops": [{"op": "append", "content": "evening text"}]}),
    )
    .await;
    s.ok(
        "move_note",
        json!({"path": "Plan", "new_path": "archive/Plan"}),
    )
    .await;
    let (text, v) = s.ok("note_history", json!({})).await;
    let messages = messages(&v);
    assert_eq!(
        messages[..2],
        ["move_note: Plan.md", "edit_note: Plan.md"],
        "{text}"
    );
    for version in &versions(&v)[..2] {
        assert_eq!(version["source"], "weft", "{text}");
        assert_ne!(version["author"], "external", "{text}");
    }
    let (_, v) = s.ok("note_history", json!({"path": "archive/Plan"})).await;
    assert!(versions(&v).len() >= 3, "{v:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_note_keeps_its_history_and_comes_back() {
    let s = session(VAULT).await;
    let (_, v) = s.ok("note_history", json!({"path": "notes/Idea"})).await;
    let baseline = versions(&v)[0]["id"].as_str().unwrap().to_string();
    let original = read(&s, "notes/Idea.md");
    std::fs::remove_file(s.root().join("notes/Idea.md")).unwrap();
    let v = history_until(&s, json!({"path": "notes/Idea"}), |v| {
        versions(v).len() == 2
    })
    .await;
    assert_eq!(v["exists"], false);
    assert_eq!(versions(&v)[0]["changes"][0]["kind"], "deleted");
    let deleting = versions(&v)[0]["short_id"].as_str().unwrap().to_string();

    // Its text as it was, with its tags then.
    let (_, r) = s
        .ok(
            "read_note",
            json!({"path": "notes/Idea", "version": &baseline[..12]}),
        )
        .await;
    assert_eq!(r["notes"][0]["tags"], json!(["idea"]));
    // The version that deleted it has no text to restore; the error names
    // the one before.
    let e = s
        .err(
            "restore_note",
            json!({"path": "notes/Idea", "version": deleting}),
        )
        .await;
    assert!(e.contains("does not exist in version"), "{e}");
    let (text, r) = s
        .ok("diff_note", json!({"path": "notes/Idea", "from": baseline}))
        .await;
    assert_eq!(r["deletions"], 5, "{text}");

    let (text, r) = s
        .ok(
            "restore_note",
            json!({"path": "notes/Idea", "version": baseline}),
        )
        .await;
    assert_eq!(r["recreated"], true, "{text}");
    assert_eq!(read(&s, "notes/Idea.md"), original);
    let (_, links) = s
        .ok("get_links", json!({"path": "Plan", "direction": "in"}))
        .await;
    assert!(links.to_string().contains("notes/Idea"), "{links}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_name_what_to_do() {
    let s = session(VAULT).await;
    let e = s
        .err("diff_note", json!({"path": "Plan", "from": "zzz"}))
        .await;
    assert!(
        e.contains("no version `zzz`") && e.contains("recent versions"),
        "{e}"
    );
    let e = s.err("note_history", json!({"path": "Nothing/here"})).await;
    assert!(e.contains("has no recorded versions"), "{e}");
    let e = s
        .err("note_history", json!({"path": "Plan", "cursor": "bogus"}))
        .await;
    assert!(e.contains("invalid cursor"), "{e}");
    let e = s.err("note_history", json!({"since": "someday"})).await;
    assert!(e.contains("`since`"), "{e}");
    let e = s
        .err(
            "restore_note",
            json!({"path": "Plan", "version": "current"}),
        )
        .await;
    assert!(e.contains("older version"), "{e}");
    let e = s
        .err(
            "read_note",
            json!({"paths": ["Plan"], "version": "abc1234"}),
        )
        .await;
    assert!(e.contains("one note"), "{e}");
    let (text, v) = s.ok("vault_info", json!({})).await;
    assert_eq!(v["history"]["mode"], "weft");
    assert_eq!(v["history"]["available"], true);
    assert!(text.contains("History: weft"), "{text}");
}

/// With history off or its store damaged, the history tools say why and
/// what to do; every read (and vault_info) keeps working.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_off_or_damaged_is_a_clear_error_and_reads_work() {
    let off = format!("{VAULT}//- /.weft.toml\n[history]\nmode = \"off\"\n");
    let s = session(&off).await;
    let e = s.err("note_history", json!({"path": "Plan"})).await;
    assert!(
        e.contains("Note history is off") && e.contains("mode = \"weft\""),
        "{e}"
    );
    let e = s
        .err("read_note", json!({"path": "Plan", "version": "abc1234"}))
        .await;
    assert!(e.contains("Note history is off"), "{e}");
    let (_, v) = s.ok("vault_info", json!({})).await;
    assert_eq!(v["history"]["mode"], "off");
    s.ok("read_note", json!({"path": "Plan"})).await;
    assert!(
        !s.root().join(".weft").exists(),
        "history off writes nothing"
    );

    let damaged = session_prepared(VAULT, Profile::default(), true, |root| {
        let store = root.join(".weft/history.git");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("HEAD"), "garbage").unwrap();
    })
    .await;
    // A damaged store is set aside and started anew; every history answer
    // says that the versions before are gone.
    let (text, v) = damaged.ok("note_history", json!({})).await;
    assert!(
        text.starts_with("⚠ Note history was lost at") && text.contains("damaged"),
        "{text}"
    );
    assert!(
        v["history_lost"]["reason"]
            .as_str()
            .unwrap()
            .contains("damaged"),
        "{v}"
    );
    for (tool, args) in [
        ("diff_note", json!({"path": "Plan", "from": "abc1234"})),
        (
            "restore_note",
            json!({"path": "Plan", "version": "abc1234"}),
        ),
    ] {
        let e = damaged.err(tool, args).await;
        assert!(
            e.contains("No version") || e.contains("no version"),
            "{tool}: {e}"
        );
        assert!(e.contains("Note history was lost at"), "{tool}: {e}");
    }
    let (_, v) = damaged.ok("vault_info", json!({})).await;
    assert_eq!(v["history"]["mode"], "weft");
    assert!(
        v["history"]["note"]
            .as_str()
            .unwrap()
            .contains("history was lost"),
        "{v}"
    );
    assert!(v["history"]["lost"]["at"].is_string(), "{v}");
    assert!(
        std::fs::read_dir(damaged.root().join(".weft"))
            .unwrap()
            .any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("history.git.lost-")),
        "what was left is kept"
    );
    let (_, r) = damaged.ok("read_note", json!({"path": "Plan"})).await;
    assert_eq!(r["notes"][0]["content"], "# Plan\nmorning text\n");
    // An outside edit is still indexed.
    std::fs::write(damaged.root().join("Plan.md"), "# Plan\nnew words\n").unwrap();
    let start = Instant::now();
    loop {
        let (_, found) = damaged.ok("search_notes", json!({"query": "words"})).await;
        if found["total"] == 1 {
            break;
        }
        assert!(start.elapsed() < DEADLINE, "{found}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
