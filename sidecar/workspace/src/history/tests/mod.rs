//! Tests of note history on temporary vaults: recording, listing (renames,
//! deletions, pages), reading and diffing by full and short ids, external
//! snapshots, the store's failure modes, commit cost, and the vault's own git
//! repository left exactly as it was.

mod listing;
mod store;
mod stress;
mod vault_git;
mod write_log;

use crate::fixture::write_file;
use std::path::Path;

use super::*;
use crate::config::{HistoryConfig, HistoryMode};

fn vault() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn config() -> HistoryConfig {
    HistoryConfig::default()
}

fn open(root: &Path) -> History {
    History::open(root, &config()).expect("history opens")
}

fn write<'a>(path: &'a str, text: &'a str) -> Change<'a> {
    Change::Write {
        path,
        bytes: text.as_bytes(),
    }
}

/// Records one tool change and returns its commit.
fn commit(history: &History, changes: &[Change<'_>], message: &str) -> CommitId {
    history
        .record(changes, "claude-code", message, Source::Tool)
        .expect("records")
        .expect("a commit")
}

fn kinds(page: &Page<Version>) -> Vec<(ChangeKind, String)> {
    page.items
        .iter()
        .map(|v| {
            let change = &v.changes[0];
            (change.kind, change.path.clone())
        })
        .collect()
}

fn ids(page: &Page<Version>) -> Vec<String> {
    page.items.iter().map(|v| v.id.clone()).collect()
}

#[test]
fn records_lists_reads_and_diffs_with_short_ids() {
    let dir = vault();
    let history = open(dir.path());
    assert!(history.status().needs_baseline);
    let baseline = history
        .snapshot_all([("a.md", "one\n"), ("b.md", "bee\n")])
        .expect("snapshot")
        .expect("a baseline commit");
    assert!(!history.status().needs_baseline);
    let c1 = commit(&history, &[write("a.md", "one\ntwo\n")], "edit_note: a.md");
    // The same content again is no change: no commit.
    assert_eq!(
        history
            .record(
                &[write("a.md", "one\ntwo\n")],
                "claude-code",
                "edit_note: a.md",
                Source::Tool
            )
            .expect("records"),
        None
    );
    assert_eq!(
        history
            .record(&[], "x", "nothing", Source::Tool)
            .expect("ok"),
        None
    );
    let c2 = commit(
        &history,
        &[write("a.md", "---\ntags: [draft]\n---\none\ntwo\nthree\n")],
        "edit_note: a.md",
    );

    let page = history.log(Some("a.md"), None, 20, None).expect("log");
    assert_eq!(
        ids(&page),
        [c2.id.as_str(), c1.id.as_str(), baseline.id.as_str()]
    );
    assert_eq!(page.next_cursor, None);
    let sources: Vec<VersionSource> = page.items.iter().map(|v| v.source).collect();
    assert_eq!(
        sources,
        [
            VersionSource::Weft,
            VersionSource::Weft,
            VersionSource::External
        ]
    );
    assert_eq!(page.items[0].author, "claude-code");
    assert_eq!(page.items[0].message, "edit_note: a.md");
    assert_eq!(page.items[2].author, "weft");
    assert!(page.items[2].message.starts_with("baseline: "));
    assert_eq!(
        kinds(&page),
        [
            (ChangeKind::Modified, "a.md".into()),
            (ChangeKind::Modified, "a.md".into()),
            (ChangeKind::Added, "a.md".into()),
        ]
    );
    for version in &page.items {
        assert_eq!(version.path_at_version.as_deref(), Some("a.md"));
        assert!(version.short_id.len() >= 7, "{}", version.short_id);
        assert!(version.id.starts_with(&version.short_id));
        assert_eq!(version.id.len(), 40);
    }
    // A path without `.md` names the note too.
    assert_eq!(
        ids(&history.log(Some("a"), None, 20, None).expect("log")),
        ids(&page)
    );

    // Full ids, short ids, unique prefixes and the `weft:` qualifier.
    for id in [
        c1.id.clone(),
        c1.short_id.clone(),
        c1.id[..5].to_string(),
        format!("weft:{}", c1.short_id),
    ] {
        let old = history.read("a.md", &id).expect("reads");
        assert_eq!(old.text, "one\ntwo\n", "{id}");
        assert_eq!(old.path, "a.md");
        assert_eq!(old.version.id, c1.id);
    }
    let old = history.read("a", &c2.short_id).expect("reads");
    assert_eq!(old.path, "a.md");
    let note = old.note();
    let tags: Vec<&str> = note.tags.iter().map(|t| &*t.name).collect();
    assert_eq!(tags, ["draft"], "metadata as it was then");

    // Unknown ids list the recent versions.
    for bad in ["deadbeef", "nope", "12", "git:abcdef1"] {
        let error = history.read("a.md", bad).expect_err("unknown").to_string();
        assert!(error.contains(&format!("no version `{bad}`")), "{error}");
        assert!(error.contains(&c2.short_id), "{error}");
    }

    let diff = history
        .diff("a.md", &c1.short_id, DiffTarget::Version(&c2.id))
        .expect("diff");
    assert_eq!(
        diff.unified,
        format!(
            "--- a/a.md@{}\n+++ b/a.md@{}\n@@ -1,2 +1,6 @@\n+---\n+tags: [draft]\n+---\n one\n two\n+three\n",
            c1.short_id, c2.short_id
        )
    );
    assert_eq!((diff.additions, diff.deletions), (4, 0));
    assert_eq!(
        diff.to.as_ref().map(|v| v.id.as_str()),
        Some(c2.id.as_str())
    );

    let diff = history
        .diff("a.md", &baseline.short_id, DiffTarget::Current("ONE\n"))
        .expect("diff");
    assert_eq!(
        diff.unified,
        format!(
            "--- a/a.md@{}\n+++ b/a.md@current\n@@ -1 +1 @@\n-one\n+ONE\n",
            baseline.short_id
        )
    );
    assert_eq!((diff.additions, diff.deletions), (1, 1));
    assert_eq!(diff.to, None);
    let same = history
        .diff("a.md", &c1.id, DiffTarget::Current("one\ntwo\n"))
        .expect("diff");
    assert_eq!(
        (same.unified.as_str(), same.additions, same.deletions),
        ("", 0, 0)
    );

    // The vault's recent changes, with the paths each touched.
    let page = history.log(None, None, 20, None).expect("log");
    assert_eq!(
        ids(&page),
        [c2.id.as_str(), c1.id.as_str(), baseline.id.as_str()]
    );
    assert_eq!(page.items[0].path_at_version, None);
    assert_eq!(
        page.items[0].changes,
        [PathChange {
            kind: ChangeKind::Modified,
            path: "a.md".into(),
            from: None
        }]
    );
    assert_eq!(page.items[2].changes_total, 2);
}

#[test]
fn external_snapshots_are_marked_and_skip_what_is_not_a_note() {
    let dir = vault();
    write_file(dir.path(), "a.md", "# A\n");
    write_file(dir.path(), "b.md", "# B\n");
    let live = crate::io::LiveVault::open(dir.path()).expect("vault opens");
    let history = open(dir.path());
    history
        .snapshot_all([("a.md", "# A\n"), ("b.md", "# B\n")])
        .expect("snapshot");

    write_file(dir.path(), "a.md", "# A\nchanged in the editor\n");
    std::fs::remove_file(dir.path().join("b.md")).expect("rm");
    write_file(dir.path(), "image.png", "not a note");
    let paths: Vec<String> = ["b.md", "a.md", "image.png", "a.md"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let id = history
        .snapshot_external_at(&live.root, &paths)
        .expect("snapshot")
        .expect("a commit");
    let page = history.log(None, None, 1, None).expect("log");
    let version = &page.items[0];
    assert_eq!(version.id, id.id);
    assert_eq!(version.source, VersionSource::External);
    assert_eq!(version.author, "external");
    assert_eq!(version.message, "external: 2 notes (a.md, b.md)");
    let changes: Vec<(ChangeKind, &str)> = version
        .changes
        .iter()
        .map(|c| (c.kind, c.path.as_str()))
        .collect();
    assert_eq!(
        changes,
        [
            (ChangeKind::Modified, "a.md"),
            (ChangeKind::Deleted, "b.md")
        ]
    );
    assert!(page.next_cursor.is_some());
    // Nothing new on disk: nothing recorded.
    assert_eq!(
        history
            .snapshot_external_at(&live.root, &paths)
            .expect("ok"),
        None
    );
    // Only what history does not have yet is named.
    write_file(dir.path(), "b.md", "# B is back\n");
    history
        .snapshot_external_at(&live.root, &paths)
        .expect("ok")
        .expect("a commit");
    let page = history.log(None, None, 1, None).expect("log");
    assert_eq!(page.items[0].message, "external: b.md");
    assert_eq!(page.items[0].changes[0].kind, ChangeKind::Added);
    // One path gets its name in the message.
    write_file(dir.path(), "a.md", "again\n");
    history
        .snapshot_external_at(&live.root, &["a.md".to_string()])
        .expect("ok")
        .expect("a commit");
    let page = history.log(Some("a.md"), None, 1, None).expect("log");
    assert_eq!(page.items[0].message, "external: a.md");
    assert_eq!(
        history.read("a.md", &page.items[0].id).expect("read").text,
        "again\n"
    );

    // A tool's own External record without an author is "external" too.
    let id = history
        .record(&[write("c.md", "c")], "", "sync: c.md", Source::External)
        .expect("ok")
        .expect("a commit");
    let page = history.log(None, None, 1, None).expect("log");
    assert_eq!(
        (page.items[0].id.as_str(), page.items[0].author.as_str()),
        (id.id.as_str(), "external")
    );
    assert_eq!(page.items[0].source, VersionSource::External);
}

#[test]
fn invalid_paths_are_refused_before_anything_is_written() {
    let dir = vault();
    let history = open(dir.path());
    for bad in [
        "",
        "/etc/passwd",
        "../x.md",
        "a/../../x.md",
        "a/.git/config",
        "a\0b",
    ] {
        let error = history
            .record(
                &[write("ok.md", "ok"), write(bad, "x")],
                "t",
                "m",
                Source::Tool,
            )
            .expect_err(bad)
            .to_string();
        assert!(
            error.contains("cannot be kept in note history"),
            "{bad:?}: {error}"
        );
    }
    assert!(
        history
            .log(None, None, 10, None)
            .expect("log")
            .items
            .is_empty()
    );
    // `./` and backslashes are normalised.
    let id = commit(
        &history,
        &[write("./dir\\n.md", "n")],
        "write_note: dir/n.md",
    );
    assert_eq!(
        history.read("dir/n.md", &id.short_id).expect("read").text,
        "n"
    );
    let page = history.log(Some("dir/n.md"), None, 10, None).expect("log");
    assert_eq!(page.items.len(), 1);
}

#[test]
fn history_is_shared_between_threads_and_between_processes() {
    let dir = vault();
    let history = std::sync::Arc::new(open(dir.path()));
    // A second store handle on the same folder stands for a second process.
    let other = std::sync::Arc::new(open(dir.path()));
    let mut threads = Vec::new();
    for t in 0..4 {
        let history = if t % 2 == 0 {
            std::sync::Arc::clone(&history)
        } else {
            std::sync::Arc::clone(&other)
        };
        threads.push(std::thread::spawn(move || {
            for i in 0..10 {
                let path = format!("t{t}/n{i}.md");
                let text = format!("thread {t} note {i}\n");
                history
                    .record(
                        &[write(&path, &text)],
                        "t",
                        &format!("write_note: {path}"),
                        Source::Tool,
                    )
                    .expect("records")
                    .expect("a commit");
            }
        }));
    }
    for thread in threads {
        thread.join().expect("no panic");
    }
    let page = history.log(None, None, 100, None).expect("log");
    assert_eq!(
        page.items.len(),
        40,
        "every commit kept, none lost to a race"
    );
    for t in 0..4 {
        for i in 0..10 {
            let path = format!("t{t}/n{i}.md");
            let versions = other.log(Some(&path), None, 10, None).expect("log");
            assert_eq!(versions.items.len(), 1, "{path}");
        }
    }
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<History>();
}

/// Two writers making a store's first commit at once: libgit2 checks that
/// a branch does not exist before it takes the branch's lock, so creating
/// the branch "only if absent" let both succeed and lost one commit.
#[test]
fn two_first_commits_at_once_are_both_kept() {
    for round in 0..100 {
        let dir = vault();
        let handles = [open(dir.path()), open(dir.path())].map(std::sync::Arc::new);
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let threads: Vec<_> = handles
            .iter()
            .enumerate()
            .map(|(t, history)| {
                let history = std::sync::Arc::clone(history);
                let start = std::sync::Arc::clone(&start);
                std::thread::spawn(move || {
                    let path = format!("n{t}.md");
                    start.wait();
                    history
                        .record(&[write(&path, "x\n")], "t", "write_note", Source::Tool)
                        .expect("records")
                        .expect("a commit")
                })
            })
            .collect();
        for thread in threads {
            thread.join().expect("no panic");
        }
        let page = handles[0].log(None, None, 10, None).expect("log");
        assert_eq!(
            page.items.len(),
            2,
            "round {round}: both first commits kept"
        );
    }
}
