//! The command line face: `weft query …`, `weft stats`, `weft check` answered
//! through the vault's index daemon (or in this process), `weft lsp`
//! and `weft mcp` started as faces of the daemon or served here, and
//! `weft model` (`model.rs`). Knows
//! nothing of LSP or MCP beyond starting them.

mod model;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::answer::{CliError, answer_on, needs_fulltext};
use crate::args::{Cli, Command};
use weft_workspace::hub::Hub;
use weft_workspace::io::LiveVault;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("weft: {error}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, CliError> {
    let format = cli.global.format;
    #[cfg(unix)]
    let daemon = !cli.global.no_daemon;
    let command = match cli.command {
        #[cfg(unix)]
        Command::Daemon { idle } => {
            let root = vault_root(cli.global.vault.as_deref())?;
            return Ok(crate::daemon::server::run(
                &root,
                std::time::Duration::from_secs(idle),
            ));
        }
        #[cfg(unix)]
        Command::Lsp if daemon => return Ok(crate::daemon::face::lsp(cli.global.vault)),
        Command::Lsp => return Ok(weft_lsp::run_stdio(cli.global.vault)),
        Command::Mcp { args, http } if http.http => {
            let serve = crate::http::HttpServe::from_args(&http).map_err(CliError)?;
            let root = weft_mcp::vault_root(cli.global.vault.clone())
                .and_then(|root| weft_workspace::hub::check_root(&root))
                .map_err(|e| CliError(e.to_string()))?;
            #[cfg(unix)]
            if daemon {
                return Ok(crate::daemon::face::http(root, args, serve));
            }
            return Ok(crate::http::serve_here(root, args, serve));
        }
        #[cfg(unix)]
        Command::Mcp { args, .. } if daemon => {
            let root = weft_mcp::vault_root(cli.global.vault.clone())
                .and_then(|root| weft_workspace::hub::check_root(&root))
                .map_err(|e| CliError(e.to_string()))?;
            return Ok(crate::daemon::face::mcp(root, args));
        }
        Command::Mcp { args, .. } => {
            if let Ok(root) = weft_mcp::vault_root(cli.global.vault.clone()) {
                args.offer_model(&root);
            }
            return Ok(weft_mcp::run_stdio(cli.global.vault, args.profile()));
        }
        Command::Doctor => return Ok(crate::doctor::run(cli.global.vault.as_deref())),
        Command::Model { model } => {
            print_answer(&model::run(model, format)?)?;
            return Ok(ExitCode::SUCCESS);
        }
        command => command,
    };
    let root = vault_root(cli.global.vault.as_deref())?;
    #[cfg(unix)]
    if daemon {
        let argv: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        match crate::daemon::face::query(argv, &root) {
            Ok(answer) => {
                eprint!("{}", answer.stderr);
                print_answer(answer.stdout.trim_end_matches('\n'))?;
                return Ok(ExitCode::from(answer.code));
            }
            Err(reason) => eprintln!("weft: no index daemon ({reason}); answering in-process"),
        }
    }
    let live = Arc::new(LiveVault::open(&root).map_err(|e| CliError(e.to_string()))?);
    let hub = Hub::detached(live, needs_fulltext(&command)).map_err(|e| CliError(e.to_string()))?;
    let (text, code) = answer_on(&hub, command, format)?;
    print_answer(&text)?;
    Ok(ExitCode::from(code))
}

/// Prints an answer with a final line break. A closed pipe (`weft check |
/// head`) is not an error: printing stops quietly.
fn print_answer(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.write_all(newline.as_bytes()))
    {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError(format!("cannot write the answer: {error}")))
        }
        _ => Ok(()),
    }
}

/// `--vault`, else the current directory; never `/`.
pub fn vault_root(given: Option<&Path>) -> Result<PathBuf, CliError> {
    let root = match given {
        Some(p) => p.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| CliError(format!("cannot read the current directory: {e}")))?,
    };
    let canonical = root.canonicalize().map_err(|e| {
        CliError(format!(
            "the vault folder {} cannot be opened: {e}",
            root.display()
        ))
    })?;
    if canonical.parent().is_none() {
        return Err(CliError(
            "refusing to index `/` as a vault: pass the notes folder with --vault DIR (or run weft inside it)".into(),
        ));
    }
    Ok(canonical)
}
