//! `note_history`: the versions of one note (following renames back; a
//! deleted note's too) or the vault's recent changes, newest first, from
//! Weft's history and, read only, the vault's own git repository.
//!
//! An adapter over `History::log`: the versions the agent may see, each
//! as a line (`line`), the listing in words (`markdown`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::limit;
use super::format::{Reply, ToolError, ToolResult, plural};
use super::state::ToolState;
use super::versions::{
    HistoryNote, VersionOut, for_agent, history, history_error, history_note, kind_text, shown,
    version_line,
};
use weft_search::dates::{End, Zone, parse_time};
use weft_workspace::history::{HistoryError, Version};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteHistoryArgs {
    /// Path, title or alias (deleted: old path); omit for the vault.
    #[serde(default, alias = "note", alias = "name")]
    pub path: Option<String>,
    /// 2h, 7d, a date or an ISO time.
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
    let since = since(state, args.since.as_deref())?;
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
    // The path policy applies to history too.
    let seen: Vec<Version> = page
        .items
        .iter()
        .filter_map(|v| {
            let listed = !v.changes.is_empty();
            for_agent(&policy, v.clone())
                .filter(|v| note.is_some() || !listed || !v.changes.is_empty())
        })
        .collect();
    let zone = state.zone();
    let versions: Vec<VersionOut> = seen.iter().map(|v| VersionOut::of(v, zone)).collect();
    let lines: Vec<String> = seen
        .iter()
        .zip(&versions)
        .map(|(version, out)| line(version, out, zone, note.is_none()))
        .collect();
    let text = markdown(
        note.as_ref(),
        args.since.as_deref(),
        &lines,
        page.next_cursor.as_deref(),
    );
    let out = NoteHistoryOut {
        path: note.as_ref().map(|n| shown(&n.path)),
        exists: note.as_ref().map(|n| n.current.is_some()),
        versions,
        next_cursor: page.next_cursor,
        history_lost: None,
    };
    Ok(Reply::new(text, &out))
}

/// The `since` argument as a time, none when absent or blank.
fn since(
    state: &ToolState,
    written: Option<&str>,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, ToolError> {
    let Some(s) = written.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let t = parse_time(s, state.now(), End::Start)
        .map_err(|m| ToolError::new(format!("`since`: {m}.")))?;
    Ok(Some(
        chrono::DateTime::from_timestamp(t, 0).unwrap_or_default(),
    ))
}

/// A version's line: in the vault listing with the paths it changed, for
/// one note with how it changed the note.
fn line(version: &Version, out: &VersionOut, zone: Zone, listing: bool) -> String {
    let mut line = format!("- {}", version_line(version, zone));
    if listing {
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
    line
}

/// The listing as Markdown.
fn markdown(
    note: Option<&HistoryNote>,
    since: Option<&str>,
    lines: &[String],
    next_cursor: Option<&str>,
) -> String {
    let heading = match note {
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
    let since_text = since
        .map(|s| format!(" since {}", s.trim()))
        .unwrap_or_default();
    let mut text = if lines.is_empty() {
        match note {
            Some(_) => format!("{heading}: no versions{since_text}."),
            None => format!("{heading}: none{since_text}."),
        }
    } else {
        format!(
            "{heading}{since_text}, newest first ({}):\n{}",
            plural(lines.len(), "version"),
            lines.join("\n")
        )
    };
    if let Some(next) = next_cursor {
        text.push_str(&format!(
            "\nOlder versions: same arguments with `cursor: \"{next}\"`."
        ));
    }
    if !lines.is_empty() {
        text.push_str(
            "\nRead one with read_note(path, version); compare with diff_note(path, from, to); \
             bring one back with restore_note(path, version).",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::{Disk, edited};

    fn history_of(disk: &Disk, args: serde_json::Value, expect: Expect) {
        expect.assert_eq(&disk.call(run, args, &[]));
    }

    #[test]
    fn a_note_lists_its_versions_newest_first() {
        history_of(
            &edited(),
            json!({"path": "Plan"}),
            expect![[r#"
            History of `Plan`, newest first (2 versions):
            - `<hex>` <time> · claude · edit_note: Plan.md (Weft tool) — modified
            - `<hex>` <time> · weft · baseline: the vault as Weft first found it (2 files) (outside Weft) — added
            Read one with read_note(path, version); compare with diff_note(path, from, to); bring one back with restore_note(path, version)."#]],
        );
    }

    #[test]
    fn the_vault_lists_what_each_version_changed() {
        history_of(
            &edited(),
            json!({}),
            expect![[r#"
            Recent changes in the vault, newest first (2 versions):
            - `<hex>` <time> · claude · edit_note: Plan.md (Weft tool)
              modified `Plan`
            - `<hex>` <time> · weft · baseline: the vault as Weft first found it (2 files) (outside Weft)
              added `Home`, added `Plan`
            Read one with read_note(path, version); compare with diff_note(path, from, to); bring one back with restore_note(path, version)."#]],
        );
    }

    #[test]
    fn pages_go_on_with_the_cursor() {
        let disk = edited();
        let args: NoteHistoryArgs =
            serde_json::from_value(json!({"path": "Plan", "limit": 1})).unwrap();
        let first = run(&disk.state, args).unwrap();
        let cursor = first.structured["next_cursor"]
            .as_str()
            .unwrap()
            .to_string();
        history_of(
            &disk,
            json!({"path": "Plan", "limit": 1, "cursor": cursor}),
            expect![[r#"
            History of `Plan`, newest first (1 version):
            - `<hex>` <time> · weft · baseline: the vault as Weft first found it (2 files) (outside Weft) — added
            Read one with read_note(path, version); compare with diff_note(path, from, to); bring one back with restore_note(path, version)."#]],
        );
    }

    #[test]
    fn a_name_history_never_saw_is_an_error() {
        history_of(
            &edited(),
            json!({"path": "Nowhere"}),
            expect![[r#"
            Error: `Nowhere` has no recorded versions; give the note's vault path (as it was, for a deleted or moved note), or list the vault's recent changes without a path.
            note_history without `path` lists the vault's recent changes, with the paths they touched."#]],
        );
        history_of(
            &edited(),
            json!({"since": "the day after"}),
            expect![
                "Error: `since`: cannot read `the day after` as a time; use YYYY-MM-DD, an ISO time (<time>), `today`, or a relative time such as `7d` or `now-2w`."
            ],
        );
    }
}
