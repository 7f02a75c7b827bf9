//! `move_note`: move or rename a note, an attachment or a folder; with
//! `update_links` (the default) every link to it is rewritten through the
//! one resolver, keeping `|alias`, `#heading`, `#^block`, embeds and the
//! link style; without it, the result lists the notes whose links now
//! point to the old place.
//!
//! An adapter over `ops::Ops::move_note`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::format::{Reply, ToolResult, plural};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, LinkEditOut, LinksInOut, changes_text, link_edits_text, links_in_text,
    notify, op_error, options, shown, vault_input, visible_links, warning_texts, warnings_text,
};
use weft_workspace::ops::MoveNote;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveNoteArgs {
    /// Note (path, title, alias), attachment, or folder (`dir/`).
    #[serde(
        alias = "note",
        alias = "name",
        alias = "from",
        alias = "old_path",
        alias = "source"
    )]
    pub path: String,
    /// Vault path; into an existing folder or `dir/`, the name stays.
    #[serde(alias = "to", alias = "destination", alias = "target")]
    pub new_path: String,
    #[serde(
        default,
        alias = "update_backlinks",
        deserialize_with = "lenient::bool"
    )]
    pub update_links: Option<bool>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MoveNoteOut {
    /// note, folder or attachment.
    pub kind: String,
    pub path: String,
    pub new_path: String,
    pub dry_run: bool,
    pub update_links: bool,
    /// Every file that moves or changes.
    pub changes: Vec<ChangeOut>,
    /// Links rewritten (at most 50 listed).
    pub link_edits: Vec<LinkEditOut>,
    pub link_edits_total: usize,
    /// Without update_links: notes whose links name the old place.
    pub stale: Vec<LinksInOut>,
    pub warnings: Vec<String>,
}

pub fn run(state: &ToolState, actor: &str, args: MoveNoteArgs) -> ToolResult {
    let ops = state.ops(actor)?;
    let update_links = args.update_links.unwrap_or(true);
    let request = MoveNote {
        path: vault_input(state, &args.path),
        new_path: vault_input(state, &args.new_path),
        update_links,
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = ops.move_note(&request).map_err(|e| op_error(state, e))?;
    if !report.dry_run {
        notify(state, &report.changes);
    }
    let mut changes = Changes::new();
    let mut warnings = warning_texts(&report.warnings);
    let out = MoveNoteOut {
        kind: report.kind.to_string(),
        path: shown(&report.path),
        new_path: shown(&report.new_path),
        dry_run: report.dry_run,
        update_links,
        changes: changes.all(&report.changes),
        link_edits_total: report.link_edits.len(),
        link_edits: LinkEditOut::listed(&report.link_edits),
        stale: visible_links(state, &report.stale, &mut warnings),
        warnings,
    };
    let mut text = format!(
        "{} {} `{}` → `{}`.\n",
        if out.dry_run { "Would move" } else { "Moved" },
        out.kind,
        out.path,
        out.new_path
    );
    if out.link_edits_total > 0 {
        let notes = {
            let mut paths: Vec<&str> = report.link_edits.iter().map(|e| e.path.as_str()).collect();
            paths.sort();
            paths.dedup();
            paths.len()
        };
        text.push_str(&format!(
            "{} {} in {}:\n",
            if out.dry_run {
                "Links to rewrite:"
            } else {
                "Rewrote"
            },
            plural(out.link_edits_total, "link"),
            plural(notes, "note")
        ));
        text.push_str(&link_edits_text(&out.link_edits, out.link_edits_total));
    } else if update_links {
        text.push_str("No links needed rewriting.\n");
    }
    if !out.stale.is_empty() {
        let count: usize = out.stale.iter().map(|s| s.count).sum();
        text.push_str(&format!(
            "Links that name the old path ({} in {}; edit_note can fix them):\n",
            plural(count, "link"),
            plural(out.stale.len(), "note")
        ));
        text.push_str(&links_in_text(&out.stale));
    }
    text.push('\n');
    text.push_str(&changes_text(&out.changes, changes.omitted, out.dry_run));
    text.push_str(&warnings_text(&out.warnings));
    Ok(Reply::new(text.trim_end().to_string(), &out))
}
