//! Tasks: checklist items as the Obsidian Tasks plugin reads and writes
//! them. A [`Task`] is what a note's parse keeps of each one (its line,
//! symbol, description, dates, priority and the rarer fields); `fields.rs`
//! reads a line's fields, `status.rs` says what a symbol means, `check.rs`
//! what is wrong on a line.
//!
//! Which list items are tasks is decided here ([`read_line`]), on the text
//! of one line; the Markdown walk says which lines are list items (never
//! inside code). The plugin's settings (global filter, statuses) apply
//! when tasks are asked for, so a note's parse does not depend on them.

pub mod check;
pub mod fields;
pub mod query;
pub mod recur;
pub mod select;
pub mod status;
pub mod when;
pub mod write;

use serde::{Deserialize, Serialize};

use crate::date::Date;
use fields::{FieldKind, Fields, Format, PRIORITY_EMOJI, PRIORITY_WORDS};

/// A date a task carries, as days since 1970-01-01; or none; or written
/// in the date's shape but not a real day (`2023-02-30`: the plugin's
/// "date is invalid").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaskDate(i32);

impl TaskDate {
    pub const NONE: TaskDate = TaskDate(i32::MIN);
    pub const INVALID: TaskDate = TaskDate(i32::MIN + 1);

    /// `YYYY-MM-DD`, as the field's pattern matched it.
    pub fn of_text(text: &str) -> TaskDate {
        let num = |r: std::ops::Range<usize>| text.get(r).and_then(|t| t.parse::<u32>().ok());
        let date = match (num(0..4), num(5..7), num(8..10)) {
            (Some(y), Some(m), Some(d)) if text.len() == 10 => {
                chrono::NaiveDate::from_ymd_opt(y as i32, m, d)
            }
            _ => None,
        };
        date.map_or(TaskDate::INVALID, |d| TaskDate::of(Date::from(d)))
    }

    pub fn of(date: Date) -> TaskDate {
        TaskDate(
            date.days()
                .clamp(i64::from(i32::MIN) + 2, i64::from(i32::MAX)) as i32,
        )
    }

    /// The day, when there is a valid one.
    pub fn date(self) -> Option<Date> {
        self.is_valid().then(|| Date::from_days(i64::from(self.0)))
    }

    /// Days since 1970-01-01, when a valid date.
    pub fn days(self) -> Option<i64> {
        self.is_valid().then_some(i64::from(self.0))
    }

    pub fn is_set(self) -> bool {
        self != TaskDate::NONE
    }

    pub fn is_valid(self) -> bool {
        self.0 > TaskDate::INVALID.0
    }
}

/// The dates a task can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DateKind {
    Created,
    Start,
    Scheduled,
    Due,
    Done,
    Cancelled,
}

impl DateKind {
    pub const ALL: [DateKind; 6] = [
        DateKind::Created,
        DateKind::Start,
        DateKind::Scheduled,
        DateKind::Due,
        DateKind::Done,
        DateKind::Cancelled,
    ];

    /// Its field in a task line.
    pub fn field(self) -> FieldKind {
        match self {
            DateKind::Created => FieldKind::Created,
            DateKind::Start => FieldKind::Start,
            DateKind::Scheduled => FieldKind::Scheduled,
            DateKind::Due => FieldKind::Due,
            DateKind::Done => FieldKind::Done,
            DateKind::Cancelled => FieldKind::Cancelled,
        }
    }

    /// Lower-case name: `created`, `start`, `scheduled`, `due`, `done`,
    /// `cancelled`.
    pub fn name(self) -> &'static str {
        match self {
            DateKind::Created => "created",
            DateKind::Start => "start",
            DateKind::Scheduled => "scheduled",
            DateKind::Due => "due",
            DateKind::Done => "done",
            DateKind::Cancelled => "cancelled",
        }
    }
}

/// A task's priority, ordered lowest to highest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub enum Priority {
    Lowest,
    Low,
    #[default]
    None,
    Medium,
    High,
    Highest,
}

impl Priority {
    pub const ALL: [Priority; 6] = [
        Priority::Lowest,
        Priority::Low,
        Priority::None,
        Priority::Medium,
        Priority::High,
        Priority::Highest,
    ];

    /// `highest`, `high`, `none`, `medium`, `low`, `lowest`.
    pub fn name(self) -> &'static str {
        match self {
            Priority::Highest => "highest",
            Priority::High => "high",
            Priority::Medium => "medium",
            Priority::None => "none",
            Priority::Low => "low",
            Priority::Lowest => "lowest",
        }
    }

    pub fn parse(text: &str) -> Option<Priority> {
        let text = text.trim();
        Priority::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(text))
    }

    /// The emoji the plugin writes (none for `None`).
    pub fn emoji(self) -> Option<&'static str> {
        let at = PRIORITY_WORDS.iter().position(|w| *w == self.name())?;
        Some(PRIORITY_EMOJI[at])
    }

    /// A field's value as read: an emoji or a Dataview word.
    fn of_value(value: &str) -> Priority {
        let at = PRIORITY_EMOJI
            .iter()
            .position(|e| *e == value)
            .or_else(|| PRIORITY_WORDS.iter().position(|w| *w == value));
        at.and_then(|at| Priority::parse(PRIORITY_WORDS[at]))
            .unwrap_or_default()
    }
}

/// What the plugin does with a done recurring task (`🏁`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum OnCompletion {
    #[default]
    Keep,
    Delete,
}

/// The fields few tasks carry, kept apart so the common task stays small.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskMore {
    /// The rule as written after `🔁` / `repeat::`.
    pub recurrence: Option<Box<str>>,
    /// `🏁` as written, when it says `keep` or `delete` (any case).
    pub on_completion: Option<OnCompletion>,
    pub id: Option<Box<str>>,
    pub depends_on: Vec<Box<str>>,
}

/// One task: a list item whose line has a checkbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// 0-based line.
    pub line: u32,
    /// The line, from its first byte (indentation and `>` included) to its
    /// end without the line break.
    pub span: std::ops::Range<u32>,
    /// The symbol between the brackets.
    pub symbol: char,
    /// What the fields leave (the plugin's description; tags that stood
    /// among the fields follow it).
    pub description: Box<str>,
    /// By [`DateKind`], in its order.
    dates: [TaskDate; 6],
    pub priority: Priority,
    /// The format its fields are written in; `None` when it has none.
    pub format: Option<Format>,
    /// The nearest enclosing task: its index in the note's tasks, plus one
    /// (four bytes where an `Option<u32>` takes eight: a vault holds
    /// hundreds of thousands of tasks); see [`Task::parent`].
    parent: Option<std::num::NonZeroU32>,
    /// Indented under a list item (in a quote, more than one space after
    /// its last `>`): what the plugin's `exclude sub-items` leaves out.
    pub sub_item: bool,
    pub more: Option<Box<TaskMore>>,
}

impl Task {
    /// The nearest enclosing task: its index in the note's tasks.
    pub fn parent(&self) -> Option<u32> {
        self.parent.map(|p| p.get() - 1)
    }

    pub fn set_parent(&mut self, parent: Option<u32>) {
        self.parent = parent.and_then(|p| std::num::NonZeroU32::new(p.saturating_add(1)));
    }

    pub fn date(&self, kind: DateKind) -> TaskDate {
        self.dates[kind as usize]
    }

    pub fn recurrence(&self) -> Option<&str> {
        self.more.as_ref()?.recurrence.as_deref()
    }

    pub fn id(&self) -> Option<&str> {
        self.more.as_ref()?.id.as_deref()
    }

    pub fn depends_on(&self) -> &[Box<str>] {
        self.more.as_ref().map_or(&[], |m| &m.depends_on)
    }

    pub fn on_completion(&self) -> Option<OnCompletion> {
        self.more.as_ref()?.on_completion
    }
}

/// How a vault's tasks are read and written: the Tasks plugin's settings
/// (`.obsidian/plugins/obsidian-tasks-plugin/data.json`) as the workspace
/// read them, `.weft.toml`'s `[tasks]` over them; the plugin's defaults
/// when neither says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSettings {
    pub statuses: status::Statuses,
    /// Only checklist lines holding this text are tasks (`#task`); empty:
    /// every one is.
    pub global_filter: Box<str>,
    /// The format new fields are written in when a task has none yet.
    pub format: Format,
    /// Completing stamps `✅ today`; cancelling stamps `❌ today`.
    pub set_done_date: bool,
    pub set_cancelled_date: bool,
    /// A recurring task's next copy gets `➕ today`.
    pub set_created_date: bool,
    /// The next copy goes below the done one (the plugin: above).
    pub recurrence_below: bool,
    /// The next copy has no scheduled date (and the reference date is due,
    /// then start, then scheduled).
    pub remove_scheduled_on_recurrence: bool,
    /// Instructions put before every ```` ```tasks ```` query's own.
    pub global_query: Box<str>,
    /// Named queries a query takes in with `preset NAME`.
    pub presets: Vec<(Box<str>, Box<str>)>,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            statuses: status::Statuses::default(),
            global_filter: "".into(),
            format: Format::Emoji,
            set_done_date: true,
            set_cancelled_date: true,
            set_created_date: false,
            recurrence_below: false,
            remove_scheduled_on_recurrence: false,
            global_query: "".into(),
            presets: Vec::new(),
        }
    }
}

impl TaskSettings {
    /// Whether a checklist line counts as a task under the global filter.
    pub fn counts(&self, task: &Task) -> bool {
        self.counts_description(&task.description)
    }

    /// [`TaskSettings::counts`] of the task with this description.
    pub fn counts_description(&self, description: &str) -> bool {
        self.global_filter.is_empty() || description.contains(&*self.global_filter)
    }
}

/// Where a task line's parts are: offsets into the line given to
/// [`read_line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineParts {
    /// The symbol between the brackets.
    pub symbol: std::ops::Range<usize>,
    /// The text after the checkbox (its fields are offsets into the line).
    pub body: std::ops::Range<usize>,
    pub fields: Fields,
}

/// The task a line holds, when it is one: `^[\s>]*([-*+]|\d+[.)]) +\[(.)\] *`
/// followed by the task's text (the plugin's `taskRegex`).
pub fn read_line(line: &str) -> Option<LineParts> {
    let lead = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
    let rest = &line[lead..];
    let marker = match rest.as_bytes().first()? {
        b'-' | b'*' | b'+' => 1,
        _ => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let ok = (1..=9).contains(&digits)
                && matches!(rest.as_bytes().get(digits), Some(b'.' | b')'));
            if !ok {
                return None;
            }
            digits + 1
        }
    };
    let after = &rest[marker..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    if spaces == 0 {
        return None;
    }
    let open = lead + marker + spaces;
    let symbol = line[open..].strip_prefix('[')?.chars().next()?;
    if matches!(symbol, '\n' | '\r') {
        return None;
    }
    let close = open + 1 + symbol.len_utf8();
    if line.as_bytes().get(close) != Some(&b']') {
        return None;
    }
    let body_at = close + 1;
    let mut fields = fields::read(&line[body_at..]);
    for field in &mut fields.fields {
        field.span = field.span.start + body_at..field.span.end + body_at;
        field.value = field.value.start + body_at..field.value.end + body_at;
    }
    fields.block = fields.block.map(|b| b.start + body_at..b.end + body_at);
    fields.rest_end += body_at;
    Some(LineParts {
        symbol: open + 1..close,
        body: body_at..line.len(),
        fields,
    })
}

impl Task {
    /// The task of `line` (at 0-based `number`, starting at byte `start` of
    /// its note), when the line is one.
    pub fn read(line: &str, number: u32, start: u32) -> Option<Task> {
        let mut parts = read_line(line)?;
        let lead = &line[..line.len() - line.trim_start_matches([' ', '\t', '>']).len()];
        let sub_item = match lead.rfind('>') {
            None => !lead.is_empty(),
            Some(at) => !matches!(&lead[at + 1..], "" | " "),
        };
        let symbol = line[parts.symbol.clone()].chars().next()?;
        let fields = &parts.fields;
        let mut dates = [TaskDate::NONE; 6];
        for kind in DateKind::ALL {
            if let Some(field) = fields.get(kind.field()) {
                dates[kind as usize] = TaskDate::of_text(&line[field.value.clone()]);
            }
        }
        let text = |kind: FieldKind| fields.get(kind).map(|f| &line[f.value.clone()]);
        let priority = text(FieldKind::Priority).map_or(Priority::None, Priority::of_value);
        let more = TaskMore {
            recurrence: text(FieldKind::Recurrence).map(|r| r.trim().into()),
            on_completion: text(FieldKind::OnCompletion).and_then(|v| {
                if v.eq_ignore_ascii_case("delete") {
                    Some(OnCompletion::Delete)
                } else if v.eq_ignore_ascii_case("keep") {
                    Some(OnCompletion::Keep)
                } else {
                    None
                }
            }),
            id: text(FieldKind::Id).map(Into::into),
            depends_on: text(FieldKind::DependsOn)
                .map(|ids| {
                    ids.split(',')
                        .map(|id| id.trim_matches(' '))
                        .filter(|id| !id.is_empty())
                        .map(Into::into)
                        .collect()
                })
                .unwrap_or_default(),
        };
        let format = fields.format();
        // The description's own buffer, shrunk to fit, is kept: no copy.
        let description = std::mem::take(&mut parts.fields.description).into_boxed_str();
        Some(Task {
            line: number,
            span: start..start + line.len() as u32,
            symbol,
            description,
            dates,
            priority,
            format,
            parent: None,
            sub_item,
            more: (more != TaskMore::default()).then(|| Box::new(more)),
        })
    }
}

#[cfg(test)]
mod tests;
