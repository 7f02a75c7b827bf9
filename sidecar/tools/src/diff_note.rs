//! `diff_note`: the unified diff of a note between two versions, or between
//! a version and the note as it is now, with added and deleted line counts.
//!
//! An adapter over `History::diff`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::format::{Reply, ToolError, ToolResult, fence};
use super::policy::Policy;
use super::state::ToolState;
use super::versions::{
    HistoryNote, VersionOut, for_agent, hidden_version, history, history_error, history_note,
    id_text, shown,
};
use weft_search::dates::Zone;
use weft_workspace::history::{DiffResult, DiffTarget, History};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffNoteArgs {
    /// Path, title or alias (deleted: old path).
    #[serde(alias = "note", alias = "name")]
    pub path: String,
    /// A note_history id.
    #[serde(alias = "version", alias = "from_version", alias = "old")]
    pub from: String,
    /// Default `current` (now).
    #[serde(default, alias = "to_version", alias = "new")]
    pub to: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DiffNoteOut {
    pub path: String,
    pub from: VersionOut,
    /// Absent when comparing with the current text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<VersionOut>,
    /// The note's path in each side (absent: it did not exist there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_path: Option<String>,
    pub additions: usize,
    pub deletions: usize,
    /// Unified diff, three lines of context; empty when equal.
    pub diff: String,
    /// The diff was cut at the size limit.
    pub truncated: bool,
    /// Set once the note history was found deleted or damaged and started
    /// anew: when, and why; the versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_lost: Option<weft_workspace::history::Lost>,
}

/// Characters of diff an answer carries; the counts cover all of it.
const MAX_DIFF: usize = 30_000;

pub fn run(state: &ToolState, args: DiffNoteArgs) -> ToolResult {
    let history = history(state)?;
    let note = history_note(state, &args.path, "path")?;
    let from = args.from.trim();
    if from.is_empty() {
        return Err(ToolError::new("`from` is empty.")
            .hint("Pass a version id from note_history (short or full)."));
    }
    let to = args
        .to
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("current"));
    let current_text = match (&to, &note.current) {
        (None, Some(current)) => state.read_text(current),
        _ => None,
    };
    let target = match to {
        Some(version) => DiffTarget::Version(version),
        // A note that is gone now: everything it had is deleted.
        None => DiffTarget::Current(current_text.as_deref().unwrap_or("")),
    };
    let result = compute(&history, &state.policy(), &note, from, target)?;
    Ok(render(&note, &result, state.zone()))
}

/// The diff of `note` from version `from` to `target`, when the agent may
/// see both sides.
fn compute(
    history: &History,
    policy: &Policy,
    note: &HistoryNote,
    from: &str,
    target: DiffTarget<'_>,
) -> Result<DiffResult, ToolError> {
    let mut result = history
        .diff(&note.path, from, target)
        .map_err(history_error)?;
    // Versions in which the note was where the agent may not see it are
    // not its to compare.
    let hidden = || hidden_version(&shown(&note.path), from);
    let seen = |path: &Option<String>| path.as_deref().is_none_or(|p| policy.access.sees(p));
    if !seen(&result.from_path) || !seen(&result.to_path) {
        return Err(hidden());
    }
    result.from = for_agent(policy, result.from).ok_or_else(hidden)?;
    result.to = match result.to.take() {
        Some(to) => Some(for_agent(policy, to).ok_or_else(hidden)?),
        None => None,
    };
    Ok(result)
}

/// The diff as the structured answer and its Markdown.
fn render(note: &HistoryNote, result: &DiffResult, zone: Zone) -> Reply {
    let from_out = VersionOut::of(&result.from, zone);
    let to_out = result.to.as_ref().map(|to| VersionOut::of(to, zone));
    let (diff, truncated) = clip_diff(&result.unified);
    let to_label = match &to_out {
        Some(v) => format!("`{}`", id_text(v)),
        None if note.current.is_some() => "the current text".to_string(),
        None => "now (the note does not exist now)".to_string(),
    };
    let mut text = format!(
        "`{}`: `{}` → {to_label}: +{} −{} lines.",
        shown(&note.path),
        id_text(&from_out),
        result.additions,
        result.deletions
    );
    if result.from_path.as_deref() != Some(note.path.as_str())
        && let Some(old) = &result.from_path
    {
        text.push_str(&format!(
            " In `{}` it was `{}`.",
            id_text(&from_out),
            shown(old)
        ));
    }
    if diff.is_empty() {
        text.push_str("\nNo difference.");
    } else {
        let fence = fence(&diff);
        text.push_str(&format!("\n\n{fence}diff\n{}\n{fence}", diff.trim_end()));
        if truncated {
            text.push_str(&format!(
                "\n_The diff is cut at {MAX_DIFF} characters; the counts cover all of it._"
            ));
        }
    }
    let out = DiffNoteOut {
        path: shown(&note.path),
        from: from_out,
        to: to_out,
        from_path: result.from_path.as_deref().map(shown),
        to_path: result.to_path.as_deref().map(shown),
        additions: result.additions,
        deletions: result.deletions,
        diff,
        truncated,
        history_lost: None,
    };
    Reply::new(text, &out)
}

/// The diff within [`MAX_DIFF`] characters, cut at a line end.
fn clip_diff(diff: &str) -> (String, bool) {
    if diff.len() <= MAX_DIFF {
        return (diff.to_string(), false);
    }
    let mut end = MAX_DIFF;
    while !diff.is_char_boundary(end) {
        end -= 1;
    }
    let end = diff[..end].rfind('\n').map_or(end, |i| i + 1);
    (diff[..end].to_string(), true)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::{Disk, edited};

    fn diff(disk: &Disk, args: serde_json::Value, expect: Expect) {
        expect.assert_eq(&disk.call(run, args, &[]));
    }

    #[test]
    fn a_version_against_the_current_text() {
        let disk = edited();
        let first = disk.versions("Plan.md").pop().unwrap();
        diff(
            &disk,
            json!({"path": "Plan", "from": first}),
            expect![[r#"
            `Plan`: `<hex>` → the current text: +1 −1 lines.

            ```diff
            --- a/Plan.md@<hex>
            +++ b/Plan.md@current
            @@ -1,2 +1,2 @@
             # Plan
            -First step.
            +Second step.
            ```"#]],
        );
    }

    #[test]
    fn two_versions_by_short_ids() {
        let disk = edited();
        let ids = disk.versions("Plan.md");
        diff(
            &disk,
            json!({"path": "Plan", "from": &ids[1][..8], "to": &ids[0][..8]}),
            expect![[r#"
                `Plan`: `<hex>` → `<hex>`: +1 −1 lines.

                ```diff
                --- a/Plan.md@<hex>
                +++ b/Plan.md@<hex>
                @@ -1,2 +1,2 @@
                 # Plan
                -First step.
                +Second step.
                ```"#]],
        );
        diff(
            &disk,
            json!({"path": "Plan", "from": &ids[0], "to": &ids[0]}),
            expect![[r#"
            `Plan`: `<hex>` → `<hex>`: +0 −0 lines.
            No difference."#]],
        );
    }

    #[test]
    fn an_unknown_version_is_an_error() {
        diff(
            &edited(),
            json!({"path": "Plan", "from": "0000000"}),
            expect![[r#"
            Error: no version `<hex>` in the note history; recent versions: <hex> (<time>), <hex> (<time>).
            note_history lists the note's versions with their ids."#]],
        );
        diff(
            &edited(),
            json!({"path": "Plan", "from": " "}),
            expect![[r#"
            Error: `from` is empty.
            Pass a version id from note_history (short or full)."#]],
        );
    }
}
