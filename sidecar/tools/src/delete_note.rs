//! `delete_note`: move a note to `.trash/` (restorable), listing the notes
//! whose links to it are now broken; `link_policy: mark_deleted` rewrites
//! those links to `[[name (deleted)]]`.
//!
//! An adapter over `ops::Ops::delete_note`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::format::{Reply, ToolResult, plural};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, LinkEditOut, LinksInOut, changes_text, link_edits_text, links_in_text,
    notify, op_error, options, shown, vault_input, visible_links, warning_texts, warnings_text,
};
use weft_workspace::access::Access;
use weft_workspace::ops::{DeleteNote, DeleteReport, LinkPolicy};

choice! {
    pub enum Links {
        Keep = "keep" | "leave" | "none",
        MarkDeleted = "mark_deleted" | "mark",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteNoteArgs {
    /// Path, title or alias.
    #[serde(alias = "note", alias = "name", alias = "file")]
    pub path: String,
    #[serde(default)]
    pub link_policy: Option<Links>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DeleteNoteOut {
    pub path: String,
    /// Where the note is (or would be) in the trash.
    pub trash_path: String,
    pub dry_run: bool,
    pub changes: Vec<ChangeOut>,
    /// Notes whose links to it are now broken.
    pub broken: Vec<LinksInOut>,
    /// Links rewritten by mark_deleted (at most 50 listed).
    pub link_edits: Vec<LinkEditOut>,
    pub link_edits_total: usize,
    pub warnings: Vec<String>,
}

pub fn run(state: &ToolState, actor: &str, args: DeleteNoteArgs) -> ToolResult {
    let request = DeleteNote {
        path: vault_input(state, &args.path),
        link_policy: match args.link_policy {
            Some(Links::MarkDeleted) => LinkPolicy::MarkDeleted,
            _ => LinkPolicy::Keep,
        },
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = state
        .ops(actor)?
        .delete_note(&request)
        .map_err(|e| op_error(state, "delete_note", e))?;
    if !report.dry_run {
        notify(state, &report.changes);
    }
    Ok(render(&report, &state.policy().access))
}

/// The report as the structured answer and its Markdown; links in notes
/// outside `access` are counted, not listed.
fn render(report: &DeleteReport, access: &Access) -> Reply {
    let mut changes = Changes::new();
    let mut warnings = warning_texts(&report.warnings);
    let out = DeleteNoteOut {
        path: shown(&report.path),
        trash_path: report.trash_path.clone(),
        dry_run: report.dry_run,
        changes: changes.all(&report.changes),
        broken: visible_links(access, &report.broken, &mut warnings),
        link_edits_total: report.link_edits.len(),
        link_edits: LinkEditOut::listed(&report.link_edits),
        warnings,
    };
    let mut text = format!(
        "{} `{}` to the trash: `{}` (restorable).\n",
        if out.dry_run { "Would move" } else { "Moved" },
        out.path,
        out.trash_path
    );
    if out.broken.is_empty() {
        text.push_str("No other note links to it.\n");
    } else {
        let count: usize = out.broken.iter().map(|b| b.count).sum();
        text.push_str(&format!(
            "{} in {} {} to it:\n",
            plural(count, "link"),
            plural(out.broken.len(), "note"),
            if out.link_edits_total > 0 {
                "pointed"
            } else if out.dry_run {
                "would break, pointing"
            } else {
                "are now broken, pointing"
            }
        ));
        text.push_str(&links_in_text(&out.broken));
        if out.link_edits_total > 0 {
            text.push_str(&format!(
                "{} as deleted:\n",
                if out.dry_run {
                    "Links to mark"
                } else {
                    "Marked"
                }
            ));
            text.push_str(&link_edits_text(&out.link_edits, out.link_edits_total));
        } else {
            text.push_str(
                "They were left as they are; link_policy: mark_deleted marks them, or edit_note fixes them.\n",
            );
        }
    }
    text.push('\n');
    text.push_str(&changes_text(&out.changes, changes.omitted, out.dry_run));
    text.push_str(&warnings_text(&out.warnings));
    Reply::new(text.trim_end().to_string(), &out)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::Disk;

    const VAULT: &str = r#"
//- /Plan.md
# Plan
//- /Home.md
[[Plan]] and [[Plan|the plan]]
//- /secret/Diary.md
[[Plan]]
//- /.weft.toml
[agent]
deny = ["secret/**"]
"#;

    /// Deletes with `args` on the fixture: the answer, then the files.
    fn deleted(args: serde_json::Value, files: &[&str], expect: Expect) {
        let disk = Disk::new(VAULT);
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, files));
    }

    #[test]
    fn a_deleted_note_goes_to_the_trash_and_its_links_are_listed() {
        deleted(
            json!({"path": "Plan"}),
            &["Plan.md", "Home.md"],
            expect![[r#"
                Moved `Plan` to the trash: `.trash/Plan.md` (restorable).
                2 links in 1 note are now broken, pointing to it:
                - `Home`: 2 links (line 1)
                They were left as they are; link_policy: mark_deleted marks them, or edit_note fixes them.

                Moved `Plan` to the trash: `.trash/Plan.md`

                Warnings:
                - 1 link in 1 note outside what this agent may access (`[agent]` allow/deny) is not listed
                --- Plan.md
                (no file)
                --- Home.md
                [[Plan]] and [[Plan|the plan]]
            "#]],
        );
    }

    #[test]
    fn mark_deleted_rewrites_the_links() {
        deleted(
            json!({"path": "Plan", "link_policy": "mark_deleted"}),
            &["Home.md"],
            expect![[r#"
                Error: a note this agent may not access links to `Plan.md`, and the change would rewrite them (`agent.allow`/`agent.deny` in .weft.toml); nothing was written
                Delete with link_policy: keep to leave their links as they are, or ask the user.
                --- Home.md
                [[Plan]] and [[Plan|the plan]]
            "#]],
        );
    }
}
