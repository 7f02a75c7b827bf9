//! Listings: pages and cursors, `since`, renames followed (recorded moves,
//! and renames seen only on disk), deleted notes, and a many-file move as
//! one commit.

use super::*;

#[test]
fn pages_follow_the_cursor_and_since_drops_older_versions() {
    let dir = vault();
    let history = open(dir.path());
    let mut all = Vec::new();
    for i in 0..7 {
        let text = format!("version {i}\n");
        all.push(commit(&history, &[write("a.md", &text)], "edit_note: a.md").id);
        commit(&history, &[write("other.md", &text)], "edit_note: other.md");
    }
    all.reverse();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = history
            .log(Some("a.md"), None, 3, cursor.as_deref())
            .expect("log");
        pages += 1;
        seen.extend(ids(&page));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, all);
    assert_eq!(pages, 3);
    // Paging a path given without `.md` keeps finding the note.
    let first = history.log(Some("a"), None, 4, None).expect("log");
    let rest = history
        .log(Some("a"), None, 4, first.next_cursor.as_deref())
        .expect("log");
    assert_eq!([ids(&first), ids(&rest)].concat(), all);

    // The vault listing pages the same way.
    let first = history.log(None, None, 5, None).expect("log");
    let second = history
        .log(None, None, 100, first.next_cursor.as_deref())
        .expect("log");
    assert_eq!(first.items.len() + second.items.len(), 14);
    assert_eq!(second.next_cursor, None);

    let error = history
        .log(Some("a.md"), None, 3, Some("not a cursor"))
        .expect_err("bad cursor")
        .to_string();
    assert!(error.contains("invalid cursor"), "{error}");
    // A cursor from another note's listing does not point into this one.
    let other = history.log(Some("other.md"), None, 1, None).expect("log");
    let error = history
        .log(Some("a.md"), None, 3, other.next_cursor.as_deref())
        .expect_err("foreign cursor")
        .to_string();
    assert!(error.contains("this note's history"), "{error}");

    let later = chrono::Utc::now() + chrono::Duration::hours(1);
    let earlier = chrono::Utc::now() - chrono::Duration::hours(1);
    assert!(
        history
            .log(Some("a.md"), Some(later), 10, None)
            .expect("log")
            .items
            .is_empty()
    );
    assert_eq!(
        history
            .log(Some("a.md"), Some(earlier), 10, None)
            .expect("log")
            .items
            .len(),
        7
    );
    assert!(
        history
            .log(None, Some(later), 10, None)
            .expect("log")
            .items
            .is_empty()
    );
}

#[test]
fn a_note_is_followed_back_through_its_renames() {
    let dir = vault();
    let history = open(dir.path());
    let v1 = commit(
        &history,
        &[write("notes/a.md", "# A\nfirst\n")],
        "write_note: notes/a.md",
    );
    let v2 = commit(
        &history,
        &[write("notes/a.md", "# A\nsecond\n")],
        "edit_note: notes/a.md",
    );
    // A recorded move whose text changed completely: git alone would not
    // see a rename, Weft's record does.
    let v3 = commit(
        &history,
        &[Change::Move {
            from: "notes/a.md",
            to: "archive/b.md",
            bytes: b"entirely different text after the move\n",
        }],
        "move_note: notes/a.md -> archive/b.md",
    );
    let v4 = commit(
        &history,
        &[write("archive/b.md", "# B\n")],
        "edit_note: archive/b.md",
    );
    let page = history
        .log(Some("archive/b.md"), None, 20, None)
        .expect("log");
    assert_eq!(
        ids(&page),
        [
            v4.id.as_str(),
            v3.id.as_str(),
            v2.id.as_str(),
            v1.id.as_str()
        ]
    );
    let paths: Vec<&str> = page
        .items
        .iter()
        .map(|v| v.path_at_version.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        paths,
        ["archive/b.md", "archive/b.md", "notes/a.md", "notes/a.md"]
    );
    assert_eq!(
        page.items[1].changes[0],
        PathChange {
            kind: ChangeKind::Renamed,
            path: "archive/b.md".into(),
            from: Some("notes/a.md".into())
        }
    );
    // The old version is read under today's name.
    let old = history.read("archive/b.md", &v1.short_id).expect("read");
    assert_eq!(
        (old.text.as_str(), old.path.as_str()),
        ("# A\nfirst\n", "notes/a.md")
    );
    // ... and under its old name.
    assert_eq!(
        history.read("notes/a.md", &v2.short_id).expect("read").text,
        "# A\nsecond\n"
    );
    let diff = history
        .diff(
            "archive/b.md",
            &v1.short_id,
            DiffTarget::Version(&v4.short_id),
        )
        .expect("diff");
    assert!(
        diff.unified.starts_with(&format!(
            "--- a/notes/a.md@{}\n+++ b/archive/b.md@{}\n",
            v1.short_id, v4.short_id
        )),
        "{}",
        diff.unified
    );
    // The vault listing shows the move as one rename.
    let vault_page = history.log(None, None, 2, None).expect("log");
    assert_eq!(
        vault_page.items[1].changes,
        [PathChange {
            kind: ChangeKind::Renamed,
            path: "archive/b.md".into(),
            from: Some("notes/a.md".into())
        }]
    );

    // A rename seen only on disk (delete + create, same bytes) is found by
    // git's rename detection.
    let v5 = history
        .record(
            &[
                Change::Delete {
                    path: "archive/b.md",
                },
                write("c.md", "# B\n"),
            ],
            "external",
            "external: 2 notes",
            Source::External,
        )
        .expect("records")
        .expect("a commit");
    let page = history.log(Some("c.md"), None, 20, None).expect("log");
    assert_eq!(
        ids(&page),
        [
            v5.id.as_str(),
            v4.id.as_str(),
            v3.id.as_str(),
            v2.id.as_str(),
            v1.id.as_str()
        ]
    );
    assert_eq!(
        page.items[0].changes[0].from.as_deref(),
        Some("archive/b.md")
    );
    assert_eq!(
        history.read("c.md", &v1.id).expect("read").path,
        "notes/a.md"
    );
    // The old names still have their own listings, ending at the move.
    let page = history
        .log(Some("notes/a.md"), None, 20, None)
        .expect("log");
    assert_eq!(ids(&page), [v3.id.as_str(), v2.id.as_str(), v1.id.as_str()]);
    assert_eq!(page.items[0].changes[0].kind, ChangeKind::Deleted);
}

#[test]
fn a_deleted_note_keeps_its_history_and_can_be_planned_for_restore() {
    let dir = vault();
    let history = open(dir.path());
    let v1 = commit(
        &history,
        &[write("gone.md", "one\n")],
        "write_note: gone.md",
    );
    let v2 = commit(
        &history,
        &[write("gone.md", "one\ntwo\n")],
        "edit_note: gone.md",
    );
    let deleted = commit(
        &history,
        &[Change::Delete { path: "gone.md" }],
        "delete_note: gone.md",
    );
    let page = history.log(Some("gone"), None, 20, None).expect("log");
    assert_eq!(
        ids(&page),
        [deleted.id.as_str(), v2.id.as_str(), v1.id.as_str()]
    );
    assert_eq!(
        kinds(&page),
        [
            (ChangeKind::Deleted, "gone.md".into()),
            (ChangeKind::Modified, "gone.md".into()),
            (ChangeKind::Added, "gone.md".into()),
        ]
    );
    // The deleting version has no content; the error names the one before.
    let error = history
        .read("gone.md", &deleted.short_id)
        .expect_err("deleted");
    assert!(
        matches!(error, HistoryError::NotInVersion { .. }),
        "{error}"
    );
    let message = error.to_string();
    assert!(message.contains("does not exist in version"), "{message}");
    assert!(
        message.contains(&format!("has the note is {}", v2.short_id)),
        "{message}"
    );

    let plan = history.restore_plan("gone", &v2.short_id).expect("plan");
    assert_eq!(
        (plan.text.as_str(), plan.path.as_str()),
        ("one\ntwo\n", "gone.md")
    );
    assert_eq!(plan.version.id, v2.id);

    let diff = history
        .diff(
            "gone.md",
            &v2.short_id,
            DiffTarget::Version(&deleted.short_id),
        )
        .expect("diff");
    assert!(
        diff.unified
            .starts_with(&format!("--- a/gone.md@{}\n+++ /dev/null\n", v2.short_id))
    );
    assert_eq!((diff.additions, diff.deletions), (0, 2));
    assert_eq!(diff.to_path, None);

    // Restoring writes a new version; history is never rewritten.
    let restored = commit(
        &history,
        &[write("gone.md", &plan.text)],
        "restore_note: gone.md",
    );
    let page = history.log(Some("gone.md"), None, 20, None).expect("log");
    assert_eq!(
        ids(&page),
        [
            restored.id.as_str(),
            deleted.id.as_str(),
            v2.id.as_str(),
            v1.id.as_str()
        ]
    );
    assert_eq!(page.items[0].changes[0].kind, ChangeKind::Added);

    let error = history
        .read("never.md", &v1.short_id)
        .expect_err("no such note");
    assert!(
        matches!(error, HistoryError::NotInVersion { .. }),
        "{error}"
    );
    assert!(
        history
            .log(Some("never.md"), None, 5, None)
            .expect("log")
            .items
            .is_empty()
    );
}

#[test]
fn a_move_that_rewrites_links_in_forty_notes_is_one_commit() {
    let dir = vault();
    let history = open(dir.path());
    let mut files: Vec<(String, String)> = (0..40)
        .map(|i| (format!("n/{i:02}.md"), format!("see [[Old]] {i}\n")))
        .collect();
    files.push(("Old.md".into(), "# Old\n".into()));
    history
        .snapshot_all(files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())))
        .expect("snapshot");
    let rewritten: Vec<(String, String)> = (0..40)
        .map(|i| (format!("n/{i:02}.md"), format!("see [[New]] {i}\n")))
        .collect();
    let mut changes = vec![Change::Move {
        from: "Old.md",
        to: "New.md",
        bytes: b"# Old\n",
    }];
    changes.extend(rewritten.iter().map(|(p, t)| write(p, t)));
    let id = commit(&history, &changes, "move_note: Old.md -> New.md");
    let page = history.log(None, None, 10, None).expect("log");
    assert_eq!(page.items.len(), 2, "the baseline and the move");
    assert_eq!(page.items[0].id, id.id);
    assert_eq!(page.items[0].changes_total, 41);
    assert_eq!(
        page.items[0]
            .changes
            .iter()
            .filter(|c| c.kind == ChangeKind::Renamed)
            .count(),
        1
    );
    assert_eq!(
        history
            .log(Some("New.md"), None, 10, None)
            .expect("log")
            .items
            .len(),
        2
    );
}

#[test]
fn a_short_id_shared_with_a_tree_or_blob_still_names_its_commit() {
    let dir = vault();
    let history = open(dir.path());
    let store = dir.path().join(".weft/history.git");
    for i in 0..2000 {
        let text = format!("version {i}\n");
        commit(&history, &[write("n.md", &text)], "edit_note: n.md");
        if i < 50 || i % 10 != 0 {
            continue;
        }
        // Look for a commit whose first four characters another object has.
        let repo = git2::Repository::open_bare(&store).expect("store");
        let odb = repo.odb().expect("odb");
        let mut by_prefix: std::collections::HashMap<String, Vec<git2::Oid>> = Default::default();
        odb.foreach(|id| {
            by_prefix
                .entry(id.to_string()[..4].to_string())
                .or_default()
                .push(*id);
            true
        })
        .expect("foreach");
        for ids in by_prefix.values().filter(|ids| ids.len() > 1) {
            let commits: Vec<&git2::Oid> = ids
                .iter()
                .filter(|id| odb.read_header(**id).expect("header").1 == git2::ObjectType::Commit)
                .collect();
            let prefix = &ids[0].to_string()[..4];
            match commits.as_slice() {
                [] => continue,
                [one] => {
                    // libgit2 alone calls the prefix ambiguous.
                    let direct = repo.find_object_by_prefix(prefix, Some(git2::ObjectType::Commit));
                    assert_eq!(
                        direct.err().map(|e| e.code()),
                        Some(git2::ErrorCode::Ambiguous)
                    );
                    let read = history.read("n.md", prefix).expect("the one commit");
                    assert_eq!(read.version.id, one.to_string());
                }
                many => {
                    let error = history.read("n.md", prefix).expect_err("ambiguous");
                    assert!(
                        matches!(&error, HistoryError::AmbiguousVersion { candidates, .. } if candidates.len() == many.len()),
                        "{error}"
                    );
                    assert!(
                        error.to_string().contains("give more characters"),
                        "{error}"
                    );
                }
            }
            return;
        }
    }
    panic!("no shared four-character prefix in 2000 commits");
}

#[test]
fn moves_of_names_with_odd_characters_are_followed() {
    let dir = vault();
    let history = open(dir.path());
    let from = "100% -> done %3E.md";
    let to = "a > b/%0A%25 x.md";
    let v1 = commit(&history, &[write(from, "one\n")], "write_note");
    let v2 = commit(
        &history,
        &[Change::Move {
            from,
            to,
            bytes: b"something else entirely\n",
        }],
        "move_note",
    );
    let page = history.log(Some(to), None, 10, None).expect("log");
    assert_eq!(ids(&page), [v2.id.as_str(), v1.id.as_str()]);
    assert_eq!(page.items[0].changes[0].from.as_deref(), Some(from));
    assert_eq!(page.items[1].path_at_version.as_deref(), Some(from));
}
