//! The store itself: where it goes, `mode = "off"`, a damaged store (a clear
//! error, history disabled), a deleted one (started anew), and the cost of
//! a commit not growing with the vault.

use std::collections::BTreeMap;

use git2::{ObjectType, Repository};

use super::*;

fn store_dir(root: &Path) -> std::path::PathBuf {
    root.join(".weft/history.git")
}

#[test]
fn the_store_is_bare_and_ignored_by_the_vaults_git() {
    let dir = vault();
    let history = open(dir.path());
    let status = history.status();
    assert_eq!(status.mode, "weft");
    let expected = store_dir(&dir.path().canonicalize().expect("canonical"));
    assert_eq!(status.dir.as_deref(), Some(expected.as_path()));
    assert_eq!(status.vault_git, None);
    let repo = Repository::open_bare(&expected).expect("a repository");
    assert!(repo.is_bare());
    let ignore = std::fs::read_to_string(dir.path().join(".weft/.gitignore")).expect("ignore file");
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    assert!(format!("{history:?}").contains("weft"));

    // An existing ignore file is the user's: left alone.
    std::fs::write(dir.path().join(".weft/.gitignore"), "mine\n").expect("write");
    drop(history);
    let _history = open(dir.path());
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".weft/.gitignore")).expect("read"),
        "mine\n"
    );

    // Another place, relative or absolute; a store outside `.weft/` gets
    // its own ignore file.
    let other = vault();
    let config = HistoryConfig {
        mode: HistoryMode::Weft,
        dir: "meta/hist.git".into(),
    };
    let history = History::open(other.path(), &config).expect("opens");
    commit(&history, &[write("a.md", "a")], "write_note: a.md");
    assert!(other.path().join("meta/hist.git/.gitignore").is_file());
    assert!(!other.path().join("meta/.gitignore").exists());

    // Never the vault itself nor its own repository.
    for bad in ["", ".", ".git", ".git/weft", "x/../.git"] {
        let config = HistoryConfig {
            mode: HistoryMode::Weft,
            dir: bad.into(),
        };
        let error = History::open(other.path(), &config)
            .expect_err(bad)
            .to_string();
        assert!(
            error.contains("cannot keep note history at"),
            "{bad}: {error}"
        );
    }
}

#[test]
fn mode_off_records_nothing_and_says_why() {
    let dir = vault();
    let config = HistoryConfig {
        mode: HistoryMode::Off,
        dir: ".weft/history.git".into(),
    };
    let history = History::open(dir.path(), &config).expect("opens");
    assert!(!history.is_enabled());
    let status = history.status();
    assert_eq!(status.mode, "off");
    assert!(
        status
            .reason
            .as_deref()
            .unwrap_or("")
            .contains("mode = \"off\"")
    );
    assert_eq!(
        history
            .record(&[write("a.md", "a")], "t", "m", Source::Tool)
            .expect("no-op"),
        None
    );
    assert_eq!(history.snapshot_all([("a.md", "a")]).expect("no-op"), None);
    assert_eq!(
        history
            .snapshot_external_at(dir.path(), &["a.md".to_string()])
            .expect("no-op"),
        None
    );
    assert!(
        history
            .log(None, None, 10, None)
            .expect("empty")
            .items
            .is_empty()
    );
    let error = history
        .read("a.md", "abcdef1")
        .expect_err("off")
        .to_string();
    assert!(error.contains("history is off"), "{error}");
    assert!(
        history
            .diff("a.md", "abcdef1", DiffTarget::Current(""))
            .is_err()
    );
    assert!(!dir.path().join(".weft").exists(), "nothing written");
}

#[test]
fn a_damaged_store_is_set_aside_started_anew_and_reported() {
    type Damage = fn(&Path);
    let damages: [(&str, Damage); 4] = [
        ("the branch points at a missing commit", |store| {
            std::fs::write(
                store.join("refs/heads/main"),
                "0123456789abcdef0123456789abcdef01234567\n",
            )
            .expect("write")
        }),
        ("the objects are gone", |store| {
            std::fs::remove_dir_all(store.join("objects")).expect("rm")
        }),
        ("HEAD is garbage", |store| {
            std::fs::write(store.join("HEAD"), "garbage").expect("write")
        }),
        ("the store is a file", |store| {
            std::fs::remove_dir_all(store).expect("rm");
            std::fs::write(store, "not a repository").expect("write");
        }),
    ];
    for (what, damage) in damages {
        let dir = vault();
        write_file(dir.path(), "a.md", "my note\n");
        let history = open(dir.path());
        commit(&history, &[write("a.md", "my note\n")], "write_note: a.md");
        drop(history);
        damage(&store_dir(dir.path()));
        let history = History::open(dir.path(), &config()).expect(what);
        let lost = history.lost().expect(what);
        assert!(lost.reason.contains("damaged"), "{what}: {lost:?}");
        assert_eq!(history.status().lost.as_ref(), Some(&lost), "{what}");
        // What was left is kept beside the new store, never deleted.
        let aside: Vec<String> = std::fs::read_dir(dir.path().join(".weft"))
            .expect("weft folder")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("history.git.lost-"))
            .collect();
        assert_eq!(aside.len(), 1, "{what}: {aside:?}");
        // The new store records.
        commit(
            &history,
            &[write("a.md", "my note, again\n")],
            "edit_note: a.md",
        );
        assert_eq!(
            history
                .log(Some("a.md"), None, 5, None)
                .expect("log")
                .items
                .len(),
            1
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.md")).expect("note"),
            "my note\n",
            "{what}: the note untouched"
        );
        // A later run still knows the versions before are gone.
        drop(history);
        assert_eq!(open(dir.path()).lost(), Some(lost), "{what}");
    }
}

/// Regression: a store deleted under a running Weft was started anew
/// silently, and listings answered "no versions" as if nothing had ever
/// happened.
#[test]
fn a_store_lost_while_open_is_started_anew_from_the_vault_and_reported() {
    let dir = vault();
    write_file(dir.path(), "a.md", "a1\n");
    write_file(dir.path(), "b.md", "b1\n");
    let history = open(dir.path());
    history.set_baseline_source(Box::new(|| vec!["a.md".into(), "b.md".into()]));
    history
        .snapshot_all([("a.md", "a1\n"), ("b.md", "b1\n")])
        .expect("snapshot");
    commit(&history, &[write("a.md", "a1 edited\n")], "edit_note: a.md");
    assert!(history.lost().is_none());
    std::fs::remove_dir_all(store_dir(dir.path())).expect("rm");

    // A read finds it gone: a new store, a baseline of the vault as it is.
    let page = history.log(Some("b.md"), None, 10, None).expect("log");
    assert_eq!(page.items.len(), 1, "the new baseline has b.md");
    assert!(
        page.items[0].message.contains("started its history again"),
        "{:?}",
        page.items[0]
    );
    let lost = history.lost().expect("reported");
    assert!(lost.reason.contains("deleted"), "{lost:?}");

    // Damaged under it: set aside, started anew; a write is recorded on a
    // baseline without the note it writes.
    std::fs::write(
        store_dir(dir.path()).join("refs/heads/main"),
        "0123456789abcdef0123456789abcdef01234567\n",
    )
    .expect("damage");
    write_file(dir.path(), "a.md", "a2\n");
    commit(&history, &[write("a.md", "a2\n")], "edit_note: a.md");
    let lost_again = history.lost().expect("reported");
    assert!(lost_again.reason.contains("damaged"), "{lost_again:?}");
    let page = history.log(Some("a.md"), None, 10, None).expect("log");
    assert_eq!(page.items.len(), 1, "{:?}", page.items);
    assert_eq!(page.items[0].message, "edit_note: a.md");
    assert_eq!(
        history
            .log(Some("b.md"), None, 10, None)
            .expect("log")
            .items
            .len(),
        1
    );

    // Its branch deleted: the same.
    std::fs::remove_file(store_dir(dir.path()).join("refs/heads/main")).expect("rm");
    assert_eq!(
        history
            .log(Some("b.md"), None, 10, None)
            .expect("log")
            .items
            .len(),
        1
    );
    assert!(history.lost().expect("reported").reason.contains("branch"));
}

#[test]
fn a_deleted_store_is_started_anew() {
    let dir = vault();
    let history = open(dir.path());
    history.snapshot_all([("a.md", "a")]).expect("snapshot");
    commit(&history, &[write("a.md", "b")], "edit_note: a.md");
    drop(history);
    std::fs::remove_dir_all(store_dir(dir.path())).expect("rm");

    let history = open(dir.path());
    assert!(history.status().needs_baseline);
    assert!(
        history
            .log(None, None, 10, None)
            .expect("log")
            .items
            .is_empty()
    );
    history.snapshot_all([("a.md", "b")]).expect("snapshot");
    assert_eq!(
        history.log(None, None, 10, None).expect("log").items.len(),
        1
    );

    // Deleted while open: the next commit starts a new store.
    std::fs::remove_dir_all(dir.path().join(".weft")).expect("rm");
    let id = commit(&history, &[write("a.md", "c")], "edit_note: a.md");
    let page = history.log(None, None, 10, None).expect("log");
    assert_eq!(ids(&page), [id.id]);
    assert!(dir.path().join(".weft/.gitignore").is_file());
}

/// Objects in a store, by kind.
fn census(store: &Path) -> BTreeMap<&'static str, usize> {
    let repo = Repository::open_bare(store).expect("store");
    let odb = repo.odb().expect("odb");
    let mut ids = Vec::new();
    odb.foreach(|id| {
        ids.push(*id);
        true
    })
    .expect("foreach");
    let mut census = BTreeMap::new();
    for id in ids {
        let kind = match odb.read_header(id).expect("header").1 {
            ObjectType::Blob => "blobs",
            ObjectType::Tree => "trees",
            ObjectType::Commit => "commits",
            _ => "other",
        };
        *census.entry(kind).or_insert(0) += 1;
    }
    census
}

fn difference(
    before: &BTreeMap<&'static str, usize>,
    after: &BTreeMap<&'static str, usize>,
) -> Vec<(&'static str, usize)> {
    after
        .iter()
        .map(|(k, v)| (*k, v - before.get(k).copied().unwrap_or(0)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

#[test]
fn a_commit_writes_only_the_trees_along_the_changed_path() {
    let mut written = Vec::new();
    for notes in [20, 2000] {
        let dir = vault();
        let history = open(dir.path());
        let files: Vec<(String, String)> = (0..notes)
            .map(|i| {
                (
                    format!("f{}/g{}/n{i}.md", i % 10, i % 7),
                    format!("note {i}\n"),
                )
            })
            .chain([("deep/er/note.md".to_string(), "start\n".to_string())])
            .collect();
        history
            .snapshot_all(files.iter().map(|(p, t)| (p.as_str(), t.as_bytes())))
            .expect("snapshot");
        let store = store_dir(dir.path());
        let before = census(&store);
        commit(
            &history,
            &[write("deep/er/note.md", "changed\n")],
            "edit_note: deep/er/note.md",
        );
        let after = census(&store);
        let one_edit = difference(&before, &after);
        // A second edit elsewhere in a big folder: the same, three trees.
        let before = after;
        commit(
            &history,
            &[write("f3/g3/n3.md", "changed too\n")],
            "edit_note: f3/g3/n3.md",
        );
        let another = difference(&before, &census(&store));
        written.push((one_edit, another));
    }
    let expected = vec![("blobs", 1), ("commits", 1), ("trees", 3)];
    for (one_edit, another) in &written {
        assert_eq!(one_edit, &expected, "root, deep, deep/er");
        assert_eq!(another, &expected, "root, f3, f3/g3");
    }
}

#[test]
fn files_and_folders_may_swap_places() {
    let dir = vault();
    let history = open(dir.path());
    commit(
        &history,
        &[write("a", "a file"), write("d/x.md", "x")],
        "setup",
    );
    // `a` becomes a folder, `d` a file, in one commit.
    commit(
        &history,
        &[
            Change::Delete { path: "a" },
            write("a/inside.md", "inside"),
            write("d", "now a file"),
        ],
        "swap",
    );
    let page = history.log(None, None, 1, None).expect("log");
    let mut changes: Vec<(ChangeKind, String)> = page.items[0]
        .changes
        .iter()
        .map(|c| (c.kind, c.path.clone()))
        .collect();
    changes.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        changes,
        [
            (ChangeKind::Deleted, "a".into()),
            (ChangeKind::Added, "a/inside.md".into()),
            (ChangeKind::Added, "d".into()),
            (ChangeKind::Deleted, "d/x.md".into()),
        ]
    );
    // Deleting a folder path removes everything under it; an empty folder
    // disappears.
    commit(&history, &[Change::Delete { path: "a" }], "delete folder a");
    let head = history.log(None, None, 1, None).expect("log");
    assert_eq!(head.items[0].changes[0].path, "a/inside.md");
    // Deleting what is not there is no change.
    assert_eq!(
        history
            .record(
                &[Change::Delete { path: "nothing.md" }],
                "t",
                "m",
                Source::Tool
            )
            .expect("ok"),
        None
    );
}

/// Recording the vault again at start (every note unchanged) adds nothing
/// and touches nothing in the store's objects: a known blob is not written
/// again (libgit2 would make a temporary file and touch the stored one,
/// file events in the vault's `.weft` folder for every note).
#[test]
fn recording_known_contents_again_writes_no_object() {
    let dir = vault();
    let history = open(dir.path());
    history
        .snapshot_all([("a.md", "a"), ("b.md", "b")])
        .expect("baseline");
    let objects = store_dir(dir.path()).join("objects");
    let times = || -> BTreeMap<std::path::PathBuf, std::time::SystemTime> {
        let mut out = BTreeMap::new();
        for folder in std::fs::read_dir(&objects).expect("objects").flatten() {
            for file in std::fs::read_dir(folder.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let modified = file.metadata().and_then(|m| m.modified()).expect("time");
                out.insert(file.path(), modified);
            }
        }
        out
    };
    // libgit2 touches a known object it is asked to write again, to the
    // second: set every object's time far back, so any touch shows.
    let long_ago = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    for path in times().keys() {
        std::fs::File::open(path)
            .and_then(|file| file.set_modified(long_ago))
            .expect("set an object's time");
    }
    let before = times();
    assert!(!before.is_empty());
    assert!(before.values().all(|time| *time == long_ago));
    assert_eq!(
        history
            .snapshot_all([("a.md", "a"), ("b.md", "b")])
            .expect("again"),
        None
    );
    assert_eq!(times(), before);
}

/// The "nothing changed" check made before any write sees every kind of
/// change a full snapshot can bring: a file gone, a file added in a
/// folder, a file changed, and the same set again.
#[test]
fn a_full_snapshot_commits_exactly_when_the_set_differs() {
    let dir = vault();
    let history = open(dir.path());
    let snapshot = |files: &[(&str, &str)]| {
        history
            .snapshot_all(files.iter().copied())
            .expect("snapshot")
            .is_some()
    };
    assert!(snapshot(&[("a.md", "a"), ("d/b.md", "b")]), "baseline");
    assert!(!snapshot(&[("d/b.md", "b"), ("a.md", "a")]), "same set");
    assert!(snapshot(&[("a.md", "a")]), "d/b.md gone");
    assert!(snapshot(&[("a.md", "a"), ("d/e/c.md", "c")]), "one added");
    assert!(snapshot(&[("a.md", "A"), ("d/e/c.md", "c")]), "one changed");
    assert!(!snapshot(&[("a.md", "A"), ("d/e/c.md", "c")]), "unchanged");
    assert!(snapshot(&[]), "all gone");
    assert!(!snapshot(&[]), "still empty");
}

/// Regression (found by the crash-kill test): a writer killed while it
/// moved the branch left `refs/heads/main.lock`, and every commit after it
/// was refused as locked; a killed writer's temporary objects stayed.
#[test]
fn what_a_killed_writer_left_in_the_store_is_cleared() {
    let dir = vault();
    let history = open(dir.path());
    commit(&history, &[write("a.md", "a")], "write_note: a.md");
    let store = store_dir(&dir.path().canonicalize().expect("canonical"));
    let lock = store.join("refs/heads/main.lock");
    std::fs::write(&lock, "0123456789012345678901234567890123456789\n").expect("a stale lock");
    let started = std::time::Instant::now();
    commit(&history, &[write("b.md", "b")], "write_note: b.md");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "not waited out"
    );
    assert!(!lock.exists());
    let page = history.log(None, None, 10, None).expect("log");
    assert_eq!(page.items.len(), 2);

    let temps = [
        store.join("objects/tmp_object_git2_Xy12Ab"),
        store.join("objects/ab/tmp_object_git2_Cd34Ef"),
    ];
    for temp in &temps {
        std::fs::create_dir_all(temp.parent().expect("folder")).expect("folder");
        std::fs::write(temp, "half an object").expect("a temporary object");
    }
    drop(history);
    let history = open(dir.path());
    for temp in &temps {
        assert!(
            !temp.exists(),
            "{} removed when the store opens",
            temp.display()
        );
    }
    assert_eq!(
        history.log(None, None, 10, None).expect("log").items.len(),
        2
    );
}

/// Another writer moves the branch between this one's reading it and
/// moving it — a Weft whose writer lock the file system did not share
/// (`flock` is local only on some network file systems), or one that
/// creates the store's first commit at the same moment (the commit lost in
/// issue 37, before the first commit was compared against the zero id).
/// The compare-and-swap sees it: this commit is made again on top, and
/// both are kept, with nothing of either lost.
#[test]
fn a_branch_moved_under_a_commit_is_seen_and_both_commits_kept() {
    for first in [true, false] {
        let dir = vault();
        let history = open(dir.path());
        if !first {
            commit(&history, &[write("a.md", "a\n")], "write_note: a.md");
        }
        let store = store_dir(&dir.path().canonicalize().expect("canonical"));
        let theirs = std::sync::Arc::new(std::sync::Mutex::new(None));
        let told = std::sync::Arc::clone(&theirs);
        crate::history::store::BEFORE_MOVING_BRANCH.with(|hook| {
            *hook.borrow_mut() = Some(Box::new(move || {
                let repo = Repository::open_bare(&store).expect("the store");
                let parent = repo.refname_to_id("refs/heads/main").ok();
                let parent = parent.map(|id| repo.find_commit(id).expect("its last commit"));
                let base = parent.as_ref().map(|p| p.tree().expect("its tree"));
                let mut tree = repo.treebuilder(base.as_ref()).expect("a tree");
                let blob = repo.blob(b"theirs\n").expect("a blob");
                tree.insert("theirs.md", blob, 0o100644).expect("an entry");
                let tree = repo
                    .find_tree(tree.write().expect("written"))
                    .expect("the tree");
                let who = git2::Signature::now("other", "other@localhost").expect("a signature");
                let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
                let id = repo
                    .commit(None, &who, &who, "theirs", &tree, &parents)
                    .expect("their commit");
                let expected = parent.as_ref().map_or(git2::Oid::ZERO_SHA1, |p| p.id());
                repo.reference_matching("refs/heads/main", id, true, expected, "other")
                    .expect("they move the branch first");
                *told.lock().expect("theirs") = Some(id.to_string());
            }));
        });
        let ours = commit(&history, &[write("b.md", "b\n")], "write_note: b.md");
        let theirs = theirs
            .lock()
            .expect("theirs")
            .clone()
            .expect("they committed");
        let page = history.log(None, None, 10, None).expect("log");
        let listed = ids(&page);
        assert_eq!(
            &listed[..2],
            [ours.id.clone(), theirs.clone()],
            "first: {first}"
        );
        assert_eq!(listed.len(), if first { 2 } else { 3 });
        let head = history
            .read("theirs.md", &ours.id)
            .expect("theirs kept under ours");
        assert_eq!(head.text, "theirs\n");
        assert_eq!(history.read("b.md", &ours.id).expect("ours").text, "b\n");
    }
}
