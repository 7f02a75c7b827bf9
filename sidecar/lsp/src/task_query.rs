//! ```` ```tasks ```` blocks in the editor: on each block's fence a code
//! lens with the number of tasks its query finds (or why it does not run),
//! a hover on the fence listing them, and diagnostics on the lines the
//! query cannot read, each naming what is wrong.
//!
//! The domain reads and runs the queries (`weft_vault::tasks::query`) on
//! THE clock's today, over every note of the vault (the editor's user sees
//! them all); this module places and words the answers.

use tower_lsp_server::ls_types::*;

use super::convert::{Encoding, LineIndex};
use weft_vault::tasks::query::run::{Outcome, count, run, task_of};
use weft_vault::tasks::query::{QueryBlock, QueryContext, QueryError, blocks, check, parse};
use weft_vault::tasks::{DateKind, TaskSettings};
use weft_vault::{VaultIndex, date::Date};
use weft_workspace::config::Config;

/// Diagnostic code of a query line that does not read.
pub(super) const TASK_QUERY: &str = "task-query";

/// The hover lists this many tasks at most.
const HOVER_TASKS: usize = 30;

/// What one block of a note gives.
enum Answer {
    Found(Outcome),
    NotRun(QueryError),
}

/// What the queries of the note `rel` are read with.
fn context<'a>(
    index: &'a VaultIndex,
    rel: &'a str,
    settings: &'a TaskSettings,
    today: Date,
) -> QueryContext<'a> {
    QueryContext {
        today,
        file: Some(rel),
        properties: index
            .id_of(rel)
            .and_then(|id| index.note(id).frontmatter.as_deref()),
        settings,
    }
}

/// One block read and run.
fn answer(index: &VaultIndex, block: &QueryBlock, ctx: &QueryContext) -> Answer {
    match parse(&block.query, ctx) {
        Ok(query) => Answer::Found(run(
            &query,
            index,
            &weft_vault::filter::Filter::All,
            ctx.settings,
            ctx.today,
        )),
        Err(e) => Answer::NotRun(e),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A lens on each block's fence: `12 tasks match` or `Not run: …`.
pub(super) fn lenses(
    index: &VaultIndex,
    rel: &str,
    text: &str,
    config: &Config,
    mut lens: impl FnMut(Position, String) -> CodeLens,
) -> Vec<CodeLens> {
    let settings = config.task_settings();
    let ctx = context(index, rel, &settings, config.now().today());
    blocks(text)
        .into_iter()
        .map(|block| {
            // Counts only: the tasks need not be ordered or grouped.
            let title = match parse(&block.query, &ctx) {
                Ok(query) => {
                    let o = count(
                        &query,
                        index,
                        &weft_vault::filter::Filter::All,
                        ctx.settings,
                        ctx.today,
                    );
                    let mut title = format!(
                        "{} in {}",
                        plural(o.matched, "task matches", "tasks match"),
                        plural(o.notes, "note", "notes")
                    );
                    if o.shown < o.matched {
                        title += &format!(" ({} listed)", o.shown);
                    }
                    title
                }
                Err(e) => format!("Not run: {}", e.message),
            };
            lens(Position::new(block.line, 0), title)
        })
        .collect()
}

/// On a block's fence line: the tasks it finds, as Markdown.
pub(super) fn hover(
    index: &VaultIndex,
    rel: &str,
    text: &str,
    line: u32,
    config: &Config,
) -> Option<String> {
    let block = blocks(text).into_iter().find(|b| b.line == line)?;
    let settings = config.task_settings();
    let ctx = context(index, rel, &settings, config.now().today());
    let outcome = match answer(index, &block, &ctx) {
        Answer::NotRun(e) => return Some(format!("**Not run**: {e}")),
        Answer::Found(o) => o,
    };
    let mut out = format!(
        "**{}** in {}",
        plural(outcome.matched, "task matches", "tasks match"),
        plural(outcome.notes, "note", "notes")
    );
    let mut listed = 0;
    'groups: for group in &outcome.groups {
        if !group.headings.is_empty() {
            out += &format!("\n\n**{}**\n", group.headings.join(" › "));
        } else {
            out.push('\n');
        }
        for hit in &group.hits {
            if listed == HOVER_TASKS {
                out += &format!("\n… and {} more", outcome.shown() - listed);
                break 'groups;
            }
            listed += 1;
            let task = task_of(index, *hit);
            let path = &index.note(hit.note).path;
            let due = task
                .date(DateKind::Due)
                .date()
                .map(|d| format!(" 📅 {}", weft_vault::daily::format_date(d, "YYYY-MM-DD")))
                .unwrap_or_default();
            out += &format!(
                "\n- [{}] {}{due} — {path}:{}",
                task.symbol,
                task.description().trim(),
                task.line + 1
            );
        }
    }
    Some(out)
}

/// A diagnostic on each query line that does not read.
pub(super) fn problems(
    index: &VaultIndex,
    rel: &str,
    text: &str,
    lines: &LineIndex,
    encoding: Encoding,
    config: &Config,
) -> Vec<Diagnostic> {
    let settings = config.task_settings();
    let ctx = context(index, rel, &settings, config.now().today());
    let mut out = Vec::new();
    for block in blocks(text) {
        for e in check(&block.query, &ctx) {
            // The global query's errors stand on the fence.
            let (first, last) = match e.from {
                Some(_) => (block.line, block.line),
                None => (block.line + 1 + e.first, block.line + 1 + e.last),
            };
            let end = lines.line_end(last);
            let start = lines.line_start(first).min(end);
            out.push(Diagnostic {
                range: lines.range(start..end, encoding),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String(TASK_QUERY.into())),
                source: Some("weft".into()),
                message: match &e.from {
                    Some(from) => format!("{from}: `{}`: {}", e.statement, e.message),
                    None => e.message.clone(),
                },
                ..Default::default()
            });
        }
    }
    out
}
