//! `edit_note`: an ordered list of text operations applied to one note,
//! all or nothing (append, replace_text, sections as `A::B`, line ranges…),
//! guarded by `expected_sha256`; reports bytes before/after and the new
//! hash.
//!
//! An adapter over `ops::Ops::edit_note`: it only turns the flat operation
//! objects agents send into `vault::edit::EditOp`s.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::{choice, lenient};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, lenient_values, notify, one_change_text, op_error, options, shown,
    vault_input, warning_texts, warnings_text,
};
use weft_vault::edit::EditOp;
use weft_workspace::ops::{EditNote, EditReport};

choice! {
    pub(crate) enum OpKind {
        Append = "append",
        Prepend = "prepend",
        ReplaceBody = "replace_body" | "update_body",
        ReplaceText = "replace_text" | "replace",
        InsertBefore = "insert_before",
        InsertAfter = "insert_after",
        AppendSection = "append_section" | "append_to_section",
        PrependSection = "prepend_section" | "prepend_to_section",
        ReplaceSection = "replace_section" | "update_section",
        DeleteSection = "delete_section" | "remove_section",
        InsertLines = "insert_lines",
        ReplaceLines = "replace_lines",
        DeleteLines = "delete_lines" | "remove_lines",
    }
}

// One operation (its doc would be in every agent's context).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditOpArg {
    #[serde(alias = "type", alias = "action")]
    pub op: OpKind,
    #[serde(default, alias = "text")]
    pub content: Option<String>,
    /// replace_text: exact text, found once unless replace_all.
    #[serde(default, alias = "old_text", alias = "search", alias = "old_string")]
    pub find: Option<String>,
    #[serde(
        default,
        alias = "new_text",
        alias = "replacement",
        alias = "new_string"
    )]
    pub replace: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub replace_all: Option<bool>,
    /// insert_before/after: the line's text.
    #[serde(default)]
    pub anchor: Option<String>,
    /// *_section: heading or A::B.
    #[serde(default, alias = "heading")]
    pub section: Option<String>,
    /// insert_lines: 1-based line.
    #[serde(default, alias = "line", deserialize_with = "lenient::usize")]
    pub at: Option<usize>,
    /// replace/delete_lines: 1-based, to inclusive.
    #[serde(
        default,
        alias = "start",
        alias = "from_line",
        deserialize_with = "lenient::usize"
    )]
    pub from: Option<usize>,
    #[serde(
        default,
        alias = "end",
        alias = "to_line",
        deserialize_with = "lenient::usize"
    )]
    pub to: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditNoteArgs {
    /// Path, title or alias.
    #[serde(alias = "note", alias = "name", alias = "file")]
    pub path: String,
    #[serde(
        alias = "operations",
        alias = "edits",
        deserialize_with = "lenient_values"
    )]
    #[schemars(with = "Vec<EditOpArg>")]
    pub ops: Vec<Value>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EditNoteOut {
    pub path: String,
    /// False when the operations left the text as it was.
    pub changed: bool,
    pub dry_run: bool,
    pub change: ChangeOut,
    pub ops: Vec<OpOut>,
    /// Links into the note the edit breaks (a removed heading…).
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OpOut {
    pub op: String,
    /// Replacements made (replace_text), else 1.
    pub count: usize,
}

/// The operations as `vault::edit` takes them, or what is missing.
fn edit_ops(values: Vec<Value>) -> Result<Vec<EditOp>, ToolError> {
    if values.is_empty() {
        return Err(ToolError::new("`ops` is empty.").hint(
            "Give at least one operation, e.g. [{\"op\": \"append\", \"content\": \"…\"}].",
        ));
    }
    let mut out = Vec::with_capacity(values.len());
    for (i, value) in values.into_iter().enumerate() {
        let n = i + 1;
        let arg: EditOpArg = serde_json::from_value(value).map_err(|e| {
            ToolError::new(format!("operation {n} of `ops` is not valid: {e}."))
                .hint("Each operation is an object such as {\"op\": \"replace_text\", \"find\": \"old\", \"replace\": \"new\"}; nothing was changed.")
        })?;
        out.push(edit_op(n, arg)?);
    }
    Ok(out)
}

fn edit_op(n: usize, a: EditOpArg) -> Result<EditOp, ToolError> {
    let name = a.op.as_str();
    let need = |what: &str, hint: &str| {
        ToolError::new(format!("operation {n} ({name}) needs `{what}`: {hint}."))
            .hint("Nothing was changed; fix the operation and call again.")
    };
    let content = |a: &EditOpArg| {
        a.content
            .clone()
            .ok_or_else(|| need("content", "the text to add or put in place"))
    };
    let section = |a: &EditOpArg| {
        a.section
            .clone()
            .ok_or_else(|| need("section", "a heading, or \"Parent::Child\""))
    };
    let anchor = |a: &EditOpArg| {
        a.anchor
            .clone()
            .ok_or_else(|| need("anchor", "text of the one line to insert at"))
    };
    let from = |a: &EditOpArg| {
        a.from
            .or(a.at)
            .ok_or_else(|| need("from", "the first line of the range (1-based)"))
    };
    Ok(match a.op {
        OpKind::Append => EditOp::Append {
            content: content(&a)?,
        },
        OpKind::Prepend => EditOp::Prepend {
            content: content(&a)?,
        },
        OpKind::ReplaceBody => EditOp::ReplaceBody {
            content: content(&a)?,
        },
        OpKind::ReplaceText => EditOp::ReplaceText {
            find: a
                .find
                .clone()
                .ok_or_else(|| need("find", "the exact text to replace"))?,
            replace: a
                .replace
                .clone()
                .or(a.content.clone())
                .ok_or_else(|| need("replace", "the new text (\"\" deletes)"))?,
            replace_all: a.replace_all.unwrap_or(false),
        },
        OpKind::InsertBefore => EditOp::InsertBefore {
            anchor: anchor(&a)?,
            content: content(&a)?,
        },
        OpKind::InsertAfter => EditOp::InsertAfter {
            anchor: anchor(&a)?,
            content: content(&a)?,
        },
        OpKind::AppendSection => EditOp::AppendSection {
            section: section(&a)?,
            content: content(&a)?,
        },
        OpKind::PrependSection => EditOp::PrependSection {
            section: section(&a)?,
            content: content(&a)?,
        },
        OpKind::ReplaceSection => EditOp::ReplaceSection {
            section: section(&a)?,
            content: content(&a)?,
        },
        OpKind::DeleteSection => EditOp::DeleteSection {
            section: section(&a)?,
        },
        OpKind::InsertLines => EditOp::InsertLines {
            at: a
                .at
                .or(a.from)
                .ok_or_else(|| need("at", "the 1-based line to insert before"))?,
            content: content(&a)?,
        },
        OpKind::ReplaceLines => {
            let from = from(&a)?;
            EditOp::ReplaceLines {
                from,
                to: a.to.unwrap_or(from),
                content: content(&a)?,
            }
        }
        OpKind::DeleteLines => {
            let from = from(&a)?;
            EditOp::DeleteLines {
                from,
                to: a.to.unwrap_or(from),
            }
        }
    })
}

pub fn run(state: &ToolState, actor: &str, args: EditNoteArgs) -> ToolResult {
    let request = EditNote {
        ops: edit_ops(args.ops)?,
        path: vault_input(state, &args.path),
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = state
        .ops(actor)?
        .edit_note(&request)
        .map_err(|e| op_error(state, "edit_note", e))?;
    if report.changed && !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    Ok(render(&report))
}

/// The report as the structured answer and its Markdown.
fn render(report: &EditReport) -> Reply {
    let mut changes = Changes::new();
    let out = EditNoteOut {
        path: shown(&report.change.path),
        changed: report.changed,
        dry_run: report.dry_run,
        change: changes.out(&report.change),
        ops: report
            .ops
            .iter()
            .map(|o| OpOut {
                op: o.op.to_string(),
                count: o.count,
            })
            .collect(),
        warnings: warning_texts(&report.warnings),
    };
    let mut text = one_change_text(
        &out.change,
        out.changed,
        changes.omitted,
        out.dry_run,
        &format!(
            "`{}` is unchanged: the operations leave its text as it was",
            out.path
        ),
    );
    let counts: Vec<String> = out
        .ops
        .iter()
        .map(|o| {
            if o.op == "replace_text" {
                format!("replace_text ×{}", o.count)
            } else {
                o.op.clone()
            }
        })
        .collect();
    text.push_str(&format!("Operations: {}.\n", counts.join(", ")));
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
First step.
## Notes
Old note.
//- /Home.md
[[Plan#Steps]]
"#;

    /// Edits `Plan` with `ops` on the fixture: the answer, then the file.
    fn edit(ops: serde_json::Value, expect: Expect) {
        let disk = Disk::new(VAULT);
        let args = json!({"path": "Plan", "ops": ops});
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, &["Plan.md"]));
    }

    #[test]
    fn operations_apply_in_order() {
        edit(
            json!([
                {"op": "replace_text", "find": "Old", "replace": "New"},
                {"op": "append_section", "section": "Steps", "content": "Second step."}
            ]),
            expect![[r#"
                Changed `Plan`: 47 → 60 bytes, sha256 `<hex>`
                Operations: replace_text ×1, append_section.
                --- Plan.md
                # Plan
                ## Steps
                First step.
                Second step.
                ## Notes
                New note.
            "#]],
        );
    }

    #[test]
    fn a_removed_heading_warns_of_the_links_it_breaks() {
        edit(
            json!([{"op": "delete_section", "section": "Steps"}]),
            expect![[r#"
                Changed `Plan`: 47 → 26 bytes, sha256 `<hex>`
                Operations: delete_section.

                Warnings:
                - the link on line 1 of `Home.md` reaches this note at `#Steps`, which this change removes: it will not resolve
                --- Plan.md
                # Plan
                ## Notes
                Old note.
            "#]],
        );
    }

    #[test]
    fn a_missing_section_changes_nothing() {
        edit(
            json!([{"op": "append_section", "section": "Later", "content": "x"}]),
            expect![[r#"
                Error: operation 1 (append_section) on `Plan.md` failed: no section `Later`; the note's sections are `Plan` (line 1), `Plan::Steps` (line 2), `Plan::Notes` (line 4). Name one by its heading or its full path `Parent::Child`. Nothing was changed: no operation of the list was applied
                read_note with view: outline lists the note's sections as `A::B` paths; a missing section is never created silently.
                --- Plan.md
                # Plan
                ## Steps
                First step.
                ## Notes
                Old note.
            "#]],
        );
    }

    #[test]
    fn an_operation_without_what_it_needs_is_named() {
        edit(
            json!([]),
            expect![[r#"
            Error: `ops` is empty.
            Give at least one operation, e.g. [{"op": "append", "content": "…"}].
            --- Plan.md
            # Plan
            ## Steps
            First step.
            ## Notes
            Old note.
        "#]],
        );
        edit(
            json!([{"op": "replace_text", "find": "Old"}]),
            expect![[r#"
            Error: operation 1 (replace_text) needs `replace`: the new text ("" deletes).
            Nothing was changed; fix the operation and call again.
            --- Plan.md
            # Plan
            ## Steps
            First step.
            ## Notes
            Old note.
        "#]],
        );
        edit(
            json!([{"op": "replace_text", "find": "Nowhere", "replace": "x"}]),
            expect![[r#"
            Error: operation 1 (replace_text) on `Plan.md` failed: `find` "Nowhere" does not occur in the note (case, spaces and line breaks count). Nothing was changed: no operation of the list was applied
            Read the note again and copy the text exactly.
            --- Plan.md
            # Plan
            ## Steps
            First step.
            ## Notes
            Old note.
        "#]],
        );
    }
}
