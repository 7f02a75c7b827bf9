//! One-shot answers to `weft query …`, `weft stats` and `weft check` on a
//! loaded vault: the index daemon's query face (`daemon::answer`) and the
//! in-process command line both answer here. Backlinks, links, graph, search and related are
//! the agent tools' own answers (`weft_tools::query`); the rest render
//! the domain's queries (`render`).

mod render;

use std::sync::Arc;

use crate::args::{Command, Format, Query};
use weft_tools::ToolState;
use weft_vault::filter::{Filter, Folder};
use weft_vault::query;
use weft_workspace::hub::Hub;

/// An error for the person at the terminal; exits 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether answering needs the full-text index.
pub fn needs_fulltext(command: &Command) -> bool {
    matches!(
        command,
        Command::Query {
            query: Query::Search { .. } | Query::Related { .. }
        }
    )
}

/// The text of an answer and the exit status, from a loaded vault.
pub fn answer_on(
    hub: &Arc<Hub>,
    command: Command,
    format: Format,
) -> Result<(String, u8), CliError> {
    let json = format == Format::Json;
    let state = || ToolState::over(hub.clone(), weft_tools::Profile::default());
    // Answered as the MCP tools and prompts answer, word for word.
    let as_mcp = match &command {
        Command::Query {
            query: Query::Backlinks { note, limit },
        } => Some(weft_tools::query::backlinks_text(
            &state(),
            note,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Links { note },
        } => Some(weft_tools::query::links_text(&state(), note, json)),
        Command::Query {
            query: Query::Graph { note, depth, limit },
        } => Some(weft_tools::query::graph_text(
            &state(),
            note,
            *depth,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Search { query, limit },
        } => Some(weft_tools::query::search_text(
            &state(),
            query,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Related { note, limit },
        } => Some(weft_tools::query::related_text(
            &state(),
            note,
            *limit,
            json,
        )),
        _ => None,
    };
    if format == Format::Csv && !matches!(command, Command::Base { .. }) {
        return Err(CliError(
            "--format csv is for `weft base`; use text or json here".into(),
        ));
    }
    if let Command::Base {
        file,
        view,
        block,
        limit,
        offset,
    } = &command
    {
        return base(&state(), file, view, *block, *limit, *offset, format);
    }
    if let Command::Tasks(args) = &command {
        return tasks(&state(), args, format);
    }
    if let Some(answer) = as_mcp {
        let text =
            answer.map_err(|e| CliError(e.strip_prefix("Error: ").unwrap_or(&e).to_string()))?;
        return Ok((text, 0));
    }
    let index = hub.index();
    let out = render::Out {
        index: &index,
        format,
    };
    Ok(match command {
        Command::Query {
            query:
                Query::Backlinks { .. }
                | Query::Links { .. }
                | Query::Graph { .. }
                | Query::Search { .. }
                | Query::Related { .. },
        } => {
            unreachable!("answered as the MCP tools answer, above")
        }
        Command::Query {
            query: Query::Resolve { text },
        } => (out.resolve(&text, query::lookup(&index, &text)), 0),
        Command::Query {
            query: Query::Notes { prefix, limit },
        } => (
            out.notes(&query::complete_names(
                &index,
                prefix.as_deref().unwrap_or(""),
                limit,
            )),
            0,
        ),
        Command::Stats { digest } => {
            let digest = digest.then(|| weft_vault::digest::digest(&index));
            (out.stats(&query::stats(&index), digest.as_deref()), 0)
        }
        Command::Base { .. } | Command::Tasks(_) => unreachable!("answered above"),
        Command::Lsp
        | Command::Mcp { .. }
        | Command::Daemon { .. }
        | Command::Model { .. }
        | Command::Doctor => {
            return Err(CliError(
                "only `query`, `stats` and `check` answer here".into(),
            ));
        }
        Command::Check { path_prefix } => {
            // A folder with its boundary (`proj` is not `projects/`),
            // however it is written: the one rule, `vault::filter`.
            let folder = Folder::new(path_prefix.as_deref().unwrap_or(""))
                .map_err(|e| CliError(format!("--path-prefix: {e}")))?;
            let types = &hub.config().types;
            let problems = query::check(&index, &Filter::Folder(folder.clone()), types);
            // What the scan could not read is a problem too: its links
            // are not known, and a note that cannot be read is not missing.
            let mut unreadable = hub.live().map(|l| l.errors()).unwrap_or_default();
            unreadable.retain(|(path, _)| folder.contains(path));
            let code = u8::from(!problems.is_empty() || !unreadable.is_empty());
            (out.check(&problems, &unreadable), code)
        }
    })
}

/// `weft tasks`: the agent's `list_tasks` answer, in Markdown or JSON (its
/// structured answer).
fn tasks(
    state: &ToolState,
    args: &crate::args::TasksArgs,
    format: Format,
) -> Result<(String, u8), CliError> {
    use weft_tools::list_tasks::{ListTasksArgs, run};
    let group_by = match args.group_by.as_deref() {
        Some(g) => Some(
            serde_json::from_value(serde_json::Value::String(g.to_string()))
                .map_err(|e| CliError(format!("--group-by: {e}")))?,
        ),
        None => None,
    };
    let asked = ListTasksArgs {
        status: args.status.clone(),
        due: args.due.clone(),
        scheduled: args.scheduled.clone(),
        start: args.start.clone(),
        done: args.done.clone(),
        created: args.created.clone(),
        happens: args.happens.clone(),
        overdue: args.overdue.then_some(true),
        priority: args.priority.clone(),
        tags: (!args.tags.is_empty()).then(|| args.tags.clone()),
        text: args.text.clone(),
        heading: args.heading.clone(),
        recurring: args.recurring,
        folder: args.folder.clone(),
        sort: args.sort.clone(),
        group_by,
        limit: Some(args.limit),
        cursor: None,
        query: None,
        query_note: None,
        block: args.block,
    };
    let asked = match args.query.as_deref() {
        None => asked,
        Some(q) if q.to_ascii_lowercase().ends_with(".md") => ListTasksArgs {
            query_note: Some(q.to_string()),
            ..asked
        },
        Some(q) if !q.contains('\n') && std::path::Path::new(q).is_file() => ListTasksArgs {
            query: Some(
                std::fs::read_to_string(q).map_err(|e| CliError(format!("--query {q}: {e}")))?,
            ),
            ..asked
        },
        Some(q) => ListTasksArgs {
            query: Some(q.to_string()),
            ..asked
        },
    };
    let reply = run(state, asked).map_err(|e| {
        let text = e.text();
        CliError(text.strip_prefix("Error: ").unwrap_or(&text).to_string())
    })?;
    let text = match format {
        Format::Json => serde_json::to_string_pretty(&reply.structured).unwrap_or_default() + "\n",
        Format::Text => reply.text,
        Format::Csv => unreachable!("refused above"),
    };
    Ok((text, 0))
}

/// `weft base`: a page of a base's view as the agent's `query_notes`
/// computes it, in Markdown, JSON (its structured answer) or CSV.
fn base(
    state: &ToolState,
    file: &str,
    view: &Option<String>,
    block: Option<usize>,
    limit: usize,
    offset: usize,
    format: Format,
) -> Result<(String, u8), CliError> {
    use weft_tools::query_notes::{Source, compute, render_out};
    let source = Source::Base {
        path: file.to_string(),
        block,
        view: view.clone(),
    };
    let asked = compute(state, &source, offset, limit.max(1)).map_err(|e| {
        CliError(
            e.text()
                .strip_prefix("Error: ")
                .unwrap_or_default()
                .to_string(),
        )
    })?;
    let more = offset + asked.shown < asked.table.total;
    let text = match format {
        Format::Csv => asked.csv.clone(),
        Format::Json => {
            let out = render_out(&asked, None);
            serde_json::to_string_pretty(&out).unwrap_or_default() + "\n"
        }
        Format::Text => {
            let mut text = asked.markdown.clone();
            if asked.table.total == 0 {
                text = format!("No rows in view `{}`.", asked.table.view);
            }
            if more {
                text.push_str(&format!(
                    "\n{} of {} rows; --offset {} shows the next.",
                    asked.shown,
                    asked.table.total,
                    offset + asked.shown
                ));
            }
            for e in &asked.table.errors {
                text.push_str(&format!("\nerror: {e}"));
            }
            text
        }
    };
    Ok((text, u8::from(asked.table.error_count > 0)))
}
