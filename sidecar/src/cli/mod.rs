//! The command line face: `weft query …`, `weft stats`, `weft check`.
//!
//! Parses arguments, opens the vault, calls the domain's queries and renders
//! their answers as compact Markdown (`--format text`) or JSON. Knows nothing
//! of LSP or MCP.

mod bench;
mod render;

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::hub::{Hub, Phase};
use crate::io::LiveVault;
use crate::tools::ToolState;
use crate::vault::query;

#[derive(Parser, Debug)]
#[command(
    name = "weft",
    version,
    about = "A vault of Markdown notes with [[wikilinks]] as one live index.",
    long_about = "A vault of Markdown notes with [[wikilinks]] (Obsidian, Foam, Zettelkasten) as one live index: \
                  one-shot queries here; a language server (`weft lsp`) and an MCP server (`weft mcp`) for editors \
                  and agents.\n\n\
                  A NOTE argument is a vault path with or without `.md` (`projects/plan`), a file name, a title, \
                  an alias or a [[wikilink]] target, resolved as a link written at the vault root would be.\n\n\
                  Exit status: 0 on success, 1 when `check` finds problems, 2 on errors (unknown note, bad vault)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: GlobalOpts,
}

#[derive(Args, Debug)]
struct GlobalOpts {
    /// The vault folder [default: the current directory; `/` is refused].
    #[arg(long, global = true, env = "WEFT_VAULT", value_name = "DIR")]
    vault: Option<PathBuf>,
    /// Output: compact Markdown for people and agents, or JSON for programs.
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Serve in this process instead of through the vault's index daemon
    /// (which `lsp`, `mcp`, `query`, `stats` and `check` share by default).
    #[arg(
        long,
        global = true,
        env = "WEFT_NO_DAEMON",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::FalseyValueParser::new()
    )]
    no_daemon: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve the language server on stdin/stdout (editors start this). The
    /// vault is the editor's workspace folder unless --vault is given.
    Lsp,
    /// Serve the MCP server on stdin/stdout (agents start this).
    Mcp(crate::mcp::McpArgs),
    /// One-shot questions about the vault's links.
    Query {
        #[command(subcommand)]
        query: Query,
    },
    /// Counts: notes, links (resolved, ambiguous, unresolved), tags, orphans.
    Stats,
    /// The vault's index daemon, which the other commands start and share;
    /// never started by hand.
    #[command(hide = true)]
    Daemon {
        /// Exit after this many seconds without connections.
        #[arg(long, default_value_t = 120)]
        idle: u64,
    },
    /// Generate vaults and time the product on them (for developers).
    #[command(hide = true)]
    Bench {
        #[command(subcommand)]
        bench: bench::Bench,
    },
    /// Broken, ambiguous and broken-fragment links, and notes that did not
    /// parse cleanly, each with file:line. Exits 1 when it finds any.
    Check {
        /// Only check notes under this folder.
        #[arg(long, value_name = "FOLDER")]
        path_prefix: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
enum Query {
    /// Notes linking to NOTE, with line numbers and context. Works for a
    /// note that does not exist yet (an unresolved link target). The same
    /// answer as the MCP `backlinks` prompt.
    Backlinks {
        note: String,
        /// How many links at most.
        #[arg(long, default_value_t = crate::tools::query::BACKLINKS_LIMIT)]
        limit: usize,
    },
    /// Links going out of NOTE, resolved or not (as the MCP get_links tool).
    Links { note: String },
    /// The link neighbourhood of NOTE, both directions, as nodes and
    /// edges. The same answer as the MCP `graph` prompt.
    Graph {
        note: String,
        /// How many steps to walk (1 to 3).
        #[arg(long, default_value_t = crate::tools::query::GRAPH_DEPTH)]
        depth: u32,
        /// Stop after this many notes.
        #[arg(long, alias = "max-nodes", default_value_t = crate::tools::query::GRAPH_LIMIT)]
        limit: usize,
    },
    /// What a name or link target resolves to, with candidates.
    Resolve { text: String },
    /// Full-text search: words, "phrases", title:, tag:, folder:, AND/OR,
    /// -exclusion, ( … ), modified:[now-7d TO now] (as the MCP search_notes tool).
    Search {
        query: String,
        /// How many notes at most.
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// Notes related to NOTE by links, shared tags and similar text, with
    /// the reasons (as the MCP related_notes tool and `related` prompt).
    Related {
        note: String,
        /// How many notes at most.
        #[arg(long, default_value_t = crate::tools::query::RELATED_LIMIT)]
        limit: usize,
    },
    /// Notes whose name, title or alias matches PREFIX (for completion);
    /// without PREFIX, the most linked notes.
    Notes {
        prefix: Option<String>,
        /// How many notes at most.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
}

/// An error for the person at the terminal; exits 2.
#[derive(Debug)]
pub struct CliError(pub String);

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

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
    let daemon = cfg!(unix) && !cli.global.no_daemon;
    let command = match cli.command {
        Command::Bench { bench } => return bench::run(bench).map(|()| ExitCode::SUCCESS),
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
        Command::Lsp => return Ok(crate::lsp::run_stdio(cli.global.vault)),
        #[cfg(unix)]
        Command::Mcp(args) if daemon => {
            let root = crate::mcp::vault_root(cli.global.vault.clone())
                .and_then(|root| crate::hub::check_root(&root))
                .map_err(|e| CliError(e.to_string()))?;
            return Ok(crate::daemon::face::mcp(root, args));
        }
        Command::Mcp(args) => return Ok(crate::mcp::run_stdio(cli.global.vault, args)),
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
        Command::Bench { .. } | Command::Lsp | Command::Mcp(_) | Command::Daemon { .. } => {
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
        crate::wire::fault_point(&point);
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
            let why = crate::wire::panic_text(&*error.into_panic());
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
fn needs_fulltext(command: &Command) -> bool {
    matches!(
        command,
        Command::Query {
            query: Query::Search { .. } | Query::Related { .. }
        }
    )
}

/// The text of an answer and the exit status, from a loaded vault.
fn answer_on(hub: &Arc<Hub>, command: Command, format: Format) -> Result<(String, u8), CliError> {
    let json = format == Format::Json;
    let state = || ToolState::over(hub.clone(), crate::tools::Profile::default());
    // Answered as the MCP tools and prompts answer, word for word.
    let as_mcp = match &command {
        Command::Query {
            query: Query::Backlinks { note, limit },
        } => Some(crate::tools::query::backlinks_text(
            &state(),
            note,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Links { note },
        } => Some(crate::tools::query::links_text(&state(), note, json)),
        Command::Query {
            query: Query::Graph { note, depth, limit },
        } => Some(crate::tools::query::graph_text(
            &state(),
            note,
            *depth,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Search { query, limit },
        } => Some(crate::tools::query::search_text(
            &state(),
            query,
            *limit,
            json,
        )),
        Command::Query {
            query: Query::Related { note, limit },
        } => Some(crate::tools::query::related_text(
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
        Command::Stats => (out.stats(&query::stats(&index)), 0),
        Command::Bench { .. } | Command::Lsp | Command::Mcp(_) | Command::Daemon { .. } => {
            return Err(CliError(
                "only `query`, `stats` and `check` answer here".into(),
            ));
        }
        Command::Check { path_prefix } => {
            let problems = query::check(&index, path_prefix.as_deref().unwrap_or(""));
            let code = u8::from(!problems.is_empty());
            (out.check(&problems), code)
        }
    })
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
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
