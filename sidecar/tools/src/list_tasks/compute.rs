//! The tasks a call asks for: every task of the notes the agent sees (and
//! the folder names) that passes the domain's tests, in groups, sorted,
//! one page of them. Reads the index only: a task's fields were read when
//! its note was.

use std::cmp::Ordering;

use crate::args::choice;
use weft_vault::filter::{Filter, Folder};
use weft_vault::tasks::select::{Order, TaskTest, found, heading_of, tags_of};
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

/// How a group sorts: a number first (dates, types, priorities), then the
/// label.
type GroupKey = (i64, String);

/// The group of a task.
fn group_key(
    group: Group,
    index: &VaultIndex,
    settings: &TaskSettings,
    id: NoteId,
    task: Task<'_>,
) -> GroupKey {
    let note = index.note(id);
    match group {
        Group::None => (0, String::new()),
        Group::Note => (0, note.path.to_string()),
        Group::Folder => {
            let folder = note.path.rsplit_once('/').map_or("", |(f, _)| f);
            (
                0,
                if folder.is_empty() {
                    "/".into()
                } else {
                    folder.into()
                },
            )
        }
        Group::Due => {
            let due = task.date(DateKind::Due);
            match (due.days(), due.date()) {
                (Some(n), Some(day)) => (n, day_text(day)),
                _ if due.is_set() => (i64::MAX - 1, "invalid due date".into()),
                _ => (i64::MAX, "no due date".into()),
            }
        }
        Group::Status => {
            let status = settings.statuses.of(task.symbol);
            (
                status.kind as i64,
                format!("{} ({})", status.name, status.kind.name()),
            )
        }
        Group::Priority => (-(task.priority as i64), task.priority.name().to_string()),
        Group::Tag => match tags_of(note, task).next() {
            Some(tag) => (0, format!("#{}", tag.name)),
            None => (1, "no tags".into()),
        },
        Group::Heading => match heading_of(note, task) {
            Some(h) => (0, h.text.to_string()),
            None => (1, "no heading".into()),
        },
    }
}

/// `2024-05-01` (the daily notes' one date writer).
pub(crate) fn day_text(day: weft_vault::date::Date) -> String {
    weft_vault::daily::format_date(day, "YYYY-MM-DD")
}

/// The tasks of the notes `notes` passes that `query` asks for.
pub fn compute(
    index: &VaultIndex,
    notes: &Filter,
    settings: &TaskSettings,
    query: &Query,
) -> Listing {
    let (found, note_count) = found(index, notes, |note, task| {
        query.test.matches(note, task, settings)
    });
    let mut hits: Vec<(GroupKey, NoteId, u32)> = found
        .into_iter()
        .map(|(id, i)| {
            let task = index.note(id).tasks.at(i);
            (group_key(query.group, index, settings, id, task), id, i)
        })
        .collect();
    let task = |id: NoteId, i: u32| (&*index.note(id).path, index.note(id).tasks.at(i));
    let compare = |a: &(GroupKey, NoteId, u32), b: &(GroupKey, NoteId, u32)| -> Ordering {
        a.0.cmp(&b.0).then_with(|| {
            query
                .order
                .compare(settings, task(a.1, a.2), task(b.1, b.2))
        })
    };
    let total = hits.len();
    let end = query.offset.saturating_add(query.limit).min(total);
    // Only the page needs its place: the rest is partitioned around it.
    if end < total && end > 0 {
        hits.select_nth_unstable_by(end - 1, compare);
        hits.truncate(end);
    }
    hits.sort_by(compare);
    let page = hits
        .into_iter()
        .skip(query.offset)
        .map(|((_, group), note, task)| Hit { note, task, group })
        .collect();
    Listing {
        page,
        total,
        notes: note_count,
    }
}
