//! `list_tasks`: the vault's tasks (checklist items as the Tasks plugin
//! reads them) filtered by status, dates, priority, tags, text, heading,
//! recurrence and folder, sorted, grouped, paged — each with its note path
//! and line, the address `update_task` takes.
//!
//! Arguments here (read into the domain's `tasks::select` tests on today,
//! THE clock), the tasks as data in `compute` (over the index, the notes
//! the agent sees and the vault's task settings), their words in `render`.

mod args;
mod blocks;
mod compute;
mod render;
#[cfg(test)]
mod tests;

pub use args::ListTasksArgs;
pub use compute::{Group, Listing, Query, compute};
pub use render::{ListTasksOut, TaskGroup, TaskItem};

use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use weft_vault::date::Date;
use weft_vault::filter::{Filter, Folder};
use weft_vault::tasks::DateKind;
use weft_vault::tasks::select::{
    DateField, DateTest, Order, PriorityTest, TaskTest, When, status_types,
};

pub fn run(state: &ToolState, args: ListTasksArgs) -> ToolResult {
    if blocks::asked(&args) {
        return blocks::run_query(state, &args);
    }
    let today = state.now().today();
    let query = query(&args, today)?;
    let settings = state.config().task_settings();
    let policy = state.policy();
    let index = state.index();
    let notes = Filter::all_of(vec![
        Filter::Folder(query.folder.clone()),
        Filter::clone(&policy.access.sight(&index)),
    ]);
    let listing = compute(&index, &notes, &settings, &query);
    let fingerprint = page_fingerprint(&args);
    let next = next_cursor(
        query.offset,
        listing.page.len(),
        listing.total,
        &fingerprint,
    );
    let out = render::out(&index, &settings, &listing, today, next);
    drop(index);
    let text = render::markdown(&out, &query, &describe(&args));
    Ok(Reply::new(text, &out))
}

/// A date argument's test.
fn date_test(
    field: DateField,
    name: &str,
    text: Option<&str>,
    today: Date,
) -> Result<Option<DateTest>, ToolError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let when = When::parse(text, today).map_err(|e| {
        ToolError::new(format!("`{name}`: {e}.")).hint(
            "Write `before today`, `after 2024-05-01`, `this week`, `next month`, `none` or `any`.",
        )
    })?;
    Ok(Some(DateTest { field, when }))
}

/// The query of the arguments, on `today`.
pub fn query(args: &ListTasksArgs, today: Date) -> Result<Query, ToolError> {
    let mut test = TaskTest::default();
    let status = args.status.as_deref().unwrap_or("not done");
    test.types = status_types(status).map_err(|e| ToolError::new(format!("`status`: {e}.")))?;
    let dates = [
        (DateField::One(DateKind::Due), "due", &args.due),
        (
            DateField::One(DateKind::Scheduled),
            "scheduled",
            &args.scheduled,
        ),
        (DateField::One(DateKind::Start), "start", &args.start),
        (DateField::One(DateKind::Done), "done", &args.done),
        (DateField::One(DateKind::Created), "created", &args.created),
        (DateField::Happens, "happens", &args.happens),
    ];
    for (field, name, text) in dates {
        test.dates
            .extend(date_test(field, name, text.as_deref(), today)?);
    }
    if args.overdue == Some(true) {
        test.dates.extend(date_test(
            DateField::One(DateKind::Due),
            "overdue",
            Some("before today"),
            today,
        )?);
        if args.status.is_none() {
            test.types = status_types("not done").unwrap_or_default();
        }
    }
    if let Some(p) = args.priority.as_deref().filter(|p| !p.trim().is_empty()) {
        test.priority =
            Some(PriorityTest::parse(p).map_err(|e| ToolError::new(format!("`priority`: {e}.")))?);
    }
    test.tags = args
        .tags
        .iter()
        .flatten()
        .map(|t| t.trim().trim_start_matches('#').to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let words = |t: &Option<String>| {
        t.as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(String::from)
    };
    test.text = words(&args.text);
    test.heading = words(&args.heading);
    test.recurring = args.recurring;
    let folder = Folder::new(args.folder.as_deref().unwrap_or(""))
        .map_err(|e| ToolError::new(format!("`folder`: {e}.")))?;
    let order = Order::parse(args.sort.as_deref().unwrap_or(""))
        .map_err(|e| ToolError::new(format!("`sort`: {e}.")))?;
    Ok(Query {
        test,
        folder,
        order,
        group: args.group_by.unwrap_or(Group::Note),
        offset: cursor_offset(args.cursor.as_deref(), &page_fingerprint(args))?,
        limit: limit(args.limit, 50, 500),
    })
}

/// What a page's cursor is checked against: the arguments but the cursor.
fn page_fingerprint(args: &ListTasksArgs) -> String {
    format!(
        "{:?}",
        ListTasksArgs {
            cursor: None,
            ..args.clone()
        }
    )
}

/// The filters asked for, in words (`due this week, tagged #work`).
fn describe(args: &ListTasksArgs) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut date = |name: &str, v: &Option<String>| {
        if let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            parts.push(format!("{name} {v}"));
        }
    };
    date("due", &args.due);
    date("scheduled", &args.scheduled);
    date("starting", &args.start);
    date("done", &args.done);
    date("created", &args.created);
    date("happening", &args.happens);
    if args.overdue == Some(true) {
        parts.push("overdue".into());
    }
    if let Some(p) = args.priority.as_deref().filter(|p| !p.trim().is_empty()) {
        parts.push(format!("priority {}", p.trim()));
    }
    for tag in args.tags.iter().flatten() {
        parts.push(format!("tagged #{}", tag.trim().trim_start_matches('#')));
    }
    if let Some(t) = args.text.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(format!("with \"{}\"", t.trim()));
    }
    if let Some(h) = args.heading.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(format!("under a heading with \"{}\"", h.trim()));
    }
    match args.recurring {
        Some(true) => parts.push("recurring".into()),
        Some(false) => parts.push("not recurring".into()),
        None => {}
    }
    if let Some(f) = args.folder.as_deref().filter(|f| !f.trim().is_empty()) {
        parts.push(format!("in {}", f.trim()));
    }
    parts.join(", ")
}
