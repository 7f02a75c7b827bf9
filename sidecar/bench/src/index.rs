//! `weft bench index`: times the index's real paths on a vault on disk.
//!
//! Measured in one process, with a floor taken in the same run (timings on
//! shared machines drift, so compare against the floor, not across runs):
//! (a) the floor: walk the vault as the loader does and read every note
//!     in parallel, without parsing;
//! (b) the full index build with the product's loader, `LiveVault::open`
//!     (walk, then read + parse in parallel while the chunk before is
//!     filed), median and p95 over runs; and apart, for where the time
//!     goes, `weft_workspace::io::scan` (walk, read + parse) and filing
//!     its notes into a [`VaultIndex`];
//! (c) resident memory after `LiveVault::open` (what the servers do),
//!     against the budget 1.5 × Markdown bytes + 40 MB;
//! (d) one edited note re-indexed (parse + upsert);
//! (e) backlinks queries, and resolving every link of a note.
//!
//! The page cache is warm: "cold" here means a fresh index, not a cold disk.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use fastrand::Rng;
use rayon::prelude::*;
use serde::Serialize;

use weft_vault::note::is_note_path;
use weft_vault::resolve_fragment;
use weft_vault::{FragmentTarget, NoteId, Resolution, VaultIndex, parse_note};
use weft_workspace::config::Config;
use weft_workspace::io::LiveVault;

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchOptions {
    /// Timed runs of the floor and of the full build.
    pub runs: usize,
    /// Seed for picking the notes to edit and query.
    pub seed: u64,
    /// Notes edited and re-indexed.
    pub edits: usize,
    /// Notes whose backlinks are asked, and notes whose links are resolved.
    pub queries: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            runs: 5,
            seed: 1,
            edits: 200,
            queries: 1000,
        }
    }
}

/// Percentiles of a set of samples, in the unit the field name gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Summary {
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
    pub samples: usize,
}

impl Summary {
    /// Nearest-rank percentiles.
    pub fn of(samples: &[f64]) -> Summary {
        if samples.is_empty() {
            return Summary::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank =
            |p: f64| sorted[((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        Summary {
            p50: rank(0.50),
            p95: rank(0.95),
            max: sorted[sorted.len() - 1],
            samples: sorted.len(),
        }
    }
}

/// Everything `weft bench index` measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BenchReport {
    pub vault: String,
    /// Cores available to the process, and rayon's thread count.
    pub cores: usize,
    pub threads: usize,
    pub runs: usize,
    /// What loaded the vault for (b).
    pub loader: String,

    pub notes: usize,
    pub attachments: usize,
    pub markdown_bytes: u64,
    /// Files the loader could not read.
    pub scan_errors: usize,
    /// Links found by the parser, and how they resolve.
    pub links: usize,
    pub unresolved_links: usize,
    pub ambiguous_links: usize,
    pub attachment_links: usize,
    /// Links with a `#fragment` that names no heading or block of the
    /// note they reach.
    pub missing_fragments: usize,
    /// The most backlinks any note has.
    pub max_backlinks: usize,
    pub headings: usize,
    pub blocks: usize,
    pub tags: usize,

    /// (a) Walk + read every note, in parallel.
    pub read_floor_ms: Summary,
    /// (b) Walk + read + parse (parallel) + insert into the index.
    pub index_build_ms: Summary,
    /// (b) split: `weft_workspace::io::scan` (walk, then read + parse in parallel).
    pub scan_phase_ms: Summary,
    /// (b) split: the sequential insert phase.
    pub insert_phase_ms: Summary,

    /// (c) VmRSS before anything was loaded, after one index was built, and
    /// the peak (VmHWM) at the end of the build runs. `None` off Linux.
    pub rss_start_bytes: Option<u64>,
    pub rss_after_index_bytes: Option<u64>,
    pub rss_peak_bytes: Option<u64>,
    /// 1.5 × Markdown bytes + 40 MB.
    pub rss_budget_bytes: u64,

    /// (d) One edited note: parse + upsert, and each part.
    pub edit_us: Summary,
    pub edit_parse_us: Summary,
    pub edit_upsert_us: Summary,

    /// (e) `backlinks` of random notes, and of the note with most.
    pub backlinks_us: Summary,
    pub hub_backlinks_us: Summary,
    /// (e) Resolving every link (and fragment) of one random note.
    pub resolve_note_us: Summary,
    /// Resolving every link of the vault once, in one thread.
    pub resolve_all_ms: f64,
}

/// The Markdown notes and attachments of a vault, as vault paths.
#[derive(Debug, Clone, Default)]
pub struct VaultFiles {
    pub notes: Vec<String>,
    pub attachments: Vec<String>,
}

/// Lists a vault's files the way `weft_workspace::io::scan` walks: one thread,
/// dot-files and dot-folders skipped, `.gitignore` and `.ignore` honoured
/// (also outside git), symlinks not followed. Sorted by path. (The scan's
/// own walk is private to `io`, and also applies `.weft.toml` excludes.)
pub fn walk(root: &Path) -> io::Result<VaultFiles> {
    let mut files = VaultFiles::default();
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .parents(false)
        .git_global(false)
        .git_exclude(false)
        .hidden(true)
        .ignore(true)
        .git_ignore(true)
        .require_git(false)
        .build();
    for entry in walker {
        let entry = entry.map_err(io::Error::other)?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if is_note_path(&rel) {
            files.notes.push(rel);
        } else {
            files.attachments.push(rel);
        }
    }
    files.notes.sort_unstable();
    files.attachments.sort_unstable();
    Ok(files)
}

/// (a) Walks the vault and reads every note in parallel; returns the note
/// count and their bytes.
pub fn read_floor(root: &Path) -> io::Result<(usize, u64)> {
    let files = walk(root)?;
    let bytes = files
        .notes
        .par_iter()
        .map(|rel| fs::read(root.join(rel)).map(|b| black_box(b).len() as u64))
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    Ok((files.notes.len(), bytes))
}

/// An index loaded from disk, with what it took.
#[derive(Debug)]
pub struct LoadedVault {
    /// Held so that the index is dropped after the timing, not inside it.
    #[expect(dead_code, reason = "only dropped")]
    pub index: VaultIndex,
    pub notes: usize,
    pub attachments: usize,
    pub markdown_bytes: u64,
    /// `weft_workspace::io::scan`: walk, then read + parse in parallel.
    pub scan: Duration,
    /// Inserting the parsed notes and attachments into the index.
    pub insert: Duration,
}

/// (b) apart: `weft_workspace::io::scan`, then every note and attachment
/// filed as the loaders file them (prepared on every core, then filed).
pub fn load_index(root: &Path) -> io::Result<LoadedVault> {
    let config = Config::load(root).map_err(io::Error::other)?;
    let start = Instant::now();
    let scan = weft_workspace::io::scan(root, &config);
    let scanned = start.elapsed();
    let start = Instant::now();
    let (notes, attachments) = (scan.notes.len(), scan.attachments.len());
    let mut index = VaultIndex::new();
    index.add_attachments(&scan.attachments);
    index.extend(VaultIndex::prepare(scan.notes));
    Ok(LoadedVault {
        index,
        notes,
        attachments,
        markdown_bytes: scan.bytes,
        scan: scanned,
        insert: start.elapsed(),
    })
}

/// Reads a field of `/proc/self/status` (`VmRSS`, `VmHWM`) in bytes.
pub fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .trim_start_matches(':')
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Runs (a)–(e) on the vault at `root`.
pub fn index_bench(root: &Path, options: &BenchOptions) -> io::Result<BenchReport> {
    let runs = options.runs.max(1);
    let rss_start = proc_status_bytes("VmRSS");

    // (c) The vault as the servers open it, kept for (c)–(e); this also
    // warms the page cache.
    let live = LiveVault::open(root).map_err(io::Error::other)?;
    let rss_after = proc_status_bytes("VmRSS");
    let scan_errors = live.errors().len();
    let mut report = BenchReport {
        vault: root.display().to_string(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        threads: rayon::current_num_threads(),
        runs,
        loader: "LiveVault::open; split: weft_workspace::io::scan + VaultIndex::extend; (c)-(e) on LiveVault::open".into(),
        scan_errors,
        rss_start_bytes: rss_start,
        rss_after_index_bytes: rss_after,
        ..BenchReport::default()
    };

    // (a) and (b), interleaved so that drift hits both alike.
    let (mut floor, mut build, mut scan, mut insert) = (vec![], vec![], vec![], vec![]);
    for _ in 0..runs {
        let start = Instant::now();
        black_box(read_floor(root)?);
        floor.push(ms(start.elapsed()));
        let start = Instant::now();
        black_box(LiveVault::open(root).map_err(io::Error::other)?);
        build.push(ms(start.elapsed()));
        let loaded = load_index(root)?;
        scan.push(ms(loaded.scan));
        insert.push(ms(loaded.insert));
        report.notes = loaded.notes;
        report.attachments = loaded.attachments;
        report.markdown_bytes = loaded.markdown_bytes;
        drop(loaded);
    }
    report.rss_budget_bytes = report.markdown_bytes * 3 / 2 + 40 * 1024 * 1024;
    report.read_floor_ms = Summary::of(&floor);
    report.index_build_ms = Summary::of(&build);
    report.scan_phase_ms = Summary::of(&scan);
    report.insert_phase_ms = Summary::of(&insert);
    report.rss_peak_bytes = proc_status_bytes("VmHWM");

    let mut index = live.index.write().unwrap_or_else(|e| e.into_inner());
    let ids: Vec<NoteId> = index.notes().map(|(id, _)| id).collect();
    structure(&index, &mut report);

    let mut rng = Rng::with_seed(options.seed);
    if ids.is_empty() {
        return Ok(report);
    }
    // (d) Edits: append a word and a link, parse, upsert.
    let (mut total, mut parse, mut upsert) = (vec![], vec![], vec![]);
    for _ in 0..options.edits {
        let id = ids[rng.usize(..ids.len())];
        let path = index.note(id).path.to_string();
        let other = ids[rng.usize(..ids.len())];
        let mut text = fs::read(root.join(&path))?;
        let _ = write!(
            EditBuf(&mut text),
            "\nedited [[{}]]\n",
            index.note(other).stem()
        );
        let start = Instant::now();
        let note = parse_note(&path, &text);
        let parsed = start.elapsed();
        index.upsert(note);
        let done = start.elapsed();
        parse.push(us(parsed));
        upsert.push(us(done - parsed));
        total.push(us(done));
    }
    report.edit_us = Summary::of(&total);
    report.edit_parse_us = Summary::of(&parse);
    report.edit_upsert_us = Summary::of(&upsert);

    // Times `work` on `options.queries` random notes, in µs.
    let mut timed = |work: &dyn Fn(NoteId)| {
        let samples: Vec<f64> = (0..options.queries)
            .map(|_| {
                let id = ids[rng.usize(..ids.len())];
                let start = Instant::now();
                work(id);
                us(start.elapsed())
            })
            .collect();
        Summary::of(&samples)
    };
    // (e) Backlinks of random notes.
    report.backlinks_us = timed(&|id| {
        black_box(index.backlinks(id));
    });
    // (e) Every link of random notes resolved, fragments included.
    report.resolve_note_us = timed(&|id| {
        for link in &index.note(id).links {
            let resolution = index.resolve_link(id, link);
            if let (Some(target), Some(fragment)) = (resolution.note(), link.fragment()) {
                black_box(resolve_fragment(index.note(target), fragment));
            }
            black_box(resolution);
        }
    });
    Ok(report)
}

/// Appends formatted text to a byte buffer.
struct EditBuf<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for EditBuf<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Resolves every link once: counts by outcome, in-degrees, the top hub's
/// backlinks timed.
fn structure(index: &VaultIndex, report: &mut BenchReport) {
    let mut in_degree: HashMap<NoteId, usize> = HashMap::new();
    let start = Instant::now();
    for (id, note) in index.notes() {
        report.headings += note.headings.len();
        report.blocks += note.blocks.len();
        for link in &note.links {
            report.links += 1;
            let resolution = index.resolve_link(id, link);
            match &resolution {
                Resolution::Unresolved => report.unresolved_links += 1,
                Resolution::Attachment(_) => report.attachment_links += 1,
                Resolution::Ambiguous { .. } => report.ambiguous_links += 1,
                Resolution::Note(_) => {}
            }
            if let Some(target) = resolution.note() {
                if !link.is_self_link() {
                    *in_degree.entry(target).or_default() += 1;
                }
                if let Some(fragment) = link.fragment()
                    && resolve_fragment(index.note(target), fragment) == FragmentTarget::Missing
                {
                    report.missing_fragments += 1;
                }
            }
        }
    }
    report.resolve_all_ms = ms(start.elapsed());
    report.tags = index.tags().len();
    let hub = in_degree
        .iter()
        .max_by_key(|(id, n)| (**n, std::cmp::Reverse(**id)));
    if let Some((&hub, _)) = hub {
        let mut samples = Vec::new();
        for _ in 0..10 {
            let start = Instant::now();
            let found = index.backlinks(hub);
            samples.push(us(start.elapsed()));
            report.max_backlinks = found.len();
        }
        report.hub_backlinks_us = Summary::of(&samples);
    }
}

/// `1.23 s`, `45.6 ms`, `789 µs`, `1.2 µs` from seconds.
fn duration(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else if seconds >= 1e-3 {
        format!("{:.1} ms", seconds * 1e3)
    } else if seconds >= 1e-5 {
        format!("{:.0} µs", seconds * 1e6)
    } else {
        format!("{:.1} µs", seconds * 1e6)
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn percent(part: usize, whole: usize) -> String {
    format!("{:.1}%", 100.0 * part as f64 / whole.max(1) as f64)
}

impl BenchReport {
    /// A compact Markdown table with a header line.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "### weft bench index: {} notes, {} Markdown, {} attachments ({} cores, {} runs)\n",
            self.notes,
            megabytes(self.markdown_bytes),
            self.attachments,
            self.cores,
            self.runs
        );
        let _ = writeln!(
            s,
            "`{}`: {} links ({} unresolved, {} ambiguous, {} to attachments, {} missing \
             fragments); {} headings, {} block ids, {} tags; top hub has {} backlinks.\n",
            self.vault,
            self.links,
            percent(self.unresolved_links, self.links),
            percent(self.ambiguous_links, self.links),
            percent(self.attachment_links, self.links),
            self.missing_fragments,
            self.headings,
            self.blocks,
            self.tags,
            self.max_backlinks,
        );
        s.push_str("| measure | p50 | p95 | notes |\n|---|---:|---:|---|\n");
        let row = |s: &mut String, name: &str, sum: &Summary, scale: f64, note: String| {
            let _ = writeln!(
                s,
                "| {name} | {} | {} | {note} |",
                duration(sum.p50 * scale),
                duration(sum.p95 * scale)
            );
        };
        row(
            &mut s,
            "(a) floor: walk + read every note",
            &self.read_floor_ms,
            1e-3,
            "walk as io::scan does, then read in parallel (rayon)".into(),
        );
        row(
            &mut s,
            "(b) full index build",
            &self.index_build_ms,
            1e-3,
            format!(
                "{:.1}× floor (LiveVault::open); apart: io::scan {} + filing {} (p50)",
                self.index_build_ms.p50 / self.read_floor_ms.p50.max(1e-9),
                duration(self.scan_phase_ms.p50 * 1e-3),
                duration(self.insert_phase_ms.p50 * 1e-3)
            ),
        );
        match self.rss_after_index_bytes {
            Some(rss) => {
                let _ = writeln!(
                    s,
                    "| (c) resident memory after indexing | {} | | budget {} (1.5 × {} + 40 MB): \
                     {:.2}× budget; at start {}; peak {} with a 2nd index built beside it |",
                    megabytes(rss),
                    megabytes(self.rss_budget_bytes),
                    megabytes(self.markdown_bytes),
                    rss as f64 / self.rss_budget_bytes as f64,
                    self.rss_start_bytes.map_or("?".into(), megabytes),
                    self.rss_peak_bytes.map_or("?".into(), megabytes),
                );
            }
            None => s.push_str("| (c) resident memory after indexing | n/a | | no /proc |\n"),
        }
        row(
            &mut s,
            &format!(
                "(d) one edited note re-indexed ({} notes)",
                self.edit_us.samples
            ),
            &self.edit_us,
            1e-6,
            format!(
                "parse {} + upsert {} (p50); p95 upsert {}; max {}",
                duration(self.edit_parse_us.p50 * 1e-6),
                duration(self.edit_upsert_us.p50 * 1e-6),
                duration(self.edit_upsert_us.p95 * 1e-6),
                duration(self.edit_us.max * 1e-6)
            ),
        );
        row(
            &mut s,
            &format!("(e) backlinks ({} notes)", self.backlinks_us.samples),
            &self.backlinks_us,
            1e-6,
            format!(
                "max {}; top hub ({} backlinks): {}",
                duration(self.backlinks_us.max * 1e-6),
                self.max_backlinks,
                duration(self.hub_backlinks_us.p50 * 1e-6)
            ),
        );
        row(
            &mut s,
            &format!(
                "(e) resolve every link of a note ({} notes)",
                self.resolve_note_us.samples
            ),
            &self.resolve_note_us,
            1e-6,
            format!(
                "max {}; all {} links of the vault: {}",
                duration(self.resolve_note_us.max * 1e-6),
                self.links,
                duration(self.resolve_all_ms * 1e-3)
            ),
        );
        let _ = writeln!(s, "\nloader: {}", self.loader);
        s
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{GenSpec, generate};

    /// Structural facts only: a benchmark must never fail a test on timing.
    #[test]
    fn index_bench_on_a_small_generated_vault() {
        let dir = tempfile::tempdir().unwrap();
        let stats = generate(dir.path(), &GenSpec::new(200, 3)).unwrap();
        let options = BenchOptions {
            runs: 1,
            seed: 1,
            edits: 20,
            queries: 50,
        };
        let report = index_bench(dir.path(), &options).unwrap();
        assert_eq!(report.notes, 200);
        assert_eq!(report.notes, stats.notes);
        assert_eq!(report.markdown_bytes, stats.bytes);
        assert_eq!(report.attachments, stats.attachments);
        assert!(report.links > 0);
        assert!(report.unresolved_links > 0, "{report:#?}");
        assert!(report.ambiguous_links > 0, "{report:#?}");
        assert!(report.attachment_links > 0, "{report:#?}");
        assert!(report.max_backlinks > 1);
        assert_eq!(report.edit_us.samples, 20);
        assert_eq!(report.backlinks_us.samples, 50);
        assert_eq!(report.resolve_note_us.samples, 50);
        assert_eq!(report.read_floor_ms.samples, 1);
        let table = report.to_markdown();
        assert!(table.contains("| (b) full index build |"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(json["notes"], 200);
    }
}
