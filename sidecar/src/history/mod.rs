//! Note history: every change to the vault recorded as a commit in Weft's own
//! git repository (default `.weft/history.git`, bare, its work tree the
//! vault), listed, read, diffed and planned for restore — and, read only, the
//! commits of the vault's own git repository when it has one.
//!
//! This module must not know any protocol (MCP, LSP, JSON-RPC) or async
//! runtime, nor how the index works: callers hand it the bytes they wrote.
//! It never touches the vault's own repository (HEAD, refs, index, config,
//! work tree) and never checks anything out: trees are built in memory from
//! the previous commit's tree, updating only the changed paths, so a commit
//! costs the same in a vault of 100 notes or of 100,000.
//!
//! Layout: `store` opens or creates the repository and records commits;
//! `changes` compares two trees (cost follows the change) and pairs renames;
//! `walk` lists versions (following renames), resolves ids and reads old
//! content; `diff` compares versions as text; `bench` times commits;
//! `write_log` records what the write operations (`ops`) wrote.

mod bench;
mod changes;
mod diff;
mod error;
mod store;
mod walk;
mod write_log;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, FixedOffset, Utc};
use serde::Serialize;

use crate::config::{HistoryConfig, HistoryMode};
use crate::io::LiveVault;
use crate::vault::Note;
use crate::vault::parse::parse_note;

pub use bench::{HistoryBenchOptions, HistoryBenchReport, bench_commits, bench_commits_with};
pub use error::HistoryError;

use store::{Origin, Store};

/// One change to record, in vault paths (`folder/note.md`, `/`-separated).
/// Bytes are the file's complete new content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    /// A file created or rewritten.
    Write { path: &'a str, bytes: &'a [u8] },
    /// A file removed (deleting a folder path removes everything under it).
    Delete { path: &'a str },
    /// A file moved or renamed; `bytes` is its content at `to` (a move may
    /// rewrite relative links). Recorded so that listings follow the note.
    Move {
        from: &'a str,
        to: &'a str,
        bytes: &'a [u8],
    },
}

/// Who made a recorded change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A Weft tool (the author is the client's name).
    Tool,
    /// Something outside Weft (an editor, a sync tool), seen on disk.
    External,
}

/// Where a listed version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionSource {
    /// Weft's history, written by a Weft tool.
    Weft,
    /// Weft's history, a change made outside Weft (or the first snapshot).
    External,
    /// The vault's own git repository (read only).
    VaultGit,
}

/// How a version changed a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    /// Moved from `from` (its text may have changed too).
    Renamed,
}

/// One path a version changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PathChange {
    pub kind: ChangeKind,
    /// The vault path after the change (for a deletion, the deleted path).
    pub path: String,
    /// Renamed: the vault path before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// One version (commit) in a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The full commit id (hex).
    pub id: String,
    /// The shortest unambiguous prefix, at least 7 characters.
    pub short_id: String,
    /// When the change was made (author time, with its UTC offset).
    pub time: DateTime<FixedOffset>,
    pub author: String,
    /// The commit message without Weft's trailers.
    pub message: String,
    pub source: VersionSource,
    /// In a note's listing (and when reading): the note's vault path in this
    /// version, which differs from today's after a rename.
    pub path_at_version: Option<String>,
    /// In a note's listing: the note's own change. In the vault listing:
    /// the paths the version changed, at most [`MAX_LISTED_CHANGES`].
    pub changes: Vec<PathChange>,
    /// How many paths the version changed (`changes` may list fewer).
    pub changes_total: usize,
}

/// The most paths one version lists in the vault listing.
pub const MAX_LISTED_CHANGES: usize = 100;

/// A page of a listing; `next_cursor` continues it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Pass back to get the next page; `None` at the end.
    pub next_cursor: Option<String>,
}

/// A recorded commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitId {
    pub id: String,
    pub short_id: String,
}

/// A note as it was in one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVersion {
    pub version: Version,
    /// The note's vault path in that version.
    pub path: String,
    pub bytes: Vec<u8>,
    /// `bytes` as text (invalid UTF-8 replaced).
    pub text: String,
}

impl NoteVersion {
    /// The note's metadata (frontmatter, title, tags, links, headings) as it
    /// was in this version.
    pub fn note(&self) -> Note {
        parse_note(&self.path, &self.bytes)
    }
}

/// What a restore writes: the old content and where the note was then. The
/// write itself (atomic, indexed, recorded as a new version) belongs to the
/// caller; history is never rewritten.
pub type RestorePlan = NoteVersion;

/// The newer side of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffTarget<'a> {
    /// A version id (full or short; `weft:` or `git:` may qualify it).
    Version(&'a str),
    /// The note's current text, as the caller read it.
    Current(&'a str),
}

/// A unified diff between two versions of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffResult {
    /// Headers `a/<path>@<short id>` and `b/<path>@<short id>` (or
    /// `@current`), `/dev/null` for a side where the note did not exist;
    /// three lines of context. Empty when the texts are equal.
    pub unified: String,
    pub additions: usize,
    pub deletions: usize,
    pub from: Version,
    /// `None` for the current text.
    pub to: Option<Version>,
    /// The note's path on each side (`None`: it did not exist there).
    pub from_path: Option<String>,
    pub to_path: Option<String>,
}

/// Whether history is recording, for status reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryStatus {
    /// `weft` (recording), `off` (configured off) or `unavailable`.
    pub mode: &'static str,
    /// The store, when recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Why history is not recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The vault's own git repository (listed read only), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vault_git: Option<PathBuf>,
    /// The store has no commit yet: call [`History::snapshot_all`].
    pub needs_baseline: bool,
}

/// The vault's history. Cheap to share (`&self` everywhere, thread-safe).
pub struct History {
    state: State,
}

enum State {
    Enabled(Mutex<Store>),
    Disabled { reason: String, off: bool },
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.status();
        f.debug_struct("History")
            .field("mode", &status.mode)
            .field("dir", &status.dir)
            .field("reason", &status.reason)
            .finish()
    }
}

impl History {
    /// Opens Weft's history of the vault at `vault_root`, creating the store
    /// when it is missing (a deleted store is simply started anew). Mode
    /// `off` gives a disabled history. A damaged store is an error; callers
    /// keep working with [`History::disabled`].
    pub fn open(vault_root: &Path, config: &HistoryConfig) -> Result<History, HistoryError> {
        if config.mode == HistoryMode::Off {
            return Ok(History {
                state: State::Disabled {
                    reason: "history is off in the configuration (`[history] mode = \"off\"` \
                             in .weft.toml)"
                        .into(),
                    off: true,
                },
            });
        }
        let store = Store::open(vault_root, &config.dir)?;
        Ok(History {
            state: State::Enabled(Mutex::new(store)),
        })
    }

    /// A history that records nothing and lists nothing; `reason` is
    /// reported by [`History::status`] and by reads.
    pub fn disabled(reason: impl Into<String>) -> History {
        History {
            state: State::Disabled {
                reason: reason.into(),
                off: false,
            },
        }
    }

    /// Whether changes are recorded.
    pub fn is_enabled(&self) -> bool {
        matches!(self.state, State::Enabled(_))
    }

    pub fn status(&self) -> HistoryStatus {
        match &self.state {
            State::Enabled(store) => {
                let store = lock(store);
                HistoryStatus {
                    mode: "weft",
                    dir: Some(store.git_dir.clone()),
                    reason: None,
                    vault_git: store.vault_git.as_ref().map(|g| g.dir.clone()),
                    needs_baseline: store.head_id().ok().flatten().is_none(),
                }
            }
            State::Disabled { reason, off } => HistoryStatus {
                mode: if *off { "off" } else { "unavailable" },
                dir: None,
                reason: Some(reason.clone()),
                vault_git: None,
                needs_baseline: false,
            },
        }
    }

    fn store(&self) -> Result<MutexGuard<'_, Store>, HistoryError> {
        match &self.state {
            State::Enabled(store) => Ok(lock(store)),
            State::Disabled { reason, .. } => Err(HistoryError::Disabled(reason.clone())),
        }
    }

    /// Records `changes` as one commit (a move that rewrites links in 40
    /// notes is one call). `author` is the client's name (`external` when
    /// empty for [`Source::External`]); `message` is `tool: path` style.
    /// Returns `None` when nothing changed (or history is disabled).
    pub fn record(
        &self,
        changes: &[Change<'_>],
        author: &str,
        message: &str,
        source: Source,
    ) -> Result<Option<CommitId>, HistoryError> {
        let State::Enabled(store) = &self.state else {
            return Ok(None);
        };
        let origin = match source {
            Source::Tool => Origin::Tool,
            Source::External => Origin::External,
        };
        lock(store).record(changes, author, message, origin)
    }

    /// Records the vault's complete state: the tree becomes exactly `files`
    /// (vault path, content). The first one is the baseline that older
    /// versions are diffed against; later ones (say, at start-up) record
    /// what changed while Weft was not running, as an external change.
    pub fn snapshot_all<P, B>(
        &self,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Option<CommitId>, HistoryError>
    where
        P: AsRef<str>,
        B: AsRef<[u8]>,
    {
        let State::Enabled(store) = &self.state else {
            return Ok(None);
        };
        lock(store).snapshot_all(files)
    }

    /// Records changes made outside Weft to the notes at `paths` (vault
    /// paths, as the watcher reports them): each is read from disk, a
    /// missing one is a deletion. Files that are not notes are skipped.
    /// Meant for the watcher's callback, which debounces.
    pub fn snapshot_external(
        &self,
        vault: &LiveVault,
        paths: &[String],
    ) -> Result<Option<CommitId>, HistoryError> {
        self.snapshot_external_at(&vault.root, paths)
    }

    /// [`History::snapshot_external`] for a vault root.
    pub fn snapshot_external_at(
        &self,
        vault_root: &Path,
        paths: &[String],
    ) -> Result<Option<CommitId>, HistoryError> {
        let State::Enabled(store) = &self.state else {
            return Ok(None);
        };
        let files = store::read_external(vault_root, paths);
        lock(store).record_external(&files)
    }

    /// Lists versions, newest first: of the note at `path` (following
    /// renames back; a deleted note's versions too), or, for `None`, of the
    /// whole vault with the paths each changed. The vault's own git
    /// repository's commits are merged in by time. `since` drops older
    /// versions; `limit` (at least 1) bounds the page; `cursor` continues a
    /// previous page. A path without `.md` also finds `path.md`.
    pub fn log(
        &self,
        path: Option<&str>,
        since: Option<DateTime<Utc>>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<Version>, HistoryError> {
        let store = match &self.state {
            State::Enabled(store) => lock(store),
            State::Disabled { .. } => {
                return Ok(Page {
                    items: Vec::new(),
                    next_cursor: None,
                });
            }
        };
        walk::log(&store, path, since, limit.max(1), cursor)
    }

    /// The note at `path` as it was in `version` (full or short id, from
    /// either repository; `weft:`/`git:` may say which). `path` is the
    /// note's path today or in that version; renames are followed.
    pub fn read(&self, path: &str, version: &str) -> Result<NoteVersion, HistoryError> {
        walk::read(&*self.store()?, path, version)
    }

    /// The unified diff of the note at `path` from `from` to `to`.
    pub fn diff(
        &self,
        path: &str,
        from: &str,
        to: DiffTarget<'_>,
    ) -> Result<DiffResult, HistoryError> {
        diff::diff(&*self.store()?, path, from, to)
    }

    /// What restoring `path` to `version` writes (see [`RestorePlan`]); works
    /// for deleted and moved notes. Restoring the version that deleted the
    /// note is an error naming the version before it.
    pub fn restore_plan(&self, path: &str, version: &str) -> Result<RestorePlan, HistoryError> {
        self.read(path, version)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
