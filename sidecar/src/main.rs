//! The `weft` binary: parses the command line and hands over to `weft::cli`.
//! Logs go to stderr only (stdout carries answers and protocols).

use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    weft::cli::main()
}
