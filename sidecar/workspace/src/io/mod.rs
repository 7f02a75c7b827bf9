//! The vault on disk: load it ([`scan`]), keep one live index equal to it
//! ([`LiveVault`]), follow changes made outside Weft ([`Watcher`]), write
//! safely ([`write_atomic`]), and do file IO in bulk on one pool (`pool`,
//! for every module of the crate).
//!
//! This is the only bridge between the file system and the domain: `vault`
//! does no IO, and this module must not know any protocol (LSP, MCP,
//! JSON-RPC) or async runtime. Paths handed to the domain are vault-relative
//! with `/` separators.

mod filter;
mod live;
mod load;
pub(crate) mod pool;
pub mod snapshot;
mod watch;
mod write;

pub use filter::{PathFilter, relative_path};
pub use live::{LiveVault, LoadStatus, OpenError};
pub use load::{Scan, scan};
pub use watch::{DEBOUNCE, WatchError, Watcher};
pub(crate) use write::{MAX_NAME_BYTES, checked_path};
pub use write::{PathError, write_atomic};
pub(crate) use write::{make_below, move_unsynced, sync_dirs};
