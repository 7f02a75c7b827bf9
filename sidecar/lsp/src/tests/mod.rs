//! In-process language server tests: the whole server over a
//! `tokio::io::duplex` pipe, driven by a small JSON-RPC client written
//! here, on inline fixture vaults (`//- /path` starts a file) written to a
//! temporary folder. Waits poll with generous deadlines; nothing asserts on
//! timing.

mod code_action;
mod completion;
mod config;
mod definition;
mod diagnostics;
mod encoding;
mod features;
mod protocol;
mod references;
mod rename;
mod tasks;

#[allow(unused_imports)]
use crate::convert::Encoding;
#[allow(unused_imports)]
use crate::testing::*;
