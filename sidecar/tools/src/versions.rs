//! What the history tools (`note_history`, `read_note` with `version`,
//! `diff_note`, `restore_note`) share: the history or the reason there is
//! none, the vault path a name stands for in history (a note that exists,
//! or the path of one that was deleted), versions as answers show them, and
//! history errors as tool errors.
//!
//! Must not know any single tool's parameters; history itself stays in
//! `weft_workspace::history`.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

pub use super::common::shown;
use super::common::{check_name, vault_input};
use super::format::ToolError;
use super::format::ToolResult;
use super::policy::Policy;
use super::state::ToolState;
use weft_search::dates::Zone;
use weft_vault::note::{is_note_path, strip_md};
use weft_vault::query::{Lookup, lookup};
use weft_workspace::history::{
    ChangeKind, History, HistoryError, PathChange, Version, VersionSource,
};

/// How long a history tool waits for the history to open and catch up with
/// the disk at start-up.
pub const HISTORY_WAIT: Duration = Duration::from_secs(30);

/// The history, or an error saying why there is none and what to do.
pub fn history(state: &ToolState) -> Result<Arc<History>, ToolError> {
    let Some(history) = state.history() else {
        return Err(ToolError::new(
            "Note history is not open yet: the vault is still loading, or this server was started \
             without it.",
        )
        .hint("Try again in a moment; vault_info shows the history status."));
    };
    if history.is_enabled() {
        return Ok(history.clone());
    }
    let status = history.status();
    let reason = status.reason.unwrap_or_default();
    let error = ToolError::new(format!("Note history is {}: {reason}", status.mode));
    Err(if status.mode == "off" {
        error
            .hint("Ask the user to set `[history] mode = \"weft\"` in .weft.toml and restart Weft.")
    } else {
        error
            .hint("Reading, searching and writing notes still work; only versions are unavailable.")
    })
}

/// The note a history tool names: `path` is what history knows it by (its
/// vault path now, or the path it had, for a deleted note), `current` its
/// vault path when the note exists now.
pub(crate) struct HistoryNote {
    pub path: String,
    pub current: Option<String>,
}

/// Turns a name into the note's vault path for history: a note that exists
/// (by path, title or alias) gives its path; anything else is taken as the
/// vault path of a note that no longer exists. The path policy applies.
pub(crate) fn history_note(
    state: &ToolState,
    input: &str,
    what: &str,
) -> Result<HistoryNote, ToolError> {
    let policy = state.policy();
    let name = vault_input(state, &check_name(input, what)?);
    let index = state.index();
    let current = match lookup(&index, &name) {
        Lookup::Found(id) => Some(index.note(id).path.to_string()),
        Lookup::Ambiguous(ids) => {
            let visible: Vec<String> = ids
                .into_iter()
                .map(|id| index.note(id).path.to_string())
                .filter(|p| policy.access.sees(p))
                .collect();
            match visible.as_slice() {
                [one] => Some(one.clone()),
                [] => None,
                many => {
                    return Err(ToolError::new(format!(
                        "`{name}` names {} notes: {}.",
                        many.len(),
                        many.iter()
                            .map(|p| format!("`{}`", shown(p)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .hint("Pass the path of the one you mean."));
                }
            }
        }
        _ => None,
    };
    drop(index);
    let path = current.clone().unwrap_or_else(|| name.clone());
    let file = if is_note_path(&path) {
        path.clone()
    } else {
        format!("{path}.md")
    };
    if !policy.access.sees(&file) {
        return Err(ToolError::new(policy.hidden_message(&file, &name)));
    }
    Ok(HistoryNote { path, current })
}

/// Every history answer, once the store was found deleted or damaged and
/// started anew, says that the versions before are gone: in its text, in
/// its errors, and (the tools' `history_lost`) in its structured content.
pub fn noting_loss(state: &ToolState, result: ToolResult) -> ToolResult {
    let Some(lost) = state.history().and_then(|h| h.lost()) else {
        return result;
    };
    let notice = format!(
        "⚠ Note history was lost at {}: {}. Versions before that are gone; what changed since \
         is recorded.",
        lost.at, lost.reason
    );
    match result {
        Ok(mut reply) => {
            reply.text = format!("{notice}\n\n{}", reply.text);
            if let Some(object) = reply.structured.as_object_mut() {
                object.insert(
                    "history_lost".into(),
                    serde_json::to_value(&lost).unwrap_or_default(),
                );
            }
            Ok(reply)
        }
        Err(error) => Err(error.hint(notice)),
    }
}

/// A version as the agent may see it (`None`: not at all): changes to paths
/// it may not see are left out, a rename from one shows as an addition, and
/// such paths in the message (written when the version was recorded, before
/// any rule that hides them now) are replaced. A version in which the note
/// (`path_at_version`) was at such a path is not the agent's to see: its
/// text was hidden then.
pub(crate) fn for_agent(policy: &Policy, mut version: Version) -> Option<Version> {
    if version
        .path_at_version
        .as_deref()
        .is_some_and(|p| !policy.access.sees(p))
    {
        return None;
    }
    let mut unseen: Vec<String> = Vec::new();
    let listed = version.changes.len();
    version.changes.retain_mut(|change| {
        if let Some(from) = change.from.as_deref().filter(|f| !policy.access.sees(f)) {
            unseen.push(from.to_string());
            change.from = None;
            change.kind = ChangeKind::Added;
        }
        let seen = policy.access.sees(&change.path);
        if !seen {
            unseen.push(change.path.clone());
        }
        seen
    });
    version.changes_total -= listed - version.changes.len();
    if !unseen.is_empty() {
        // Longest first, so that `a/b.md` goes before `a/b`.
        let mut names: Vec<String> = unseen
            .iter()
            .flat_map(|p| [p.clone(), strip_md(p).to_string()])
            .collect();
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        for name in names.iter().filter(|n| !n.is_empty()) {
            version.message = version
                .message
                .replace(name.as_str(), "(a note outside this agent's access)");
        }
    }
    Some(version)
}

/// The refusal for a version the agent may not see.
pub(crate) fn hidden_version(shown_path: &str, version: &str) -> ToolError {
    ToolError::new(format!(
        "Version `{version}` of `{shown_path}` is outside what this agent may access: the note \
         was in a place it may not see then."
    ))
    .hint("note_history lists the versions it may see.")
}

/// A history error as a tool error, with the next step.
pub(crate) fn history_error(error: HistoryError) -> ToolError {
    let hint = match &error {
        HistoryError::UnknownVersion { .. } | HistoryError::AmbiguousVersion { .. } => {
            Some("note_history lists the note's versions with their ids.")
        }
        HistoryError::NoHistory { .. } => Some(
            "note_history without `path` lists the vault's recent changes, with the paths they touched.",
        ),
        HistoryError::NotInVersion { .. } => {
            Some("note_history with the note's `path` lists the versions that have it.")
        }
        _ => None,
    };
    let error = ToolError::new(format!("{}.", error.to_string().trim_end_matches('.')));
    match hint {
        Some(hint) => error.hint(hint),
        None => error,
    }
}

/// One version, as the history tools answer it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VersionOut {
    /// Full id; any unambiguous prefix (such as `short_id`) works too.
    pub id: String,
    pub short_id: String,
    /// RFC 3339 with the offset of the vault's zone.
    pub time: String,
    pub author: String,
    pub message: String,
    /// weft (a Weft tool), external (seen on disk) or vault_git (the
    /// vault's own git repository).
    pub source: String,
    /// From the vault's own git repository: listed, readable and
    /// diffable, never written by Weft.
    pub read_only: bool,
    /// The note's path in this version (without `.md`), when listing a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What the version changed (for a note: the note's own change).
    pub changes: Vec<ChangeOut>,
    /// How many paths it changed (`changes` may list fewer).
    pub changes_total: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeOut {
    /// added, modified, deleted or renamed.
    pub kind: String,
    /// Without `.md` for notes.
    pub path: String,
    /// Renamed from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

impl VersionOut {
    pub fn of(version: &Version, zone: Zone) -> VersionOut {
        VersionOut {
            id: version.id.clone(),
            short_id: version.short_id.clone(),
            time: time_text(version, zone),
            author: version.author.clone(),
            message: version.message.clone(),
            source: source_name(version.source).into(),
            read_only: version.source == VersionSource::VaultGit,
            path: version.path_at_version.as_deref().map(shown),
            changes: version.changes.iter().map(change_out).collect(),
            changes_total: version.changes_total,
        }
    }
}

fn change_out(change: &PathChange) -> ChangeOut {
    ChangeOut {
        kind: kind_text(change.kind).into(),
        path: shown(&change.path),
        from: change.from.as_deref().map(shown),
    }
}

/// `abc1234` with its qualifier for the vault's own git.
pub(crate) fn id_text(version: &VersionOut) -> String {
    if version.read_only {
        format!("git:{}", version.short_id)
    } else {
        version.short_id.clone()
    }
}

/// When a version was made, as the agent reads every time: RFC 3339 in
/// the vault's zone (`2026-11-22T10:31:00+01:00`), whatever zone its
/// author was in.
pub(crate) fn time_text(version: &Version, zone: Zone) -> String {
    zone.rfc3339_of(&version.time)
}

/// `weft`, `external` or `vault_git`.
pub(crate) fn source_name(source: VersionSource) -> &'static str {
    match source {
        VersionSource::Weft => "weft",
        VersionSource::External => "external",
        VersionSource::VaultGit => "vault_git",
    }
}

/// Where a version came from, in words.
pub(crate) fn source_text(source: VersionSource) -> &'static str {
    match source {
        VersionSource::Weft => "Weft tool",
        VersionSource::External => "outside Weft",
        VersionSource::VaultGit => "vault git, read only",
    }
}

/// One line for a version: id, time, author, message, source.
pub(crate) fn version_line(version: &Version, zone: Zone) -> String {
    let out = VersionOut::of(version, zone);
    format!(
        "`{}` {} · {} · {} ({})",
        id_text(&out),
        time_text(version, zone),
        version.author,
        version.message.lines().next().unwrap_or(""),
        source_text(version.source)
    )
}

/// The change kind in words.
pub(crate) fn kind_text(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Modified => "modified",
        ChangeKind::Deleted => "deleted",
        ChangeKind::Renamed => "renamed",
    }
}
