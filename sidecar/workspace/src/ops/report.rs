//! What an operation says it did, or in a dry run would do: one [`Change`]
//! per file (kind, sizes, sha256, the diff in dry runs), the hashes callers
//! send back as `expected_sha256`, and the options every write accepts.
//!
//! Plain values computed from texts: this module must not read or write
//! the disk, nor know the index, so that every operation reports the same
//! way whatever it did to get there.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Options every write accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// The sha256 (hex) of the note as the caller read it; a different
    /// current content is a conflict and nothing is written.
    pub expected_sha256: Option<String>,
    /// Compute and report everything, with diffs, but write nothing.
    pub dry_run: bool,
}

/// What happened (or, in a dry run, would happen) to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    /// Moved or renamed (its text may have changed too: relative links).
    Moved,
    /// Moved to the trash.
    Deleted,
}

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The vault path before the change (for a created note, its path).
    pub path: String,
    /// Moved: the new vault path; deleted: where it is in the trash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    /// Size before (`None` for a created note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_before: Option<u64>,
    /// Size after (`None` for a deleted note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_after: Option<u64>,
    /// The sha256 of the new content (`None` for a deleted note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Dry runs only: the unified diff of the file (empty for a move that
    /// does not change the text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The sha256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The unified diff between two versions of a file (`None`: absent).
pub(crate) fn unified_diff(
    old_path: &str,
    new_path: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let a = before.map_or("/dev/null".to_string(), |_| format!("a/{old_path}"));
    let b = after.map_or("/dev/null".to_string(), |_| format!("b/{new_path}"));
    let (before, after) = (before.unwrap_or(""), after.unwrap_or(""));
    if before == after {
        return String::new();
    }
    // Bounded: past the deadline the diff is approximate, never endless.
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string()
}

/// A [`Change`] for writing `after` over `before` at `path` (moving it to
/// `new_path` when given); the diff only in dry runs.
pub(crate) fn change(
    path: &str,
    new_path: Option<&str>,
    before: Option<&str>,
    after: Option<&str>,
    dry_run: bool,
) -> Change {
    let kind = match (before, after, new_path) {
        (None, _, _) => ChangeKind::Created,
        (Some(_), None, _) => ChangeKind::Deleted,
        (Some(_), Some(_), Some(_)) => ChangeKind::Moved,
        (Some(_), Some(_), None) => ChangeKind::Modified,
    };
    let diff = dry_run.then(|| {
        if kind == ChangeKind::Deleted {
            String::new()
        } else {
            unified_diff(path, new_path.unwrap_or(path), before, after)
        }
    });
    Change {
        kind,
        path: path.to_string(),
        new_path: new_path.map(str::to_string),
        bytes_before: before.map(|t| t.len() as u64),
        bytes_after: after.map(|t| t.len() as u64),
        sha256: after.map(|t| sha256_hex(t.as_bytes())),
        diff,
    }
}
