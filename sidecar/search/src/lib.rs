//! Full-text search over the vault: a tantivy index (one document per note,
//! kept in step note by note; in memory, or on disk to be reused by the
//! next start), the query language, THE note
//! filter compiled (`filter`), snippets, cursors, related notes (more-like-this with link and
//! tag signals) and evidence passages.
//!
//! Above the domain (`weft-vault`) only. Protocol-free: the agent's tools
//! call it and format its answers. It must not know MCP, LSP or JSON-RPC,
//! the disk layout or the hub; it reads note files only through a
//! [`FileSource`].

pub mod clock;
pub mod dates;
pub mod disk;
pub mod filter;
pub mod find;
#[cfg(any(test, feature = "test-support"))]
pub mod fixture;
pub mod index;
pub mod names;
pub mod passages;
pub mod persist;
pub mod query;
pub mod related;
pub mod schema;

pub use disk::DiskFiles;
pub use filter::Judge;
pub use find::{FindError, Hit, Page, Request, Sort};
pub use index::{Change, DocSource, FileSource, NoteFile, NoteMeta, SearchError, SearchIndex};
pub use persist::Unusable;
pub use query::{Expr, QueryError};

#[cfg(test)]
mod persist_tests;
#[cfg(test)]
mod tests;
