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
use weft_workspace::access::Access;
use weft_workspace::ops::{MoveNote, MoveReport};

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
    let request = MoveNote {
        path: vault_input(state, &args.path),
        new_path: vault_input(state, &args.new_path),
        update_links: args.update_links.unwrap_or(true),
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = state
        .ops(actor)?
        .move_note(&request)
        .map_err(|e| op_error(state, "move_note", e))?;
    if !report.dry_run {
        notify(state, &report.changes);
    }
    Ok(render(
        &report,
        request.update_links,
        &state.policy().access,
    ))
}

/// The report as the structured answer and its Markdown; links in notes
/// outside `access` are counted, not listed.
fn render(report: &MoveReport, update_links: bool, access: &Access) -> Reply {
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
        stale: visible_links(access, &report.stale, &mut warnings),
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
## Steps
//- /Home.md
[[Plan#Steps|the steps]] and [[Plan]]
//- /notes/Log.md
![[Plan]]
"#;

    /// Moves with `args` on the fixture: the answer, then the files.
    fn moved(args: serde_json::Value, files: &[&str], expect: Expect) {
        let disk = Disk::new(VAULT);
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, files));
    }

    #[test]
    fn links_to_a_moved_note_are_rewritten_keeping_their_form() {
        moved(
            json!({"path": "Plan", "new_path": "archive/Old plan"}),
            &["archive/Old plan.md", "Home.md", "notes/Log.md"],
            expect![[r#"
                Moved note `Plan` → `archive/Old plan`.
                Rewrote 3 links in 2 notes:
                - `Home` line 1: `[[Plan#Steps|the steps]]` → `[[Old plan#Steps|the steps]]`
                - `Home` line 1: `[[Plan]]` → `[[Old plan]]`
                - `notes/Log` line 1: `![[Plan]]` → `![[Old plan]]`

                Changed `Home`: 38 → 46 bytes, sha256 `<hex>`
                Moved `Plan` → `archive/Old plan`
                Changed `notes/Log`: 10 → 14 bytes, sha256 `<hex>`
                --- archive/Old plan.md
                # Plan
                ## Steps

                --- Home.md
                [[Old plan#Steps|the steps]] and [[Old plan]]

                --- notes/Log.md
                ![[Old plan]]
            "#]],
        );
    }

    #[test]
    fn without_update_links_the_stale_links_are_listed() {
        moved(
            json!({"path": "Plan", "new_path": "Road", "update_links": false}),
            &["Home.md"],
            expect![[r#"
                Moved note `Plan` → `Road`.
                Links that name the old path (3 links in 2 notes; edit_note can fix them):
                - `Home`: 2 links (line 1)
                - `notes/Log`: 1 link (line 1)

                Moved `Plan` → `Road`
                --- Home.md
                [[Plan#Steps|the steps]] and [[Plan]]
            "#]],
        );
    }

    #[test]
    fn a_move_onto_a_note_changes_nothing() {
        moved(
            json!({"path": "Plan", "new_path": "Home"}),
            &["Plan.md", "Home.md"],
            expect![[r#"
                Error: `Home.md` already exists
                Choose another new_path, or move or delete what is there first.
                --- Plan.md
                # Plan
                ## Steps

                --- Home.md
                [[Plan#Steps|the steps]] and [[Plan]]
            "#]],
        );
    }
}
