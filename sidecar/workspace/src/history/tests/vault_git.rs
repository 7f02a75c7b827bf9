//! A vault that is itself a git repository: its commits for a note are
//! listed (and readable) as `VaultGit` versions, and after a long run of Weft
//! commits its HEAD, refs, index, status and work tree are exactly as they
//! were — with a staged change, an unstaged change and an untracked file.

use std::collections::BTreeMap;
use std::path::PathBuf;

use git2::{IndexAddOption, Repository, Signature, Status, StatusOptions};

use super::*;

/// Every file under `dir` as (relative path, bytes), `skip` folders left out.
fn files(dir: &Path, skip: &[&str]) -> BTreeMap<PathBuf, Vec<u8>> {
    fn visit(base: &Path, dir: &Path, skip: &[&str], out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            let rel = path.strip_prefix(base).expect("inside").to_path_buf();
            if skip.iter().any(|s| rel == Path::new(s)) {
                continue;
            }
            if entry.file_type().expect("type").is_dir() {
                visit(base, &path, skip, out);
            } else {
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    visit(dir, dir, skip, &mut out);
    out
}

/// What `git status` would say, as (path, status bits).
fn statuses(repo: &Repository) -> Vec<(String, Status)> {
    let mut options = StatusOptions::new();
    options.include_untracked(true).recurse_untracked_dirs(true);
    repo.statuses(Some(&mut options))
        .expect("statuses")
        .iter()
        .map(|e| (e.path().unwrap_or("").to_string(), e.status()))
        .collect()
}

fn refs(repo: &Repository) -> Vec<(String, String)> {
    repo.references()
        .expect("refs")
        .map(|r| {
            let r = r.expect("ref");
            (
                r.name().unwrap_or("").to_string(),
                r.target().map(|t| t.to_string()).unwrap_or_default(),
            )
        })
        .collect()
}

/// Commits the whole work tree of `repo` on HEAD.
fn git_commit(repo: &Repository, message: &str) -> git2::Oid {
    let mut index = repo.index().expect("index");
    index
        .add_all(["*"], IndexAddOption::DEFAULT, None)
        .expect("add");
    index.write().expect("write index");
    let tree = repo
        .find_tree(index.write_tree().expect("tree"))
        .expect("tree");
    let signature = Signature::now("Ada", "ada@example.com").expect("signature");
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parents,
    )
    .expect("commit")
}

#[test]
fn the_vaults_own_repository_is_listed_and_left_untouched() {
    let dir = vault();
    let root = dir.path();
    let repo = Repository::init(root).expect("git init");
    write_file(root, "a.md", "# A\nfirst\n");
    write_file(root, "b.md", "# B\n");
    write_file(root, "sub/c.md", "# C\n");
    let first = git_commit(&repo, "first: three notes");
    write_file(root, "a.md", "# A\nsecond\n");
    let second = git_commit(&repo, "second: a changes");
    // A staged change, an unstaged change, an untracked file.
    write_file(root, "b.md", "# B\nstaged\n");
    let mut index = repo.index().expect("index");
    index.add_path(Path::new("b.md")).expect("stage");
    index.write().expect("write index");
    write_file(root, "a.md", "# A\nsecond\nunstaged\n");
    write_file(root, "new.md", "# New\nuntracked\n");

    let status_before = statuses(&repo);
    let git_before = files(&root.join(".git"), &[]);
    let tree_before = files(root, &[".git"]);
    let head_before = std::fs::read(root.join(".git/HEAD")).expect("HEAD");
    let refs_before = refs(&repo);
    assert_eq!(status_before.len(), 3, "{status_before:?}");

    // A long run of everything history does.
    let history = open(root);
    assert_eq!(
        history.status().vault_git.as_deref(),
        Some(root.join(".git").canonicalize().expect("git dir").as_path())
    );
    let notes: Vec<(String, Vec<u8>)> = ["a.md", "b.md", "sub/c.md", "new.md"]
        .iter()
        .map(|p| (p.to_string(), std::fs::read(root.join(p)).expect("read")))
        .collect();
    history
        .snapshot_all(notes.iter().map(|(p, b)| (p.as_str(), b.as_slice())))
        .expect("snapshot");
    let mut last = None;
    for i in 0..30 {
        let text = format!("# A\nedit {i}\n");
        last = Some(commit(&history, &[write("a.md", &text)], "edit_note: a.md"));
        if i % 10 == 5 {
            commit(
                &history,
                &[Change::Move {
                    from: "sub/c.md",
                    to: "sub/d.md",
                    bytes: b"# C\n",
                }],
                "move_note: sub/c.md",
            );
            commit(
                &history,
                &[Change::Move {
                    from: "sub/d.md",
                    to: "sub/c.md",
                    bytes: b"# C\n",
                }],
                "move_note: sub/d.md",
            );
        }
    }
    commit(
        &history,
        &[Change::Delete { path: "new.md" }],
        "delete_note: new.md",
    );
    history
        .snapshot_external_at(root, &["a.md".to_string(), "b.md".to_string()])
        .expect("external");
    let last = last.expect("commits");

    // The repository's commits for the note are listed beside Weft's.
    let page = history.log(Some("a.md"), None, 100, None).expect("log");
    let git_versions: Vec<&Version> = page
        .items
        .iter()
        .filter(|v| v.source == VersionSource::VaultGit)
        .collect();
    let git_ids: Vec<String> = git_versions.iter().map(|v| v.id.clone()).collect();
    assert_eq!(git_ids, [second.to_string(), first.to_string()]);
    assert_eq!(git_versions[0].author, "Ada");
    assert_eq!(git_versions[0].message, "second: a changes");
    assert_eq!(git_versions[1].changes[0].kind, ChangeKind::Added);
    assert_eq!(
        page.items.len(),
        30 + 1 + 1 + 2,
        "edits, baseline, external, git"
    );
    // b.md's staged change is not a commit: one git version.
    let page_b = history.log(Some("b.md"), None, 100, None).expect("log");
    assert_eq!(
        page_b
            .items
            .iter()
            .filter(|v| v.source == VersionSource::VaultGit)
            .count(),
        1
    );
    // Readable and diffable by id, with or without `git:`.
    let short = &git_versions[1].short_id;
    assert_eq!(
        history.read("a.md", short).expect("read").text,
        "# A\nfirst\n"
    );
    let old = history.read("a.md", &format!("git:{short}")).expect("read");
    assert_eq!(old.version.source, VersionSource::VaultGit);
    let diff = history
        .diff("a.md", short, DiffTarget::Version(&last.short_id))
        .expect("diff");
    assert_eq!((diff.additions, diff.deletions), (1, 1));
    assert!(
        diff.unified.contains(&format!("a/a.md@{short}")),
        "{}",
        diff.unified
    );
    let error = history
        .read("a.md", &format!("weft:{short}"))
        .expect_err("not Weft's");
    assert!(
        matches!(error, HistoryError::UnknownVersion { .. }),
        "{error}"
    );
    // The vault listing has the repository's commits too.
    let vault_page = history.log(None, None, 200, None).expect("log");
    assert_eq!(
        vault_page
            .items
            .iter()
            .filter(|v| v.source == VersionSource::VaultGit)
            .count(),
        2
    );
    drop(history);

    // Byte for byte as before: every file of .git, the work tree (but
    // `.weft/`), HEAD, refs and status.
    assert_eq!(files(root, &[".git", ".weft"]), tree_before);
    let git_after = files(&root.join(".git"), &[]);
    assert_eq!(
        git_after.keys().collect::<Vec<_>>(),
        git_before.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &git_before {
        assert!(git_after[path] == *bytes, "{} changed", path.display());
    }
    assert_eq!(
        std::fs::read(root.join(".git/HEAD")).expect("HEAD"),
        head_before
    );
    let repo = Repository::open(root).expect("reopen");
    assert_eq!(refs(&repo), refs_before);
    assert_eq!(statuses(&repo), status_before, "`.weft/` is ignored");
}

#[test]
fn a_vault_in_a_folder_of_a_repository_lists_the_commits_under_it() {
    let dir = vault();
    let root = dir.path();
    let repo = Repository::init(root).expect("git init");
    write_file(root, "README.md", "not in the vault\n");
    write_file(root, "notes/x.md", "# X\n");
    let first = git_commit(&repo, "add x");
    write_file(root, "README.md", "still not in the vault\n");
    git_commit(&repo, "readme only");
    std::fs::rename(root.join("notes/x.md"), root.join("notes/y.md")).expect("rename");
    let moved = git_commit(&repo, "rename x to y");

    let history = open(&root.join("notes"));
    let page = history.log(Some("y.md"), None, 10, None).expect("log");
    let listed: Vec<(String, Option<String>)> = page
        .items
        .iter()
        .map(|v| (v.id.clone(), v.path_at_version.clone()))
        .collect();
    assert_eq!(
        listed,
        [
            (moved.to_string(), Some("y.md".to_string())),
            (first.to_string(), Some("x.md".to_string())),
        ]
    );
    assert_eq!(
        history
            .read("y.md", &first.to_string()[..8])
            .expect("read")
            .text,
        "# X\n"
    );
    let vault_page = history.log(None, None, 10, None).expect("log");
    let messages: Vec<&str> = vault_page
        .items
        .iter()
        .map(|v| v.message.as_str())
        .collect();
    assert_eq!(
        messages,
        ["rename x to y", "add x"],
        "the README commit is outside"
    );
    assert_eq!(
        vault_page.items[0].changes,
        [PathChange {
            kind: ChangeKind::Renamed,
            path: "y.md".into(),
            from: Some("x.md".into())
        }]
    );
}
