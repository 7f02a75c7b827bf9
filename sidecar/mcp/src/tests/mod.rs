//! MCP sessions in process: the server over a tokio duplex pipe, driven by
//! rmcp's client, on fixture vaults written to a temporary folder
//! (`//- /path.md` starts a file). Every successful tool result's
//! structured content is checked against the tool's declared output schema.

mod config;
mod history;
mod history_lost;
mod privacy;
mod protocol;
mod tools;
mod writes;

#[allow(unused_imports)]
use crate::Phase;
#[allow(unused_imports)]
use crate::testing::*;
