//! History as the write layer's log: one commit per operation, authored by
//! the actor, `tool: path` as the message, renames followed.

use super::*;
use crate::io::LiveVault;
use crate::ops::{DeleteNote, EditNote, LinkPolicy, MoveNote, Ops, WriteOptions};
use weft_vault::edit::EditOp;

#[test]
fn a_move_that_rewrites_links_in_many_notes_is_one_commit_by_the_actor() {
    let dir = vault();
    for i in 0..12 {
        write_file(
            dir.path(),
            &format!("n/{i:02}.md"),
            format!("see [[Old]] {i}\n"),
        );
    }
    write_file(dir.path(), "Old.md", "# Old\n");
    let live = LiveVault::open(dir.path()).expect("opens");
    let history = open(dir.path());
    let files: Vec<(String, Vec<u8>)> = live
        .index
        .read()
        .expect("index")
        .notes()
        .map(|(_, n)| n.path.to_string())
        .map(|p| {
            let bytes = std::fs::read(dir.path().join(&p)).expect("read");
            (p, bytes)
        })
        .collect();
    history.snapshot_all(files).expect("baseline");

    let ops = Ops::new(&live, "claude-code").with_log(&history);
    ops.move_note(&MoveNote {
        path: "Old".into(),
        new_path: "New".into(),
        update_links: true,
        options: WriteOptions::default(),
    })
    .expect("moves");
    let page = history.log(None, None, 10, None).expect("log");
    assert_eq!(
        page.items.len(),
        2,
        "the baseline and one commit for the move"
    );
    let moved = &page.items[0];
    assert_eq!(moved.author, "claude-code");
    assert_eq!(moved.message, "move_note: Old.md");
    assert_eq!(moved.source, VersionSource::Weft);
    assert_eq!(moved.changes_total, 13);
    assert!(
        moved
            .changes
            .iter()
            .any(|c| c.kind == ChangeKind::Renamed && c.from.as_deref() == Some("Old.md")),
        "{:?}",
        moved.changes
    );
    // The note's history follows the rename; a rewritten note shows the new link.
    let versions = history.log(Some("New"), None, 10, None).expect("log");
    assert_eq!(versions.items.len(), 2);
    let text = history
        .read("n/03.md", &moved.short_id)
        .expect("reads")
        .text;
    assert_eq!(text, "see [[New]] 3\n");

    // An edit and a delete are one commit each; a dry run records nothing.
    ops.edit_note(&EditNote {
        path: "New".into(),
        ops: vec![EditOp::Append {
            content: "more".into(),
        }],
        options: WriteOptions {
            expected_sha256: None,
            dry_run: true,
        },
    })
    .expect("dry run");
    ops.edit_note(&EditNote {
        path: "New".into(),
        ops: vec![EditOp::Append {
            content: "more".into(),
        }],
        options: WriteOptions::default(),
    })
    .expect("edits");
    ops.delete_note(&DeleteNote {
        path: "New".into(),
        link_policy: LinkPolicy::Keep,
        options: WriteOptions::default(),
    })
    .expect("deletes");
    let page = history.log(None, None, 10, None).expect("log");
    let messages: Vec<&str> = page.items.iter().map(|v| v.message.as_str()).collect();
    assert_eq!(
        messages[..3],
        [
            "delete_note: New.md",
            "edit_note: New.md",
            "move_note: Old.md"
        ]
    );
    // The deleted note keeps its history, and the trash is not recorded.
    let versions = history.log(Some("New.md"), None, 10, None).expect("log");
    assert_eq!(versions.items[0].changes[0].kind, ChangeKind::Deleted);
    assert!(
        page.items[0]
            .changes
            .iter()
            .all(|c| !c.path.starts_with(".trash"))
    );
}

#[test]
fn a_disabled_history_logs_nothing_and_never_fails_a_write() {
    let dir = vault();
    write_file(dir.path(), "a.md", "a\n");
    let live = LiveVault::open(dir.path()).expect("opens");
    let history = History::disabled("the store is damaged");
    let ops = Ops::new(&live, "agent").with_log(&history);
    ops.edit_note(&EditNote {
        path: "a".into(),
        ops: vec![EditOp::Append {
            content: "b".into(),
        }],
        options: WriteOptions::default(),
    })
    .expect("the write succeeds without history");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.md")).expect("read"),
        "a\nb\n"
    );
    assert!(!dir.path().join(".weft").exists());
}
