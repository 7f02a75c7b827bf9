//! `weft-bench tasks-check`: every task line of a real vault put through
//! the task writer (`weft_vault::tasks::write`) and read again. A task that
//! is not DONE is completed then put back to its symbol; a DONE one is put
//! back to TODO then completed again on its own done date; either way the
//! line must come back byte for byte. A recurring task is completed and
//! both lines are printed, for a person to compare with the plugin's
//! documented behaviour. Prints counts; judges nothing.
//!
//! The Tasks plugin's settings are read from the vault's
//! `.obsidian/plugins/obsidian-tasks-plugin/data.json` when it is there
//! (statuses, global filter, format, dates, recurrence placement).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use weft_vault::date::Date;
use weft_vault::tasks::fields::Format;
use weft_vault::tasks::status::StatusType;
use weft_vault::tasks::write::{TaskChange, TaskError, edit_task};
use weft_vault::tasks::{DateKind, Task, TaskSettings, read_line};

/// How many differing round trips and recurrences are shown.
const SHOWN: usize = 12;

/// What the check found.
#[derive(Debug, Default)]
pub struct TasksReport {
    /// `.md` files read.
    pub notes: usize,
    /// Every checklist line the parse found.
    pub tasks: usize,
    /// Those the global filter lets through.
    pub filtered: usize,
    /// Where the plugin's settings were read from.
    pub settings_from: String,
    /// Tasks by symbol and its status type.
    pub by_status: BTreeMap<String, usize>,
    /// Tasks by the format of their fields.
    pub by_format: BTreeMap<&'static str, usize>,
    /// Tasks with a rule.
    pub recurring: usize,
    /// Lines `read_line` did not read again.
    pub reread_failures: Vec<String>,
    /// Round trips that gave the line back byte for byte.
    pub identical: usize,
    /// Round trips that did not.
    pub differing: usize,
    /// The first of those: the line, halfway, and back.
    pub differences: Vec<String>,
    /// Round trips not tried, by reason.
    pub skipped: BTreeMap<&'static str, usize>,
    /// Edits refused, by the error's first words.
    pub refused: BTreeMap<String, Vec<String>>,
    /// Recurring tasks (not DONE) completed.
    pub recurred: usize,
    /// The first of those: the line and the lines that replace it.
    pub recurrences: Vec<String>,
    /// Rules that were not read, by message.
    pub rule_errors: BTreeMap<String, usize>,
    /// ```tasks blocks found, those that run, and the tasks each found.
    pub blocks: usize,
    pub blocks_run: usize,
    pub block_matches: Vec<usize>,
    /// Blocks that do not run, by the error's kind: the statements.
    pub block_errors: BTreeMap<String, Vec<String>>,
}

/// Checks every task of the `.md` notes under `dir` (dot-folders skipped).
pub fn tasks_check(dir: &Path, today: Date) -> std::io::Result<TasksReport> {
    let mut report = TasksReport::default();
    let (settings, from) = read_settings(dir);
    report.settings_from = from;
    let walk = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .parents(false)
        .ignore(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    let mut index = weft_vault::VaultIndex::new();
    let mut queries: Vec<Block> = Vec::new();
    for path in crate::generate::markdown_files(walk) {
        let path = path.as_path();
        let bytes = std::fs::read(path)?;
        let rel = path.strip_prefix(dir).unwrap_or(path).display().to_string();
        let note = weft_vault::parse_note(&rel, &bytes);
        report.notes += 1;
        let text = String::from_utf8_lossy(&bytes);
        for task in &note.tasks {
            let span = task.span.start as usize..task.span.end as usize;
            let Some(line) = text.get(span) else { continue };
            let line = line.strip_suffix('\r').unwrap_or(line);
            check_task(&rel, task, line, today, &settings, &mut report);
        }
        queries.extend(
            weft_vault::tasks::query::blocks(&text)
                .into_iter()
                .map(|b| (rel.clone(), note.frontmatter.as_deref().cloned(), b)),
        );
        index.upsert(note);
    }
    run_blocks(&index, &queries, today, &settings, &mut report);
    Ok(report)
}

/// A ```tasks block: its note's path and properties, the block.
type Block = (
    String,
    Option<serde_json::Map<String, serde_json::Value>>,
    weft_vault::tasks::query::QueryBlock,
);

/// Reads and runs every ```tasks block over the vault's tasks.
fn run_blocks(
    index: &weft_vault::VaultIndex,
    queries: &[Block],
    today: Date,
    settings: &TaskSettings,
    report: &mut TasksReport,
) {
    use weft_vault::tasks::query::{QueryContext, parse, run::run};
    let everything = weft_vault::filter::Filter::All;
    for (path, properties, block) in queries {
        report.blocks += 1;
        let ctx = QueryContext {
            today,
            file: Some(path),
            properties: properties.as_ref(),
            settings,
        };
        match parse(&block.query, &ctx) {
            Ok(query) => {
                report.blocks_run += 1;
                let outcome = run(&query, index, &everything, settings, today);
                report.block_matches.push(outcome.matched);
            }
            Err(e) => {
                // The kind: the message up to its first `;` or `:`.
                let kind = e
                    .message
                    .split([';', ':'])
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                report.block_errors.entry(kind).or_default().push(format!(
                    "{path}:{}: `{}`",
                    block.line + 2 + e.first,
                    e.statement
                ));
            }
        }
    }
}

fn check_task(
    path: &str,
    task: Task<'_>,
    line: &str,
    today: Date,
    settings: &TaskSettings,
    report: &mut TasksReport,
) {
    report.tasks += 1;
    if settings.counts(task) {
        report.filtered += 1;
    }
    let status = settings.statuses.of(task.symbol);
    *report
        .by_status
        .entry(format!("[{}] {}", task.symbol, status.kind.name()))
        .or_default() += 1;
    let format = match task.format {
        None => "no fields",
        Some(Format::Emoji) => "emoji",
        Some(Format::Dataview) => "dataview",
    };
    *report.by_format.entry(format).or_default() += 1;
    let at = format!("{path}:{}", task.line + 1);
    if read_line(line).is_none() {
        report.reread_failures.push(format!("{at}: {line}"));
        return;
    }
    if task.recurrence().is_some() {
        report.recurring += 1;
        if status.kind != StatusType::Done {
            recur(&at, line, today, settings, report);
            return;
        }
    }
    round_trip(&at, task, line, today, settings, report);
}

/// Completes a recurring task and keeps both lines for the report.
fn recur(at: &str, line: &str, today: Date, settings: &TaskSettings, report: &mut TasksReport) {
    match edit_task(line, &[TaskChange::Status('x')], today, settings) {
        Ok(edit) => {
            report.recurred += 1;
            if report.recurrences.len() < SHOWN * 3 {
                let mut shown = format!("{at}\n    {line}\n");
                for out in &edit.lines {
                    let _ = writeln!(shown, "  → {out}");
                }
                report.recurrences.push(shown);
            }
        }
        Err(TaskError::BadRule { error, .. }) => {
            *report.rule_errors.entry(error.to_string()).or_default() += 1;
        }
        Err(error) => refuse(at, line, &error, report),
    }
}

/// Not DONE: to `x` and back to its symbol, on `today`, with the
/// cancelled date of a cancelled task as today (so that it is stamped
/// again as it was). DONE: to `[ ]` and back to its symbol, with its done
/// date as today (no done date: the setting off).
fn round_trip(
    at: &str,
    task: Task<'_>,
    line: &str,
    today: Date,
    settings: &TaskSettings,
    report: &mut TasksReport,
) {
    let kind = settings.statuses.kind(task.symbol);
    let own = |date_kind: DateKind| -> Result<Option<Date>, ()> {
        let date = task.date(date_kind);
        match (date.is_set(), date.date()) {
            (false, _) => Ok(None),
            (true, Some(d)) => Ok(Some(d)),
            (true, None) => Err(()),
        }
    };
    let mut settings = settings.clone();
    let (away, day) = match kind {
        StatusType::Done => match own(DateKind::Done) {
            Ok(done) => {
                settings.set_done_date = done.is_some();
                (' ', done.unwrap_or(today))
            }
            Err(()) => return skip(report, "DONE with a done date that is not a calendar day"),
        },
        StatusType::Cancelled => match own(DateKind::Cancelled) {
            Ok(cancelled) => {
                settings.set_cancelled_date = cancelled.is_some();
                ('x', cancelled.unwrap_or(today))
            }
            Err(()) => {
                return skip(report, "CANCELLED with a date that is not a calendar day");
            }
        },
        _ => ('x', today),
    };
    if task.on_completion() == Some(weft_vault::tasks::OnCompletion::Delete) {
        return skip(report, "🏁 delete: completing removes the line");
    }
    let there = match edit_task(line, &[TaskChange::Status(away)], day, &settings) {
        Ok(edit) => edit,
        Err(error) => return refuse(at, line, &error, report),
    };
    let Some(mid) = there.task.map(|i| there.lines[i].clone()) else {
        return skip(report, "🏁 delete: completing removes the line");
    };
    let back = match edit_task(&mid, &[TaskChange::Status(task.symbol)], day, &settings) {
        Ok(edit) => edit,
        Err(error) => return refuse(at, &mid, &error, report),
    };
    let result = back.task.map(|i| back.lines[i].as_str());
    if result == Some(line) {
        report.identical += 1;
    } else {
        report.differing += 1;
        if report.differences.len() < SHOWN {
            report.differences.push(format!(
                "{at}\n    {line}\n  → {mid}\n  → {}",
                result.unwrap_or("(removed)")
            ));
        }
    }
}

fn skip(report: &mut TasksReport, why: &'static str) {
    *report.skipped.entry(why).or_default() += 1;
}

fn refuse(at: &str, line: &str, error: &TaskError, report: &mut TasksReport) {
    let message = error.to_string();
    let key: String = message
        .split(['(', ':'])
        .next()
        .unwrap_or(&message)
        .to_string();
    let cases = report.refused.entry(key).or_default();
    if cases.len() < 5 {
        cases.push(format!("{at}: {line}\n      {message}"));
    } else {
        cases.push(String::new());
    }
}

/// The vault's Tasks settings, and where they came from.
/// The vault's task settings as Weft reads them (the plugin's data.json,
/// `.weft.toml`'s `[tasks]` over it), and where from.
fn read_settings(dir: &Path) -> (TaskSettings, String) {
    match weft_workspace::config::Config::load(dir) {
        Ok(config) => (
            config.task_settings(),
            "the vault's configuration (data.json, .weft.toml)".into(),
        ),
        Err(e) => (
            TaskSettings::default(),
            format!("the plugin's defaults ({e})"),
        ),
    }
}

impl TasksReport {
    /// The report as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# tasks-check\n");
        let _ = writeln!(out, "settings: {}\n", self.settings_from);
        let _ = writeln!(
            out,
            "notes {} · checklist lines {} · tasks by the global filter {} · recurring {}\n",
            self.notes, self.tasks, self.filtered, self.recurring
        );
        let _ = writeln!(out, "## By status\n");
        for (status, n) in &self.by_status {
            let _ = writeln!(out, "- `{status}`: {n}");
        }
        let _ = writeln!(out, "\n## By format\n");
        for (format, n) in &self.by_format {
            let _ = writeln!(out, "- {format}: {n}");
        }
        let _ = writeln!(
            out,
            "\n## Re-read\n\n{} lines not read again by read_line",
            self.reread_failures.len()
        );
        for line in self.reread_failures.iter().take(SHOWN) {
            let _ = writeln!(out, "- {line}");
        }
        let _ = writeln!(
            out,
            "\n## Round trips\n\nidentical {} · differing {}",
            self.identical, self.differing
        );
        for (why, n) in &self.skipped {
            let _ = writeln!(out, "- not tried ({why}): {n}");
        }
        for d in &self.differences {
            let _ = writeln!(out, "\n```\n{d}\n```");
        }
        let _ = writeln!(out, "\n## Refused edits\n");
        if self.refused.is_empty() {
            let _ = writeln!(out, "none");
        }
        for (why, cases) in &self.refused {
            let _ = writeln!(out, "- {why}: {}", cases.len());
            for case in cases.iter().filter(|c| !c.is_empty()) {
                let _ = writeln!(out, "  - {case}");
            }
        }
        let found: usize = self.block_matches.iter().sum();
        let _ = writeln!(
            out,
            "\n## Query blocks\n\n{} blocks · {} run ({} tasks found in all, {} blocks finding \
             none) · {} not run",
            self.blocks,
            self.blocks_run,
            found,
            self.block_matches.iter().filter(|n| **n == 0).count(),
            self.blocks - self.blocks_run
        );
        for (why, cases) in &self.block_errors {
            let _ = writeln!(out, "- {why}: {}", cases.len());
            for case in cases.iter().take(SHOWN) {
                let _ = writeln!(out, "  - {case}");
            }
        }
        let _ = writeln!(
            out,
            "\n## Recurring tasks completed: {}\n\nrules not read: {}",
            self.recurred,
            self.rule_errors.values().sum::<usize>()
        );
        for (message, n) in &self.rule_errors {
            let _ = writeln!(out, "- {n} × {message}");
        }
        for r in &self.recurrences {
            let _ = writeln!(out, "\n```\n{}```", r);
        }
        out
    }
}
