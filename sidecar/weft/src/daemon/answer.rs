//! A `weft query|stats|check` command line answered by the index daemon on
//! the vault's shared hub, as one JSON line ([`Answer`]) back to the face
//! that asked: parsed as the command line would be, the vault loaded (and
//! the full text, when the command needs it) before the answer.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser;

use crate::answer::{answer_on, needs_fulltext};
use crate::args::{Cli, Command};
use weft_workspace::hub::{Hub, Phase};

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
        Command::Lsp | Command::Mcp { .. } | Command::Daemon { .. } | Command::Model { .. } => {
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

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}
