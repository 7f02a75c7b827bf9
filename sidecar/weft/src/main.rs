//! The `weft` binary: the command line (`args`, `cli`), its one-shot
//! answers (`answer`) and the per-vault index daemon (`daemon`) that serves
//! every editor, agent and query of a vault. The faces themselves are the
//! `weft-lsp` and `weft-mcp` crates; the agent's answers `weft-tools`.
//! Logs go to stderr only (stdout carries answers and protocols).

mod answer;
mod args;
mod cli;
#[cfg(unix)]
mod daemon;
mod doctor;
mod http;
#[cfg(unix)]
mod memory;

use std::process::ExitCode;

/// mimalloc rather than the system allocator: the index is millions of
/// small allocations made on several threads at once (a snapshot decoded
/// and a vault parsed in parallel). With glibc's allocator a restart of
/// 169k notes took 1.6-2 times as long and kept a quarter more memory.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    #[cfg(target_os = "linux")]
    memory::no_huge_pages();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    cli::main()
}
