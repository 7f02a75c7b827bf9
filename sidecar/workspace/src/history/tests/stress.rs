//! Every commit kept when processes and threads record at once: each
//! writer of this test is a process of its own (this test binary run
//! again, as one Weft beside another on the same vault), with threads of its
//! own, writing to notes the others write too and to notes of its own. The
//! branch must end with every commit they were told was made, each on the
//! one before, none twice.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use super::*;

/// Set in a writer process: the vault it writes to, and which writer it is.
const WRITER_VAULT: &str = "WEFT_TEST_HISTORY_WRITER_VAULT";
const WRITER_NUMBER: &str = "WEFT_TEST_HISTORY_WRITER_NUMBER";
/// What a writer prints for each commit it was told was made.
const COMMITTED: &str = "committed ";

const PROCESSES: usize = 4;
const THREADS: usize = 4;
/// Commits per thread: 20 in the test command; more with
/// `WEFT_HISTORY_STRESS_COMMITS` (the 20-run stress of issue 37 used 50).
fn commits() -> usize {
    std::env::var("WEFT_HISTORY_STRESS_COMMITS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
}
/// Notes every writer writes to (the rest are each thread's own).
const SHARED: usize = 3;

/// One writer process: `THREADS` threads, each recording [`commits`] writes,
/// every other one to a note all writers share; each write's text is its
/// own, so each must make a commit.
fn write_as(vault: &Path, number: usize) {
    let history = std::sync::Arc::new(open(vault));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let history = std::sync::Arc::clone(&history);
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for i in 0..commits() {
                    let path = if i % 2 == 0 {
                        format!("shared/n{}.md", i % SHARED)
                    } else {
                        format!("p{number}/t{t}/n{i}.md")
                    };
                    let text = format!("writer {number} thread {t} write {i}\n");
                    let id = history
                        .record(
                            &[write(&path, &text)],
                            "stress",
                            &format!("write_note: {path}"),
                            Source::Tool,
                        )
                        .unwrap_or_else(|e| panic!("{path}: {e}"))
                        .unwrap_or_else(|| panic!("{path}: no commit for a new text"));
                    ids.push(id.id);
                }
                ids
            })
        })
        .collect();
    for thread in threads {
        for id in thread.join().expect("a writer thread") {
            println!("{COMMITTED}{id}");
        }
    }
}

/// The commits on Weft's branch, newest first, each with its parents.
fn chain(vault: &Path) -> Vec<(git2::Oid, Vec<git2::Oid>)> {
    let store = git2::Repository::open_bare(vault.join(".weft/history.git")).expect("the store");
    let mut next = Some(store.refname_to_id("refs/heads/main").expect("the branch"));
    let mut out = Vec::new();
    while let Some(id) = next {
        let commit = store.find_commit(id).expect("a commit of the chain");
        let parents: Vec<git2::Oid> = commit.parent_ids().collect();
        next = parents.first().copied();
        out.push((id, parents));
    }
    out
}

#[test]
fn every_commit_of_processes_and_threads_is_kept() {
    if let (Ok(vault), Ok(number)) = (std::env::var(WRITER_VAULT), std::env::var(WRITER_NUMBER)) {
        write_as(Path::new(&vault), number.parse().expect("a writer number"));
        return;
    }
    let dir = vault();
    // The store made before the writers start, as a running Weft has it.
    drop(open(dir.path()));
    let name = format!(
        "{}::every_commit_of_processes_and_threads_is_kept",
        module_path!().split_once("::").expect("in a crate").1
    );
    let exe = std::env::current_exe().expect("this test binary");
    let writers: Vec<_> = (0..PROCESSES)
        .map(|number| {
            Command::new(&exe)
                .args(["--exact", &name, "--nocapture", "--test-threads", "1"])
                .env(WRITER_VAULT, dir.path())
                .env(WRITER_NUMBER, number.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("a writer process")
        })
        .collect();
    let mut told: Vec<String> = Vec::new();
    for writer in writers {
        let out = writer.wait_with_output().expect("a writer's output");
        assert!(
            out.status.success(),
            "a writer failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        told.extend(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                // The test harness may print its own words first on a line.
                .filter_map(|l| Some(&l[l.find(COMMITTED)? + COMMITTED.len()..]))
                .map(str::to_string),
        );
    }
    assert_eq!(told.len(), PROCESSES * THREADS * commits());
    let chain = chain(dir.path());
    // One line: the last commit has no parent, every other one parent.
    let (root, rest) = chain.split_last().expect("commits");
    assert!(root.1.is_empty(), "{root:?}");
    assert!(rest.iter().all(|(_, parents)| parents.len() == 1));
    let on_branch: HashMap<String, usize> = chain
        .iter()
        .enumerate()
        .map(|(at, (id, _))| (id.to_string(), at))
        .collect();
    let lost: Vec<&String> = told
        .iter()
        .filter(|id| !on_branch.contains_key(*id))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {} commits are not on the branch: {lost:?}",
        lost.len(),
        told.len()
    );
    let distinct: BTreeSet<&String> = told.iter().collect();
    assert_eq!(distinct.len(), told.len(), "a commit was reported twice");
    assert_eq!(chain.len(), told.len(), "commits nobody was told of");
    // And the listing agrees.
    let listed = open(dir.path())
        .log(None, None, told.len() + 10, None)
        .expect("log");
    assert_eq!(listed.items.len(), told.len());
}
