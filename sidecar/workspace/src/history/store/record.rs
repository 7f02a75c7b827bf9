//! Recording commits on Weft's branch: the changes of a write operation,
//! changes seen on disk (read from the vault, those history already has left
//! out), and a snapshot of the whole vault; retried while another writer
//! moves the branch.
//!
//! Knows what to commit, not how trees are rebuilt (`tree`) nor how
//! messages carry Weft's trailers (`message`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::Duration;

use git2::{Commit, ErrorCode, ObjectType, Oid, Signature, Tree};

use super::message::{Origin, compose_message};
use super::tree::{already_holds, apply_updates};
use super::{BRANCH, Store, short_id, vault_path};
use crate::history::changes::blob_entry;
use crate::history::error::HistoryError;
use crate::history::model::{Change, CommitId};
use crate::io::pool;
use weft_vault::note::is_note_path;

/// The e-mail of every signature Weft writes.
const EMAIL: &str = "weft@localhost";
/// The committer of every commit.
const COMMITTER: &str = "weft";
/// Author of changes seen on disk, when the caller names none.
const EXTERNAL_AUTHOR: &str = "external";

/// How long a commit keeps being retried while another writer (another
/// Weft on the same vault, another thread) holds or moves the branch. A
/// count of tries is not a bound that holds on a loaded machine: the writer
/// holding the branch's lock may not run for a while.
pub(super) const COMMIT_PATIENCE: Duration = Duration::from_secs(10);

#[cfg(test)]
thread_local! {
    /// Run once on this thread, the next time a commit is about to move
    /// the branch: tests make another writer move it first.
    pub(in crate::history) static BEFORE_MOVING_BRANCH: std::cell::RefCell<Option<Box<dyn FnOnce()>>> =
        const { std::cell::RefCell::new(None) };
}

impl Store {
    fn head(&self) -> Result<Option<Commit<'_>>, HistoryError> {
        match self.head_id()? {
            Some(id) => self
                .repo
                .find_commit(id)
                .map(Some)
                .map_err(HistoryError::git("reading the last history commit")),
            None => Ok(None),
        }
    }

    /// The empty tree, written only when the store lacks it (writing a
    /// known object touches it, see `already_holds`).
    fn empty_tree(&self) -> Result<Tree<'_>, HistoryError> {
        let failed = HistoryError::git("writing the empty tree");
        let known = Oid::hash_object(ObjectType::Tree, b"").map_err(failed)?;
        let stored = self.repo.odb().map_err(failed)?.exists(known);
        let id = if stored {
            known
        } else {
            self.repo
                .treebuilder(None)
                .and_then(|b| b.write())
                .map_err(failed)?
        };
        self.repo.find_tree(id).map_err(failed)
    }

    /// Stores `bytes` as a blob, unless the store has it already: libgit2
    /// writes a known object to a temporary file, touches the stored one
    /// and removes the file, which for a vault recorded again at start
    /// (every note unchanged) is 169k files made and removed in the vault's
    /// `.weft` folder, each a burst of file events for the watcher.
    fn blob(&self, bytes: &[u8]) -> Result<Oid, HistoryError> {
        let stored = HistoryError::git("storing a note's content");
        let id = Oid::hash_object(ObjectType::Blob, bytes).map_err(stored)?;
        if self.repo.odb().map_err(stored)?.exists(id) {
            return Ok(id);
        }
        self.repo.blob(bytes).map_err(stored)
    }

    /// Records `changes` as one commit on top of the last one.
    pub fn record(
        &mut self,
        changes: &[Change<'_>],
        author: &str,
        message: &str,
        origin: Origin,
    ) -> Result<Option<CommitId>, HistoryError> {
        if changes.is_empty() {
            return Ok(None);
        }
        // Everything is checked before anything is written.
        let mut checked = Vec::with_capacity(changes.len());
        for change in changes {
            checked.push(match *change {
                Change::Write { path, bytes } => (None, Some(vault_path(path)?), Some(bytes)),
                Change::Delete { path } => (Some(vault_path(path)?), None, None),
                Change::Move { from, to, bytes } => {
                    (Some(vault_path(from)?), Some(vault_path(to)?), Some(bytes))
                }
            });
        }
        self.check()?;
        let _writing = self.write_guard()?;
        let mut updates: BTreeMap<String, Option<Oid>> = BTreeMap::new();
        let mut moves = Vec::new();
        for (from, to, bytes) in checked {
            if let Some(from) = &from {
                updates.insert(from.clone(), None);
            }
            if let (Some(to), Some(bytes)) = (&to, bytes) {
                updates.insert(to.clone(), Some(self.blob(bytes)?));
            }
            if let (Some(from), Some(to)) = (from, to) {
                moves.push((from, to));
            }
        }
        let author = match (author.trim().is_empty(), origin) {
            (true, Origin::External) => EXTERNAL_AUTHOR,
            _ => author,
        };
        let text = compose_message(message, origin, &moves);
        self.commit(&updates, false, author, &text)
    }

    /// Records changes seen on disk: `files` are (vault path, content or
    /// `None` when gone); those history already has are left out, and the
    /// message names the rest.
    pub(crate) fn record_external(
        &mut self,
        files: &[(String, Option<Vec<u8>>)],
    ) -> Result<Option<CommitId>, HistoryError> {
        self.check()?;
        let tree = match self.head()? {
            Some(head) => Some(
                head.tree()
                    .map_err(HistoryError::git("reading the last history tree"))?,
            ),
            None => None,
        };
        let mut changes = Vec::new();
        for (path, bytes) in files {
            let Ok(normal) = vault_path(path) else {
                continue;
            };
            let known = tree.as_ref().and_then(|t| blob_entry(t, &normal));
            let changed = match (bytes, known) {
                (None, known) => known.is_some(),
                (Some(bytes), Some((id, _))) => {
                    Oid::hash_object(ObjectType::Blob, bytes).ok() != Some(id)
                }
                (Some(_), None) => true,
            };
            if changed {
                changes.push(match bytes {
                    Some(bytes) => Change::Write { path, bytes },
                    None => Change::Delete { path },
                });
            }
        }
        if changes.is_empty() {
            return Ok(None);
        }
        drop(tree);
        let message = external_message(changes.iter().map(|c| match c {
            Change::Write { path, .. } | Change::Delete { path } => *path,
            Change::Move { to, .. } => *to,
        }));
        self.record(&changes, EXTERNAL_AUTHOR, &message, Origin::External)
    }

    /// Records the vault's complete state (see `History::snapshot_all`).
    pub fn snapshot_all<P, B>(
        &mut self,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Option<CommitId>, HistoryError>
    where
        P: AsRef<str>,
        B: AsRef<[u8]>,
    {
        self.check()?;
        let _writing = self.write_guard()?;
        let mut updates: BTreeMap<String, Option<Oid>> = BTreeMap::new();
        for (path, bytes) in files {
            let path = vault_path(path.as_ref())?;
            updates.insert(path, Some(self.blob(bytes.as_ref())?));
        }
        let first = self.head_id()?.is_none();
        let count = updates.len();
        let (author, message, origin) = if first {
            let message = match &self.lost {
                Some(lost) => format!(
                    "baseline: the vault when Weft started its history again ({count} files); \
                     the versions before {} were lost",
                    lost.at
                ),
                None => format!("baseline: the vault as Weft first found it ({count} files)"),
            };
            (COMMITTER, message, Origin::Baseline)
        } else {
            (
                EXTERNAL_AUTHOR,
                format!("external: changes found by a full snapshot of the vault ({count} files)"),
                Origin::External,
            )
        };
        let text = compose_message(&message, origin, &[]);
        self.commit(&updates, true, author, &text)
    }

    /// Commits the last tree with `updates` applied (or, with `replace_all`,
    /// the tree of exactly `updates`), unless nothing changes. Retries when
    /// another process moved the branch meanwhile.
    fn commit(
        &self,
        updates: &BTreeMap<String, Option<Oid>>,
        replace_all: bool,
        author: &str,
        message: &str,
    ) -> Result<Option<CommitId>, HistoryError> {
        let author = signature(author)?;
        let committer = signature(COMMITTER)?;
        let started = std::time::Instant::now();
        let mut attempt: u64 = 0;
        loop {
            attempt += 1;
            let parent = self.head()?;
            if let Some(parent) = &parent {
                let last = parent
                    .tree()
                    .map_err(HistoryError::git("reading the last history tree"))?;
                if already_holds(&last, updates, replace_all) {
                    return Ok(None);
                }
            }
            let base = match (&parent, replace_all) {
                (Some(parent), false) => parent
                    .tree()
                    .map_err(HistoryError::git("reading the last history tree"))?,
                _ => self.empty_tree()?,
            };
            let tree_id = apply_updates(&self.repo, &base, updates)?;
            let unchanged = match &parent {
                Some(parent) => parent.tree_id() == tree_id,
                None => tree_id == self.empty_tree()?.id(),
            };
            if unchanged {
                return Ok(None);
            }
            let tree = self
                .repo
                .find_tree(tree_id)
                .map_err(HistoryError::git("reading the new tree"))?;
            let parents: Vec<&Commit<'_>> = parent.iter().collect();
            let id = self
                .repo
                .commit(None, &author, &committer, message, &tree, &parents)
                .map_err(HistoryError::git("writing a history commit"))?;
            // Compare-and-swap under the branch's lock. For the first
            // commit the expected value is the zero id, "must not exist":
            // libgit2 checks `force = false` before taking the lock, so two
            // writers creating the branch at once could both succeed and
            // the first commit be lost.
            let expected = parent.as_ref().map_or(Oid::ZERO_SHA1, Commit::id);
            #[cfg(test)]
            if let Some(hook) = BEFORE_MOVING_BRANCH.with(|hook| hook.borrow_mut().take()) {
                hook();
            }
            let moved = self
                .repo
                .reference_matching(BRANCH, id, true, expected, "weft");
            match moved {
                Ok(_) => {
                    let short_id = short_id(&self.repo, id);
                    return Ok(Some(CommitId {
                        id: id.to_string(),
                        short_id,
                    }));
                }
                Err(e)
                    if started.elapsed() < COMMIT_PATIENCE
                        && matches!(
                            e.code(),
                            ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked
                        ) =>
                {
                    // Another writer committed first (or is committing):
                    // redo on top of its commit.
                    std::thread::sleep(Duration::from_millis((attempt * 2).min(50)));
                }
                Err(e) => return Err(HistoryError::git("moving the history branch")(e)),
            }
        }
    }
}

fn signature(name: &str) -> Result<Signature<'static>, HistoryError> {
    // git forbids `<`, `>` and line breaks in names.
    let clean: String = name
        .chars()
        .filter(|c| !matches!(c, '<' | '>' | '\n' | '\r' | '\0'))
        .collect();
    let clean = clean.trim();
    let clean = if clean.is_empty() { "unknown" } else { clean };
    Signature::now(clean, EMAIL).map_err(HistoryError::git("making a commit signature"))
}

/// Reads the notes at `paths` for an external snapshot: content, or `None`
/// when the file is gone. Paths that are not notes, folders and unreadable
/// files are skipped (an unreadable file must not be recorded as deleted).
pub(crate) fn read_external(vault_root: &Path, paths: &[String]) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out: Vec<(String, Option<Vec<u8>>)> = Vec::new();
    let unique: BTreeSet<&String> = paths.iter().collect();
    let notes: Vec<&String> = unique
        .into_iter()
        .filter(|path| is_note_path(path) && vault_path(path).is_ok())
        .collect();
    let read = pool::map(&notes, |path| {
        let abs = vault_root.join(path);
        (fs::read(&abs), abs)
    });
    for (path, (read, abs)) in notes.into_iter().zip(read) {
        match read {
            Ok(bytes) => out.push((path.clone(), Some(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.push((path.clone(), None)),
            Err(e) if abs.is_dir() => {
                let _ = e; // A folder named like a note: its notes come one by one.
            }
            Err(e) => tracing::warn!("history: cannot read {path}: {e}; not recorded"),
        }
    }
    out
}

/// `external: a.md` or `external: 3 notes (a.md, b.md, c.md)`.
fn external_message<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    let paths: Vec<&str> = paths.collect();
    match paths.as_slice() {
        [one] => format!("external: {one}"),
        many => {
            let shown: Vec<&str> = many.iter().take(5).copied().collect();
            let more = many.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "external: {} notes ({}{tail})",
                many.len(),
                shown.join(", ")
            )
        }
    }
}
