//! `weft lsp`: the language server, a thin adapter over the vault domain.
//!
//! [`server`] holds the tower-lsp-server `LanguageServer` whose handlers
//! convert in, call the domain and convert out; one module per feature does
//! the converting; [`convert`] is the only place that knows positions and
//! URIs; [`world`] holds the vaults, open buffers and caches. Above the
//! domain and the workspace (the hub); must not know the MCP server, the
//! agent's tools or the CLI, and nothing below knows it.

mod code_action;
mod code_lens;
mod completion;
pub mod convert;
mod definition;
mod diagnostics;
mod document_link;
mod edit;
mod folding;
mod handshake;
mod hover;
mod lifecycle;
mod loading;
mod positions;
mod ready;
mod references;
mod rename;
mod semantic_tokens;
mod server;
mod symbols;
mod task_action;
mod task_query;
mod vault;
mod world;

#[cfg(test)]
mod tests;

#[cfg(any(test, feature = "test-support"))]
pub mod testing;

use std::path::PathBuf;
use std::process::ExitCode;

pub use server::Server;

use weft_wire::Framing;

/// Serves the language server protocol over `input`/`output` until the
/// client sends `exit` or closes the input. The vault is `vault_override`,
/// else each workspace folder (or the root URI) the client names. Messages
/// over [`weft_wire::MAX_LSP_MESSAGE`] are refused before they reach the
/// server, and a request whose handler panics is answered with an error.
pub async fn serve<I, O>(input: I, output: O, vault_override: Option<PathBuf>)
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite + Unpin,
{
    serve_waiting(input, output, vault_override, world::INDEX_WAIT).await;
}

/// [`serve`] with requests waiting at most `index_wait` for the index
/// (tests make it short).
pub(crate) async fn serve_waiting<I, O>(
    input: I,
    output: O,
    vault_override: Option<PathBuf>,
    index_wait: std::time::Duration,
) where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite + Unpin,
{
    weft_wire::guarded(Framing::Lsp, input, output, |input, output| async move {
        let (service, socket) = server::service(vault_override, index_wait);
        tower_lsp_server::Server::new(input, output, socket)
            .serve(server::CatchPanics::new(service))
            .await;
    })
    .await;
}

pub fn run_stdio(vault_override: Option<PathBuf>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("weft lsp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        vault_override,
    ));
    // Blocking tasks (a vault still loading) must not keep the process up.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    ExitCode::SUCCESS
}
