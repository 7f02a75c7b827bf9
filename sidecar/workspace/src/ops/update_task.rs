//! `update_task`: one task changed as the Tasks plugin would change it
//! (status with its done and cancelled dates, a recurring task's next copy,
//! `🏁 delete`, dates, priority), addressed by its note and line checked
//! against words of its description, or by those words alone when one task
//! holds them; guarded by `expected_sha256`. The change itself is the
//! domain's (`vault::tasks::write`); this is the IO around it. No protocol.

use serde::Serialize;

use super::error::OpError;
use super::{Change, Ops, Step, WriteOptions, change};
use weft_vault::lines::LineIndex;
use weft_vault::parse_note;
use weft_vault::tasks::write::{TaskChange, edit_task};
use weft_vault::tasks::{Task, Tasks};

/// Which task, and what to change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateTask {
    /// The note: a vault path (`.md` optional), a title or an alias.
    pub path: String,
    /// The task's 1-based line, when known.
    pub line: Option<u32>,
    /// Words of the task's description (any case): with `line`, they
    /// confirm it is the task meant; alone, exactly one task must hold them.
    pub text: String,
    pub changes: Vec<TaskChange>,
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskReport {
    pub change: Change,
    pub changed: bool,
    pub dry_run: bool,
    /// The task's description.
    pub task: String,
    /// Its 1-based line before the change.
    pub line: u32,
    /// The lines that replace it, each with its 1-based line number after
    /// the change; `next` marks a recurring task's new copy. Empty when
    /// `🏁 delete` removed the line.
    pub lines: Vec<(u32, String, bool)>,
}

impl Ops<'_> {
    /// Changes one task of one note.
    pub fn update_task(&self, request: &UpdateTask) -> Result<TaskReport, OpError> {
        self.policy.check_writable()?;
        if request.changes.is_empty() {
            return Err(OpError::Invalid(
                "nothing to change: give `status`, a date (`due`, `scheduled`, `start`, \
                 `created`, `done`, `cancelled`) or `priority`"
                    .into(),
            ));
        }
        if request.text.trim().is_empty() {
            return Err(OpError::Invalid(
                "`text` is required: words of the task's description (with `line`, they \
                 confirm it is the task you mean)"
                    .into(),
            ));
        }
        let (_writes, rel, current) = self.open_existing(&request.path, &request.options)?;
        // The tasks of the text as it is now, read as the index reads them.
        let note = parse_note(&rel, &current.bytes);
        let task = find_task(&rel, &note.tasks, request.line, &request.text)?;
        let text = &current.text;
        let lines = LineIndex::new(text);
        let start = lines.line_start(task.line).unwrap_or(0);
        let end = task.span.end as usize;
        let line_text = &text[start..end];
        let settings = self.config().task_settings();
        let today = self.now().today();
        let edit = edit_task(line_text, &request.changes, today, &settings)
            .map_err(|e| OpError::Invalid(format!("line {}: {e}", task.line + 1)))?;
        let (replaced, with) = edit.replacement(text, start..end);
        let after = format!("{}{with}{}", &text[..replaced.start], &text[replaced.end..]);
        let changed = after != *text;
        let dry_run = request.options.dry_run;
        if changed {
            self.perform(
                dry_run,
                "update_task",
                &rel,
                &[Step::Write {
                    path: rel.clone(),
                    before: Some(current.bytes.clone()),
                    after: after.clone(),
                }],
            )?;
        }
        let first = task.line + 1;
        Ok(TaskReport {
            change: change(&rel, None, Some(text), Some(&after), dry_run),
            changed,
            dry_run,
            task: task.description().to_string(),
            line: first,
            lines: edit
                .lines
                .iter()
                .enumerate()
                .map(|(i, l)| (first + i as u32, l.clone(), edit.next.contains(&i)))
                .collect(),
        })
    }
}

/// The task `line` and `text` name in a note's `tasks`.
fn find_task<'t>(
    rel: &str,
    tasks: &'t Tasks,
    line: Option<u32>,
    text: &str,
) -> Result<Task<'t>, OpError> {
    let words = text.trim().to_lowercase();
    let holds = |t: Task| t.description().to_lowercase().contains(&words);
    let matching: Vec<Task> = tasks.iter().filter(|t| holds(*t)).collect();
    let listed = |found: &[Task]| {
        found
            .iter()
            .take(10)
            .map(|t| format!("line {}: {}", t.line + 1, t.description()))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if let Some(line) = line {
        let at = tasks.iter().find(|t| t.line + 1 == line);
        return match at {
            Some(t) if holds(t) => Ok(t),
            _ => {
                let here = match at {
                    Some(t) => format!("line {line} is the task \"{}\"", t.description()),
                    None => format!("line {line} of `{rel}` is not a task"),
                };
                let hint = match matching.as_slice() {
                    [] => format!("no task of `{rel}` holds \"{}\"", text.trim()),
                    [one] => format!(
                        "the task holding \"{}\" is at line {} now; pass `line: {}`",
                        text.trim(),
                        one.line + 1,
                        one.line + 1
                    ),
                    several => format!("tasks holding it: {}", listed(several)),
                };
                Err(OpError::Invalid(format!(
                    "{here}, not one holding \"{}\" (the note changed since it was read?): {hint}. Nothing was changed.",
                    text.trim()
                )))
            }
        };
    }
    match matching.as_slice() {
        [one] => Ok(*one),
        [] => Err(OpError::Invalid(format!(
            "no task of `{rel}` holds \"{}\". Nothing was changed.",
            text.trim()
        ))),
        several => Err(OpError::Invalid(format!(
            "{} tasks of `{rel}` hold \"{}\": {}. Pass `line` (or more words). Nothing was changed.",
            several.len(),
            text.trim(),
            listed(several)
        ))),
    }
}
