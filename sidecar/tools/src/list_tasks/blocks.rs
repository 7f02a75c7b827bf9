//! `list_tasks` with a Tasks plugin query: `query` (its text) or
//! `query_note` (the ```` ```tasks ```` blocks of a note, or the `block`-th)
//! read and run by the domain (`weft_vault::tasks::query`) over the notes
//! the agent sees, on today. An instruction Weft cannot run is the call's
//! error, naming the line; when several blocks run, each block's error is
//! named in the answer beside the others' tasks.

use super::args::ListTasksArgs;
use super::compute::Hit;
use super::render::{ListTasksOut, TaskGroup, item, line};
use crate::common::{cursor_offset, find_note, limit, next_cursor, page_line, shown};
use crate::format::{Reply, ToolError, ToolResult};
use crate::state::ToolState;
use weft_vault::tasks::query::run::run;
use weft_vault::tasks::query::{QueryContext, QueryError, blocks, parse};

/// One query to run: where it came from, its text, the note it is in.
struct Source {
    label: String,
    text: String,
    file: Option<String>,
    /// The note's line of the query's first line (errors name the note's).
    first_line: u32,
    note: Option<weft_vault::NoteId>,
}

/// Whether the call asks for a query rather than the filters.
pub(super) fn asked(args: &ListTasksArgs) -> bool {
    args.query.is_some() || args.query_note.is_some()
}

pub(super) fn run_query(state: &ToolState, args: &ListTasksArgs) -> ToolResult {
    let filters = [
        ("status", args.status.is_some()),
        ("due", args.due.is_some()),
        ("scheduled", args.scheduled.is_some()),
        ("start", args.start.is_some()),
        ("done", args.done.is_some()),
        ("created", args.created.is_some()),
        ("happens", args.happens.is_some()),
        ("overdue", args.overdue.is_some()),
        ("priority", args.priority.is_some()),
        ("tags", args.tags.is_some()),
        ("text", args.text.is_some()),
        ("heading", args.heading.is_some()),
        ("recurring", args.recurring.is_some()),
        ("folder", args.folder.is_some()),
        ("sort", args.sort.is_some()),
        ("group_by", args.group_by.is_some()),
    ];
    let given: Vec<&str> = filters
        .iter()
        .filter(|(_, g)| *g)
        .map(|(n, _)| *n)
        .collect();
    if !given.is_empty() {
        return Err(ToolError::new(format!(
            "`query` and `query_note` take the place of the filters; {} cannot be passed with \
             them.",
            given.join(", ")
        ))
        .hint("Write them in the query: `not done`, `due before tomorrow`, `path includes X`, `tags include #x`, `sort by due`, `group by filename`."));
    }
    if args.query.is_some() && args.query_note.is_some() {
        return Err(ToolError::new(
            "Pass `query` (a query's text) or `query_note` (a note's ```tasks blocks), not both.",
        ));
    }
    let today = state.now().today();
    let settings = state.config().task_settings();
    let index = state.index();
    let sight = state.policy().access.sight(&index);
    let sources = sources(state, &index, args)?;
    let single = sources.len() == 1;
    let fingerprint = format!(
        "{:?}",
        (&args.query, &args.query_note, args.block, args.limit)
    );
    let offset = if single {
        cursor_offset(args.cursor.as_deref(), &fingerprint)?
    } else if args.cursor.is_some() {
        return Err(ToolError::new(
            "`cursor` pages one query: pass `block` with it to page that block.",
        ));
    } else {
        0
    };
    let limit = limit(args.limit, 50, 500);
    let mut out = ListTasksOut {
        total: 0,
        notes: 0,
        groups: Vec::new(),
        next_cursor: None,
        explanation: None,
        block_errors: Vec::new(),
    };
    let mut text = String::new();
    for source in &sources {
        let ctx = QueryContext {
            today,
            file: source.file.as_deref(),
            properties: source
                .note
                .and_then(|id| index.note(id).frontmatter.as_deref()),
            settings: &settings,
        };
        let parsed = parse(&source.text, &ctx).map_err(|e| QueryError {
            first: e.first + source.first_line,
            last: e.last + source.first_line,
            ..e
        });
        let query = match parsed {
            Ok(q) => q,
            Err(e) if single => {
                return Err(ToolError::new(format!("{}: {e}.", source.label)).hint(
                    "The Tasks plugin's query language: filters (`not done`, `due before tomorrow`, `path includes X`, `(a) OR (b)`), `sort by`, `group by`, `limit`, `explain`.",
                ));
            }
            Err(e) => {
                let message = format!("{}: {e}", source.label);
                text += &format!("\n## {}\n\nNot run: {e}.\n", source.label);
                out.block_errors.push(message);
                continue;
            }
        };
        let outcome = run(&query, &index, &sight, &settings, today);
        out.total += outcome.matched;
        out.notes += outcome.notes;
        if !single {
            text += &format!("\n## {}\n\n", source.label);
        }
        let tasks = if outcome.matched == 1 {
            "task matches"
        } else {
            "tasks match"
        };
        let notes = if outcome.notes == 1 { "note" } else { "notes" };
        text += &format!("{} {tasks} in {} {notes}", outcome.matched, outcome.notes);
        let listed = outcome.shown();
        if listed < outcome.matched {
            text += &format!(" ({listed} listed after the query's limits)");
        }
        text += ".";
        if query.explain {
            let explanation = query.explanation(today);
            text += &format!("\n\n```text\n{explanation}\n```");
            out.explanation = Some(explanation);
        }
        // The page: `limit` tasks from `offset`, in the groups' order.
        let (mut skip, mut room) = (if single { offset } else { 0 }, limit);
        let mut shown_here = 0;
        let mut body = String::new();
        for group in &outcome.groups {
            if room == 0 {
                break;
            }
            let hits: Vec<_> = group.hits.iter().skip(skip).take(room).collect();
            skip = skip.saturating_sub(group.hits.len());
            if hits.is_empty() {
                continue;
            }
            room -= hits.len();
            shown_here += hits.len();
            let mut key = group.headings.join(" › ");
            if !single {
                key = if key.is_empty() {
                    source.label.clone()
                } else {
                    format!("{} › {key}", source.label)
                };
            }
            if !group.headings.is_empty() {
                body += &format!("\n### {}\n", group.headings.join(" › "));
            }
            let items: Vec<_> = hits
                .iter()
                .map(|h| {
                    let hit = Hit {
                        note: h.note,
                        task: h.task,
                        group: String::new(),
                    };
                    item(&index, &settings, &hit, today)
                })
                .collect();
            for task in &items {
                body += &line(task, true);
                body.push('\n');
            }
            out.groups.push(TaskGroup { key, tasks: items });
        }
        if single {
            out.next_cursor = next_cursor(offset, shown_here, listed, &fingerprint);
            let page = page_line(offset, shown_here, listed, out.next_cursor.as_deref());
            if !page.is_empty() {
                text += &format!(" {page}");
            }
        } else if shown_here < listed {
            text +=
                &format!(" The first {shown_here} are listed: pass `block` to page this block.");
        }
        text.push('\n');
        text += &body;
    }
    drop(index);
    Ok(Reply::new(text.trim_start().to_string(), &out))
}

/// The queries a call names.
fn sources(
    state: &ToolState,
    index: &weft_vault::VaultIndex,
    args: &ListTasksArgs,
) -> Result<Vec<Source>, ToolError> {
    if let Some(query) = &args.query {
        if args.block.is_some() {
            return Err(ToolError::new("`block` picks a block of `query_note`."));
        }
        return Ok(vec![Source {
            label: "The query".into(),
            text: query.clone(),
            file: None,
            first_line: 0,
            note: None,
        }]);
    }
    let name = args.query_note.as_deref().unwrap_or_default();
    let id = find_note(state, index, name, "note")?;
    let path = index.note(id).path.to_string();
    let note_text = state
        .read_text(&path)
        .ok_or_else(|| ToolError::new(format!("`{path}` could not be read.")))?;
    let found = blocks(&note_text);
    if found.is_empty() {
        return Err(
            ToolError::new(format!("`{}` has no ```tasks block.", shown(&path)))
                .hint("Pass `query` with a query's text instead."),
        );
    }
    let label = |n: usize, line: u32| format!("`{}` block {n} (line {})", shown(&path), line + 1);
    let picked: Vec<(usize, _)> = match args.block {
        Some(n) => {
            let b = n.checked_sub(1).and_then(|i| found.get(i)).ok_or_else(|| {
                ToolError::new(format!(
                    "`{}` has {} ```tasks block{}; `block` counts from 1.",
                    shown(&path),
                    found.len(),
                    if found.len() == 1 { "" } else { "s" }
                ))
            })?;
            vec![(n, b)]
        }
        None => found.iter().enumerate().map(|(i, b)| (i + 1, b)).collect(),
    };
    Ok(picked
        .into_iter()
        .map(|(n, b)| Source {
            label: label(n, b.line),
            text: b.query.clone(),
            file: Some(path.clone()),
            first_line: b.line + 1,
            note: Some(id),
        })
        .collect())
}
