//! `weft-bench tasks`: times `list_tasks`' answer on a generated vault
//! (its tasks in both formats, `generate/tasks.rs`), the index built once:
//! typical queries, each read by the tool's own argument reader on the
//! generator's fixed today (so the tasks found do not change with the
//! clock) and answered by its `compute` over the index, over many runs
//! (p50/p95/max), with the tasks and notes each finds. The page's words
//! (`render`) are not timed: a page is at most 50 tasks.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use weft_tools::list_tasks::{ListTasksArgs, compute, query};
use weft_vault::filter::Filter;
use weft_vault::tasks::TaskSettings;
use weft_vault::tasks::query::run::{count, run};
use weft_vault::tasks::query::{QueryContext, parse};

use crate::bases::largest_folder;
use crate::generate::tasks::{TASK_TAGS, today};
use crate::index::{Summary, proc_status_bytes};

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TasksBenchOptions {
    /// Notes of the generated vault.
    pub notes: usize,
    /// Timed runs of each query.
    pub runs: usize,
}

impl Default for TasksBenchOptions {
    fn default() -> Self {
        TasksBenchOptions {
            notes: 15_000,
            runs: 30,
        }
    }
}

/// ```tasks blocks timed (parsed and run, and counted as their code lens
/// does): a dashboard of three filters, a sort and a group, and this
/// week's tasks by day.
const BLOCKS: [(&str, &str); 2] = [
    (
        "dashboard block (3 filters, sort, group)",
        "not done\n(due before tomorrow) OR (scheduled before tomorrow)\n\
         tags do not include #someday\nsort by priority\ngroup by filename",
    ),
    (
        "block: this week by day",
        "not done\nhappens this week\ngroup by happens",
    ),
];

/// A word many generated tasks hold (a verb of theirs, and a word of the
/// notes' prose).
const COMMON_WORD: &str = "review";

/// The queries timed: a name and `list_tasks`' arguments (`{folder}` is
/// the top folder holding the most notes).
fn queries(folder: &str) -> Vec<(&'static str, ListTasksArgs)> {
    let text = |t: &str| Some(t.to_string());
    vec![
        (
            "due this week (not done)",
            ListTasksArgs {
                due: text("this week"),
                ..Default::default()
            },
        ),
        (
            "overdue",
            ListTasksArgs {
                overdue: Some(true),
                ..Default::default()
            },
        ),
        (
            "happens next month",
            ListTasksArgs {
                happens: text("next month"),
                ..Default::default()
            },
        ),
        (
            "due before today, tagged",
            ListTasksArgs {
                due: text("before today"),
                tags: Some(vec![TASK_TAGS[0].to_string()]),
                ..Default::default()
            },
        ),
        (
            "any status, sorted by due, 50",
            ListTasksArgs {
                status: text("any"),
                sort: text("due"),
                limit: Some(50),
                ..Default::default()
            },
        ),
        (
            "text",
            ListTasksArgs {
                text: text(COMMON_WORD),
                ..Default::default()
            },
        ),
        (
            "folder",
            ListTasksArgs {
                folder: text(folder),
                ..Default::default()
            },
        ),
    ]
}

/// One query, timed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct QueryTimes {
    pub query: String,
    /// The arguments, as `list_tasks` takes them.
    pub args: String,
    /// Tasks found in all, and the notes holding them.
    pub matches: usize,
    pub notes: usize,
    /// Tasks on the page.
    pub page: usize,
    pub ms: Summary,
}

/// Everything `weft-bench tasks` measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TasksReport {
    pub vault: String,
    pub notes: usize,
    /// Tasks in the index (every checklist item), and the notes holding them.
    pub tasks: usize,
    pub notes_with_tasks: usize,
    /// The bytes the tasks keep: their records, and their descriptions'
    /// text (the floor of what tasks cost in memory).
    pub record_bytes: usize,
    pub description_bytes: usize,
    pub open_ms: f64,
    pub rss_after_open_bytes: Option<u64>,
    /// The day the queries are read on.
    pub today: String,
    pub runs: usize,
    pub queries: Vec<QueryTimes>,
}

/// Generates (or reuses) the vault in `dir` and times the queries.
pub fn tasks_bench(dir: &Path, options: &TasksBenchOptions) -> io::Result<TasksReport> {
    let (live, open_ms) = crate::generate::open_generated(dir, options.notes)?;
    let index = live.index.read().unwrap_or_else(|e| e.into_inner());
    let today = today();
    let (mut tasks, mut notes_with_tasks, mut description_bytes) = (0, 0, 0);
    for (_, note) in index.notes() {
        tasks += note.tasks.len();
        notes_with_tasks += usize::from(!note.tasks.is_empty());
        description_bytes += note
            .tasks
            .iter()
            .map(|t| t.description().len())
            .sum::<usize>();
    }
    let mut report = TasksReport {
        vault: dir.display().to_string(),
        notes: index.notes().count(),
        tasks,
        notes_with_tasks,
        record_bytes: tasks * std::mem::size_of::<weft_vault::tasks::TaskRecord>(),
        description_bytes,
        open_ms,
        rss_after_open_bytes: proc_status_bytes("VmRSS"),
        today: format!("{:04}-{:02}-{:02}", today.year, today.month, today.day),
        runs: options.runs,
        queries: Vec::new(),
    };
    let settings = TaskSettings::default();
    let folder = largest_folder(&index);
    // Each query as a run giving the tasks it found (kept from the optimizer).
    type Run<'a> = Box<dyn Fn() -> usize + 'a>;
    let mut prepared: Vec<(QueryTimes, Run)> = Vec::new();
    for (name, args) in queries(&folder) {
        let query = query(&args, today).map_err(|e| io::Error::other(e.text()))?;
        // As the tool does, the access rules' sight here seeing everything.
        let notes = Filter::all_of(vec![Filter::Folder(query.folder.clone()), Filter::All]);
        // Once untimed, to warm the allocator and the caches.
        let listing = compute(&index, &notes, &settings, &query);
        let times = QueryTimes {
            query: name.to_string(),
            args: describe(&args),
            matches: listing.total,
            notes: listing.notes,
            page: listing.page.len(),
            ms: Summary::default(),
        };
        let index = &index;
        let settings = &settings;
        prepared.push((
            times,
            Box::new(move || compute(index, &notes, settings, &query).total),
        ));
    }
    // Query blocks, read and run as the code lens and `query_note` do, in
    // a note of their own.
    let dashboard = move |settings| QueryContext {
        today,
        file: Some("Dashboard.md"),
        properties: None,
        settings,
    };
    for (name, source) in BLOCKS {
        let block =
            parse(source, &dashboard(&settings)).map_err(|e| io::Error::other(e.to_string()))?;
        let outcome = run(&block, &index, &Filter::All, &settings, today);
        let times = QueryTimes {
            query: name.to_string(),
            args: source.replace('\n', " ⏎ "),
            matches: outcome.matched,
            notes: outcome.notes,
            page: outcome.shown(),
            ms: Summary::default(),
        };
        let index = &index;
        let settings = &settings;
        prepared.push((
            times,
            Box::new(move || {
                parse(source, &dashboard(settings))
                    .map(|q| run(&q, index, &Filter::All, settings, today).matched)
                    .unwrap_or(0)
            }),
        ));
        // Its code lens: the counts only.
        let lens = QueryTimes {
            query: format!("{name}: code lens"),
            page: 0,
            ..prepared[prepared.len() - 1].0.clone()
        };
        prepared.push((
            lens,
            Box::new(move || {
                parse(source, &dashboard(settings))
                    .map(|q| count(&q, index, &Filter::All, settings, today).matched)
                    .unwrap_or(0)
            }),
        ));
    }
    let mut samples = vec![Vec::with_capacity(options.runs); prepared.len()];
    for _ in 0..options.runs {
        // Each query in turn, so that drift on a shared machine hits all.
        for (k, (_, run)) in prepared.iter().enumerate() {
            let start = Instant::now();
            black_box(run());
            samples[k].push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    for ((mut times, _), samples) in prepared.into_iter().zip(samples) {
        times.ms = Summary::of(&samples);
        report.queries.push(times);
    }
    Ok(report)
}

/// The arguments set, as JSON.
fn describe(args: &ListTasksArgs) -> String {
    let mut out = serde_json::Map::new();
    let mut put = |key: &str, value: serde_json::Value| {
        out.insert(key.to_string(), value);
    };
    let strings = [
        ("status", &args.status),
        ("due", &args.due),
        ("happens", &args.happens),
        ("text", &args.text),
        ("folder", &args.folder),
        ("sort", &args.sort),
    ];
    for (key, value) in strings {
        if let Some(v) = value {
            put(key, v.as_str().into());
        }
    }
    if let Some(o) = args.overdue {
        put("overdue", o.into());
    }
    if let Some(tags) = &args.tags {
        put("tags", tags.clone().into());
    }
    if let Some(l) = args.limit {
        put("limit", l.into());
    }
    serde_json::Value::Object(out).to_string()
}

impl TasksReport {
    pub fn to_markdown(&self) -> String {
        let mb = |b: Option<u64>| b.map_or("?".into(), |b| format!("{:.1} MB", b as f64 / 1e6));
        let mut out = format!(
            "# weft bench tasks\n\nVault `{}`: {} notes, {} tasks in {} notes (records {}, \
             descriptions {}); opened in {:.0} ms, {} resident. Today {}; {} runs each.\n\n\
             | query | arguments | matches | notes | p50 / p95 / max |\n\
             |---|---|---|---|---|\n",
            self.vault,
            self.notes,
            self.tasks,
            self.notes_with_tasks,
            mb(Some(self.record_bytes as u64)),
            mb(Some(self.description_bytes as u64)),
            self.open_ms,
            mb(self.rss_after_open_bytes),
            self.today,
            self.runs
        );
        for q in &self.queries {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {:.2} / {:.2} / {:.2} ms |",
                q.query, q.args, q.matches, q.notes, q.ms.p50, q.ms.p95, q.ms.max
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
    fn tasks_bench_on_a_small_generated_vault() {
        let dir = tempfile::tempdir().unwrap();
        let options = TasksBenchOptions {
            notes: 300,
            runs: 2,
        };
        let report = tasks_bench(dir.path(), &options).unwrap();
        assert_eq!(report.notes, 300);
        assert_eq!(report.today, "2025-02-12");
        assert!(report.tasks > 1000, "{} tasks", report.tasks);
        // Seven list_tasks calls, then each block run and counted.
        assert_eq!(report.queries.len(), 11);
        for pair in report.queries[7..].chunks(2) {
            assert!(pair[1].query.ends_with("code lens"), "{}", pair[1].query);
            assert_eq!(
                (pair[0].matches, pair[0].notes),
                (pair[1].matches, pair[1].notes),
                "{}: the lens counts what the run finds",
                pair[0].query
            );
        }
        // Each query finds some tasks, and (but for the whole vault) not
        // all of them.
        for q in &report.queries {
            assert!(q.matches > 0, "{}: none", q.query);
            assert_eq!(q.ms.samples, 2, "{}", q.query);
        }
        let whole = &report.queries[4];
        assert_eq!(whole.matches, report.tasks);
        assert_eq!(whole.page, 50);
        for q in report.queries.iter().filter(|q| q.query != whole.query) {
            assert!(q.matches < report.tasks / 2, "{}: {}", q.query, q.matches);
        }
        assert!(report.to_markdown().contains("overdue"));
    }
}
