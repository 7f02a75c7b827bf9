//! The per-vault index daemon (the `gopls -remote=auto` model): `weft lsp`,
//! `weft mcp` and `weft query` are *faces* that connect to their vault's
//! daemon over a Unix socket, starting it if none answers, and forward their
//! standard input and output to it; the daemon runs one protocol session per
//! connection over the vault's one [`weft_workspace::hub::Hub`], so the editor, the
//! agent and the slash commands share one index.
//!
//! - [`place`]: the private runtime folder and the socket's name (vault
//!   path, version and build: two versions never talk to each other).
//! - [`server`]: `weft daemon`: accepts connections from our own user only,
//!   runs sessions, exits when idle or when its vault or socket is gone.
//! - [`face`]: forward a session, and when the daemon dies start another
//!   and replay the session ([`replay`]); `connect` finds or starts the
//!   daemon (one even when faces start at once), or serves in-process when
//!   no daemon can be had.
//!
//! A connection starts with one JSON line from the face ([`Hello`]) and one
//! from the daemon ([`Welcome`]); then the protocol's bytes flow, or for a
//! query one JSON line answers ([`answer::Answer`]):
//!
//! ```text
//! → {"weft":"0.1.0-1a2b3c4d","vault":"/home/me/notes","face":{"kind":"mcp","args":{…}},"warm":false}
//! ← {"ok":true}                      (or {"ok":false,"error":"…"}, then the daemon hangs up)
//! ```
//!
//! An HTTP face (`weft mcp --http`) gets `"listening"` (the address) in its welcome; the daemon
//! serves HTTP until that connection closes, and nothing else flows on it.

pub mod answer;
mod connect;
pub mod face;
pub mod place;
pub mod replay;
pub mod server;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::args::McpArgs;

/// How long a daemon stays without connections unless told otherwise.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(120);

/// The face's first line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    /// The face's [`place::build_tag`]; the daemon refuses another build.
    pub weft: String,
    /// The vault (canonical) the face wants.
    pub vault: PathBuf,
    pub face: Face,
    /// The face is resuming a session whose daemon died: the daemon
    /// welcomes it once the vault is loaded as the session needs (at most
    /// [`WARM_TIMEOUT`]), so the client sees a delay, not an index being
    /// rebuilt.
    #[serde(default)]
    pub warm: bool,
}

/// How long a resuming face's welcome may wait for the vault to load.
pub const WARM_TIMEOUT: Duration = Duration::from_secs(60);

/// Which session a connection runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Face {
    /// A language server session; `vault_override` as `weft lsp --vault`.
    Lsp {
        vault_override: bool,
    },
    Mcp {
        args: McpArgs,
    },
    /// A command line (`argv` with the program name), answered once.
    Query {
        argv: Vec<String>,
    },
    /// The MCP server over Streamable HTTP, served by the daemon for as
    /// long as the face stays connected; the welcome says where it listens.
    Http {
        args: McpArgs,
        serve: crate::http::HttpServe,
    },
}

/// The daemon's first line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Welcome {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the daemon listens for an HTTP face.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listening: Option<std::net::SocketAddr>,
}

/// Resolves when the other end of `connection` has closed it (an HTTP face
/// and its daemon send nothing after the welcome: a read ends with the
/// connection).
pub async fn until_closed(connection: &mut (impl tokio::io::AsyncRead + Unpin)) {
    use tokio::io::AsyncReadExt;
    let mut sink = [0u8; 64];
    while matches!(connection.read(&mut sink).await, Ok(n) if n > 0) {}
}

/// The idle time a face gives a daemon it starts: `WEFT_DAEMON_IDLE`
/// (seconds), else [`DEFAULT_IDLE`].
pub fn idle_from_env() -> Duration {
    std::env::var("WEFT_DAEMON_IDLE")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_IDLE, Duration::from_secs)
}
