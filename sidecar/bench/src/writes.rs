//! A micro-benchmark of the write path on a generated vault: the cost of an
//! `edit_note` append (p50/p95), of a `move_note` that rewrites links in
//! 1,000 notes, and of one `update_frontmatter` over those 1,000 notes
//! (a dry run: the compute alone; then applied, with the writes). Real files, real fsyncs, the live index updated each time.
//! For `weft bench` and people; nothing in the faces calls it.

use std::io;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::generate::{GenSpec, generate};
use crate::index::Summary;
use weft_vault::edit::EditOp;
use weft_workspace::io::LiveVault;
use weft_workspace::ops::{EditNote, FrontmatterChange, MoveNote, Ops, UpdateMany};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteBenchOptions {
    /// Notes in the generated vault.
    pub notes: usize,
    pub seed: u64,
    /// Timed appends, each to a different note.
    pub edits: usize,
    /// Timed moves of the hub note.
    pub moves: usize,
    /// Notes linking to the hub note (each move rewrites a link in each;
    /// each batch sets a property on each).
    pub linking_notes: usize,
    /// Timed batches (a dry run and an applied one each).
    pub batches: usize,
}

impl Default for WriteBenchOptions {
    fn default() -> Self {
        WriteBenchOptions {
            notes: 5_000,
            seed: 7,
            edits: 200,
            moves: 5,
            linking_notes: 1_000,
            batches: 3,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct WriteBenchReport {
    pub notes: usize,
    pub cores: usize,
    /// Opening the vault (scan, parse, index), ms.
    pub open_ms: f64,
    /// One `edit_note` append: read, check, atomic write, re-index; ms.
    pub edit_ms: Summary,
    /// One `move_note` with `update_links`; ms.
    pub move_ms: Summary,
    /// Notes rewritten by each move (the moved note's backlinks).
    pub notes_rewritten: usize,
    pub links_rewritten: usize,
    /// One `update_frontmatter` over `linking_notes` notes, dry run; ms.
    pub batch_dry_ms: Summary,
    /// The same, applied (written, indexed); ms.
    pub batch_ms: Summary,
    pub batch_notes: usize,
}

impl WriteBenchReport {
    pub fn to_markdown(&self) -> String {
        format!(
            "| measure | p50 | p95 | max | samples |\n|---|---|---|---|---|\n\
             | edit_note append (ms) | {:.2} | {:.2} | {:.2} | {} |\n\
             | move_note rewriting {} links in {} notes (ms) | {:.1} | {:.1} | {:.1} | {} |\n\
             | update_frontmatter on {} notes, dry run (ms) | {:.1} | {:.1} | {:.1} | {} |\n\
             | update_frontmatter on {} notes, written (ms) | {:.1} | {:.1} | {:.1} | {} |\n\n\
             {} notes, {} cores, vault opened in {:.0} ms.\n",
            self.edit_ms.p50,
            self.edit_ms.p95,
            self.edit_ms.max,
            self.edit_ms.samples,
            self.links_rewritten,
            self.notes_rewritten,
            self.move_ms.p50,
            self.move_ms.p95,
            self.move_ms.max,
            self.move_ms.samples,
            self.batch_notes,
            self.batch_dry_ms.p50,
            self.batch_dry_ms.p95,
            self.batch_dry_ms.max,
            self.batch_dry_ms.samples,
            self.batch_notes,
            self.batch_ms.p50,
            self.batch_ms.p95,
            self.batch_ms.max,
            self.batch_ms.samples,
            self.notes,
            self.cores,
            self.open_ms,
        )
    }
}

/// Generates a vault in `dir` (missing, empty, or generated before), adds a
/// hub note linked from `linking_notes` notes, then times appends and moves.
pub fn bench_writes(dir: &Path, options: &WriteBenchOptions) -> io::Result<WriteBenchReport> {
    generate(dir, &GenSpec::new(options.notes, options.seed))?;
    let mut paths: Vec<String> = {
        let vault = LiveVault::open(dir).map_err(io::Error::other)?;
        let index = vault.index.read().unwrap_or_else(|e| e.into_inner());
        index.notes().map(|(_, n)| n.path.to_string()).collect()
    };
    paths.sort();
    // The hub, and a link to it in the first `linking_notes` notes.
    std::fs::write(dir.join("bench-hub.md"), "# Bench hub\n")?;
    for path in paths.iter().take(options.linking_notes) {
        let file = dir.join(path);
        let mut text = std::fs::read_to_string(&file)?;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("\nSee [[bench-hub|the hub]] and [[bench-hub#Bench hub]].\n");
        std::fs::write(&file, text)?;
    }

    let started = Instant::now();
    let vault = LiveVault::open(dir).map_err(io::Error::other)?;
    let open_ms = started.elapsed().as_secs_f64() * 1e3;
    let ops = Ops::new(&vault, "bench");

    let mut rng = fastrand::Rng::with_seed(options.seed);
    let mut edit_samples = Vec::with_capacity(options.edits);
    for i in 0..options.edits {
        let path = &paths[rng.usize(..paths.len())];
        let request = EditNote {
            path: path.clone(),
            ops: vec![EditOp::Append {
                content: format!("- bench line {i}"),
            }],
            options: Default::default(),
        };
        let started = Instant::now();
        ops.edit_note(&request).map_err(io::Error::other)?;
        edit_samples.push(started.elapsed().as_secs_f64() * 1e3);
    }

    let mut move_samples = Vec::with_capacity(options.moves);
    let mut current = "bench-hub.md".to_string();
    let (mut notes_rewritten, mut links_rewritten) = (0, 0);
    for i in 0..options.moves {
        let next = format!("bench/hub {}.md", i + 1);
        let request = MoveNote {
            path: current.clone(),
            new_path: next.clone(),
            update_links: true,
            options: Default::default(),
        };
        let started = Instant::now();
        let report = ops.move_note(&request).map_err(io::Error::other)?;
        move_samples.push(started.elapsed().as_secs_f64() * 1e3);
        notes_rewritten = report.changes.len().saturating_sub(1);
        links_rewritten = report.link_edits.len();
        current = next;
    }

    // One property set on every linking note: the compute alone, then
    // applied (a new value each time, so each changes every note).
    let batch: Vec<String> = paths.iter().take(options.linking_notes).cloned().collect();
    let (mut dry_samples, mut batch_samples) = (Vec::new(), Vec::new());
    for i in 0..options.batches {
        let mut set = serde_json::Map::new();
        set.insert("bench-batch".into(), serde_json::Value::from(i));
        let mut request = UpdateMany {
            notes: batch.clone(),
            change: FrontmatterChange {
                set,
                ..FrontmatterChange::default()
            },
            label: "bench".into(),
            declared_too: false,
            dry_run: true,
        };
        let started = Instant::now();
        let dry = ops.update_many(&request).map_err(io::Error::other)?;
        dry_samples.push(started.elapsed().as_secs_f64() * 1e3);
        request.dry_run = false;
        let started = Instant::now();
        let done = ops.update_many(&request).map_err(io::Error::other)?;
        batch_samples.push(started.elapsed().as_secs_f64() * 1e3);
        if dry.changes.len() != batch.len() || done.changes.len() != batch.len() {
            return Err(io::Error::other(format!(
                "the batch changed {} and {} of {} notes",
                dry.changes.len(),
                done.changes.len(),
                batch.len()
            )));
        }
    }

    Ok(WriteBenchReport {
        notes: paths.len() + 1,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        open_ms,
        edit_ms: Summary::of(&edit_samples),
        move_ms: Summary::of(&move_samples),
        notes_rewritten,
        links_rewritten,
        batch_dry_ms: Summary::of(&dry_samples),
        batch_ms: Summary::of(&batch_samples),
        batch_notes: batch.len(),
    })
}

// The write benchmark runs (small here; `WEFT_BENCH_WRITES=<notes>` runs
// it at that size and prints the figures).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_benchmark_runs_and_rewrites_every_link() {
        let dir = tempfile::tempdir().expect("dir");
        let full = std::env::var("WEFT_BENCH_WRITES")
            .ok()
            .and_then(|n| n.parse::<usize>().ok());
        let options = match full {
            Some(notes) => WriteBenchOptions {
                notes,
                ..WriteBenchOptions::default()
            },
            None => WriteBenchOptions {
                notes: 300,
                seed: 3,
                edits: 5,
                moves: 2,
                linking_notes: 40,
                batches: 2,
            },
        };
        let report = bench_writes(&dir.path().join("vault"), &options).expect("runs");
        if full.is_some() {
            eprintln!("{}", report.to_markdown());
        }
        assert_eq!(report.edit_ms.samples, options.edits);
        assert_eq!(report.move_ms.samples, options.moves);
        assert_eq!(report.batch_ms.samples, options.batches);
        assert_eq!(report.batch_notes, options.linking_notes);
        // Two links in each linking note, and the moved note itself.
        assert!(
            report.notes_rewritten >= options.linking_notes,
            "{report:?}"
        );
        assert!(
            report.links_rewritten >= 2 * options.linking_notes,
            "{report:?}"
        );
    }
}
