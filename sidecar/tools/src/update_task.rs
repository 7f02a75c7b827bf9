//! `update_task`: one task changed as the Tasks plugin would — completed
//! (`✅ today`, and a recurring task's next copy), reopened, cancelled, set
//! to any status; its due, scheduled, start or created date set or cleared;
//! its priority set — writing only the bytes the change needs. Addressed by
//! note and line checked against words of the task (so a moved line is
//! never the wrong task), or by words one task alone holds.
//!
//! An adapter over `ops::Ops::update_task`: it reads the words agents send
//! (status words, days as `when.rs` reads them) into the domain's changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, fenced, notify, one_change_text, op_error, options, shown, vault_input,
};
use weft_vault::date::Date;
use weft_vault::tasks::write::TaskChange;
use weft_vault::tasks::{DateKind, Priority, TaskSettings, when};
use weft_workspace::ops::{TaskReport, UpdateTask};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTaskArgs {
    /// Path, title or alias.
    #[serde(alias = "note", alias = "file")]
    pub path: String,
    /// 1-based, from list_tasks.
    #[serde(default, deserialize_with = "lenient::u32")]
    pub line: Option<u32>,
    /// Words of the task.
    #[serde(alias = "description", alias = "task")]
    pub text: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub due: Option<String>,
    #[serde(default)]
    pub scheduled: Option<String>,
    #[serde(default, alias = "starts")]
    pub start: Option<String>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct UpdateTaskOut {
    pub path: String,
    pub changed: bool,
    pub dry_run: bool,
    /// The task's description, and its 1-based line before the change.
    pub task: String,
    pub line: u32,
    /// The lines that replace it (a recurring task's next copy marked
    /// `next`); none when `🏁 delete` removed it.
    pub lines: Vec<LineOut>,
    pub change: ChangeOut,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LineOut {
    /// 1-based, after the change.
    pub line: u32,
    pub text: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub next: bool,
}

/// The changes the arguments ask for: dates and priority first, then the
/// status (so a recurring task's next copy counts from the new dates).
fn changes(
    args: &UpdateTaskArgs,
    settings: &TaskSettings,
    today: Date,
) -> Result<Vec<TaskChange>, ToolError> {
    let mut out = Vec::new();
    for (kind, value) in [
        (DateKind::Due, &args.due),
        (DateKind::Scheduled, &args.scheduled),
        (DateKind::Start, &args.start),
        (DateKind::Created, &args.created),
    ] {
        let Some(text) = value.as_deref() else {
            continue;
        };
        let name = kind.name();
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("none") {
            out.push(TaskChange::Date(kind, None));
            continue;
        }
        let days =
            when::days(text, today).map_err(|e| ToolError::new(format!("`{name}`: {e}.")))?;
        if days.first != days.last {
            return Err(ToolError::new(format!(
                "`{name}`: `{text}` is a period ({}); give one day, e.g. `tomorrow` or `2024-05-01`.",
                days.text()
            )));
        }
        out.push(TaskChange::Date(kind, Some(Date::from_days(days.first))));
    }
    if let Some(p) = args.priority.as_deref() {
        let priority = Priority::parse(p).ok_or_else(|| {
            ToolError::new(format!(
                "`priority`: `{}` is not a priority; use highest, high, medium, none, low or lowest.",
                p.trim()
            ))
        })?;
        out.push(TaskChange::Priority(priority));
    }
    if let Some(status) = args.status.as_deref() {
        if status.trim().eq_ignore_ascii_case("toggle") {
            out.push(TaskChange::Toggle);
        } else {
            let symbol = settings.statuses.symbol_for(status).ok_or_else(|| {
                let known: Vec<String> = settings
                    .statuses
                    .all()
                    .iter()
                    .map(|s| format!("`[{}]` {}", s.symbol, s.name))
                    .collect();
                ToolError::new(format!(
                    "`status`: `{}` names no status of this vault; use done, todo, in progress, \
                     cancelled, toggle or a symbol ({}).",
                    status.trim(),
                    known.join(", ")
                ))
            })?;
            out.push(TaskChange::Status(symbol));
        }
    }
    Ok(out)
}

pub fn run(state: &ToolState, actor: &str, args: UpdateTaskArgs) -> ToolResult {
    let settings = state.config().task_settings();
    let request = UpdateTask {
        changes: changes(&args, &settings, state.now().today())?,
        path: vault_input(state, &args.path),
        line: args.line,
        text: args.text.clone(),
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = state
        .ops(actor)?
        .update_task(&request)
        .map_err(|e| op_error(state, "update_task", e))?;
    if report.changed && !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    Ok(render(&report))
}

fn render(report: &TaskReport) -> Reply {
    let mut changes = Changes::new();
    let out = UpdateTaskOut {
        path: shown(&report.change.path),
        changed: report.changed,
        dry_run: report.dry_run,
        task: report.task.clone(),
        line: report.line,
        lines: report
            .lines
            .iter()
            .map(|(line, text, next)| LineOut {
                line: *line,
                text: text.clone(),
                next: *next,
            })
            .collect(),
        change: changes.out(&report.change),
    };
    let verb = if out.dry_run {
        "Would change"
    } else {
        "Changed"
    };
    let mut text = format!(
        "{verb} the task at line {} of `{}` (\"{}\")",
        out.line, out.path, out.task
    );
    if out.lines.is_empty() {
        text += ": its line is removed (🏁 delete).\n";
    } else {
        let shown: Vec<String> = out
            .lines
            .iter()
            .map(|l| {
                let next = if l.next { "  ← next occurrence" } else { "" };
                format!("{:>4}  {}{next}", l.line, l.text)
            })
            .collect();
        text += ":\n";
        text += &fenced(&shown.join("\n"), "");
    }
    text += &one_change_text(
        &out.change,
        out.changed,
        changes.omitted,
        out.dry_run,
        &format!("`{}` is unchanged: the task already was so", out.path),
    );
    Reply::new(text, &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Disk;
    use serde_json::json;

    #[test]
    fn complete_reschedule_and_mistakes() {
        let disk = Disk::new(
            "//- /Todo.md\n# Todo\n- [ ] call Bob 📅 2024-05-14\n- [ ] water 🔁 every day 📅 2024-05-14\n",
        );
        let call = |args: serde_json::Value| {
            let args: UpdateTaskArgs = serde_json::from_value(args).expect("arguments");
            run(&disk.state, "test", args)
        };
        let reply = call(json!({"path": "Todo", "line": 2, "text": "bob", "due": "2024-06-01", "priority": "high"}))
            .unwrap_or_else(|e| panic!("{}", e.text()));
        assert_eq!(
            reply.structured["lines"][0]["text"],
            "- [ ] call Bob ⏫ 📅 2024-06-01"
        );
        let reply = call(json!({"path": "Todo", "line": 3, "text": "water", "status": "done"}))
            .unwrap_or_else(|e| panic!("{}", e.text()));
        assert_eq!(
            reply.structured["lines"][0]["text"],
            "- [ ] water 🔁 every day 📅 2024-05-15"
        );
        assert_eq!(reply.structured["lines"][0]["next"], true);
        assert!(reply.text.contains("← next occurrence"), "{}", reply.text);
        let text = disk.read("Todo.md").unwrap();
        assert!(text.starts_with("# Todo\n- [ ] call Bob ⏫ 📅 2024-06-01\n- [ ] water 🔁 every day 📅 2024-05-15\n- [x] water 🔁 every day 📅 2024-05-14 ✅ "), "{text}");
        let error = |args| call(args).map(|r| r.text).unwrap_or_else(|e| e.text());
        assert!(
            error(json!({"path": "Todo", "text": "bob", "due": "next week"}))
                .contains("is a period")
        );
        assert!(
            error(json!({"path": "Todo", "text": "bob", "status": "later"})).contains("`[ ]` Todo")
        );
        assert!(
            error(json!({"path": "Todo", "text": "bob", "priority": "urgent"}))
                .contains("`priority`")
        );
        assert!(
            error(json!({"path": "Todo", "line": 2, "text": "water", "status": "done"}))
                .contains("line 2 is the task \"call Bob\"")
        );
    }
}
