//! Why an operation refused to run or stopped: every variant says what was
//! wrong and carries the data to go on (the candidates, the sha256 now, the
//! key), in words an agent or a person can read. Facts, not advice: which
//! tool or argument to use next is the face's to say (the agent's:
//! `tools/src/writing.rs`). No protocol types.

use std::fmt;

use crate::io::PathError;
use weft_vault::edit::EditError;
use weft_vault::frontmatter::FrontmatterError;

/// How many allowed tags an error lists before it says "and N more".
pub const LISTED_TAGS: usize = 60;

/// An operation's failure. Except for [`OpError::Partial`], nothing was
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// No note answers to `input`. `suggestions` are the closest note paths;
    /// `linked_from` counts links that already point at the name (a note
    /// that does not exist yet).
    NotFound {
        input: String,
        suggestions: Vec<String>,
        linked_from: usize,
    },
    /// Several notes answer to `input`.
    Ambiguous {
        input: String,
        candidates: Vec<String>,
    },
    /// A path that cannot be used (escapes the vault, hidden, reserved…).
    Path { input: String, error: PathError },
    /// A name no link could reach, or that makes no file name.
    InvalidName { input: String, message: String },
    /// Writes are switched off for the agent.
    ReadOnly,
    /// The path allow/deny lists refuse `path`.
    Denied { path: String, reason: String },
    /// The note the caller named is outside what the agent may access (the
    /// message names only what the caller gave).
    Hidden { message: String },
    /// A move would rewrite links in notes the agent may not access (never
    /// named: the agent does not see them).
    HiddenLinks { target: String, notes: usize },
    /// A note (or file) is already at `path`.
    Exists { path: String },
    /// The note is not what the caller read: `current` is its sha256 now
    /// (`None`: it does not exist).
    Conflict {
        path: String,
        expected: String,
        current: Option<String>,
    },
    /// The note is not valid UTF-8; editing it could lose bytes.
    NotUtf8 { path: String, at: usize },
    /// The note (or a note in the folder) is open in an editor with
    /// changes not saved; writing would overwrite them.
    Unsaved { path: String },
    /// Edit operation number `op` (0-based) failed.
    Edit {
        path: String,
        op: usize,
        name: &'static str,
        error: EditError,
    },
    Frontmatter {
        path: String,
        error: FrontmatterError,
    },
    /// `config.tags.policy = "existing"` and these tags are new to the vault.
    TagPolicy {
        path: String,
        tags: Vec<String>,
        allowed: Vec<String>,
    },
    /// Per-tag rules the write would break.
    TagRule {
        path: String,
        problems: Vec<RuleProblem>,
    },
    /// Bad or contradictory arguments; the message says what to give.
    Invalid(String),
    /// A sha256 to expect was given for a move of a folder: only a note
    /// has one.
    FolderSha256,
    /// A value to merge into `key` that is not an object of properties.
    MergeNotObject { key: String },
    /// A frontmatter update that asks for no change at all.
    NothingToUpdate,
    /// A change to more notes than one call changes.
    TooMany { count: usize, limit: usize },
    /// The link rewrite could not be planned.
    Rewrite(String),
    /// The disk refused before anything was written.
    Io {
        path: String,
        action: &'static str,
        message: String,
    },
    /// A multi-file operation failed part way: `done` lists the steps that
    /// were carried out (they stay), `failed` the step that failed.
    Partial {
        done: Vec<String>,
        failed: String,
        message: String,
        /// Vault paths the done steps changed (both ends of a move): what
        /// a face must tell others about, as after a success.
        touched: Vec<String>,
    },
}

impl OpError {
    /// The file at `path` could not be read, written or moved: the OS's
    /// reason, and what to do when it is a refusal (a read-only vault).
    pub(crate) fn io(path: &str, action: &'static str, error: &std::io::Error) -> OpError {
        let mut message = error.to_string();
        if matches!(
            error.kind(),
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
        ) {
            message.push_str(
                " (the vault or this folder is read-only for the user Weft runs as; ask the \
                 user to give it write permission, or to keep the vault read-only)",
            );
        }
        OpError::Io {
            path: path.to_string(),
            action,
            message,
        }
    }

    /// A short, stable name for the kind of error (for logs and structured
    /// results).
    pub fn code(&self) -> &'static str {
        match self {
            OpError::NotFound { .. } => "not_found",
            OpError::Ambiguous { .. } => "ambiguous",
            OpError::Path { .. } => "invalid_path",
            OpError::InvalidName { .. } => "invalid_name",
            OpError::ReadOnly => "read_only",
            OpError::Denied { .. } | OpError::HiddenLinks { .. } | OpError::Hidden { .. } => {
                "denied"
            }
            OpError::Exists { .. } => "exists",
            OpError::Conflict { .. } => "conflict",
            OpError::NotUtf8 { .. } => "not_utf8",
            OpError::Unsaved { .. } => "unsaved_in_editor",
            OpError::Edit { .. } => "edit_failed",
            OpError::Frontmatter { .. } => "frontmatter",
            OpError::TagPolicy { .. } => "tag_policy",
            OpError::TagRule { .. } => "tag_rule",
            OpError::Invalid(_)
            | OpError::FolderSha256
            | OpError::MergeNotObject { .. }
            | OpError::NothingToUpdate => "invalid_argument",
            OpError::TooMany { .. } => "too_many",
            OpError::Rewrite(_) => "rewrite",
            OpError::Io { .. } => "io",
            OpError::Partial { .. } => "partial",
        }
    }
}

fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "a note" or "N notes".
fn notes(count: usize) -> String {
    if count == 1 {
        "a note".to_string()
    } else {
        format!("{count} notes")
    }
}

/// No note answers to `input`: why, and the closest paths if any.
fn not_found(
    f: &mut fmt::Formatter<'_>,
    input: &str,
    suggestions: &[String],
    linked_from: usize,
) -> fmt::Result {
    write!(f, "no note `{input}`")?;
    if linked_from > 0 {
        write!(
            f,
            " (it does not exist yet, though {linked_from} link{} point to it)",
            if linked_from == 1 { "" } else { "s" }
        )?;
    }
    if suggestions.is_empty() {
        write!(
            f,
            "; give a vault path (with or without .md), a title or an alias"
        )
    } else {
        write!(f, "; did you mean {}?", quoted(suggestions))
    }
}

/// The note is not what the caller read (`current`: its sha256 now).
fn conflict(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    expected: &str,
    current: Option<&str>,
) -> fmt::Result {
    match current {
        Some(current) => write!(
            f,
            "`{path}` changed since it was read: expected sha256 {expected}, current sha256 {current}; \
             nothing was written"
        ),
        None => write!(
            f,
            "`{path}` does not exist, but a sha256 it should have was given ({expected}); nothing \
             was written"
        ),
    }
}

/// Tags new to a vault whose policy allows only the tags it uses.
fn tag_policy(
    f: &mut fmt::Formatter<'_>,
    path: &str,
    tags: &[String],
    allowed: &[String],
) -> fmt::Result {
    write!(
        f,
        "`{path}`: the tag policy allows only tags the vault already uses, and {} {} new. ",
        quoted(tags),
        if tags.len() == 1 { "is" } else { "are" }
    )?;
    if allowed.is_empty() {
        f.write_str("The vault has no tags yet. ")?;
    } else {
        let shown: Vec<String> = allowed.iter().take(LISTED_TAGS).cloned().collect();
        write!(f, "Allowed tags: {}", quoted(&shown))?;
        if allowed.len() > LISTED_TAGS {
            write!(f, " and {} more", allowed.len() - LISTED_TAGS)?;
        }
        f.write_str(". ")?;
    }
    f.write_str("Use one of those, or ask the user to create the new tag; nothing was written")
}

/// The per-tag rules a write would break.
fn tag_rule(f: &mut fmt::Formatter<'_>, path: &str, problems: &[RuleProblem]) -> fmt::Result {
    write!(f, "`{path}` would break the vault's tag rules: ")?;
    for (i, problem) in problems.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{problem}")?;
    }
    f.write_str("; nothing was written")
}

/// A multi-file operation that stopped part way: what failed, what stays.
fn partial(
    f: &mut fmt::Formatter<'_>,
    done: &[String],
    failed: &str,
    message: &str,
) -> fmt::Result {
    write!(f, "stopped part way: {failed} failed ({message}). ")?;
    if done.is_empty() {
        f.write_str("Nothing was changed")
    } else {
        write!(
            f,
            "Already done, and kept: {}. Finish by hand",
            done.join("; ")
        )
    }
}

/// Notes the agent may not access that link to `target`, which a change
/// would rewrite (never named).
fn hidden_links(f: &mut fmt::Formatter<'_>, target: &str, count: usize) -> fmt::Result {
    write!(
        f,
        "{} this agent may not access {} to `{target}`, and the change would rewrite them \
         (`agent.allow`/`agent.deny` in .weft.toml); nothing was written",
        notes(count),
        if count == 1 { "links" } else { "link" }
    )
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpError::NotFound {
                input,
                suggestions,
                linked_from,
            } => not_found(f, input, suggestions, *linked_from),
            OpError::Ambiguous { input, candidates } => write!(
                f,
                "`{input}` names several notes: {}; give the full vault path of one",
                quoted(candidates)
            ),
            OpError::Path { input, error } => write!(f, "cannot use `{input}`: {error}"),
            OpError::InvalidName { input, message } => {
                write!(f, "cannot use `{input}` as a note name: {message}")
            }
            OpError::ReadOnly => f.write_str(
                "the vault is read-only for the agent (`agent.read_only` in .weft.toml or --read-only); \
                 nothing was written. Ask the user to allow writes",
            ),
            OpError::Denied { path, reason } => write!(
                f,
                "writing `{path}` is not allowed: {reason} (`agent.allow`/`agent.deny` in .weft.toml); \
                 nothing was written. Ask the user, or choose another path"
            ),
            OpError::Hidden { message } => {
                write!(f, "{}; nothing was written", message.trim_end_matches('.'))
            }
            OpError::HiddenLinks { target, notes } => hidden_links(f, target, *notes),
            OpError::Exists { path } => write!(f, "`{path}` already exists"),
            OpError::Conflict {
                path,
                expected,
                current,
            } => conflict(f, path, expected, current.as_deref()),
            OpError::Unsaved { path } => write!(
                f,
                "`{path}` has unsaved changes in the editor; nothing was written, so the editor's text is \
                 kept"
            ),
            OpError::NotUtf8 { path, at } => write!(
                f,
                "`{path}` is not valid UTF-8 (at byte {at}); Weft will not edit it, since bytes could be lost. \
                 Save it as UTF-8 first"
            ),
            OpError::Edit {
                path,
                op,
                name,
                error,
            } => write!(
                f,
                "operation {} ({name}) on `{path}` failed: {error}. Nothing was changed: no operation of the \
                 list was applied",
                op + 1
            ),
            OpError::Frontmatter { path, error } => write!(f, "`{path}`: {error}"),
            OpError::TagPolicy {
                path,
                tags,
                allowed,
            } => tag_policy(f, path, tags, allowed),
            OpError::TagRule { path, problems } => tag_rule(f, path, problems),
            OpError::Invalid(message) => f.write_str(message),
            OpError::FolderSha256 => f.write_str("a folder has no sha256"),
            OpError::MergeNotObject { key } => write!(
                f,
                "the value to merge into `{key}` must be an object of properties: only objects merge \
                 key by key"
            ),
            OpError::NothingToUpdate => f.write_str(
                "nothing to change: no property, title, tag or alias was given to set, remove or merge",
            ),
            OpError::TooMany { count, limit } => write!(
                f,
                "the change would touch {count} notes; one call changes at most {limit}; nothing \
                 was written"
            ),
            OpError::Rewrite(message) => {
                write!(f, "cannot rewrite the links: {message}; nothing was written")
            }
            OpError::Io {
                path,
                action,
                message,
            } => write!(f, "cannot {action} `{path}`: {message}; nothing was written"),
            OpError::Partial {
                done,
                failed,
                message,
                ..
            } => partial(f, done, failed, message),
        }
    }
}

impl std::error::Error for OpError {}

/// One per-tag rule (`[[tags.rules]]`) a note breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleProblem {
    /// A note with `tag` must have the frontmatter key `key`.
    MissingKey { tag: String, key: String },
    /// A note with `tag` must have a file name starting with `prefix`;
    /// this one's is `stem`.
    NamePrefix {
        tag: String,
        prefix: String,
        stem: String,
    },
}

impl fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleProblem::MissingKey { tag, key } => {
                write!(f, "a note tagged #{tag} needs the frontmatter key `{key}`")
            }
            RuleProblem::NamePrefix { tag, prefix, stem } => write!(
                f,
                "a note tagged #{tag} must have a file name starting with `{prefix}` (this one \
                 is `{stem}`)"
            ),
        }
    }
}
