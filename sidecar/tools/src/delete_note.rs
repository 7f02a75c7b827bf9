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
use weft_workspace::ops::{DeleteNote, LinkPolicy};

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
    let ops = state.ops(actor)?;
    let request = DeleteNote {
        path: vault_input(state, &args.path),
        link_policy: match args.link_policy {
            Some(Links::MarkDeleted) => LinkPolicy::MarkDeleted,
            _ => LinkPolicy::Keep,
        },
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = ops.delete_note(&request).map_err(|e| op_error(state, e))?;
    if !report.dry_run {
        notify(state, &report.changes);
    }
    let mut changes = Changes::new();
    let mut warnings = warning_texts(&report.warnings);
    let out = DeleteNoteOut {
        path: shown(&report.path),
        trash_path: report.trash_path.clone(),
        dry_run: report.dry_run,
        changes: changes.all(&report.changes),
        broken: visible_links(state, &report.broken, &mut warnings),
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
    Ok(Reply::new(text.trim_end().to_string(), &out))
}
