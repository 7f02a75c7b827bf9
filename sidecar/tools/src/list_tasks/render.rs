//! `list_tasks`' answer: each task as a row (path, line, status, text,
//! dates, priority, recurrence, tags, heading) and as a compact line under
//! its group — its line number first, the address `update_task` takes.

use schemars::JsonSchema;
use serde::Serialize;

use super::compute::{Group, Listing, Query, day_text};
use weft_vault::VaultIndex;
use weft_vault::date::Date;
use weft_vault::tasks::select::{heading_of, tags_of};
use weft_vault::tasks::{DateKind, Priority, Task, TaskSettings};

#[derive(Debug, Serialize, JsonSchema)]
pub struct ListTasksOut {
    /// Tasks found in all (before paging), and the notes they are in.
    pub total: usize,
    pub notes: usize,
    pub groups: Vec<TaskGroup>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// A query's `explain`: its filters with their dates expanded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// Blocks of `query_note` that could not run, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub block_errors: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskGroup {
    /// The group's label (a path, a due date, a status…); empty when not
    /// grouped.
    pub key: String,
    pub tasks: Vec<TaskItem>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskItem {
    pub path: String,
    /// 1-based.
    pub line: u32,
    /// The symbol between the brackets.
    pub status: String,
    /// TODO, IN_PROGRESS, ON_HOLD, DONE, CANCELLED or NON_TASK.
    pub status_type: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduled: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recurrence: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// The enclosing task's line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_line: Option<u32>,
    /// Days past its due date, for an open task due before today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overdue_days: Option<i64>,
}

/// A date field as written: `2024-05-01`, `invalid`, or nothing.
fn date(task: Task<'_>, kind: DateKind) -> Option<String> {
    let d = task.date(kind);
    match d.date() {
        Some(day) => Some(day_text(day)),
        None if d.is_set() => Some("invalid".into()),
        None => None,
    }
}

pub(super) fn item(
    index: &VaultIndex,
    settings: &TaskSettings,
    hit: &super::compute::Hit,
    today: Date,
) -> TaskItem {
    let note = index.note(hit.note);
    let task = note.tasks.at(hit.task);
    let status = settings.statuses.of(task.symbol);
    let overdue_days = task
        .date(DateKind::Due)
        .days()
        .map(|due| today.days() - due)
        .filter(|days| *days > 0 && !status.kind.is_done());
    TaskItem {
        path: note.path.to_string(),
        line: task.line + 1,
        status: task.symbol.to_string(),
        status_type: status.kind.name().to_string(),
        description: task.description().to_string(),
        due: date(task, DateKind::Due),
        scheduled: date(task, DateKind::Scheduled),
        start: date(task, DateKind::Start),
        created: date(task, DateKind::Created),
        done: date(task, DateKind::Done),
        cancelled: date(task, DateKind::Cancelled),
        priority: (task.priority != Priority::None).then(|| task.priority.name().to_string()),
        recurrence: task.recurrence().map(str::to_string),
        tags: tags_of(note, task)
            .map(|t| format!("#{}", t.name))
            .collect(),
        heading: heading_of(note, task).map(|h| h.text.to_string()),
        id: task.id().map(str::to_string),
        depends_on: task.depends_on().iter().map(|d| d.to_string()).collect(),
        parent_line: task
            .parent()
            .and_then(|p| note.tasks.get(p as usize))
            .map(|p| p.line + 1),
        overdue_days,
    }
}

/// The structured answer.
pub fn out(
    index: &VaultIndex,
    settings: &TaskSettings,
    listing: &Listing,
    today: Date,
    next_cursor: Option<String>,
) -> ListTasksOut {
    let mut groups: Vec<TaskGroup> = Vec::new();
    for hit in &listing.page {
        let item = item(index, settings, hit, today);
        match groups.last_mut() {
            Some(group) if group.key == hit.group => group.tasks.push(item),
            _ => groups.push(TaskGroup {
                key: hit.group.clone(),
                tasks: vec![item],
            }),
        }
    }
    ListTasksOut {
        total: listing.total,
        notes: listing.notes,
        groups,
        next_cursor,
        explanation: None,
        block_errors: Vec::new(),
    }
}

/// One task as a line: `- L12 [ ] call Bob #work — due 2024-05-14 (2
/// days overdue), high, 🔁 every week`; with its path when the group is
/// not its note.
pub(super) fn line(task: &TaskItem, with_path: bool) -> String {
    let mut facts: Vec<String> = Vec::new();
    if let Some(due) = &task.due {
        match task.overdue_days {
            Some(1) => facts.push(format!("due {due} (1 day overdue)")),
            Some(n) => facts.push(format!("due {due} ({n} days overdue)")),
            None => facts.push(format!("due {due}")),
        }
    }
    for (name, value) in [
        ("scheduled", &task.scheduled),
        ("starts", &task.start),
        ("done", &task.done),
        ("cancelled", &task.cancelled),
    ] {
        if let Some(v) = value {
            facts.push(format!("{name} {v}"));
        }
    }
    if let Some(p) = &task.priority {
        facts.push(format!("{p} priority"));
    }
    if let Some(r) = &task.recurrence {
        facts.push(format!("repeats {r}"));
    }
    if let Some(id) = &task.id {
        facts.push(format!("id {id}"));
    }
    if !task.depends_on.is_empty() {
        facts.push(format!("after {}", task.depends_on.join(", ")));
    }
    let place = if with_path {
        format!("{}:{}", task.path, task.line)
    } else {
        format!("L{}", task.line)
    };
    let facts = if facts.is_empty() {
        String::new()
    } else {
        format!(" — {}", facts.join(", "))
    };
    let indent = if task.parent_line.is_some() && !with_path {
        "  "
    } else {
        ""
    };
    format!(
        "{indent}- {place} [{}] {}{facts}",
        task.status, task.description
    )
}

/// The answer in words: how many, then each group and its tasks.
pub fn markdown(out: &ListTasksOut, query: &Query, filters: &str) -> String {
    let asked = if filters.is_empty() {
        String::new()
    } else {
        format!(" ({filters})")
    };
    if out.total == 0 {
        return format!(
            "No tasks found{asked}. Tasks are checklist items (`- [ ] …`); the default status is \
             `not done` (pass `status: \"any\"` for all)."
        );
    }
    let tasks = if out.total == 1 { "task" } else { "tasks" };
    let notes = if out.notes == 1 { "note" } else { "notes" };
    let mut text = format!(
        "Found {} {tasks}{asked} in {} {notes}",
        out.total, out.notes
    );
    let shown: usize = out.groups.iter().map(|g| g.tasks.len()).sum();
    if shown < out.total {
        let first = query.offset + 1;
        text += &format!(
            "; showing {first}–{} (pass `cursor` for more)",
            query.offset + shown
        );
    }
    text += ".\n";
    let by_note = query.group == Group::Note;
    for group in &out.groups {
        if !group.key.is_empty() {
            text += &format!("\n### {}\n", group.key);
        } else {
            text.push('\n');
        }
        for task in &group.tasks {
            text += &line(task, !by_note);
            text.push('\n');
        }
    }
    if let Some(cursor) = &out.next_cursor {
        text += &format!("\nMore: cursor `{cursor}`.\n");
    }
    text
}
