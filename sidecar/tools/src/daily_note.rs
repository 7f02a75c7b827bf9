//! `daily_note`: the note for a day in the configured folder and format
//! (`[daily]` in .weft.toml or Obsidian's daily-notes settings), created
//! from the template when missing; read it, or add to its end, start or a
//! section.
//!
//! An adapter over `ops::Ops::daily_note`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::format::{Reply, ToolError, ToolResult, clip};
use super::state::ToolState;
use super::writing::{ChangeOut, Changes, changes_text, fenced, notify, op_error, options, shown};
use weft_workspace::ops::{DailyNote, DailyOp, DailyReport};

/// Characters of the note's text a result carries.
const MAX_TEXT: usize = 20_000;

choice! {
    pub enum Op {
        Read = "read" | "get",
        Append = "append",
        Prepend = "prepend",
        AppendSection = "append_section" | "append_to_section",
        PrependSection = "prepend_section" | "prepend_to_section",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DailyNoteArgs {
    /// today (default), yesterday, tomorrow or YYYY-MM-DD.
    #[serde(default, alias = "day")]
    pub date: Option<String>,
    #[serde(default, alias = "action")]
    pub op: Option<Op>,
    #[serde(default, alias = "text")]
    pub content: Option<String>,
    /// Heading or A::B.
    #[serde(default, alias = "heading")]
    pub section: Option<String>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DailyNoteOut {
    pub path: String,
    /// YYYY-MM-DD.
    pub date: String,
    pub op: String,
    /// The note exists after the call.
    pub exists: bool,
    /// Created by this call (from the template).
    pub created: bool,
    pub dry_run: bool,
    pub sha256: String,
    /// The note's text after the call (clipped at 20,000 characters).
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeOut>,
}

fn daily_op(args: &DailyNoteArgs) -> Result<DailyOp, ToolError> {
    let op = args.op.unwrap_or(if args.content.is_some() {
        Op::Append
    } else {
        Op::Read
    });
    let content = || {
        args.content.clone().ok_or_else(|| {
            ToolError::new(format!(
                "op `{}` needs `content`: the text to add.",
                op.as_str()
            ))
        })
    };
    let section = || {
        args.section.clone().ok_or_else(|| {
            ToolError::new(format!(
                "op `{}` needs `section`: a heading of the daily note, or \"Parent::Child\".",
                op.as_str()
            ))
            .hint("daily_note with op: read shows the note and its headings.")
        })
    };
    Ok(match op {
        Op::Read => DailyOp::Read,
        Op::Append => DailyOp::Append {
            content: content()?,
        },
        Op::Prepend => DailyOp::Prepend {
            content: content()?,
        },
        Op::AppendSection => DailyOp::AppendSection {
            section: section()?,
            content: content()?,
        },
        Op::PrependSection => DailyOp::PrependSection {
            section: section()?,
            content: content()?,
        },
    })
}

pub fn run(state: &ToolState, actor: &str, args: DailyNoteArgs) -> ToolResult {
    let request = DailyNote {
        op: daily_op(&args)?,
        date: args.date.clone().filter(|d| !d.trim().is_empty()),
        options: options(args.expected_sha256.clone(), args.dry_run),
    };
    let report = state
        .ops(actor)?
        .daily_note(&request)
        .map_err(|e| op_error(state, "daily_note", e))?;
    if !report.dry_run
        && let Some(change) = &report.change
    {
        notify(state, std::slice::from_ref(change));
    }
    Ok(render(&report, request.op.name()))
}

/// The report of `op` as the structured answer and its Markdown.
fn render(report: &DailyReport, op: &str) -> Reply {
    let mut changes = Changes::new();
    let out = DailyNoteOut {
        path: shown(&report.path),
        date: report.date.clone(),
        op: op.to_string(),
        exists: report.exists,
        created: report.created,
        dry_run: report.dry_run,
        sha256: report.sha256.clone(),
        text: clip(&report.text, MAX_TEXT),
        change: report.change.as_ref().map(|c| changes.out(c)),
    };
    let mut text = format!("**Daily note {}** — `{}`", out.date, out.path);
    if out.created {
        text.push_str(if out.dry_run {
            " (would be created from the template)"
        } else {
            " (created from the template)"
        });
    }
    // A change reports the new sha256 itself.
    if out.change.is_none() || out.op == "read" {
        text.push_str(&format!(" · sha256 `{}`", out.sha256));
    }
    text.push('\n');
    match &out.change {
        Some(change) if out.op != "read" => {
            text.push_str(&changes_text(
                std::slice::from_ref(change),
                changes.omitted,
                out.dry_run,
            ));
        }
        _ => {
            text.push('\n');
            if out.text.trim().is_empty() {
                text.push_str("(empty)\n");
            } else {
                text.push_str(&fenced(&out.text, "markdown"));
            }
        }
    }
    Reply::new(text.trim_end().to_string(), &out)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::Disk;

    const VAULT: &str = r#"
//- /.weft.toml
[daily]
folder = "journal"
template = "templates/Day"
//- /templates/Day.md
# {{date}}
## Log
//- /journal/2026-01-02.md
# 2026-01-02
## Log
Coffee.
"#;

    /// `daily_note` with `args` on the fixture: the answer, then the file.
    fn daily(args: serde_json::Value, file: &str, expect: Expect) {
        let disk = Disk::new(VAULT);
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, &[file]));
    }

    #[test]
    fn a_day_is_read() {
        daily(
            json!({"date": "2026-01-02"}),
            "journal/2026-01-02.md",
            expect![[r#"
            **Daily note 2026-01-02** — `journal/2026-01-02` · sha256 `<hex>`

            ```markdown
            # 2026-01-02
            ## Log
            Coffee.
            ```
            --- journal/2026-01-02.md
            # 2026-01-02
            ## Log
            Coffee.
        "#]],
        );
    }

    #[test]
    fn a_missing_day_is_made_from_the_template_and_added_to() {
        daily(
            json!({"date": "2026-01-03", "op": "append_section", "section": "Log", "content": "Walk."}),
            "journal/2026-01-03.md",
            expect![[r#"
                **Daily note 2026-01-03** — `journal/2026-01-03` (created from the template)
                Created `journal/2026-01-03` (26 bytes, sha256 `<hex>`)
                --- journal/2026-01-03.md
                # 2026-01-03
                ## Log
                Walk.
            "#]],
        );
    }

    #[test]
    fn an_op_without_what_it_needs_is_named() {
        daily(
            json!({"op": "append_section", "content": "x"}),
            "journal/2026-01-02.md",
            expect![[r#"
            Error: op `append_section` needs `section`: a heading of the daily note, or "Parent::Child".
            daily_note with op: read shows the note and its headings.
            --- journal/2026-01-02.md
            # 2026-01-02
            ## Log
            Coffee.
        "#]],
        );
        daily(
            json!({"date": "someday"}),
            "journal/2026-01-02.md",
            expect![[r#"
            Error: `someday` is not a date; give YYYY-MM-DD (e.g. 2024-05-01), `today`, `yesterday` or `tomorrow`
            --- journal/2026-01-02.md
            # 2026-01-02
            ## Log
            Coffee.
        "#]],
        );
    }
}
