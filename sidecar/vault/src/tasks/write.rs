//! Changing one task line as the Tasks plugin would — a new status (its
//! done and cancelled dates, the next copy of a recurring task, `🏁
//! delete`), a date set or cleared, a priority — while keeping every byte
//! of the line the change does not need.
//!
//! The plugin re-writes a changed task from its parts (its fields in
//! canonical order, its rule as rrule's `toText()`); here the user's line
//! is edited in place instead: the status symbol, a field's value bytes, a
//! field inserted where the plugin's order puts it among the fields already
//! there, a field removed with the spaces before it. Every line produced is
//! read back, and a line that would not read as intended is an error, as is
//! a rule that cannot be read: nothing is then changed, and no date is ever
//! guessed.
//!
//! Pure: one line in, lines out. It must not know files, notes, line breaks
//! or where the plugin's settings come from ([`TaskSettings`] is given).

use std::fmt;

use super::fields::{FieldKind, Format};
use super::recur::{self, RecurError, Recurrence, TaskDates};
use super::status::StatusType;
use super::{DateKind, LineParts, OnCompletion, Priority, TaskSettings, Tasks, read_line};
use crate::date::Date;

/// One change asked of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskChange {
    /// Move to the status with this symbol (the caller resolves words such
    /// as "done" to a symbol through [`super::status::Statuses`]).
    Status(char),
    /// The plugin's toggle: to the current status's `next` symbol.
    Toggle,
    /// Set (`Some`) or clear (`None`) a date field; done and cancelled
    /// included, as explicit edits that change no status.
    Date(DateKind, Option<Date>),
    /// Set a priority; [`Priority::None`] removes the field.
    Priority(Priority),
}

/// Why a task was not changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskError {
    /// The line is not a list item with a checkbox.
    NotATask,
    /// The line given holds a line break.
    LineBreak,
    /// A status symbol that cannot stand between the brackets.
    BadSymbol(char),
    /// A date a task line cannot hold (not a calendar day, or outside the
    /// years 0000–9999).
    BadDate {
        /// The field asked for.
        kind: DateKind,
        /// The date given.
        date: Date,
    },
    /// Completing a recurring task whose rule cannot be read.
    BadRule {
        /// The rule as written.
        rule: String,
        /// Why it was not read.
        error: RecurError,
    },
    /// The rule was read but gives no next occurrence from the task's
    /// dates (no date before the year 10000, or a reference date that is
    /// not a calendar day).
    NoNextOccurrence {
        /// The rule as written.
        rule: String,
        /// Why there is no next date.
        error: RecurError,
    },
    /// The edited line would not read back as intended (the reading of
    /// the user's text around it would change).
    Unwritable {
        /// The line as it would have been written.
        line: String,
        /// What would read differently.
        reason: String,
    },
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::NotATask => write!(
                f,
                "the line is not a task: a task is a list item with a checkbox, such as `- [ ] text`"
            ),
            TaskError::LineBreak => write!(
                f,
                "the text given holds a line break: give the task's one line, without its line break"
            ),
            TaskError::BadSymbol(c) => write!(
                f,
                "{c:?} cannot be a status symbol: a symbol is one character other than a line break"
            ),
            TaskError::BadDate { kind, date } => write!(
                f,
                "{:04}-{:02}-{:02} cannot be the task's {} date: give a calendar day between 0000-01-01 and 9999-12-31",
                date.year,
                date.month,
                date.day,
                kind.name()
            ),
            TaskError::BadRule { rule, error } => write!(
                f,
                "the task's recurrence rule {rule:?} cannot be read ({error}), so its next occurrence \
                 is unknown; nothing was changed: correct the rule (for example `every week on Monday`) \
                 or remove it, then complete the task again"
            ),
            TaskError::NoNextOccurrence { rule, error } => write!(
                f,
                "the task's next occurrence by {rule:?} cannot be computed ({error}); nothing was \
                 changed: correct its dates or its rule, then complete the task again"
            ),
            TaskError::Unwritable { line, reason } => write!(
                f,
                "the change cannot be written into {line:?} so that it reads back as intended \
                 ({reason}); nothing was changed: edit the line by hand"
            ),
        }
    }
}

impl std::error::Error for TaskError {}

/// What replaces a task's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEdit {
    /// The lines, without line breaks, in order: the changed task and the
    /// next copy of a recurring one (above it by default). Empty when `🏁
    /// delete` removed the completed line of a task that does not recur.
    pub lines: Vec<String>,
    /// Which of `lines` is the changed task; `None` when `🏁 delete`
    /// removed it.
    pub task: Option<usize>,
    /// Which of `lines` are next copies of a recurring task.
    pub next: Vec<usize>,
}

impl TaskEdit {
    /// The lines joined by `eol`: the text that replaces the task's line
    /// (its own line break excluded). Empty when [`TaskEdit::lines`] is:
    /// the line is then removed with its break.
    pub fn joined(&self, eol: &str) -> String {
        self.lines.join(eol)
    }

    /// Whether the edit leaves the line as it was.
    pub fn is_unchanged(&self, line: &str) -> bool {
        self.lines.len() == 1 && self.lines[0] == line
    }

    /// The edit placed in its note: `line` is the task's line in `text`
    /// (its bytes, without the line break); returns the bytes of `text`
    /// replaced and what replaces them. The lines are joined by the note's
    /// own line break (the one ending the task's line, else the one before
    /// it, else `\n`). A removed line (`🏁 delete`) takes its break with it,
    /// or the break before it when it is the last line. A `line` that is
    /// not a line of `text` (off its bounds or its characters) is clamped.
    pub fn replacement(
        &self,
        text: &str,
        line: std::ops::Range<usize>,
    ) -> (std::ops::Range<usize>, String) {
        let floor = |mut at: usize| {
            at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let (start, end) = (floor(line.start), floor(line.end));
        let start = start.min(end);
        let after = &text[end..];
        let before = &text[..start];
        let break_after = if after.starts_with("\r\n") {
            Some("\r\n")
        } else if after.starts_with(['\n', '\r']) {
            Some(&after[..1])
        } else {
            None
        };
        let break_before = if before.ends_with("\r\n") {
            Some("\r\n")
        } else if before.ends_with(['\n', '\r']) {
            Some(&before[before.len() - 1..])
        } else {
            None
        };
        if !self.lines.is_empty() {
            let eol = break_after.or(break_before).unwrap_or("\n");
            return (start..end, self.joined(eol));
        }
        match (break_after, break_before) {
            (Some(eol), _) => (start..end + eol.len(), String::new()),
            (None, Some(eol)) => (start - eol.len()..end, String::new()),
            (None, None) => (start..end, String::new()),
        }
    }
}

/// Applies `changes` in order to the task in `line` (one line, without its
/// break), as the plugin's `handleNewStatusWithRecurrenceInUsersOrder`
/// would, on day `today`.
///
/// A status change (to another symbol) sets the done date: kept when the
/// task was DONE already and still is, `today` when it becomes DONE (if
/// `set_done_date`), removed otherwise; the cancelled date likewise with
/// CANCELLED. Becoming DONE from another type, a task with a rule gets its
/// next copy, made from the line as it was before that change. When the
/// changes, taken together, take a task with `🏁 delete` from a non-DONE
/// type to DONE, its line is removed.
pub fn edit_task(
    line: &str,
    changes: &[TaskChange],
    today: Date,
    settings: &TaskSettings,
) -> Result<TaskEdit, TaskError> {
    if line.contains(['\n', '\r']) {
        return Err(TaskError::LineBreak);
    }
    let original = Tasks::of_line(line, 0, 0).ok_or(TaskError::NotATask)?;
    let original = original.at(0);
    let parts = read_line(line).ok_or(TaskError::NotATask)?;
    let format = parts.fields.format().unwrap_or(settings.format);
    let mut task = Line::new(line, parts, format);
    let mut copies: Vec<Line> = Vec::new();
    for change in changes {
        match *change {
            TaskChange::Status(symbol) => {
                copies.extend(change_status(&mut task, symbol, today, settings)?);
            }
            TaskChange::Toggle => {
                let next = settings.statuses.of(task.symbol).next;
                copies.extend(change_status(&mut task, next, today, settings)?);
            }
            TaskChange::Date(kind, date) => {
                if let Some(date) = date {
                    check_date(kind, date)?;
                }
                task.put(kind.field(), date.map(Value::Date))?;
            }
            TaskChange::Priority(priority) => {
                let value = (priority != Priority::None).then_some(Value::Priority(priority));
                task.put(FieldKind::Priority, value)?;
            }
        }
    }
    task.verify()?;
    for copy in &copies {
        copy.verify()?;
    }
    let statuses = &settings.statuses;
    let deleted = original.on_completion() == Some(OnCompletion::Delete)
        && statuses.kind(original.symbol) != StatusType::Done
        && statuses.kind(task.symbol) == StatusType::Done;
    let copies: Vec<String> = copies.into_iter().map(|c| c.text).collect();
    let n = copies.len();
    let edit = match (deleted, settings.recurrence_below) {
        (true, _) => TaskEdit {
            lines: copies,
            task: None,
            next: (0..n).collect(),
        },
        (false, false) => {
            let mut lines = copies;
            lines.push(task.text);
            TaskEdit {
                lines,
                task: Some(n),
                next: (0..n).collect(),
            }
        }
        (false, true) => {
            // Each copy goes right below the done line, so a later one
            // stands above an earlier one.
            let mut lines = vec![task.text];
            lines.extend(copies.into_iter().rev());
            TaskEdit {
                lines,
                task: Some(0),
                next: (1..=n).collect(),
            }
        }
    };
    Ok(edit)
}

/// A date a line can hold: a calendar day in the years 0000–9999.
fn check_date(kind: DateKind, date: Date) -> Result<(), TaskError> {
    let real =
        chrono::NaiveDate::from_ymd_opt(date.year, u32::from(date.month), u32::from(date.day))
            .is_some();
    if real && (0..=9999).contains(&date.year) {
        Ok(())
    } else {
        Err(TaskError::BadDate { kind, date })
    }
}

/// The plugin's `handleNewStatus` on the line: returns the next copy when
/// one is made.
fn change_status(
    task: &mut Line,
    symbol: char,
    today: Date,
    settings: &TaskSettings,
) -> Result<Option<Line>, TaskError> {
    if matches!(symbol, '\n' | '\r') {
        return Err(TaskError::BadSymbol(symbol));
    }
    let old = task.symbol;
    if symbol == old {
        return Ok(None);
    }
    let statuses = &settings.statuses;
    let (old_type, new_type) = (statuses.kind(old), statuses.kind(symbol));
    let completes = new_type == StatusType::Done && old_type != StatusType::Done;
    let copy = match task.value(FieldKind::Recurrence) {
        Some(rule) if completes => Some(next_copy(task, &rule, symbol, today, settings)?),
        _ => None,
    };
    task.set_symbol(symbol)?;
    for (kind, field, stamp) in [
        (StatusType::Done, FieldKind::Done, settings.set_done_date),
        (
            StatusType::Cancelled,
            FieldKind::Cancelled,
            settings.set_cancelled_date,
        ),
    ] {
        if new_type != kind {
            task.put(field, None)?;
        } else if old_type != kind {
            task.put(field, stamp.then_some(Value::Date(today)))?;
        }
    }
    Ok(copy)
}

/// The next occurrence of the recurring task in `task` (as it is before it
/// becomes `done`): the plugin's `createNextOccurrence`.
fn next_copy(
    task: &Line,
    rule_text: &str,
    done: char,
    today: Date,
    settings: &TaskSettings,
) -> Result<Line, TaskError> {
    let rule_text = rule_text.trim();
    let rule = Recurrence::parse(rule_text).map_err(|error| TaskError::BadRule {
        rule: rule_text.to_string(),
        error,
    })?;
    let date = |kind: FieldKind| task.value(kind).and_then(|v| date_as_written(&v));
    let dates = TaskDates {
        start: date(FieldKind::Start),
        scheduled: date(FieldKind::Scheduled),
        due: date(FieldKind::Due),
    };
    let next = recur::next_dates(&rule, dates, today, settings.remove_scheduled_on_recurrence)
        .map_err(|error| TaskError::NoNextOccurrence {
            rule: rule_text.to_string(),
            error,
        })?;
    let mut copy = task.clone();
    copy.set_symbol(settings.statuses.after_recurrence(done))?;
    copy.put(FieldKind::Recurrence, Some(Value::Text(rule.to_text())))?;
    for (kind, date) in [
        (FieldKind::Start, next.start),
        (FieldKind::Scheduled, next.scheduled),
        (FieldKind::Due, next.due),
    ] {
        copy.put(kind, date.map(Value::Date))?;
    }
    for kind in [
        FieldKind::Done,
        FieldKind::Cancelled,
        FieldKind::Id,
        FieldKind::DependsOn,
    ] {
        copy.put(kind, None)?;
    }
    let created = settings.set_created_date.then_some(Value::Date(today));
    copy.put(FieldKind::Created, created)?;
    copy.drop_block_id()?;
    Ok(copy)
}

/// `YYYY-MM-DD` as written, a calendar day or not (`2023-02-30`): the
/// recurrence counts from what the user wrote.
pub(super) fn date_as_written(text: &str) -> Option<Date> {
    let num = |r: std::ops::Range<usize>| text.get(r).and_then(|t| t.parse::<u32>().ok());
    match (num(0..4), num(5..7), num(8..10)) {
        (Some(year), Some(month), Some(day)) if text.len() == 10 => Some(Date {
            year: year as i32,
            month: month as u8,
            day: day as u8,
        }),
        _ => None,
    }
}

/// A value to write into a field.
#[derive(Debug, Clone)]
enum Value {
    Date(Date),
    Priority(Priority),
    Text(String),
}

impl Value {
    /// The value's text in a field of `format`.
    fn text(&self, format: Format) -> String {
        match self {
            Value::Date(d) => format!("{:04}-{:02}-{:02}", d.year, d.month, d.day),
            Value::Priority(p) => match format {
                Format::Emoji => p.emoji().unwrap_or_default().to_string(),
                Format::Dataview => p.name().to_string(),
            },
            Value::Text(t) => t.clone(),
        }
    }
}

/// A field as the plugin writes it, with the spaces it puts before it.
fn new_field(kind: FieldKind, value: &Value, format: Format) -> (&'static str, String) {
    let text = value.text(format);
    match (format, kind) {
        (Format::Emoji, FieldKind::Priority) => (" ", text),
        (Format::Emoji, _) => (" ", format!("{} {text}", kind.emoji())),
        (Format::Dataview, _) => ("  ", format!("[{} {text}]", kind.dataview_key())),
    }
}

/// A task line being edited, with what it must read as.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    parts: LineParts,
    /// The format new fields are written in.
    format: Format,
    symbol: char,
    /// What the line must read as: its description, each field's value
    /// text (by [`FieldKind::WRITE_ORDER`]) and its block id.
    description: String,
    values: [Option<String>; 11],
    block: Option<String>,
}

fn order(kind: FieldKind) -> usize {
    FieldKind::WRITE_ORDER
        .iter()
        .position(|k| *k == kind)
        .unwrap_or(0)
}

impl Line {
    fn new(text: &str, parts: LineParts, format: Format) -> Line {
        let symbol = text[parts.symbol.clone()].chars().next().unwrap_or(' ');
        let values = FieldKind::WRITE_ORDER.map(|kind| {
            parts
                .fields
                .get(kind)
                .map(|f| text[f.value.clone()].to_string())
        });
        Line {
            text: text.to_string(),
            symbol,
            format,
            description: parts.fields.description.clone(),
            values,
            block: parts.fields.block.clone().map(|b| text[b].to_string()),
            parts,
        }
    }

    /// The value of the field of `kind` that counts.
    fn value(&self, kind: FieldKind) -> Option<String> {
        self.values[order(kind)].clone()
    }

    fn unwritable(&self, reason: impl Into<String>) -> TaskError {
        TaskError::Unwritable {
            line: self.text.clone(),
            reason: reason.into(),
        }
    }

    /// Replaces `range` with `with` and reads the line again.
    fn splice(&mut self, range: std::ops::Range<usize>, with: &str) -> Result<(), TaskError> {
        let mut text = String::with_capacity(self.text.len() + with.len());
        text.push_str(&self.text[..range.start]);
        text.push_str(with);
        text.push_str(&self.text[range.end..]);
        let parts = read_line(&text).ok_or_else(|| self.unwritable("it is no longer a task"))?;
        self.text = text;
        self.parts = parts;
        Ok(())
    }

    fn set_symbol(&mut self, symbol: char) -> Result<(), TaskError> {
        if matches!(symbol, '\n' | '\r') {
            return Err(TaskError::BadSymbol(symbol));
        }
        let mut buf = [0; 4];
        self.splice(self.parts.symbol.clone(), symbol.encode_utf8(&mut buf))?;
        self.symbol = symbol;
        Ok(())
    }

    /// Sets (`Some`) or removes (`None`) the field of `kind`.
    fn put(&mut self, kind: FieldKind, value: Option<Value>) -> Result<(), TaskError> {
        match value {
            None => {
                // Every field of the kind goes, or one written twice would
                // count in its place; right to left, so spans stay valid.
                while let Some(span) = self
                    .parts
                    .fields
                    .fields
                    .iter()
                    .filter(|f| f.kind == kind)
                    .map(|f| f.span.clone())
                    .max_by_key(|span| span.start)
                {
                    let start = self.before_spaces(span.start);
                    self.splice(start..span.end, "")?;
                }
                self.values[order(kind)] = None;
            }
            Some(value) => {
                let written = if let Some(field) = self.parts.fields.get(kind) {
                    let text = value.text(field.format);
                    self.splice(field.value.clone(), &text)?;
                    text
                } else {
                    let (spaces, field) = new_field(kind, &value, self.format);
                    let (at, with) = self.insertion(kind, spaces, &field);
                    self.splice(at..at, &with)?;
                    value.text(self.format)
                };
                self.values[order(kind)] = Some(written);
            }
        }
        Ok(())
    }

    /// Where a new field of `kind` goes: after the nearest field before it
    /// in the plugin's order, else before the nearest one after it, else at
    /// the end of the text (before a block id). Returns the offset and the
    /// text to insert there.
    fn insertion(&self, kind: FieldKind, spaces: &str, field: &str) -> (usize, String) {
        let fields = &self.parts.fields;
        let at = order(kind);
        let before = FieldKind::WRITE_ORDER[..at]
            .iter()
            .rev()
            .find_map(|k| fields.get(*k));
        if let Some(f) = before {
            return (f.span.end, format!("{spaces}{field}"));
        }
        let after = FieldKind::WRITE_ORDER[at + 1..]
            .iter()
            .find_map(|k| fields.get(*k));
        if let Some(f) = after {
            return (f.span.start, format!("{field}{spaces}"));
        }
        let end = match &fields.block {
            Some(block) => self.before_spaces(block.start),
            None => self.text.trim_end_matches([' ', '\t']).len(),
        };
        let end = end.max(self.parts.body.start);
        (end, format!("{spaces}{field}"))
    }

    /// `at`, moved back over the spaces and tabs before it (not into the
    /// checkbox).
    fn before_spaces(&self, at: usize) -> usize {
        let body = self.parts.body.start;
        let head = &self.text[body..at];
        body + head.trim_end_matches([' ', '\t']).len()
    }

    fn drop_block_id(&mut self) -> Result<(), TaskError> {
        if let Some(block) = self.parts.fields.block.clone() {
            let start = self.before_spaces(block.start);
            self.splice(start..block.end, "")?;
        }
        self.block = None;
        Ok(())
    }

    /// Reads the line again: it must be what the edits meant.
    fn verify(&self) -> Result<(), TaskError> {
        let parts =
            read_line(&self.text).ok_or_else(|| self.unwritable("it is no longer a task"))?;
        let symbol = self.text[parts.symbol.clone()].chars().next();
        if symbol != Some(self.symbol) {
            return Err(self.unwritable("its status symbol would read differently"));
        }
        if parts.fields.description != self.description {
            return Err(self.unwritable(format!(
                "its description would read {:?} instead of {:?}",
                parts.fields.description, self.description
            )));
        }
        for (kind, want) in FieldKind::WRITE_ORDER.iter().zip(&self.values) {
            let got = parts.fields.get(*kind).map(|f| &self.text[f.value.clone()]);
            if got != want.as_deref() {
                return Err(self.unwritable(format!(
                    "its {kind:?} field would read {got:?} instead of {want:?}"
                )));
            }
        }
        let block = parts.fields.block.clone().map(|b| &self.text[b]);
        if block != self.block.as_deref() {
            return Err(self.unwritable("its block id would read differently"));
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
