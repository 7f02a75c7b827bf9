//! Note history end to end: the built `weft mcp` driven by the official MCP
//! Python SDK through "what did I change today, and undo it" (outside edits
//! recorded by the watcher, listed, diffed, restored); on a vault that is
//! itself a git repository with staged and unstaged changes, which must be
//! left byte for byte as it was; and with the history store deleted while
//! Weft is stopped, which starts a new one. Each test runs in a sandbox of
//! its own and stops the daemons it started.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use weft_e2e::{Sandbox, python_report};

const VAULT: &str = r#"
//- /Plan.md
# Plan

- buy milk
- call Ada
//- /Ideas.md
# Ideas
See [[Plan]] and [[Old]].
//- /Old.md
# Old
An old note, deleted during the day.
"#;

const MORNING: &str = "# Plan\n\n- buy milk\n- call Ada\n";

fn run_scenario(sandbox: &Sandbox, vault: &Path, scenario: &str) -> Value {
    python_report(sandbox, "history_scenario.py", vault, &[scenario])
}

/// What the undo scenario must have seen and left, on any vault.
fn check_undo(vault: &Path, report: &Value) {
    assert_eq!(report["morning_text"], MORNING, "{report:#}");
    // The baseline taken at start (every note) and the day's edits.
    let paths = report["today_paths"].as_array().unwrap();
    for note in ["Ideas", "Old", "Plan"] {
        assert!(paths.contains(&note.into()), "{note}: {report:#}");
    }
    let sources = report["today_sources"].as_array().unwrap();
    assert!(
        sources.contains(&"external".into()),
        "outside edits are listed as external: {report:#}"
    );
    // One line replaced by another, then the day's whole change.
    assert_eq!(
        report["diff_counts"],
        serde_json::json!([1, 2, 2, 2]),
        "{report:#}"
    );
    assert!(
        report["diff_today"]
            .as_str()
            .unwrap()
            .contains("-- buy milk\n-- call Ada\n"),
        "{report:#}"
    );
    let restored = &report["restored"];
    assert_eq!(restored["recreated"], false);
    assert_eq!(report["recreated"], true, "Old came back");
    let version = &report["restore_version"];
    assert_eq!(version["message"], "restore_note: Plan.md", "{report:#}");
    assert_eq!(version["source"], "weft");
    // The author is the client's name from the handshake.
    assert_eq!(version["author"], "history-agent", "{report:#}");
    // The files on disk, as the agent left them.
    assert_eq!(
        std::fs::read_to_string(vault.join("Plan.md")).unwrap(),
        MORNING
    );
    assert_eq!(
        std::fs::read_to_string(vault.join("Old.md")).unwrap(),
        "# Old\nAn old note, deleted during the day.\n"
    );
    assert_eq!(report["files"]["Plan.md"], MORNING);
    assert!(vault.join(".weft/history.git/HEAD").is_file());
}

#[test]
fn what_did_i_change_today_and_undo_it() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let report = run_scenario(&sandbox, vault.path(), "undo");
    check_undo(vault.path(), &report);
    assert_eq!(report["history_status"]["mode"], "weft");
    assert!(report["history_status"].get("vault_git").is_none());
    sandbox.stop_daemons();
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .expect("run git (the tests need it installed)");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn visit(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                visit(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    visit(dir, dir, &mut out);
    out
}

/// A vault that is a git repository: the vault's git is listed read only
/// beside Weft's history, and left exactly as it was — HEAD, refs, index,
/// objects, config and the status of its staged and unstaged changes.
#[test]
fn a_vault_that_is_a_git_repository_is_left_byte_for_byte_as_it_was() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "notes: first commit"]);
    // Staged and unstaged changes that are not the day's edits.
    std::fs::write(
        root.join("Ideas.md"),
        "# Ideas\nSee [[Plan]] and [[Old]].\nStaged line.\n",
    )
    .unwrap();
    git(root, &["add", "Ideas.md"]);
    std::fs::write(
        root.join("Ideas.md"),
        "# Ideas\nSee [[Plan]] and [[Old]].\nStaged line.\nUnstaged line.\n",
    )
    .unwrap();
    std::fs::write(root.join("Draft.md"), "untracked\n").unwrap();
    let status_before = git(root, &["status", "--porcelain=v2", "--branch"]);
    let head_before = git(root, &["rev-parse", "HEAD"]);
    let git_before = tree(&root.join(".git"));

    let report = run_scenario(&sandbox, root, "undo");
    // Stopped before .git is compared: nothing of Weft runs any more.
    sandbox.stop_daemons();
    check_undo(root, &report);
    assert!(
        report["history_status"]["vault_git"].is_string(),
        "the vault's git is reported: {report:#}"
    );
    assert!(
        report["today_text"]
            .as_str()
            .unwrap()
            .contains("vault git, read only"),
        "the vault's own commits are listed, marked read only: {report:#}"
    );

    // Weft kept out of the vault's git: not a byte of .git changed, and
    // status shows the same staged, unstaged and untracked changes (plus
    // the day's edits, which are the user's own and not Weft's business).
    assert_eq!(git(root, &["rev-parse", "HEAD"]), head_before);
    let git_after = tree(&root.join(".git"));
    let changed: Vec<&PathBuf> = git_before
        .keys()
        .chain(git_after.keys())
        .filter(|k| git_before.get(*k) != git_after.get(*k))
        .collect();
    assert!(changed.is_empty(), ".git changed: {changed:?}");
    let status_after = git(root, &["status", "--porcelain=v2", "--branch"]);
    let keep = |status: &str| -> Vec<String> {
        status
            .lines()
            .filter(|l| l.contains("Ideas.md") || l.contains("Draft.md") || l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(keep(&status_after), keep(&status_before));
    // `.weft/` is ignored by the vault's git (its own .gitignore).
    assert!(!status_after.contains(".weft"), "{status_after}");
}

/// Replaces `rel` in `vault` at once (a temporary file renamed over it), as
/// editors save: the watcher never sees it empty or half written.
fn save(vault: &Path, rel: &str, text: &str) {
    let tmp = vault.join(format!(".{rel}.saving"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, vault.join(rel)).unwrap();
}

/// The history store deleted while Weft is stopped: the next start creates
/// a new one, with a new baseline of the vault as it is.
#[test]
fn a_history_store_deleted_while_stopped_is_started_anew() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let first = run_scenario(&sandbox, vault.path(), "start");
    let versions = first["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 1, "{first:#}");
    assert!(
        versions[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("baseline"),
        "{first:#}"
    );
    // Weft stopped: no daemon serves the vault any more.
    sandbox.stop_daemons();
    let store = vault.path().join(".weft/history.git");
    assert!(store.join("HEAD").is_file());
    std::fs::remove_dir_all(&store).unwrap();
    save(vault.path(), "Plan.md", "# Plan\nchanged while stopped\n");

    let second = run_scenario(&sandbox, vault.path(), "start");
    assert_eq!(second["history_status"]["mode"], "weft", "{second:#}");
    let versions = second["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 1, "a new store, a new baseline: {second:#}");
    assert_ne!(versions[0]["id"], first["versions"][0]["id"]);
    assert!(store.join("HEAD").is_file());
    sandbox.stop_daemons();

    // A third start finds the store and records what changed meanwhile.
    save(vault.path(), "Plan.md", "# Plan\nchanged again\n");
    let third = run_scenario(&sandbox, vault.path(), "start");
    let versions = third["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{third:#}");
    assert_eq!(versions[0]["source"], "external");
    assert_eq!(versions[0]["changes"][0]["path"], "Plan");
    sandbox.stop_daemons();
}
