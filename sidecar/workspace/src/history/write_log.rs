//! History as the write layer's log: each `ops` operation (a move that
//! rewrites links in forty notes included) becomes one commit, authored by
//! the actor, with the message `tool: path`.
//!
//! Failing to record must never fail the write, which is already on disk:
//! errors are logged and the operation goes on. Only notes are kept, as
//! for changes seen on disk.

use super::{Change, History, Source};
use crate::ops::{WriteLog, Written};
use weft_vault::note::is_note_path;

impl WriteLog for History {
    fn record(&self, actor: &str, tool: &str, path: &str, written: &[Written]) {
        if !self.is_enabled() {
            return;
        }
        let changes = changes_of(written);
        if changes.is_empty() {
            return;
        }
        let message = format!("{tool}: {path}");
        if let Err(e) = History::record(self, &changes, actor, &message, Source::Tool) {
            tracing::error!("note history: recording `{message}` failed: {e}");
        }
    }
}

/// The history changes of what an operation wrote. A file that stops or
/// starts being a note in a move is a deletion or a creation.
fn changes_of(written: &[Written]) -> Vec<Change<'_>> {
    let mut changes = Vec::with_capacity(written.len());
    for w in written {
        match w {
            Written::Write { path, bytes } if is_note_path(path) => {
                changes.push(Change::Write { path, bytes })
            }
            Written::Delete { path } if is_note_path(path) => changes.push(Change::Delete { path }),
            Written::Move { from, to, bytes } => match (is_note_path(from), is_note_path(to)) {
                (true, true) => changes.push(Change::Move { from, to, bytes }),
                (true, false) => changes.push(Change::Delete { path: from }),
                (false, true) => changes.push(Change::Write { path: to, bytes }),
                (false, false) => {}
            },
            _ => {}
        }
    }
    changes
}
