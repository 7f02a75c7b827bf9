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
    #[inline]
    pub fn date(self) -> Option<Date> {
        self.is_valid().then(|| Date::from_days(i64::from(self.0)))
    }

    /// Days since 1970-01-01, when a valid date.
    #[inline]
    pub fn days(self) -> Option<i64> {
        self.is_valid().then_some(i64::from(self.0))
    }

    #[inline]
    pub fn is_set(self) -> bool {
        self != TaskDate::NONE
    }

    #[inline]
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
    /// Dates too far from now for a record's two bytes, by [`DateKind`]
    /// (`📅 9999-12-31`); [`TaskDate::NONE`] where the record holds it.
    pub far_dates: [TaskDate; 6],
}

impl Default for TaskDate {
    fn default() -> Self {
        TaskDate::NONE
    }
}

/// A task's date in a record's two bytes: none, invalid, kept among the
/// rare fields, or a day from 1900-01-01 to 2079-06-05.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct PackedDate(u16);

impl PackedDate {
    const NONE: PackedDate = PackedDate(0);
    const INVALID: PackedDate = PackedDate(1);
    const FAR: PackedDate = PackedDate(2);
    /// 1900-01-01, as days since 1970-01-01.
    const FIRST_DAY: i32 = -25_567;

    /// The date packed, or [`PackedDate::FAR`].
    #[inline]
    fn of(date: TaskDate) -> PackedDate {
        match date {
            TaskDate::NONE => PackedDate::NONE,
            TaskDate::INVALID => PackedDate::INVALID,
            TaskDate(day) => u16::try_from(i64::from(day) - i64::from(Self::FIRST_DAY) + 3)
                .map_or(PackedDate::FAR, PackedDate),
        }
    }

    /// The date, or `None` for [`PackedDate::FAR`].
    #[inline]
    fn date(self) -> Option<TaskDate> {
        match self {
            PackedDate::NONE => Some(TaskDate::NONE),
            PackedDate::INVALID => Some(TaskDate::INVALID),
            PackedDate::FAR => None,
            PackedDate(n) => Some(TaskDate(i32::from(n) - 3 + Self::FIRST_DAY)),
        }
    }
}

/// One task as its note keeps it: 40 bytes, a vault holding a million.
/// Its description and rare fields live in the note's [`Tasks`]; read it
/// through a [`Task`], which joins the two.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// 0-based line.
    pub line: u32,
    /// The line, from its first byte (indentation and `>` included) to its
    /// end without the line break.
    pub span: std::ops::Range<u32>,
    /// The symbol between the brackets.
    pub symbol: char,
    /// Where its description starts in the note's descriptions (it ends
    /// where the next task's starts).
    text_start: u32,
    /// By [`DateKind`], in its order.
    dates: [PackedDate; 6],
    /// The nearest enclosing task: its index in the note's tasks, plus one.
    parent: Option<std::num::NonZeroU32>,
    pub priority: Priority,
    /// The format its fields are written in; `None` when it has none.
    pub format: Option<Format>,
    /// Indented under a list item (in a quote, more than one space after
    /// its last `>`): what the plugin's `exclude sub-items` leaves out.
    pub sub_item: bool,
}

/// A note's tasks, in line order: their records (in the note itself, so
/// that a scan of every task goes straight to them), and apart their
/// descriptions back to back in one buffer and the rare fields of the few
/// that carry them — three allocations a note instead of one or two a
/// task. Nothing for a note without tasks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tasks {
    list: Box<[TaskRecord]>,
    /// Present whenever `list` holds a task.
    rest: Option<Box<Rest>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Rest {
    text: Box<str>,
    /// By the index of their task, in order.
    more: Box<[(u32, TaskMore)]>,
}

impl Tasks {
    #[inline]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The task at `index` in line order.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Task<'_>> {
        let rest = self.rest.as_deref()?;
        Some(Task {
            record: self.list.get(index)?,
            rest,
            at: index as u32,
            end: self
                .list
                .get(index + 1)
                .map_or(rest.text.len() as u32, |next| next.text_start),
        })
    }

    /// The task at `index`, which must be one (as a slice's `[index]`).
    #[inline]
    pub fn at(&self, index: u32) -> Task<'_> {
        match self.get(index as usize) {
            Some(task) => task,
            None => panic!("task {index} of {}", self.len()),
        }
    }

    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            tasks: self,
            front: 0,
            back: self.len(),
        }
    }

    /// The task `line` holds, alone, when it is one (as at 0-based line
    /// `number`, starting at byte `start` of its note).
    pub fn of_line(line: &str, number: u32, start: u32) -> Option<Tasks> {
        let mut one = TasksBuilder::default();
        one.push(line, number, start, None)?;
        Some(one.finish())
    }
}

impl<'a> IntoIterator for &'a Tasks {
    type Item = Task<'a>;
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// A note's tasks in line order.
pub struct Iter<'a> {
    tasks: &'a Tasks,
    /// The next index from the front, and one past the next from the back.
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Task<'a>;

    #[inline]
    fn next(&mut self) -> Option<Task<'a>> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.tasks.get(self.front - 1)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back.saturating_sub(self.front);
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.tasks.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// A note's tasks as its parse finds them, one line at a time. They grow
/// in buffers a thread keeps from note to note, and are copied once into
/// allocations of their exact size: growing each note's own would leave
/// the sizes it outgrew behind, a vault's load making millions of them.
#[derive(Debug)]
pub struct TasksBuilder {
    list: Vec<TaskRecord>,
    text: String,
    more: Vec<(u32, TaskMore)>,
}

type Scratch = (Vec<TaskRecord>, String, Vec<(u32, TaskMore)>);

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = Default::default();
}

impl Default for TasksBuilder {
    fn default() -> Self {
        let (list, text, more) = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
        TasksBuilder { list, text, more }
    }
}

impl TasksBuilder {
    /// The line of the last task read.
    pub fn last_line(&self) -> Option<u32> {
        self.list.last().map(|t| t.line)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Reads the task of `line` (at 0-based line `number`, starting at byte
    /// `start` of its note), when it is one, under `parent` (an index of an
    /// earlier task): its index.
    pub fn push(
        &mut self,
        line: &str,
        number: u32,
        start: u32,
        parent: Option<u32>,
    ) -> Option<u32> {
        let parts = read_line(line)?;
        let lead = &line[..line.len() - line.trim_start_matches([' ', '\t', '>']).len()];
        let sub_item = match lead.rfind('>') {
            None => !lead.is_empty(),
            Some(at) => !matches!(&lead[at + 1..], "" | " "),
        };
        let symbol = line[parts.symbol.clone()].chars().next()?;
        let fields = &parts.fields;
        let text = |kind: FieldKind| fields.get(kind).map(|f| &line[f.value.clone()]);
        let mut more = TaskMore {
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
            far_dates: [TaskDate::NONE; 6],
        };
        let mut dates = [PackedDate::NONE; 6];
        for kind in DateKind::ALL {
            if let Some(value) = text(kind.field()) {
                let date = TaskDate::of_text(value);
                dates[kind as usize] = PackedDate::of(date);
                if dates[kind as usize] == PackedDate::FAR {
                    more.far_dates[kind as usize] = date;
                }
            }
        }
        let priority = text(FieldKind::Priority).map_or(Priority::None, Priority::of_value);
        let text_start = self.text.len() as u32;
        if u32::try_from(self.text.len() + fields.description.len()).is_err() {
            return None;
        }
        self.text.push_str(&fields.description);
        if more != TaskMore::default() {
            self.more.push((self.list.len() as u32, more));
        }
        self.list.push(TaskRecord {
            line: number,
            span: start..start.saturating_add(line.len() as u32),
            symbol,
            text_start,
            dates,
            parent: parent.and_then(|p| std::num::NonZeroU32::new(p.saturating_add(1))),
            priority,
            format: fields.format(),
            sub_item,
        });
        Some(self.list.len() as u32 - 1)
    }

    /// The tasks, kept for as long as their note is: no spare room. The
    /// buffers go back to the thread for its next note.
    pub fn finish(mut self) -> Tasks {
        let tasks = if self.list.is_empty() {
            Tasks::default()
        } else {
            Tasks {
                list: self.list.drain(..).collect(),
                rest: Some(Box::new(Rest {
                    text: Box::from(self.text.as_str()),
                    more: self.more.drain(..).collect(),
                })),
            }
        };
        self.text.clear();
        let scratch = (
            std::mem::take(&mut self.list),
            std::mem::take(&mut self.text),
            std::mem::take(&mut self.more),
        );
        // A thread keeps one set (a builder inside another's gives its own
        // back first, or last: either is fine), and not one a huge note
        // grew.
        let small = scratch.0.capacity() <= 4096 && scratch.1.capacity() <= 1 << 18;
        SCRATCH.with(|s| {
            let mut kept = s.borrow_mut();
            if small && kept.0.capacity() <= scratch.0.capacity() {
                *kept = scratch;
            }
        });
        tasks
    }
}

/// One task of a note: its record joined to the note's descriptions and
/// rare fields. The record's fields read through it (`task.line`).
#[derive(Clone, Copy)]
pub struct Task<'a> {
    record: &'a TaskRecord,
    rest: &'a Rest,
    /// Its index in the note's tasks, and where its description ends.
    at: u32,
    end: u32,
}

impl std::ops::Deref for Task<'_> {
    type Target = TaskRecord;

    #[inline]
    fn deref(&self) -> &TaskRecord {
        self.record
    }
}

impl std::fmt::Debug for Task<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("record", self.record)
            .field("description", &self.description())
            .field("more", &self.more())
            .finish()
    }
}

impl<'a> Task<'a> {
    /// What the fields leave (the plugin's description; tags that stood
    /// among the fields follow it).
    #[inline]
    pub fn description(self) -> &'a str {
        let (start, end) = (self.record.text_start as usize, self.end as usize);
        // A record read back from a snapshot could point anywhere.
        self.rest.text.get(start..end).unwrap_or("")
    }

    /// Its rare fields, when it has any.
    #[inline]
    pub fn more(self) -> Option<&'a TaskMore> {
        let more = &self.rest.more;
        if more.is_empty() {
            return None;
        }
        let at = more.binary_search_by_key(&self.at, |(i, _)| *i).ok()?;
        Some(&more[at].1)
    }

    /// The nearest enclosing task: its index in the note's tasks.
    #[inline]
    pub fn parent(self) -> Option<u32> {
        self.record.parent.map(|p| p.get() - 1)
    }

    #[inline]
    pub fn date(self, kind: DateKind) -> TaskDate {
        let packed = self.record.dates[kind as usize];
        packed.date().unwrap_or_else(|| {
            self.more()
                .map_or(TaskDate::NONE, |m| m.far_dates[kind as usize])
        })
    }

    #[inline]
    pub fn recurrence(self) -> Option<&'a str> {
        self.more()?.recurrence.as_deref()
    }

    #[inline]
    pub fn id(self) -> Option<&'a str> {
        self.more()?.id.as_deref()
    }

    #[inline]
    pub fn depends_on(self) -> &'a [Box<str>] {
        self.more().map_or(&[], |m| &m.depends_on)
    }

    #[inline]
    pub fn on_completion(self) -> Option<OnCompletion> {
        self.more()?.on_completion
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
    #[inline]
    pub fn counts(&self, task: Task<'_>) -> bool {
        // The description read only when there is a filter: reading it
        // touches memory the other tests do not.
        self.global_filter.is_empty() || self.counts_description(task.description())
    }

    /// [`TaskSettings::counts`] of the task with this description.
    #[inline]
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

#[cfg(test)]
mod tests;
