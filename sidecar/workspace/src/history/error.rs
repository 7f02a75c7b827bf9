//! Why a history call failed: each variant says what was wrong and what to do
//! about it, in words an agent or a person can act on. No protocol types:
//! faces turn these into their own error results.

use std::fmt;
use std::path::PathBuf;

/// A history call's failure. Nothing in the vault is ever changed by one.
#[derive(Debug)]
pub enum HistoryError {
    /// History is off (configuration) or unavailable (a damaged store); the
    /// reason says which and how to get it back.
    Disabled(String),
    /// The store exists but cannot be used.
    Corrupt { dir: PathBuf, message: String },
    /// The configured store location cannot be used.
    BadLocation { dir: PathBuf, message: String },
    /// A file or folder of the store could not be created or read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// libgit2 failed while doing `action`.
    Git {
        action: &'static str,
        source: git2::Error,
    },
    /// A vault path that history cannot store.
    InvalidPath { path: String, reason: &'static str },
    /// No version has this id. `recent` lists recent ones, as
    /// `short_id (message)`.
    UnknownVersion {
        version: String,
        recent: Vec<String>,
    },
    /// Several versions start with this id.
    AmbiguousVersion {
        version: String,
        candidates: Vec<String>,
    },
    /// The note did not exist in that version; `hint` names a version that
    /// has it, when there is one.
    NotInVersion {
        path: String,
        version: String,
        hint: Option<String>,
    },
    /// History has no version of this path at all.
    NoHistory { path: String },
    /// A repository whose folders nest deeper than Weft walks.
    TooDeep { path: String, limit: usize },
    /// A listing cursor that does not belong to this history (any more).
    BadCursor(String),
    /// Another writer held the store longer than a write waits.
    Busy(String),
}

impl HistoryError {
    pub(crate) fn git(action: &'static str) -> impl Fn(git2::Error) -> HistoryError + Copy {
        move |source| HistoryError::Git { action, source }
    }
}

fn list(items: &[String]) -> String {
    items.join(", ")
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::Disabled(reason) => write!(f, "note history is unavailable: {reason}"),
            HistoryError::Corrupt { dir, message } => write!(
                f,
                "the note history store {} is damaged ({message}); the notes themselves are \
                 unaffected. Move or delete {} and Weft starts a new history when it next opens \
                 the vault",
                dir.display(),
                dir.display()
            ),
            HistoryError::BadLocation { dir, message } => write!(
                f,
                "cannot keep note history at {}: {message}; set `[history] dir` in .weft.toml to \
                 a folder of its own, such as `.weft/history.git`",
                dir.display()
            ),
            HistoryError::Io { path, source } => {
                write!(f, "note history: cannot use {}: {source}", path.display())
            }
            HistoryError::Git { action, source } => {
                write!(f, "note history: {action} failed: {}", source.message())
            }
            HistoryError::InvalidPath { path, reason } => {
                write!(f, "`{path}` cannot be kept in note history: {reason}")
            }
            HistoryError::UnknownVersion { version, recent } => {
                write!(f, "no version `{version}` in the note history")?;
                if recent.is_empty() {
                    write!(f, "; there are no versions yet")
                } else {
                    write!(f, "; recent versions: {}", list(recent))
                }
            }
            HistoryError::AmbiguousVersion {
                version,
                candidates,
            } => {
                write!(f, "`{version}` is the start of several ids")?;
                if !candidates.is_empty() {
                    write!(f, " ({})", list(candidates))?;
                }
                write!(f, "; give more characters of the id")
            }
            HistoryError::NotInVersion {
                path,
                version,
                hint,
            } => {
                write!(f, "`{path}` does not exist in version {version}")?;
                if let Some(hint) = hint {
                    write!(f, "; {hint}")?;
                }
                Ok(())
            }
            HistoryError::NoHistory { path } => write!(
                f,
                "`{path}` has no recorded versions; give the note's vault path (as it was, for a \
                 deleted or moved note), or list the vault's recent changes without a path"
            ),
            HistoryError::TooDeep { path, limit } => write!(
                f,
                "folders in the repository nest deeper than {limit} levels at `{path}`; Weft does \
                 not compare versions that deep"
            ),
            HistoryError::BadCursor(why) => {
                write!(f, "invalid cursor: {why}; list again without a cursor")
            }
            HistoryError::Busy(why) => write!(
                f,
                "note history: {why}; the change itself is made, its version is not recorded; \
                 try again in a moment"
            ),
        }
    }
}

impl std::error::Error for HistoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HistoryError::Io { source, .. } => Some(source),
            HistoryError::Git { source, .. } => Some(source),
            _ => None,
        }
    }
}
