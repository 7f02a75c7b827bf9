//! The MCP server (`weft mcp`): the vault's tools, prompts and resources
//! for agents, over stdio or Streamable HTTP ([`http`]) (rmcp). A thin adapter: each tool (`tools/`, one
//! file each) declares its description, schemas and annotations and calls
//! the tool's answer in `weft_tools`; prompts and resources are built
//! from the same answers.
//!
//! Must not know the language server or the command line, and computes no
//! answer itself; everything rmcp stays here.

mod boundary;
mod format;
pub mod http;
mod prompts;
mod resources;
mod schema;
mod server;
mod tools;

#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "test-support"))]
pub mod testing;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::ServiceExt;

use boundary::Boundary;
use weft_wire::Framing;

pub use server::Server;
pub use weft_tools::{Phase, Profile, StartError, ToolSet, ToolState};

/// The vault folder: `vault` (from `--vault`), else `WEFT_VAULT`, else the
/// working directory.
pub fn vault_root(vault: Option<PathBuf>) -> Result<PathBuf, StartError> {
    if let Some(vault) = vault {
        return Ok(vault);
    }
    if let Some(env) = std::env::var_os("WEFT_VAULT").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(env));
    }
    std::env::current_dir().map_err(|e| {
        StartError(format!(
            "cannot tell the working directory ({e}); pass the vault with --vault DIR"
        ))
    })
}

/// Why serving ended badly.
#[derive(Debug)]
pub struct ServeError(pub String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Serves one MCP session over `input`/`output` until the client leaves;
/// starts loading the vault if it has not started. Messages over
/// [`weft_wire::MAX_MCP_MESSAGE`] are refused before they reach the
/// server, and a request whose handler panics is answered with an error.
pub async fn serve<I, O>(state: Arc<ToolState>, input: I, output: O) -> Result<(), ServeError>
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite + Unpin,
{
    state.start();
    let server = Boundary::new(Server::new(state, tools::router()));
    weft_wire::guarded(Framing::Mcp, input, output, |input, output| async move {
        let running = server
            .serve((input, output))
            .await
            .map_err(|e| ServeError(format!("the MCP session did not start: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError(format!("the MCP session ended abnormally: {e}")))?;
        Ok(())
    })
    .await
}

/// `weft mcp`: serves the vault over stdin/stdout until the client closes
/// them. Logs go to stderr.
pub fn run_stdio(vault: Option<PathBuf>, profile: Profile) -> ExitCode {
    let state = match vault_root(vault).and_then(|root| ToolState::open(&root, profile)) {
        Ok(state) => state,
        Err(e) => {
            eprintln!("weft mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("weft mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(serve(state, tokio::io::stdin(), tokio::io::stdout()));
    // The watcher and blocking tasks must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("weft mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
