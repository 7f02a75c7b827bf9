//! A vault on disk, shared by every session of a process: its configuration
//! (`config`, reloaded live), the one rule of what an agent may see and
//! change (`access`), loading and watching the files into one live index
//! (`io`), the write operations (`ops`), the note history (`history`) and
//! the hub that holds one vault's live state for every editor, agent and
//! query (`hub`), the user's XDG folders (`dirs`), and locks that outlive
//! a panic (`sync`).
//!
//! Above the domain (`weft-vault`) and the full text (`weft-search`);
//! knows no protocol (LSP, MCP, JSON-RPC) and no face. Each module's `//!`
//! says what it must not know.

pub mod access;
pub mod config;
pub mod dirs;
#[cfg(any(test, feature = "test-support"))]
pub mod fixture;
pub mod history;
pub mod hub;
pub mod io;
pub mod ops;
pub mod sync;
