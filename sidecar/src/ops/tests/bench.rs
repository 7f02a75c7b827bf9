//! The write benchmark runs (small here; `WEFT_BENCH_WRITES=<notes>` runs
//! it at that size and prints the figures).

use crate::ops::{WriteBenchOptions, bench_writes};

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
        },
    };
    let report = bench_writes(&dir.path().join("vault"), &options).expect("runs");
    if full.is_some() {
        eprintln!("{}", report.to_markdown());
    }
    assert_eq!(report.edit_ms.samples, options.edits);
    assert_eq!(report.move_ms.samples, options.moves);
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
