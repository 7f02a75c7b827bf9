//! The values history records and answers with: changes to record,
//! versions, pages, diffs. Plain data shared by the store, the walk, the
//! diff and their callers; no git and no IO.

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use weft_vault::Note;
use weft_vault::parse::parse_note;

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
