//! `weft-bench`: generate realistic vaults and time the product's real
//! paths on them — the index build, the language server, search, writes
//! and history. Prints figures; never judges them. A developer tool apart
//! from the shipped `weft`, which has no benchmark code.
//!
//! Each benchmark drives a crate through its public entry points (the
//! loader, `weft_lsp::serve`, the agent tools' `query::call`, `Ops`,
//! `History`), as the product does.

mod bases;
mod generate;
mod history;
mod index;
mod lsp;
mod parse;
mod search;
mod semantic;
mod style;
mod task_queries;
mod tasks;
mod writes;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use generate::{GenSpec, generate_or_reuse};
use history::{HistoryBenchOptions, bench_commits_with};
use index::{BenchOptions, index_bench};

#[derive(Parser, Debug)]
#[command(
    name = "weft-bench",
    version,
    about = "Generate vaults and time Weft on them (for developers)."
)]
struct Cli {
    #[command(subcommand)]
    bench: Bench,
}

/// The allocator and setting the daemon runs with (see the `weft` binary
/// and its daemon's start), so that times and memory are what ships.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EAGER_COMMIT: &str = "MIMALLOC_ARENA_EAGER_COMMIT";

fn main() -> ExitCode {
    if std::env::var_os(EAGER_COMMIT).is_none() {
        // Read by mimalloc before `main`: this process runs again with it.
        use std::os::unix::process::CommandExt;
        let mut args = std::env::args_os();
        if let (Ok(exe), Some(_)) = (std::env::current_exe(), args.next()) {
            let error = std::process::Command::new(exe)
                .args(args)
                .env(EAGER_COMMIT, "0")
                .exec();
            eprintln!("weft-bench: cannot run again with {EAGER_COMMIT}=0: {error}");
        }
    }
    match run(Cli::parse().bench) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("weft-bench: {error}");
            ExitCode::from(2)
        }
    }
}

#[derive(Subcommand, Debug)]
enum Bench {
    /// Writes a deterministic vault of N notes into DIR (reused when DIR
    /// already holds the same generated vault), with tasks (Obsidian Tasks
    /// checklists, emoji and Dataview fields) unless --no-tasks.
    Generate {
        #[arg(long)]
        notes: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Notes without the generated tasks (as generator version 3).
        #[arg(long)]
        no_tasks: bool,
        dir: PathBuf,
    },
    /// Times reading every file (the floor), the full index build, one
    /// edit, backlinks and resolution, and reports memory after indexing.
    Index {
        dir: PathBuf,
        #[arg(long, default_value_t = 5)]
        runs: usize,
        #[arg(long)]
        json: bool,
    },
    /// Times the parse alone on every note of DIR read into memory first:
    /// pulldown-cmark's events against the whole note.
    Parse {
        dir: PathBuf,
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Times the language server's requests (completion of links and of
    /// property names and values, definition, references, hover, workspace
    /// symbols: p50/p95/max) over an in-process LSP session on the vault in
    /// DIR, with start-up and memory.
    Lsp {
        dir: PathBuf,
        /// Requests of each kind.
        #[arg(long, default_value_t = 300)]
        samples: usize,
        #[arg(long)]
        json: bool,
    },
    /// Times the MCP search and link tools (search_notes, get_links) on
    /// the vault in DIR, with the full-text build and memory.
    Search {
        dir: PathBuf,
        /// Queries timed.
        #[arg(long, default_value_t = 300)]
        queries: usize,
        #[arg(long)]
        json: bool,
    },
    /// Times writes through the write layer on a vault generated in DIR
    /// (new or empty): one-note appends, moves of a note that LINKING
    /// notes link to, each rewriting those links, and a property set on
    /// those LINKING notes in one call.
    Writes {
        dir: PathBuf,
        #[arg(long, default_value_t = 5_000)]
        notes: usize,
        #[arg(long, default_value_t = 1_000)]
        linking: usize,
        #[arg(long, default_value_t = 200)]
        edits: usize,
        #[arg(long, default_value_t = 5)]
        moves: usize,
    },
    /// What finding by meaning costs on the vault in DIR with the model in
    /// MODEL (a Model2Vec folder), and how well each mode (lexical,
    /// semantic, hybrid) answers the evaluation set QUESTIONS (recall@5,
    /// MRR; the FOLDOC set by default when DIR is that vault).
    Semantic {
        dir: PathBuf,
        #[arg(long)]
        model: PathBuf,
        /// A JSON list of {question, answers, paraphrased}; `none` for costs only.
        #[arg(long)]
        questions: Option<String>,
        /// Prints each question's rank and first three notes per mode (stderr).
        #[arg(long)]
        show: bool,
        /// Keeps the vectors in this file and reuses them when they are of
        /// the same model (the embedding time is then that of the notes that
        /// changed).
        #[arg(long)]
        vectors: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Times Obsidian Bases views (two filters, a formula and a sort; the
    /// whole vault, first page) on a vault of N notes generated (or
    /// reused) in DIR, with the prefilter and evaluating every row
    /// (p50/p95), with the peak memory each run adds.
    Bases {
        dir: PathBuf,
        #[arg(long, default_value_t = 15_000)]
        notes: usize,
        #[arg(long, default_value_t = 30)]
        runs: usize,
        #[arg(long, default_value_t = 50)]
        page: usize,
        /// Only the views whose name holds this text.
        #[arg(long)]
        view: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Times list_tasks' answer (the index already built) to typical
    /// queries — due this week, overdue, happening next month, overdue with
    /// a tag, the whole vault sorted by due date, a word, a folder — on a
    /// vault of N notes generated (or reused) in DIR, on the generator's
    /// fixed today (p50/p95/max, with the tasks each finds).
    Tasks {
        dir: PathBuf,
        #[arg(long, default_value_t = 15_000)]
        notes: usize,
        #[arg(long, default_value_t = 30)]
        runs: usize,
        #[arg(long)]
        json: bool,
    },
    /// Tries property edits on every note with frontmatter under the
    /// folders given (real vaults) and counts those that changed more than
    /// the edited entry or the list's style.
    Style { dirs: Vec<PathBuf> },
    /// Puts every task of the vault in DIR through the task writer: a
    /// round trip per task (completed and back, or un-completed and
    /// back) compared byte for byte, and each recurring task completed
    /// with both lines printed.
    TasksCheck {
        dir: PathBuf,
        /// The day the tasks are completed on (YYYY-MM-DD; default: today).
        #[arg(long)]
        today: Option<String>,
    },
    /// Times one-note history commits (p50/p95) on the vault generated (or
    /// reused) in DIR, with the baseline snapshot, listings and a floor.
    History {
        dir: PathBuf,
        #[arg(long, default_value_t = 10_000)]
        notes: usize,
        #[arg(long, default_value_t = 200)]
        commits: usize,
        #[arg(long)]
        json: bool,
    },
}

fn run(bench: Bench) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| e.to_string();
    match bench {
        Bench::Generate {
            notes,
            seed,
            no_tasks,
            dir,
        } => {
            let start = std::time::Instant::now();
            let spec = GenSpec {
                notes,
                seed,
                tasks: !no_tasks,
            };
            let (stats, reused) = generate_or_reuse(&dir, &spec).map_err(|e| fail(&e))?;
            println!(
                "{} {} notes ({:.1} MB, {} links, {} tasks, {} attachments) in {} in {:.2} s",
                if reused { "reused" } else { "generated" },
                stats.notes,
                stats.bytes as f64 / 1e6,
                stats.links,
                stats.tasks,
                stats.attachments,
                dir.display(),
                start.elapsed().as_secs_f64()
            );
        }
        Bench::Index { dir, runs, json } => {
            let report = index_bench(
                &dir,
                &BenchOptions {
                    runs,
                    ..BenchOptions::default()
                },
            )
            .map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Bases {
            dir,
            notes,
            runs,
            page,
            view,
            json,
        } => {
            let only: Option<&'static str> = view.map(|v| &*v.leak());
            let options = bases::BasesBenchOptions {
                notes,
                runs,
                page,
                only,
            };
            let report = bases::bases_bench(&dir, &options).map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Tasks {
            dir,
            notes,
            runs,
            json,
        } => {
            let options = task_queries::TasksBenchOptions { notes, runs };
            let report = task_queries::tasks_bench(&dir, &options).map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Style { dirs } => {
            let report = style::style_check(&dirs).map_err(|e| fail(&e))?;
            println!("{}", report.to_markdown());
        }
        Bench::TasksCheck { dir, today } => {
            let today = match today {
                Some(text) => chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d")
                    .map_err(|e| format!("--today {text:?}: {e} (give YYYY-MM-DD)"))?,
                None => chrono::Local::now().date_naive(),
            };
            let report = tasks::tasks_check(&dir, weft_vault::date::Date::from(today))
                .map_err(|e| fail(&e))?;
            println!("{}", report.to_markdown());
        }
        Bench::Parse { dir, runs } => {
            let report = parse::parse_bench(&dir, runs).map_err(|e| fail(&e))?;
            println!("{}", report.to_markdown());
        }
        Bench::Lsp { dir, samples, json } => {
            let options = lsp::LspBenchOptions {
                samples,
                ..Default::default()
            };
            let report = lsp::lsp_bench(&dir, &options).map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Semantic {
            dir,
            model,
            questions,
            show,
            vectors,
            json,
        } => {
            let questions = match questions.as_deref() {
                Some("none") => None,
                Some(q) => Some(PathBuf::from(q)),
                None => Some(semantic::default_questions()),
            };
            let report = semantic::semantic_bench(
                &dir,
                &model,
                questions.as_deref(),
                vectors.as_deref(),
                show,
            )?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Search { dir, queries, json } => {
            let options = search::SearchBenchOptions {
                queries,
                ..Default::default()
            };
            let report = search::search_bench(&dir, &options).map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
        Bench::Writes {
            dir,
            notes,
            linking,
            edits,
            moves,
        } => {
            if std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some()) {
                return Err(format!(
                    "{} is not empty; the benchmark writes a generated vault there: give a new or empty folder",
                    dir.display()
                ));
            }
            let options = writes::WriteBenchOptions {
                notes,
                edits,
                moves,
                linking_notes: linking,
                ..Default::default()
            };
            let report = writes::bench_writes(&dir, &options).map_err(|e| fail(&e))?;
            println!("{}", report.to_markdown());
        }
        Bench::History {
            dir,
            notes,
            commits,
            json,
        } => {
            let options = HistoryBenchOptions {
                notes,
                commits,
                ..HistoryBenchOptions::default()
            };
            let report = bench_commits_with(&dir, &options).map_err(|e| fail(&e))?;
            print_report(json, || report.to_json(), || report.to_markdown());
        }
    }
    Ok(())
}

/// Prints a report as JSON or as Markdown.
fn print_report(
    json: bool,
    as_json: impl FnOnce() -> String,
    as_markdown: impl FnOnce() -> String,
) {
    println!("{}", if json { as_json() } else { as_markdown() });
}
