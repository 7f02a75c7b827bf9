//! One-shot answers to `weft query …`, `weft stats` and `weft check` on a
//! loaded vault: the index daemon's query face and the in-process command
//! line both answer here. Backlinks, links, graph, search and related are
//! the agent tools' own answers (`weft_tools::query`); the rest render
//! the domain's queries (`render`).

mod render;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;

use crate::args::{Cli, Command, Format, Query};
use weft_tools::ToolState;
use weft_vault::query;
use weft_workspace::hub::{Hub, Phase};

/// An error for the person at the terminal; exits 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a command line printed and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Answer {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

/// Runs a `weft query …`, `weft stats` or `weft check` command line (`argv`
/// starts with the program name) on this process's shared state of the
/// vault at `vault`, loading it if needed: how the index daemon answers.
pub async fn answer(argv: Vec<OsString>, vault: PathBuf) -> Answer {
    // What the log says if answering panics, and where a test may make it.
    let words: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut commands = words.iter().filter(|w| !w.starts_with('-'));
    let point = match commands.next().map(String::as_str) {
        Some("query") => format!("query:{}", commands.next().map_or("", |c| c.as_str())),
        other => format!("query:{}", other.unwrap_or("")),
    };
    let failed = |message: String| Answer {
        stdout: String::new(),
        stderr: format!("weft: {message}\n"),
        code: 2,
    };
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(error) => {
            let text = error.render().to_string();
            let code = u8::try_from(error.exit_code()).unwrap_or(2);
            return match error.use_stderr() {
                true => Answer {
                    stdout: String::new(),
                    stderr: text,
                    code,
                },
                false => Answer {
                    stdout: text,
                    stderr: String::new(),
                    code,
                },
            };
        }
    };
    let format = cli.global.format;
    let command = match cli.command {
        Command::Lsp | Command::Mcp(_) | Command::Daemon { .. } => {
            return failed("only `query`, `stats` and `check` are answered this way".into());
        }
        command => command,
    };
    let hub = match Hub::get(&vault) {
        Ok(hub) => hub,
        Err(e) => return failed(e.to_string()),
    };
    hub.start();
    let phase = if needs_fulltext(&command) {
        hub.want_fulltext();
        hub.wait_ready().await
    } else {
        hub.wait_notes().await
    };
    if let Phase::Failed(error) = phase {
        return failed(error);
    }
    let answered = tokio::task::spawn_blocking(move || {
        // A daemon's hub may have been loaded long ago.
        hub.refresh_config();
        weft_wire::fault_point(&point);
        answer_on(&hub, command, format)
    })
    .await;
    match answered {
        Ok(Ok((stdout, code))) => Answer {
            stdout: with_newline(stdout),
            stderr: String::new(),
            code,
        },
        Ok(Err(error)) => failed(error.0),
        Err(error) if error.is_panic() => {
            let why = weft_wire::panic_text(&*error.into_panic());
            tracing::error!(
                "weft: a panic while answering `weft {}`: {why}; that command failed, nothing else did",
                words.join(" ")
            );
            failed(format!(
                "Weft failed while answering this command: {why}. This is a bug in Weft; please report \
                 it with the command line you used."
            ))
        }
        Err(error) => failed(format!("the query failed: {error}")),
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
    if let Some(answer) = as_mcp {
        let text =
            answer.map_err(|e| CliError(e.strip_prefix("Error: ").unwrap_or(&e).to_string()))?;
        return Ok((text, 0));
    }
    let index = hub.index();
    let root = hub.root();
    let texts = |path: &str| {
        std::fs::read(root.join(path))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let out = render::Out {
        index: &index,
        texts: &texts,
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
        Command::Lsp | Command::Mcp(_) | Command::Daemon { .. } => {
            return Err(CliError(
                "only `query`, `stats` and `check` answer here".into(),
            ));
        }
        Command::Check { path_prefix } => {
            let prefix = path_prefix.as_deref().unwrap_or("");
            let problems = query::check(&index, prefix);
            // What the scan could not read is a problem too: its links
            // are not known, and a note that cannot be read is not missing.
            let mut unreadable = hub.live().map(|l| l.errors()).unwrap_or_default();
            unreadable.retain(|(path, _)| path.starts_with(prefix));
            let code = u8::from(!problems.is_empty() || !unreadable.is_empty());
            (out.check(&problems, &unreadable), code)
        }
    })
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}
