//! `weft bench history`: times one-note history commits on a generated
//! vault (10k notes by default), with the baseline snapshot, listings, and a
//! floor measured in the same run (one atomic write of the same bytes).
//!
//! The store is a fresh `.weft/history-bench.git` inside the vault, so the
//! product's own history is never touched. No protocol.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::generate::{GenSpec, generate_or_reuse};
use crate::index::Summary;
use weft_vault::note::is_note_path;
use weft_workspace::config::{HistoryConfig, HistoryMode};
use weft_workspace::history::{Change, History, HistoryError, Source};
use weft_workspace::io::write_atomic;

/// The bench's own store, relative to the vault.
const BENCH_DIR: &str = ".weft/history-bench.git";

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryBenchOptions {
    /// Notes in the generated vault.
    pub notes: usize,
    /// One-note commits timed.
    pub commits: usize,
    pub seed: u64,
}

impl Default for HistoryBenchOptions {
    fn default() -> Self {
        HistoryBenchOptions {
            notes: 10_000,
            commits: 200,
            seed: 1,
        }
    }
}

/// The measurements; times in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryBenchReport {
    pub vault: String,
    pub cores: usize,
    pub notes: usize,
    pub markdown_bytes: u64,
    /// The first snapshot of every note.
    pub baseline_ms: f64,
    /// One note changed, one commit (blob, trees along the path, commit,
    /// branch update).
    pub commit_ms: Summary,
    /// Objects written per one-note commit, on average.
    pub objects_per_commit: f64,
    /// The floor: writing the same bytes atomically into the vault.
    pub write_atomic_ms: Summary,
    /// A note's versions (20 per page), after all the commits.
    pub log_note_ms: Summary,
    /// The vault's recent changes (20 per page).
    pub log_vault_ms: Summary,
}

/// Generates (or reuses) the vault at `vault_dir`, snapshots it into a fresh
/// bench store and times `options.commits` one-note commits.
pub fn bench_commits_with(
    vault_dir: &Path,
    options: &HistoryBenchOptions,
) -> Result<HistoryBenchReport, HistoryError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| HistoryError::Io { path, source }
    };
    generate_or_reuse(vault_dir, &GenSpec::new(options.notes, options.seed))
        .map_err(io(vault_dir))?;
    let store = vault_dir.join(BENCH_DIR);
    if store.exists() {
        fs::remove_dir_all(&store).map_err(io(&store))?;
    }
    let mut notes = Vec::new();
    collect_notes(vault_dir, "", &mut notes).map_err(io(vault_dir))?;
    notes.sort();
    let markdown_bytes = notes.iter().map(|(_, b)| b.len() as u64).sum();

    let config = HistoryConfig {
        mode: HistoryMode::Weft,
        dir: BENCH_DIR.into(),
    };
    let history = History::open(vault_dir, &config)?;
    let started = Instant::now();
    history.snapshot_all(notes.iter().map(|(p, b)| (p.as_str(), b.as_slice())))?;
    let baseline_ms = ms(started);

    let objects_before = count_objects(&store);
    let floor_path = vault_dir.join(".weft/bench-floor.md");
    let mut commit_ms = Vec::with_capacity(options.commits);
    let mut floor_ms = Vec::with_capacity(options.commits);
    let mut rng = fastrand::Rng::with_seed(options.seed);
    for i in 0..options.commits {
        if notes.is_empty() {
            break;
        }
        let pick = rng.usize(..notes.len());
        let (path, bytes) = &mut notes[pick];
        bytes.extend_from_slice(format!("\nEdit {i} from the history bench.\n").as_bytes());
        let started = Instant::now();
        write_atomic(&floor_path, bytes).map_err(io(&floor_path))?;
        floor_ms.push(ms(started));
        let started = Instant::now();
        history.record(
            &[Change::Write {
                path: path.as_str(),
                bytes: bytes.as_slice(),
            }],
            "bench",
            &format!("edit_note: {path}"),
            Source::Tool,
        )?;
        commit_ms.push(ms(started));
    }
    let _ = fs::remove_file(&floor_path);
    let objects_per_commit = match (objects_before, count_objects(&store)) {
        (Some(before), Some(after)) if !commit_ms.is_empty() => {
            (after - before) as f64 / commit_ms.len() as f64
        }
        _ => 0.0,
    };

    let mut log_note_ms = Vec::new();
    let mut log_vault_ms = Vec::new();
    for _ in 0..10 {
        if let Some((path, _)) = notes.get(rng.usize(..notes.len().max(1))) {
            let started = Instant::now();
            history.log(Some(path), None, 20, None)?;
            log_note_ms.push(ms(started));
        }
        let started = Instant::now();
        history.log(None, None, 20, None)?;
        log_vault_ms.push(ms(started));
    }
    drop(history);
    let _ = fs::remove_dir_all(&store);

    Ok(HistoryBenchReport {
        vault: vault_dir.display().to_string(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        notes: notes.len(),
        markdown_bytes,
        baseline_ms,
        commit_ms: Summary::of(&commit_ms),
        objects_per_commit,
        write_atomic_ms: Summary::of(&floor_ms),
        log_note_ms: Summary::of(&log_note_ms),
        log_vault_ms: Summary::of(&log_vault_ms),
    })
}

impl HistoryBenchReport {
    /// A compact Markdown table with a header line.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "### weft bench history: {} notes, {:.1} MB Markdown ({} cores)\n",
            self.notes,
            self.markdown_bytes as f64 / 1e6,
            self.cores
        );
        let _ = writeln!(
            s,
            "Baseline snapshot of every note: {:.0} ms. One-note commits write {:.1} objects \
             each on average.\n",
            self.baseline_ms, self.objects_per_commit
        );
        let _ = writeln!(s, "| measure | p50 ms | p95 ms | max ms | samples |");
        let _ = writeln!(s, "|---|---|---|---|---|");
        for (name, summary) in [
            ("one-note commit", &self.commit_ms),
            (
                "floor: atomic write of the same bytes",
                &self.write_atomic_ms,
            ),
            ("a note's versions (20)", &self.log_note_ms),
            ("the vault's recent changes (20)", &self.log_vault_ms),
        ] {
            let _ = writeln!(
                s,
                "| {name} | {:.2} | {:.2} | {:.2} | {} |",
                summary.p50, summary.p95, summary.max, summary.samples
            );
        }
        s
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// Every note under `dir` (dot-folders skipped) as (vault path, bytes).
fn collect_notes(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, Vec<u8>)>,
) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let rel = format!("{prefix}{name}");
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect_notes(&entry.path(), &format!("{rel}/"), out)?;
        } else if kind.is_file() && is_note_path(&rel) {
            out.push((rel, fs::read(entry.path())?));
        }
    }
    Ok(())
}

/// Objects in a store, loose and packed.
fn count_objects(git_dir: &Path) -> Option<usize> {
    let repo = git2::Repository::open_bare(git_dir).ok()?;
    let odb = repo.odb().ok()?;
    let mut count = 0;
    odb.foreach(|_| {
        count += 1;
        true
    })
    .ok()?;
    Some(count)
}
