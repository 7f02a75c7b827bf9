//! `write_note`: create a note (replace one only with `overwrite`), its
//! frontmatter merged from the content, a template and explicit title,
//! tags, aliases and properties; reports the links it holds and which do
//! not resolve.
//!
//! An adapter over `ops::Ops::write_note`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::args::lenient;
use super::format::{Reply, ToolResult, code_list, plural};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, LISTED, changes_text, lenient_object, notify, op_error, options, shown,
    vault_input, warning_texts, warnings_text,
};
use weft_workspace::ops::{WriteNote, WriteReport};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteNoteArgs {
    /// Vault path, .md optional; or folder + title.
    #[serde(
        default,
        alias = "note",
        alias = "name",
        alias = "file",
        alias = "file_path"
    )]
    pub path: Option<String>,
    #[serde(default, alias = "directory", alias = "dir", alias = "path_prefix")]
    pub folder: Option<String>,
    /// Names the file without a path.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default, alias = "text", alias = "body")]
    pub content: Option<String>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub aliases: Option<Vec<String>>,
    /// Wins over the content's.
    #[serde(
        default,
        alias = "properties",
        alias = "metadata",
        deserialize_with = "lenient_object"
    )]
    pub frontmatter: Option<Map<String, Value>>,
    #[serde(default)]
    pub template: Option<String>,
    #[serde(default, alias = "upsert", deserialize_with = "lenient::bool")]
    pub overwrite: Option<bool>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WriteNoteOut {
    /// Vault path without `.md`.
    pub path: String,
    /// An existing note was replaced.
    pub overwritten: bool,
    pub dry_run: bool,
    pub change: ChangeOut,
    /// The note's links (at most 50).
    pub links: Vec<LinkOut>,
    pub links_total: usize,
    /// Distinct targets that resolve to no note.
    pub unresolved: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LinkOut {
    /// As written.
    pub link: String,
    /// 1-based.
    pub line: u32,
    /// The note or file it leads to; absent: unresolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
}

pub fn run(state: &ToolState, actor: &str, args: WriteNoteArgs) -> ToolResult {
    let ops = state.ops(actor)?;
    let report = ops
        .write_note(&request(state, args))
        .map_err(|e| op_error(state, "write_note", e))?;
    if !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    Ok(render(&report))
}

/// The arguments as `ops` takes them.
fn request(state: &ToolState, args: WriteNoteArgs) -> WriteNote {
    WriteNote {
        path: args.path.map(|p| vault_input(state, &p)),
        folder: args.folder,
        title: args.title,
        content: args.content.unwrap_or_default(),
        tags: args.tags.unwrap_or_default(),
        aliases: args.aliases.unwrap_or_default(),
        frontmatter: args.frontmatter.unwrap_or_default(),
        template: args.template,
        overwrite: args.overwrite.unwrap_or(false),
        options: options(args.expected_sha256, args.dry_run),
    }
}

/// The report as the structured answer and its Markdown.
fn render(report: &WriteReport) -> Reply {
    let mut changes = Changes::new();
    let change = changes.out(&report.change);
    let out = WriteNoteOut {
        path: shown(&report.change.path),
        overwritten: report.overwritten,
        dry_run: report.dry_run,
        links_total: report.links.len(),
        links: report
            .links
            .iter()
            .take(LISTED)
            .map(|l| LinkOut {
                link: l.link.clone(),
                line: l.line,
                resolved: l.resolved.as_deref().map(shown),
            })
            .collect(),
        unresolved: report.unresolved.clone(),
        warnings: warning_texts(&report.warnings),
        change,
    };
    let mut text = changes_text(
        std::slice::from_ref(&out.change),
        changes.omitted,
        out.dry_run,
    );
    if out.overwritten && !out.dry_run {
        text = text.replacen("Changed", "Replaced", 1);
    }
    if out.links_total == 0 {
        text.push_str("No links.\n");
    } else if out.unresolved.is_empty() {
        text.push_str(&format!(
            "{}, all resolving.\n",
            plural(out.links_total, "link")
        ));
    } else {
        text.push_str(&format!(
            "{}; unresolved (no such note yet): {}.\n",
            plural(out.links_total, "link"),
            code_list(&out.unresolved)
        ));
    }
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
//- /Home.md
# Home
//- /Plan.md
---
tags: [plan]
---
# Plan
"#;

    /// Writes with `args` on the fixture: the answer, then the file.
    fn write(args: serde_json::Value, file: &str, expect: Expect) {
        let disk = Disk::new(VAULT);
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, &[file]));
    }

    #[test]
    fn a_new_note_with_its_links_and_frontmatter() {
        write(
            json!({"path": "ideas/Spark", "content": "See [[Home]] and [[Later]].", "tags": ["idea"]}),
            "ideas/Spark.md",
            expect![[r#"
                Created `ideas/Spark` (48 bytes, sha256 `<hex>`)
                2 links; unresolved (no such note yet): `Later`.
                --- ideas/Spark.md
                ---
                tags: [idea]
                ---
                See [[Home]] and [[Later]]."#]],
        );
    }

    #[test]
    fn an_existing_note_is_replaced_only_when_asked() {
        write(
            json!({"path": "Plan", "content": "# New"}),
            "Plan.md",
            expect![[r#"
                Error: `Plan.md` already exists
                Choose another path, or pass overwrite: true to replace it (read it first and pass its expected_sha256).
                --- Plan.md
                ---
                tags: [plan]
                ---
                # Plan
            "#]],
        );
        write(
            json!({"path": "Plan", "content": "# New", "overwrite": true}),
            "Plan.md",
            expect![[r#"
                Replaced `Plan`: 28 → 5 bytes, sha256 `<hex>`
                No links.
                --- Plan.md
                # New"#]],
        );
    }

    #[test]
    fn a_dry_run_shows_the_diff_and_writes_nothing() {
        write(
            json!({"path": "Plan", "content": "# Plan\nMore.", "overwrite": true, "dry_run": true}),
            "Plan.md",
            expect![[r#"
                **Dry run: nothing was written.**
                Would change `Plan`: 28 → 12 bytes, sha256 `<hex>`

                ```diff
                --- a/Plan.md
                +++ b/Plan.md
                @@ -1,4 +1,2 @@
                ----
                -tags: [plan]
                ----
                 # Plan
                +More.
                \ No newline at end of file
                ```
                No links.
                --- Plan.md
                ---
                tags: [plan]
                ---
                # Plan
            "#]],
        );
    }
}
