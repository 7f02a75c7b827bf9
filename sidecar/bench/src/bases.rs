//! `weft-bench bases`: times running Obsidian Bases views on a generated
//! vault, with the prefilter (the product's path) and evaluating every
//! row's filters (the path before it), over many runs (p50/p95):
//! (a) views with two filters, a formula and a sort, paged: a tag and a
//!     number comparison; a folder and a text equality;
//! (b) a base over the whole vault (no filter), 50 rows a page: the first
//!     page, unsorted and sorted by a property, with the peak resident
//!     memory it took above what was resident before (VmHWM reset first).
//!
//! The index is the servers' (`LiveVault::open`); a file's times and size
//! come from the disk, as the faces give them.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use weft_bases::run::run_evaluating_every_row;
use weft_bases::{Base, Context, Files, Request, RowMeta, run};
use weft_vault::VaultIndex;

use crate::index::{Summary, proc_status_bytes};

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasesBenchOptions {
    /// Notes of the generated vault.
    pub notes: usize,
    /// Timed runs of each view, each way.
    pub runs: usize,
    /// Rows in a page.
    pub page: usize,
    /// Only the views whose name holds this.
    pub only: Option<&'static str>,
}

impl Default for BasesBenchOptions {
    fn default() -> Self {
        BasesBenchOptions {
            notes: 15_000,
            runs: 30,
            page: 50,
            only: None,
        }
    }
}

/// The views timed: a name, the base, and what it stands for.
const VIEWS: &[(&str, &str)] = &[
    (
        "tag + number, formula, sort",
        r#"
formulas:
  score: 'rating * 2 + priority'
views:
  - type: table
    name: V
    filters:
      and:
        - 'file.hasTag("project")'
        - 'priority >= 3'
    order: [file.name, status, priority, formula.score]
    sort:
      - property: formula.score
        direction: DESC
"#,
    ),
    (
        "folder + text, formula, sort",
        r#"
formulas:
  late: 'if(due, (today() - due).days, 0)'
filters: 'file.inFolder("{folder}")'
views:
  - type: table
    name: V
    filters: 'status == "active"'
    order: [file.name, due, formula.late]
    sort:
      - property: formula.late
        direction: DESC
"#,
    ),
    (
        "whole vault, first page",
        r#"
views:
  - type: table
    name: V
    order: [file.name, file.folder, status, rating]
"#,
    ),
    (
        "whole vault sorted by rating, first page",
        r#"
views:
  - type: table
    name: V
    order: [file.name, file.folder, status, rating]
    sort:
      - property: rating
        direction: DESC
"#,
    ),
];

/// One view, timed both ways.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ViewTimes {
    pub view: String,
    /// Rows in the table (the same both ways: checked).
    pub rows: usize,
    /// Rows the filters were evaluated on, with the prefilter.
    pub evaluated: usize,
    pub prefilter_ms: Summary,
    pub every_row_ms: Summary,
    /// Peak resident memory above the resident before, of one run (VmHWM
    /// reset first; `None` where it cannot be).
    pub prefilter_peak_growth_bytes: Option<u64>,
    pub every_row_peak_growth_bytes: Option<u64>,
}

/// Everything `weft-bench bases` measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BasesReport {
    pub vault: String,
    pub notes: usize,
    pub attachments: usize,
    pub open_ms: f64,
    pub rss_after_open_bytes: Option<u64>,
    pub page: usize,
    pub runs: usize,
    pub views: Vec<ViewTimes>,
}

/// A file's times and size from the disk.
struct Disk(PathBuf);

impl Files for Disk {
    fn meta(&self, path: &str) -> RowMeta {
        let Ok(meta) = std::fs::metadata(self.0.join(path)) else {
            return RowMeta::default();
        };
        let unix = |t: io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_secs()).ok())
        };
        RowMeta {
            modified: unix(meta.modified()),
            created: unix(meta.created()),
            size: Some(meta.len()),
        }
    }
}

/// Resets the peak resident memory (VmHWM) to what is resident now;
/// whether it could.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Generates (or reuses) the vault in `dir` and times the views.
pub fn bases_bench(dir: &Path, options: &BasesBenchOptions) -> io::Result<BasesReport> {
    let (live, open_ms) = crate::generate::open_generated(dir, options.notes)?;
    let index = live.index.read().unwrap_or_else(|e| e.into_inner());
    let mut report = BasesReport {
        vault: dir.display().to_string(),
        notes: index.notes().count(),
        attachments: index.attachments().count(),
        open_ms,
        rss_after_open_bytes: proc_status_bytes("VmRSS"),
        page: options.page,
        runs: options.runs,
        views: Vec::new(),
    };
    let files = Disk(live.root.clone());
    let folder = largest_folder(&index);
    for (name, yaml) in VIEWS {
        if options.only.is_some_and(|only| !name.contains(only)) {
            continue;
        }
        let base = Base::parse(&yaml.replace("{folder}", &folder)).map_err(io::Error::other)?;
        report
            .views
            .push(time_view(name, &base, &index, &files, options)?);
    }
    Ok(report)
}

/// The top folder holding the most notes.
pub(crate) fn largest_folder(index: &VaultIndex) -> String {
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for (_, note) in index.notes() {
        if let Some((top, _)) = note.path.split_once('/') {
            *counts.entry(top).or_default() += 1;
        }
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts.first().map_or(String::new(), |(f, _)| f.to_string())
}

fn time_view(
    name: &str,
    base: &Base,
    index: &VaultIndex,
    files: &Disk,
    options: &BasesBenchOptions,
) -> io::Result<ViewTimes> {
    let now = chrono::Local::now().naive_local();
    let local = |t: i64| {
        chrono::DateTime::from_timestamp(t, 0)
            .unwrap_or_default()
            .naive_utc()
    };
    let sees = |_: &weft_bases::eval::value::Row| true;
    let cx = Context {
        index,
        files,
        now,
        local: &local,
        this: None,
        sees: &sees,
    };
    let once = |every: bool| {
        let request = Request {
            page: Some(options.page),
            ..Request::default()
        };
        match every {
            true => run_evaluating_every_row(base, &cx, &request),
            false => run(base, &cx, &request),
        }
        .map_err(io::Error::other)
    };
    // Once each way, untimed, to warm the allocator and the caches; then
    // once each way for the peak memory, and to check the tables agree.
    once(false)?;
    once(true)?;
    let mut growth = [None, None];
    let mut totals = [0, 0];
    for (i, every) in [false, true].into_iter().enumerate() {
        let before = proc_status_bytes("VmRSS");
        let reset = reset_peak();
        let table = black_box(once(every)?);
        let peak = proc_status_bytes("VmHWM");
        if reset && let (Some(b), Some(p)) = (before, peak) {
            growth[i] = Some(p.saturating_sub(b));
        }
        totals[i] = table.total;
        if table.error_count > 0 {
            return Err(io::Error::other(format!(
                "{name}: {} rows failed: {:?}",
                table.error_count, table.errors
            )));
        }
    }
    if totals[0] != totals[1] {
        return Err(io::Error::other(format!(
            "{name}: {} rows with the prefilter, {} without",
            totals[0], totals[1]
        )));
    }
    let view = base.view(None).map_err(io::Error::other)?;
    let plan = weft_bases::plan::Plan::of(base, &view, index);
    let evaluated = index
        .notes()
        .filter(|(id, _)| plan.note_may_pass(index, *id))
        .count()
        + index
            .attachments()
            .filter(|p| plan.file_may_pass(p))
            .count();
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..options.runs {
        // Alternated, so that drift on a shared machine hits both.
        for (i, every) in [false, true].into_iter().enumerate() {
            let start = Instant::now();
            black_box(once(every)?);
            times[i].push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(ViewTimes {
        view: name.to_string(),
        rows: totals[0],
        evaluated,
        prefilter_ms: Summary::of(&times[0]),
        every_row_ms: Summary::of(&times[1]),
        prefilter_peak_growth_bytes: growth[0],
        every_row_peak_growth_bytes: growth[1],
    })
}

impl BasesReport {
    pub fn to_markdown(&self) -> String {
        let mb = |b: Option<u64>| b.map_or("?".into(), |b| format!("{:.1} MB", b as f64 / 1e6));
        let mut out = format!(
            "# weft bench bases\n\nVault `{}`: {} notes, {} attachments; opened in {:.0} ms, \
             {} resident. Pages of {} rows; {} runs each way.\n\n\
             | view | rows | evaluated | prefilter p50 / p95 | every row p50 / p95 | peak growth (prefilter / every row) |\n\
             |---|---|---|---|---|---|\n",
            self.vault,
            self.notes,
            self.attachments,
            self.open_ms,
            mb(self.rss_after_open_bytes),
            self.page,
            self.runs
        );
        for v in &self.views {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.2} / {:.2} ms | {:.2} / {:.2} ms | {} / {} |",
                v.view,
                v.rows,
                v.evaluated,
                v.prefilter_ms.p50,
                v.prefilter_ms.p95,
                v.every_row_ms.p50,
                v.every_row_ms.p95,
                mb(v.prefilter_peak_growth_bytes),
                mb(v.every_row_peak_growth_bytes)
            );
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_bench_on_a_small_generated_vault() {
        let dir = tempfile::tempdir().unwrap();
        let options = BasesBenchOptions {
            notes: 300,
            runs: 2,
            page: 50,
            only: None,
        };
        let report = bases_bench(dir.path(), &options).unwrap();
        assert_eq!(report.notes, 300);
        assert_eq!(report.views.len(), VIEWS.len());
        // The filtered views select some notes and evaluate fewer rows than
        // the vault has; the whole-vault views every row.
        for v in &report.views[..2] {
            assert!(v.rows > 0 && v.rows < 300, "{}: {} rows", v.view, v.rows);
            assert!(v.evaluated < 300 + report.attachments, "{}", v.view);
        }
        for v in &report.views[2..] {
            assert_eq!(v.rows, 300 + report.attachments, "{}", v.view);
        }
        assert!(report.to_markdown().contains("whole vault"));
    }
}
