//! The tasks a call asks for: every task of the notes the agent sees (and
//! the folder names) that passes the domain's tests, in groups, sorted,
//! one page of them. Reads the index only: a task's fields were read when
//! its note was.

use std::collections::BinaryHeap;

use crate::args::choice;
use weft_vault::Note;
use weft_vault::filter::{Filter, Folder};
use weft_vault::tasks::select::{Order, TaskTest, gather, heading_of, tags_of};
use weft_vault::tasks::{DateKind, Task, TaskSettings};
use weft_vault::{NoteId, VaultIndex};

choice! {
    pub enum Group {
        Note = "note" | "path" | "file",
        Due = "due",
        Status = "status",
        Priority = "priority",
        Tag = "tag" | "tags",
        Folder = "folder",
        Heading = "heading",
        None = "none",
    }
}

/// What to list.
#[derive(Debug, Clone)]
pub struct Query {
    pub test: TaskTest,
    pub folder: Folder,
    pub order: Order,
    pub group: Group,
    pub offset: usize,
    pub limit: usize,
}

/// One task found: its note, its index in the note's tasks, its group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub note: NoteId,
    pub task: u32,
    /// The group's label (empty when not grouped).
    pub group: String,
}

/// The page of tasks found.
#[derive(Debug)]
pub struct Listing {
    pub page: Vec<Hit>,
    /// Tasks found in all, and the notes they are in.
    pub total: usize,
    pub notes: usize,
}

/// How a group sorts: a number first (dates, types, priorities), then a
/// text borrowed from the note or the settings (its label is written for
/// the page's tasks only).
type GroupKey<'a> = (i64, &'a str);

/// The group of a task, as it sorts.
fn group_key<'a>(
    group: Group,
    note: &'a Note,
    settings: &'a TaskSettings,
    task: Task<'a>,
) -> GroupKey<'a> {
    match group {
        Group::None => (0, ""),
        Group::Note => (0, &note.path),
        Group::Folder => (0, folder_label(&note.path)),
        Group::Due => {
            let due = task.date(DateKind::Due);
            match due.days() {
                Some(n) => (n, ""),
                None if due.is_set() => (i64::MAX - 1, ""),
                None => (i64::MAX, ""),
            }
        }
        Group::Status => {
            let status = settings.statuses.get(task.symbol);
            (
                settings.statuses.kind(task.symbol) as i64,
                status.map_or("Unknown", |s| &s.name),
            )
        }
        Group::Priority => (-(task.priority as i64), ""),
        Group::Tag => match tags_of(note, task).next() {
            Some(tag) => (0, &tag.name),
            None => (1, ""),
        },
        Group::Heading => match heading_of(note, task) {
            Some(h) => (0, &h.text),
            None => (1, ""),
        },
    }
}

/// A note's folder as a group names it: `/` at the top.
fn folder_label(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some((folder, _)) if !folder.is_empty() => folder,
        _ => "/",
    }
}

/// The label of a task's group.
fn group_label(group: Group, note: &Note, settings: &TaskSettings, task: Task<'_>) -> String {
    match group {
        Group::None => String::new(),
        Group::Note => note.path.to_string(),
        Group::Folder => folder_label(&note.path).to_string(),
        Group::Due => {
            let due = task.date(DateKind::Due);
            match due.date() {
                Some(day) => day_text(day),
                None if due.is_set() => "invalid due date".into(),
                None => "no due date".into(),
            }
        }
        Group::Status => {
            let status = settings.statuses.of(task.symbol);
            format!("{} ({})", status.name, status.kind.name())
        }
        Group::Priority => task.priority.name().to_string(),
        Group::Tag => match tags_of(note, task).next() {
            Some(tag) => format!("#{}", tag.name),
            None => "no tags".into(),
        },
        Group::Heading => match heading_of(note, task) {
            Some(h) => h.text.to_string(),
            None => "no heading".into(),
        },
    }
}

/// `2024-05-01` (the daily notes' one date writer).
pub(crate) fn day_text(day: weft_vault::date::Date) -> String {
    weft_vault::daily::format_date(day, "YYYY-MM-DD")
}

/// A task found, with what orders it worked out once: groups, then the
/// order (the plugin's: status type, due, priority), then path and line
/// (no two tasks tie).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Found<'a> {
    group: GroupKey<'a>,
    /// The order's numbers, then its text (a description in lower case).
    numbers: [i64; 3],
    text: Option<String>,
    path: &'a str,
    line: u32,
    note: NoteId,
    task: u32,
}

/// The tasks of the notes `notes` passes that `query` asks for.
pub fn compute(
    index: &VaultIndex,
    notes: &Filter,
    settings: &TaskSettings,
    query: &Query,
) -> Listing {
    // The page's tasks and those before it, kept as the tasks go by (the
    // largest kept on top, dropped when a smaller one comes): a page is
    // small, the tasks found can be a million.
    let keep = query.offset.saturating_add(query.limit);
    // The `keep` smallest, the largest on top.
    fn put<'a>(best: &mut (BinaryHeap<Found<'a>>, usize), found: Found<'a>, keep: usize) {
        if best.0.len() < keep {
            best.0.push(found);
        } else if best.0.peek().is_some_and(|top| found < *top) {
            best.0.pop();
            best.0.push(found);
        }
    }
    let ((best, total), note_count) = gather(
        index,
        notes,
        |note, task| {
            query
                .test
                .matches(note, task, settings)
                .then_some((note, task))
        },
        || (BinaryHeap::new(), 0usize),
        |best, id, i, (note, task)| {
            best.1 += 1;
            if keep == 0 {
                return;
            }
            let (numbers, text) = query.order.key(settings, task);
            put(
                best,
                Found {
                    group: group_key(query.group, note, settings, task),
                    numbers,
                    text,
                    path: &note.path,
                    line: task.line,
                    note: id,
                    task: i,
                },
                keep,
            );
        },
        |mut a, b| {
            a.1 += b.1;
            for found in b.0 {
                put(&mut a, found, keep);
            }
            a
        },
    );
    let hits = best.into_sorted_vec();
    let page = hits
        .into_iter()
        .skip(query.offset)
        .map(|f| {
            let note = index.note(f.note);
            Hit {
                note: f.note,
                task: f.task,
                group: group_label(query.group, note, settings, note.tasks.at(f.task)),
            }
        })
        .collect();
    Listing {
        page,
        total,
        notes: note_count,
    }
}
