//! The command line's grammar: `weft lsp|mcp|query|stats|check|model`, their
//! options and the global ones (`--vault`, `--format`, `--no-daemon`).
//! Parsing only; the one-shot answers are `answer`'s, the dispatch `cli`'s.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use weft_tools::{Profile, ToolSet};

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
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalOpts,
}

#[derive(Args, Debug)]
pub struct GlobalOpts {
    /// The vault folder [default: the current directory; `/` is refused].
    #[arg(long, global = true, env = "WEFT_VAULT", value_name = "DIR")]
    pub vault: Option<PathBuf>,
    /// Output: compact Markdown for people and agents, JSON for programs,
    /// or CSV (`weft base`).
    #[arg(long, global = true, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Serve in this process instead of through the vault's index daemon
    /// (which `lsp`, `mcp`, `query`, `stats` and `check` share by default).
    #[arg(
        long,
        global = true,
        env = "WEFT_NO_DAEMON",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::FalseyValueParser::new()
    )]
    pub no_daemon: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown (the default).
    #[value(alias = "md")]
    Text,
    Json,
    /// Comma-separated values (`weft base` only).
    Csv,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve the language server on stdin/stdout (editors start this). The
    /// vault is the editor's workspace folder unless --vault is given.
    Lsp,
    /// Serve the MCP server on stdin/stdout (agents start this), or over
    /// Streamable HTTP with --http.
    Mcp {
        #[command(flatten)]
        args: McpArgs,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// One-shot questions about the vault's links.
    Query {
        #[command(subcommand)]
        query: Query,
    },
    /// Counts: notes, links (resolved, ambiguous, unresolved), tags, orphans.
    Stats {
        /// Also a digest of everything the index answers: the daemon's
        /// and `--no-daemon`'s agree when the daemon is in step with the
        /// vault.
        #[arg(long)]
        digest: bool,
    },
    /// The vault's index daemon, which the other commands start and share;
    /// never started by hand.
    #[command(hide = true)]
    Daemon {
        /// Exit after this many seconds without connections.
        #[arg(long, default_value_t = 120)]
        idle: u64,
    },
    /// Models for finding notes by meaning: fetch a pinned one into the
    /// user's cache, or list them. Nothing else in Weft downloads a model.
    Model {
        #[command(subcommand)]
        model: ModelCommand,
    },
    /// Checks this binary, the vault (--vault, else the current folder)
    /// and its .weft.toml, the vault's daemon, the note history, the
    /// persisted index, the semantic model and Zed's settings, each with ✓
    /// or ✗ and the fix. Exits 0 when all is well, 1 when something is wrong.
    Doctor,
    /// Runs a view of an Obsidian base — a `.base` file, or a note with
    /// ```base blocks — on the index, as Obsidian would show it: the table
    /// (its rows paged), its groups and summaries. --format csv for a
    /// spreadsheet.
    Base {
        /// The `.base` file, or a note with ```base blocks (NOTE as above).
        #[arg(value_name = "FILE")]
        file: String,
        /// The view's name [default: the first].
        #[arg(long)]
        view: Option<String>,
        /// Which ```base block of the note, from 1.
        #[arg(long)]
        block: Option<usize>,
        /// Rows printed at most; the rest are counted, --offset goes on.
        #[arg(long, default_value_t = 500)]
        limit: usize,
        /// Rows skipped first.
        #[arg(long, default_value_t = 0)]
        offset: usize,
    },
    /// The vault's checklist tasks as the Obsidian Tasks plugin reads them
    /// (emoji or Dataview dates, priority, recurrence), filtered, sorted
    /// and grouped as the agent's `list_tasks` answers: each with its
    /// note's path and line. Dates take `before today`, `on or after
    /// 2024-05-01`, `this week`, `next month`, `none` or `any`.
    Tasks(Box<TasksArgs>),
    /// Broken, ambiguous and broken-fragment links, notes that did not
    /// parse cleanly and property values that do not fit their type, each
    /// with file:line. Exits 1 when it finds any.
    Check {
        /// Only check notes under this folder.
        #[arg(long, value_name = "FOLDER")]
        path_prefix: Option<String>,
    },
}

/// `weft tasks`' filters: `list_tasks`' arguments.
#[derive(Args, Debug)]
pub struct TasksArgs {
    /// not done (default), todo, in progress, on hold, done, cancelled,
    /// non task or any.
    #[arg(long)]
    pub status: Option<String>,
    /// The due date: `before today`, `this week`, `2024-05`, `none`…
    #[arg(long)]
    pub due: Option<String>,
    #[arg(long)]
    pub scheduled: Option<String>,
    #[arg(long)]
    pub start: Option<String>,
    /// The done date.
    #[arg(long)]
    pub done: Option<String>,
    #[arg(long)]
    pub created: Option<String>,
    /// Any of the start, scheduled and due dates.
    #[arg(long)]
    pub happens: Option<String>,
    /// Open tasks due before today.
    #[arg(long)]
    pub overdue: bool,
    /// `high`, `above medium`, `not none`…
    #[arg(long)]
    pub priority: Option<String>,
    /// A tag on the task's line (repeat for all of several).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// Words in the description.
    #[arg(long)]
    pub text: Option<String>,
    /// Words in the heading above the task.
    #[arg(long)]
    pub heading: Option<String>,
    /// Only recurring tasks (`--recurring true`) or only others (`false`).
    #[arg(long)]
    pub recurring: Option<bool>,
    /// Only notes in this folder.
    #[arg(long, value_name = "FOLDER")]
    pub folder: Option<String>,
    /// due, scheduled, start, created, done, priority, path, description
    /// [default: status, due, priority, path].
    #[arg(long)]
    pub sort: Option<String>,
    /// note (default), due, status, priority, tag, folder, heading or none.
    #[arg(long)]
    pub group_by: Option<String>,
    /// Tasks printed at most (up to 500); the rest are counted.
    #[arg(long, default_value_t = 500)]
    pub limit: usize,
    /// A Tasks plugin query in place of the filters: a note (`.md`: its
    /// ```tasks blocks), a file holding a query, or the query's text (one
    /// instruction a line).
    #[arg(long, value_name = "FILE_OR_TEXT")]
    pub query: Option<String>,
    /// Only this ```tasks block of the --query note (from 1).
    #[arg(long, requires = "query")]
    pub block: Option<usize>,
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Download a pinned model (ID as on Hugging Face, e.g.
    /// sentence-transformers/all-MiniLM-L6-v2) at its pinned revision into
    /// the user's cache, check every file's size and SHA-256 against the
    /// pinned ones, and print the folder; `[semantic] model = "ID"` then
    /// uses it. From `WEFT_MODEL_MIRROR` (a base URL) when set. A failed
    /// download keeps nothing.
    Fetch {
        #[arg(value_name = "ID")]
        id: String,
    },
    /// The pinned model ids, and whether each is in the cache.
    List,
}

#[derive(Subcommand, Debug)]
pub enum Query {
    /// Notes linking to NOTE, with line numbers and context. Works for a
    /// note that does not exist yet (an unresolved link target). The same
    /// answer as the MCP `backlinks` prompt.
    Backlinks {
        note: String,
        /// How many links at most.
        #[arg(long, default_value_t = weft_tools::query::BACKLINKS_LIMIT)]
        limit: usize,
    },
    /// Links going out of NOTE, resolved or not (as the MCP get_links tool).
    Links { note: String },
    /// The link neighbourhood of NOTE, both directions, as nodes and
    /// edges. The same answer as the MCP `graph` prompt.
    Graph {
        note: String,
        /// How many steps to walk (1 to 3).
        #[arg(long, default_value_t = weft_tools::query::GRAPH_DEPTH)]
        depth: u32,
        /// Stop after this many notes.
        #[arg(long, alias = "max-nodes", default_value_t = weft_tools::query::GRAPH_LIMIT)]
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
        #[arg(long, default_value_t = weft_tools::query::RELATED_LIMIT)]
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

/// `weft mcp` options.
#[derive(Debug, Clone, Default, clap::Args, serde::Serialize, serde::Deserialize)]
pub struct McpArgs {
    /// Offer only the read tools (also `[agent] read_only = true` in .weft.toml).
    #[arg(long)]
    pub read_only: bool,
    /// Which tools to offer: read, write (reads and changes that keep every
    /// note) or full.
    #[arg(long, value_enum, default_value_t = ToolSet::Full)]
    pub tools: ToolSet,
    /// The model for finding notes by meaning while the vault's .weft.toml
    /// names none (`[semantic] model`): a model folder (absolute, ~/ or
    /// vault-relative). The vault's index is shared by every face, so the
    /// last face to name one wins.
    #[arg(long, value_name = "MODEL")]
    #[serde(default)]
    pub semantic_model: Option<String>,
}

/// `weft mcp --http` options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HttpArgs {
    /// Serve over Streamable HTTP until stopped, not on stdin/stdout; prints
    /// the URL and the bearer token every request must carry.
    #[arg(long)]
    pub http: bool,
    /// The address to listen on; a non-loopback one needs --allow-remote.
    #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
    pub host: String,
    /// The port [default: a free one].
    #[arg(long, env = "WEFT_HTTP_PORT", default_value_t = 0)]
    pub port: u16,
    /// Allow listening on an address other machines can reach (anyone who
    /// reaches it and has the token can use the vault).
    #[arg(long)]
    pub allow_remote: bool,
    /// Also answer requests whose Host header names HOST (a proxy's name).
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// The bearer token [default: the one kept in the user's config folder,
    /// made on first use].
    #[arg(long, env = "WEFT_HTTP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Minutes after which an idle session ends.
    #[arg(long, default_value_t = 60, value_name = "MINUTES")]
    pub session_idle: u64,
}

impl McpArgs {
    /// The tool profile these options ask for.
    /// Offers `--semantic-model` to the vault's hub at `root`.
    pub fn offer_model(&self, root: &std::path::Path) {
        if let Some(model) = &self.semantic_model
            && let Ok(hub) = weft_workspace::hub::Hub::get(root)
        {
            hub.set_semantic_default(model);
        }
    }

    pub fn profile(&self) -> Profile {
        Profile {
            read_only: self.read_only,
            tools: self.tools,
        }
    }
}
