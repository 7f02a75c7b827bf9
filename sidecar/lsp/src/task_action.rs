//! Code actions on a task line: complete it, mark it not done, cancel it —
//! the ones its status allows. Each is a plain workspace edit of the
//! editor's buffer: the domain's `edit_task` (done and cancelled dates, a
//! recurring task's next copy above or below, as `update_task` writes),
//! placed in the note with its own line breaks (`TaskEdit::replacement`),
//! then narrowed to the bytes that change.
//!
//! It must not decide what a status means, which line is a task or how a
//! line is written: those are the domain's (`vault::tasks`).

use tower_lsp_server::ls_types::*;

use super::edit::{narrowed, text_edit};
use super::world::{Here, World, text_hash};
use weft_vault::daily::Date;
use weft_vault::parse::parse_text;
use weft_vault::tasks::status::StatusType;
use weft_vault::tasks::write::{TaskChange, edit_task};
use weft_vault::tasks::{TaskSettings, Tasks};

/// What an action does to the task, by the status word the domain
/// resolves (`Statuses::symbol_for`).
struct Move {
    title: &'static str,
    status: &'static str,
    /// The types of status it is offered from.
    from: fn(StatusType) -> bool,
}

const MOVES: [Move; 3] = [
    Move {
        title: "Complete task",
        status: "done",
        from: |kind| !kind.is_done(),
    },
    Move {
        title: "Mark task not done",
        status: "todo",
        from: |kind| matches!(kind, StatusType::Done | StatusType::Cancelled),
    },
    Move {
        title: "Cancel task",
        status: "cancelled",
        from: |kind| !kind.is_done(),
    },
];

/// The actions on the task at line `line` of the note `here` (its buffer
/// when open), when that line is one that counts under `settings`; a
/// change the domain refuses (a recurring task whose rule does not read)
/// is not offered: its diagnostic says why.
pub(super) fn task_actions(
    world: &World,
    here: &Here,
    uri: &Uri,
    line: u32,
    settings: &TaskSettings,
    today: Date,
) -> Vec<CodeAction> {
    let Some(one) = task_at(here, line) else {
        return Vec::new();
    };
    let task = one.at(0);
    if !settings.counts(task) {
        return Vec::new();
    }
    let span = task.span.start as usize..task.span.end as usize;
    let Some(line_text) = here.text.get(span.clone()) else {
        return Vec::new();
    };
    let kind = settings.statuses.kind(task.symbol);
    let encoding = world.encoding();
    MOVES
        .iter()
        .filter(|m| (m.from)(kind))
        .filter_map(|m| {
            let symbol = settings.statuses.symbol_for(m.status)?;
            let edit = edit_task(line_text, &[TaskChange::Status(symbol)], today, settings).ok()?;
            let (range, with) = edit.replacement(&here.text, span.clone());
            let (range, with) = narrowed(&here.text, range, &with);
            let edit = TextEdit::new(here.lines.range(range, encoding), with);
            Some(CodeAction {
                title: m.title.to_string(),
                kind: Some(CodeActionKind::REFACTOR_REWRITE),
                edit: Some(text_edit(
                    world,
                    &here.vault,
                    &here.rel,
                    uri.clone(),
                    vec![edit],
                )),
                ..Default::default()
            })
        })
        .collect()
}

/// The task on `line` of the note's current text (alone): which lines are
/// tasks from the index when it holds that very text, else from a parse of
/// it (an edit on its way).
fn task_at(here: &Here, line: u32) -> Option<Tasks> {
    let span = {
        let index = here.vault.read();
        match index.id_of(&here.rel) {
            Some(id) if index.note(id).content_hash == text_hash(&here.text) => index
                .note(id)
                .tasks
                .iter()
                .find(|t| t.line == line)
                .map(|t| t.span.clone()),
            _ => None,
        }
    };
    let span = span.or_else(|| {
        let note = parse_text(&here.rel, &here.text);
        note.tasks
            .iter()
            .find(|t| t.line == line)
            .map(|t| t.span.clone())
    })?;
    let text = here.text.get(span.start as usize..span.end as usize)?;
    Tasks::of_line(text, line, span.start)
}
