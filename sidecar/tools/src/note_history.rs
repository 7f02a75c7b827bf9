//! `note_history`: the versions of one note (following renames back; a
//! deleted note's too) or the vault's recent changes, newest first, from
//! Weft's history and, read only, the vault's own git repository.
//!
//! An adapter over `History::log`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::limit;
use super::format::{Reply, ToolError, ToolResult, plural};
use super::state::ToolState;
use super::versions::{
    VersionOut, for_agent, history, history_error, history_note, kind_text, shown, version_line,
};
use weft_search::dates::{End, parse_time};
use weft_workspace::history::HistoryError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteHistoryArgs {
    /// Path, title or alias (a deleted note by its old path); omit for
    /// the whole vault.
    #[serde(default, alias = "note", alias = "name")]
    pub path: Option<String>,
    /// today, 2h, 7d, a date or an ISO time.
    #[serde(default, alias = "after", alias = "modified_since")]
    pub since: Option<String>,
    /// Default 20, at most 100.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteHistoryOut {
    /// The note listed (without `.md`); absent for the vault listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The note exists now (false: deleted, or only in history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// Newest first.
    pub versions: Vec<VersionOut>,
    /// Pass as `cursor` (same arguments) for older versions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Set once the note history was found deleted or damaged and started
    /// anew: when, and why; the versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_lost: Option<weft_workspace::history::Lost>,
}

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 100;
/// Changed paths a vault listing shows per version in the text.
const SHOWN_CHANGES: usize = 5;

pub fn run(state: &ToolState, args: NoteHistoryArgs) -> ToolResult {
    let policy = state.policy();
    let history = history(state)?;
    let note = match args.path.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(input) => Some(history_note(state, input, "path")?),
        None => None,
    };
    let since = match args
        .since
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(s) => {
            let t = parse_time(s, state.now(), End::Start)
                .map_err(|m| ToolError::new(format!("`since`: {m}.")))?;
            Some(chrono::DateTime::from_timestamp(t, 0).unwrap_or_default())
        }
        None => None,
    };
    let limit = limit(args.limit, DEFAULT_LIMIT, MAX_LIMIT);
    let cursor = args
        .cursor
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let page = history
        .log(note.as_ref().map(|n| n.path.as_str()), since, limit, cursor)
        .map_err(history_error)?;
    if let Some(n) = &note
        && n.current.is_none()
        && page.items.is_empty()
        && cursor.is_none()
        && since.is_none()
    {
        // Neither a note now nor one history has seen: a typo, most likely.
        return Err(history_error(HistoryError::NoHistory {
            path: n.path.clone(),
        }));
    }
    let mut versions: Vec<VersionOut> = Vec::with_capacity(page.items.len());
    let mut lines: Vec<String> = Vec::new();
    // The path policy applies to history too.
    let page_items: Vec<weft_workspace::history::Version> = page
        .items
        .iter()
        .filter_map(|v| {
            let listed = !v.changes.is_empty();
            for_agent(&policy, v.clone())
                .filter(|v| note.is_some() || !listed || !v.changes.is_empty())
        })
        .collect();
    let zone = state.zone();
    for version in &page_items {
        let out = VersionOut::of(version, zone);
        let mut line = format!("- {}", version_line(version, zone));
        if note.is_none() {
            let shown_changes: Vec<String> = out
                .changes
                .iter()
                .take(SHOWN_CHANGES)
                .map(|c| match &c.from {
                    Some(from) => format!("`{from}` → `{}`", c.path),
                    None => format!("{} `{}`", c.kind, c.path),
                })
                .collect();
            let more = out.changes_total.saturating_sub(shown_changes.len());
            line.push_str(&format!("\n  {}", shown_changes.join(", ")));
            if more > 0 {
                line.push_str(&format!(" and {more} more"));
            }
        } else if let Some(change) = version.changes.first() {
            match &change.from {
                Some(from) => line.push_str(&format!(" — renamed from `{}`", shown(from))),
                None => line.push_str(&format!(" — {}", kind_text(change.kind))),
            }
        }
        lines.push(line);
        versions.push(out);
    }
    let heading = match &note {
        Some(n) => {
            let state_word = if n.current.is_some() {
                ""
            } else {
                " (not in the vault now)"
            };
            format!("History of `{}`{state_word}", shown(&n.path))
        }
        None => "Recent changes in the vault".to_string(),
    };
    let since_text = args
        .since
        .as_deref()
        .map(|s| format!(" since {}", s.trim()))
        .unwrap_or_default();
    let mut text = if versions.is_empty() {
        match &note {
            Some(_) => format!("{heading}: no versions{since_text}."),
            None => format!("{heading}: none{since_text}."),
        }
    } else {
        format!(
            "{heading}{since_text}, newest first ({}):\n{}",
            plural(versions.len(), "version"),
            lines.join("\n")
        )
    };
    if let Some(next) = &page.next_cursor {
        text.push_str(&format!(
            "\nOlder versions: same arguments with `cursor: \"{next}\"`."
        ));
    }
    if !versions.is_empty() {
        text.push_str(
            "\nRead one with read_note(path, version); compare with diff_note(path, from, to); \
             bring one back with restore_note(path, version).",
        );
    }
    let out = NoteHistoryOut {
        path: note.as_ref().map(|n| shown(&n.path)),
        exists: note.as_ref().map(|n| n.current.is_some()),
        versions,
        next_cursor: page.next_cursor,
        history_lost: None,
    };
    Ok(Reply::new(text, &out))
}
