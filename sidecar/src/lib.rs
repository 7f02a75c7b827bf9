//! Weft: a vault of Markdown notes with `[[wikilinks]]` as one live index.
//!
//! `vault` is the domain (parse, resolve, index, queries) and does no IO;
//! `io` loads and watches a vault on disk; `cli` is the command line face.
//! Protocol faces (`lsp`, `mcp`) are thin adapters over `vault`.

pub mod access;
pub mod answer;
pub mod args;
pub mod cli;
pub mod config;
#[cfg(unix)]
pub mod daemon;
pub mod history;
pub mod hub;
pub mod io;
pub mod lsp;
pub mod mcp;
pub mod ops;
pub mod search;
pub mod testkit;
pub mod tools;
pub mod vault;
pub mod wire;
