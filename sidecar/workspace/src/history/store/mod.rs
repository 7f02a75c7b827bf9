//! Weft's history repository on disk: the open store and the vault's own
//! repository beside it, the branch's last commit, and the one rule for a
//! vault path stored in history.
//!
//! Layout: `open` opens or creates the store (bare, apart from the vault's
//! own `.git`) and starts it anew when it is deleted or damaged; `record`
//! records commits; `tree` builds a commit's tree from the previous one,
//! rewriting only the paths that changed; `message` writes and reads Weft's
//! trailers in commit messages; `guard` lets one writer at a time write
//! and clears what killed writers left.
//!
//! Nothing here reads or writes the vault's own repository except to open it
//! read only for listings; nothing here knows a protocol.

mod guard;
mod message;
mod open;
mod record;
mod tree;

use std::path::{Path, PathBuf};

use git2::{ErrorCode, Oid, Repository};

use super::error::HistoryError;

pub(super) use message::{Origin, parse_trailers};
#[cfg(test)]
pub(super) use record::BEFORE_MOVING_BRANCH;
pub(super) use record::read_external;

/// Weft's branch in its own repository.
pub(super) const BRANCH: &str = "refs/heads/main";

/// The vault's own git repository, opened read only.
pub(super) struct VaultGit {
    pub repo: Repository,
    /// Where the vault is inside the repository's work tree: `""` or
    /// `"notes/"` (with the slash).
    pub prefix: String,
    /// The repository's git folder, for status reports.
    pub dir: PathBuf,
}

/// An open history store.
pub(super) struct Store {
    pub vault_root: PathBuf,
    pub git_dir: PathBuf,
    pub repo: Repository,
    pub vault_git: Option<VaultGit>,
    /// The store was found deleted or damaged and started anew: the
    /// versions before then are gone.
    pub lost: Option<Lost>,
    /// The branch had a commit when last looked at: a branch gone since
    /// is a loss, not a new store.
    had_commits: bool,
}

/// When the history before a point was lost, and how.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Lost {
    /// When the loss was found (RFC 3339, UTC); the versions before are gone.
    pub at: String,
    /// What was wrong with the store.
    pub reason: String,
}

impl Store {
    /// The id of the last commit, `None` before the first.
    pub(crate) fn head_id(&self) -> Result<Option<Oid>, HistoryError> {
        head_id(&self.repo)
    }
}

/// The last commit of Weft's branch in `repo`.
pub(super) fn head_id(repo: &Repository) -> Result<Option<Oid>, HistoryError> {
    match repo.refname_to_id(BRANCH) {
        Ok(id) => Ok(Some(id)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(HistoryError::git("reading the history branch")(e)),
    }
}

/// The shortest unambiguous prefix of `id` (at least 7 characters).
pub(super) fn short_id(repo: &Repository, id: Oid) -> String {
    repo.find_object(id, None)
        .and_then(|o| o.short_id())
        .ok()
        .and_then(|buf| buf.as_str().ok().map(str::to_string))
        .unwrap_or_else(|| id.to_string()[..7].to_string())
}

/// Checks a vault path for storage and normalises it (`/` separators, no
/// `.` parts, no leading or trailing slash).
pub(super) fn vault_path(input: &str) -> Result<String, HistoryError> {
    let invalid = |reason| HistoryError::InvalidPath {
        path: input.to_string(),
        reason,
    };
    if input.contains('\0') {
        return Err(invalid("it contains a NUL byte"));
    }
    let unified = input.trim().replace('\\', "/");
    if unified.starts_with('/') || Path::new(input.trim()).is_absolute() {
        return Err(invalid("it is absolute; give a path relative to the vault"));
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(invalid("it uses `..`")),
            p if p.eq_ignore_ascii_case(".git") => {
                return Err(invalid("git cannot store a file or folder named `.git`"));
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(invalid("it is empty"));
    }
    Ok(parts.join("/"))
}
