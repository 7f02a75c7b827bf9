//! `restore_note`: write a version of a note back as its current text, as a
//! new version (history is never rewritten); also for a deleted note, which
//! is created again, and a moved one, which is restored where it is now.
//! `dry_run` shows the diff; `expected_sha256` guards newer edits.
//!
//! An adapter: the old text from `History::restore_plan`, the write through
//! `Ops::restore_note` (checked path, atomic write, index, history log).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::format::{Reply, ToolError, ToolResult, fence};
use super::state::ToolState;
use super::versions::{
    HistoryNote, VersionOut, for_agent, hidden_version, history, history_error, history_note,
    id_text, shown,
};
use weft_workspace::history::History;
use weft_workspace::ops::RestoreNote;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreNoteArgs {
    /// Path, title or alias (deleted: old path).
    #[serde(alias = "note", alias = "name")]
    pub path: String,
    /// A note_history id.
    #[serde(alias = "version_id", alias = "to", alias = "id")]
    pub version: String,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RestoreNoteOut {
    /// Where the note is (was) written, without `.md`.
    pub path: String,
    /// The version brought back.
    pub restored: VersionOut,
    /// The note did not exist and is created again.
    pub recreated: bool,
    /// The note already has this text: nothing to write.
    pub unchanged: bool,
    pub dry_run: bool,
    /// sha256 of the text after the restore.
    pub sha256: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_before: Option<u64>,
    pub bytes_after: u64,
    /// Dry runs: the unified diff from the current text to the version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The new version recording the restore.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_version: Option<VersionOut>,
    /// Set once the note history was found deleted or damaged and started
    /// anew: when, and why; the versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_lost: Option<weft_workspace::history::Lost>,
}

pub fn run(state: &ToolState, actor: &str, args: RestoreNoteArgs) -> ToolResult {
    let history = history(state)?;
    let ops = state.ops(actor)?;
    let note = history_note(state, &args.path, "path")?;
    let (content, restored) = version_text(state, &history, &note, &args.version)?;
    let policy = state.policy();
    let options = super::writing::options(args.expected_sha256, args.dry_run);
    let request = RestoreNote {
        path: note.current.clone().unwrap_or_else(|| note.path.clone()),
        content,
        options,
    };
    let report = ops
        .restore_note(&request)
        .map_err(|e| super::writing::op_error(state, "restore_note", e))?;
    let rel = report.change.path.clone();
    if !report.dry_run && !report.unchanged {
        state.notify_changed(vec![rel.clone()]);
    }
    let new_version = if report.dry_run || report.unchanged {
        None
    } else {
        history
            .log(Some(&rel), None, 1, None)
            .ok()
            .and_then(|page| page.items.into_iter().next())
            .filter(|v| v.message.starts_with("restore_note:"))
            .and_then(|v| for_agent(&policy, v))
            .map(|v| VersionOut::of(&v, state.zone()))
    };
    let out = RestoreNoteOut {
        path: shown(&rel),
        restored,
        recreated: report.recreated,
        unchanged: report.unchanged,
        dry_run: report.dry_run,
        sha256: report.change.sha256.clone().unwrap_or_default(),
        bytes_before: report.change.bytes_before,
        bytes_after: report.change.bytes_after.unwrap_or(0),
        diff: report.change.diff.clone(),
        new_version,
        history_lost: None,
    };
    Ok(Reply::new(markdown(&out), &out))
}

/// The text of the version asked for, and the version, when the agent may
/// see it and it is UTF-8.
fn version_text(
    state: &ToolState,
    history: &History,
    note: &HistoryNote,
    version: &str,
) -> Result<(String, VersionOut), ToolError> {
    let version = version.trim();
    if version.is_empty() || version.eq_ignore_ascii_case("current") {
        return Err(ToolError::new("`version` must name an older version.")
            .hint("note_history lists the note's versions with their ids."));
    }
    let mut plan = history
        .restore_plan(&note.path, version)
        .map_err(history_error)?;
    let policy = state.policy();
    if !policy.access.sees(&plan.path) {
        return Err(hidden_version(&shown(&note.path), version));
    }
    plan.version = for_agent(&policy, plan.version)
        .ok_or_else(|| hidden_version(&shown(&note.path), version))?;
    let restored = VersionOut::of(&plan.version, state.zone());
    let content = String::from_utf8(plan.bytes).map_err(|_| {
        ToolError::new(format!(
            "Version `{}` of `{}` is not valid UTF-8 text; Weft does not restore it, since bytes could be lost.",
            id_text(&restored),
            shown(&plan.path)
        ))
        .hint("read_note with this version shows its text; write it back with write_note if it is right.")
    })?;
    Ok((content, restored))
}

/// What was restored, in words, with the diff.
fn markdown(out: &RestoreNoteOut) -> String {
    let restored = &out.restored;
    let rel = &out.path;
    let label = id_text(restored);
    let when = restored
        .time
        .get(..16)
        .unwrap_or(&restored.time)
        .replace('T', " ");
    let mut text = if out.unchanged {
        format!(
            "`{}` already has the text of `{label}` ({when}); nothing to write.",
            rel
        )
    } else if out.dry_run {
        format!(
            "Dry run: restoring `{}` to `{label}` ({when}, {}) would {} it; nothing was written.",
            rel,
            restored.message.lines().next().unwrap_or(""),
            if out.recreated { "create" } else { "rewrite" }
        )
    } else {
        format!(
            "Restored `{}` to `{label}` ({when}, {}){}.",
            rel,
            restored.message.lines().next().unwrap_or(""),
            if out.recreated {
                "; the note was created again"
            } else {
                ""
            }
        )
    };
    text.push_str(&format!(
        "\nsha256 `{}` · {} bytes",
        out.sha256, out.bytes_after
    ));
    if let Some(v) = &out.new_version {
        text.push_str(&format!(" · recorded as version `{}`", v.short_id));
    }
    if let Some(diff) = out.diff.as_deref().filter(|d| !d.is_empty()) {
        let fence = fence(diff);
        text.push_str(&format!("\n\n{fence}diff\n{}\n{fence}", diff.trim_end()));
    }
    text
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::{Disk, edited};

    /// Restores `Plan` to its first version: the answer, then the file.
    fn restore(disk: &Disk, extra: serde_json::Value, expect: Expect) {
        let first = disk.versions("Plan.md").pop().unwrap();
        let mut args = json!({"path": "Plan", "version": first});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        let shown = disk.call(|s, a| run(s, "claude", a), args, &["Plan.md"]);
        expect.assert_eq(&shown);
    }

    #[test]
    fn a_version_comes_back_as_a_new_version() {
        let disk = edited();
        restore(
            &disk,
            json!({}),
            expect![[r#"
            Restored `Plan` to `<hex>` (<time>, baseline: the vault as Weft first found it (2 files)).
            sha256 `<hex>` · 19 bytes · recorded as version `<hex>`
            --- Plan.md
            # Plan
            First step.
        "#]],
        );
        assert_eq!(disk.versions("Plan.md").len(), 3);
        restore(
            &disk,
            json!({}),
            expect![[r#"
            `Plan` already has the text of `<hex>` (<time>); nothing to write.
            sha256 `<hex>` · 19 bytes
            --- Plan.md
            # Plan
            First step.
        "#]],
        );
    }

    #[test]
    fn a_dry_run_shows_the_diff_and_writes_nothing() {
        restore(
            &edited(),
            json!({"dry_run": true}),
            expect![[r#"
            Dry run: restoring `Plan` to `<hex>` (<time>, baseline: the vault as Weft first found it (2 files)) would rewrite it; nothing was written.
            sha256 `<hex>` · 19 bytes

            ```diff
            --- a/Plan.md
            +++ b/Plan.md
            @@ -1,2 +1,2 @@
             # Plan
            -Second step.
            +First step.
            ```
            --- Plan.md
            # Plan
            Second step.
        "#]],
        );
    }

    #[test]
    fn a_deleted_note_is_created_again() {
        let disk = edited();
        let args = serde_json::from_value(json!({"path": "Plan"})).unwrap();
        crate::delete_note::run(&disk.state, "claude", args).unwrap();
        restore(
            &disk,
            json!({}),
            expect![[r#"
            Restored `Plan` to `<hex>` (<time>, baseline: the vault as Weft first found it (2 files)); the note was created again.
            sha256 `<hex>` · 19 bytes · recorded as version `<hex>`
            --- Plan.md
            # Plan
            First step.
        "#]],
        );
    }

    #[test]
    fn a_stale_sha256_changes_nothing() {
        restore(
            &edited(),
            json!({"expected_sha256": "00"}),
            expect![[r#"
            Error: `Plan.md` changed since it was read: expected sha256 00, current sha256 <hex>; nothing was written
            Read the note again, then retry with expected_sha256 = <hex>.
            --- Plan.md
            # Plan
            Second step.
        "#]],
        );
    }
}
