//! The two parties an operation answers to besides its caller: the log
//! that records what it wrote ([`WriteLog`], history) and the guard that
//! refuses to write over text not on disk yet ([`WriteGuard`], editors'
//! buffers).
//!
//! Only the contracts live here, so that operations need not know history
//! or the hub, which implement them (and import `ops`, not the other way).

use super::error::OpError;

/// One file an operation wrote, as it is now on disk (for history).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Created or rewritten.
    Write { path: String, bytes: Vec<u8> },
    /// Moved or renamed; `bytes` is its content at `to` (a move may rewrite
    /// relative links).
    Move {
        from: String,
        to: String,
        bytes: Vec<u8>,
    },
    /// Deleted (moved to the trash).
    Delete { path: String },
}

/// Receives what each operation wrote, once it is on disk and indexed:
/// history records it as one commit (`actor` as the author, `tool: path` as
/// the message). Also called with the steps done when an operation stops
/// part way, since they are on disk. Errors are the log's own business.
pub trait WriteLog: Send + Sync {
    fn record(&self, actor: &str, tool: &str, path: &str, written: &[Written]);
}

/// Stands between an operation and text that is not on disk yet: an
/// editor's unsaved buffer is never overwritten.
pub trait WriteGuard: Send + Sync {
    /// Fails when `path` (a note, or with `folder` everything under it) has
    /// unsaved changes somewhere.
    fn check(&self, path: &str, folder: bool) -> Result<(), OpError>;
    /// These vault paths were just written, and the index takes them next:
    /// buffers holding them (all saved, by [`WriteGuard::check`]) are now
    /// older than the disk.
    fn written(&self, paths: &[String]);
}
