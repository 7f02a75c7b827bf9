//! Weft's domain, the bottom crate: notes and their parse, names and keys,
//! the one resolver, the index, queries (backlinks, graph, check, stats),
//! text and frontmatter edits, completion, link rewriting and relatedness.
//!
//! Nothing here does IO or knows any protocol (LSP, MCP, JSON-RPC), async
//! runtime or full-text engine; it imports no other Weft crate. Offsets are
//! byte offsets into a note's text; lines are 0-based.

pub mod complete;
pub mod daily;
pub mod date;
pub mod digest;
pub mod edit;
pub mod filter;
#[cfg(any(test, feature = "test-support"))]
pub mod fixture;
pub mod frontmatter;
pub mod graph;
pub mod headings;
pub mod index;
pub mod js_regex;
pub mod key;
pub mod lines;
pub mod matcher;
pub mod note;
pub mod parse;
pub mod props;
pub mod query;
pub mod related;
pub mod report;
pub mod resolve;
pub mod rewrite;
pub mod scan;
pub mod stamp;
pub mod symbols;
pub mod tags;
pub mod tasks;
pub mod template;
pub mod yaml;

pub use index::{LinkRef, NoteId, VaultIndex};
pub use note::{Block, Heading, Link, LinkKind, Note, TagUse};
pub use parse::{MAX_NOTE_BYTES, parse_file, parse_note};
pub use resolve::{FragmentLookup, FragmentTarget, Resolution, lookup_fragment, resolve_fragment};

#[cfg(test)]
mod tests;
