//! Which tasks qualify: tests on a task's status, dates, priority, tags,
//! text, heading and recurrence, ANDed — the task half of "which tasks";
//! which *notes* may hold them is THE note filter's (`crate::filter`), which
//! callers apply first. And the orders tasks are listed in.
//!
//! Pure: days are day numbers (`when.rs` reads phrases into them), the
//! caller passes the settings. A task's tags are the note's tags on its
//! line (THE tag rule, `crate::tags`); its heading is the nearest above.

use super::status::StatusType;
use super::when::Days;
use super::{DateKind, Priority, Task, TaskSettings};
use crate::note::{Heading, Note, TagUse};
use crate::tags;

/// Which date a test reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    One(DateKind),
    /// Start, scheduled or due: the plugin's `happens`.
    Happens,
}

/// What a date must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Before the first day of the range.
    Before(Days),
    /// After its last day.
    After(Days),
    /// On one of its days.
    In(Days),
    OnOrBefore(Days),
    OnOrAfter(Days),
    /// No such date.
    None,
    /// Any date, valid or not.
    Any,
    /// Written, but not a real day.
    Invalid,
}

impl When {
    /// `before today`, `after 2024-05-01`, `on or before friday`,
    /// `on or after next week`, `this week` or `on 2024-05` (a day or a
    /// period: in it), `none`, `any`, `invalid`; days as `when.rs` reads
    /// them, on `today`.
    pub fn parse(text: &str, today: crate::date::Date) -> Result<When, String> {
        let lower = text.trim().to_ascii_lowercase();
        match lower.as_str() {
            "none" | "no" | "no date" | "" => return Ok(When::None),
            "any" | "has" | "has date" | "some" => return Ok(When::Any),
            "invalid" => return Ok(When::Invalid),
            _ => {}
        }
        type Make = fn(Days) -> When;
        const PREFIXES: [(&str, Make); 9] = [
            ("on or before ", When::OnOrBefore),
            ("on or after ", When::OnOrAfter),
            ("in or before ", When::OnOrBefore),
            ("in or after ", When::OnOrAfter),
            ("before ", When::Before),
            ("after ", When::After),
            ("on ", When::In),
            ("in ", When::In),
            ("during ", When::In),
        ];
        for (prefix, make) in PREFIXES {
            if let Some(rest) = lower.strip_prefix(prefix) {
                // `in 3 days` is a day, not `in` + `3 days`.
                if prefix == "in " && super::when::days(&lower, today).is_ok() {
                    break;
                }
                return super::when::days(rest, today).map(make);
            }
        }
        super::when::days(&lower, today).map(When::In)
    }

    pub(crate) fn matches(self, date: super::TaskDate) -> bool {
        let day = date.days();
        match self {
            When::None => !date.is_set(),
            When::Any => date.is_set(),
            When::Invalid => date.is_set() && !date.is_valid(),
            When::Before(d) => day.is_some_and(|x| x < d.first),
            When::After(d) => day.is_some_and(|x| x > d.last),
            When::In(d) => day.is_some_and(|x| d.contains(x)),
            When::OnOrBefore(d) => day.is_some_and(|x| x <= d.last),
            When::OnOrAfter(d) => day.is_some_and(|x| x >= d.first),
        }
    }
}

/// A test on a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTest {
    pub field: DateField,
    pub when: When,
}

impl DateTest {
    fn matches(&self, task: Task<'_>) -> bool {
        match self.field {
            DateField::One(kind) => self.when.matches(task.date(kind)),
            DateField::Happens => {
                let dates = [DateKind::Start, DateKind::Scheduled, DateKind::Due];
                match self.when {
                    // None of them, when asked for none.
                    When::None => dates.iter().all(|k| self.when.matches(task.date(*k))),
                    _ => dates.iter().any(|k| self.when.matches(task.date(*k))),
                }
            }
        }
    }
}

/// The status types a word names: `todo`, `in progress`, `on hold`,
/// `done`, `cancelled`, `non task` (or the plugin's `IN_PROGRESS`…);
/// `not done` (to do, in progress, on hold); `any` (every type: empty).
pub fn status_types(text: &str) -> Result<Vec<StatusType>, String> {
    let lower = text.trim().to_ascii_lowercase().replace(['-', '_'], " ");
    let types = match lower.as_str() {
        "any" | "all" | "" => Vec::new(),
        "not done" | "open" | "undone" => {
            vec![StatusType::Todo, StatusType::InProgress, StatusType::OnHold]
        }
        "todo" | "to do" => vec![StatusType::Todo],
        "done" | "complete" | "completed" => vec![StatusType::Done],
        "canceled" => vec![StatusType::Cancelled],
        "nontask" => vec![StatusType::NonTask],
        other => vec![StatusType::parse(other).ok_or_else(|| {
            format!(
                "`{}` is not a status; use not done, todo, in progress, on hold, done, \
                 cancelled, non task or any",
                text.trim()
            )
        })?],
    };
    Ok(types)
}

/// How a priority compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriorityTest {
    Is(Priority),
    Not(Priority),
    Above(Priority),
    Below(Priority),
}

impl PriorityTest {
    /// `high`, `not none`, `above medium`, `below high`.
    pub fn parse(text: &str) -> Result<PriorityTest, String> {
        let text = text.trim().to_ascii_lowercase();
        let (make, rest): (fn(Priority) -> PriorityTest, &str) =
            match text.split_once(char::is_whitespace) {
                Some(("above", rest)) => (PriorityTest::Above, rest),
                Some(("below", rest)) => (PriorityTest::Below, rest),
                Some(("not", rest)) => (PriorityTest::Not, rest),
                Some(("is", rest)) => (PriorityTest::Is, rest),
                _ => (PriorityTest::Is, text.as_str()),
            };
        Priority::parse(rest).map(make).ok_or_else(|| {
            format!(
                "cannot read `{text}` as a priority; use highest, high, medium, none, low or \
                 lowest, optionally after `above`, `below` or `not`"
            )
        })
    }

    pub(crate) fn matches(self, p: Priority) -> bool {
        match self {
            PriorityTest::Is(q) => p == q,
            PriorityTest::Not(q) => p != q,
            PriorityTest::Above(q) => p > q,
            PriorityTest::Below(q) => p < q,
        }
    }
}

/// The tests a task must pass, all of them. The default passes every task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskTest {
    /// The status types allowed (empty: any).
    pub types: Vec<StatusType>,
    pub dates: Vec<DateTest>,
    pub priority: Option<PriorityTest>,
    /// Tags the task's line must carry, each (hierarchical: `work` is
    /// `work` and `work/x`).
    pub tags: Vec<String>,
    /// Words its description must hold (case-insensitive).
    pub text: Option<String>,
    /// Words its heading must hold (case-insensitive).
    pub heading: Option<String>,
    pub recurring: Option<bool>,
}

impl TaskTest {
    /// Whether `task` of `note` passes (the global filter included).
    pub fn matches(&self, note: &Note, task: Task<'_>, settings: &TaskSettings) -> bool {
        settings.counts(task)
            && (self.types.is_empty() || self.types.contains(&settings.statuses.kind(task.symbol)))
            && self.dates.iter().all(|t| t.matches(task))
            && self.priority.is_none_or(|p| p.matches(task.priority))
            && self
                .recurring
                .is_none_or(|r| r == task.recurrence().is_some())
            && self
                .text
                .as_deref()
                .is_none_or(|t| contains_folded(task.description(), t))
            && self.heading.as_deref().is_none_or(|h| {
                heading_of(note, task).is_some_and(|heading| contains_folded(&heading.text, h))
            })
            && self
                .tags
                .iter()
                .all(|want| tags_of(note, task).any(|t| tags::matches(want, &t.name)))
    }
}

/// Whether `hay` holds `needle`, any case.
pub(crate) fn contains_folded(hay: &str, needle: &str) -> bool {
    let needle = needle.trim();
    let Some(&first) = needle.as_bytes().first() else {
        return true;
    };
    // Lower-casing maps only two characters beyond ASCII into it (KELVIN
    // SIGN, and the dotted capital I): without them, an ASCII needle is
    // found byte by byte in any text, where its first byte (either case)
    // stands.
    if needle.is_ascii() && (hay.is_ascii() || !hay.contains(['\u{212A}', '\u{130}'])) {
        let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
        let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
        return memchr::memchr2_iter(lower, upper, hay).any(|at| {
            hay.get(at..at + needle.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(needle))
        });
    }
    hay.to_lowercase().contains(&needle.to_lowercase())
}

/// The tasks of the notes `notes` passes that `test` passes (giving what
/// the caller keeps of each, worked out while the task is at hand),
/// gathered as the caller says: each part
/// of the notes (in index order, parts on threads) starts from `start`,
/// takes in its tasks with `each`, and parts are joined in order with
/// `join` — for callers that keep only some (a page). With how many notes
/// hold them. In a note, the task's own test first — cheap, and most
/// notes hold no task that passes —, the note filter once a note that
/// holds one.
pub fn gather<'i, T, A: Send>(
    index: &'i crate::VaultIndex,
    notes: &crate::filter::Filter,
    test: impl Fn(&'i Note, Task<'i>) -> Option<T> + Sync,
    start: impl Fn() -> A + Sync + Send,
    each: impl Fn(&mut A, crate::NoteId, u32, T) + Sync + Send,
    join: impl Fn(A, A) -> A + Sync + Send,
) -> (A, usize) {
    use rayon::prelude::*;
    let meta = crate::filter::FileMeta::default();
    index
        .par_notes()
        .with_min_len(512)
        .fold(
            || (start(), 0usize),
            |(mut acc, mut note_count), (id, note)| {
                let Some(note) = note.filter(|n| !n.tasks.is_empty()) else {
                    return (acc, note_count);
                };
                let mut note_passes = None;
                for (i, task) in note.tasks.iter().enumerate() {
                    let Some(kept) = test(note, task) else {
                        continue;
                    };
                    if !*note_passes.get_or_insert_with(|| notes.matches(index, id, &meta)) {
                        break;
                    }
                    each(&mut acc, id, i as u32, kept);
                }
                note_count += usize::from(note_passes == Some(true));
                (acc, note_count)
            },
        )
        .reduce(|| (start(), 0), |(a, m), (b, n)| (join(a, b), m + n))
}

/// The tags written on the task's line.
#[inline]
pub fn tags_of<'n>(note: &'n Note, task: Task<'_>) -> impl Iterator<Item = &'n TagUse> {
    // Tags are in text order; the frontmatter's all stand above any task.
    let line = task.line;
    let at = note.tags.partition_point(|t| t.line < line);
    note.tags[at..]
        .iter()
        .take_while(move |t| t.line == line)
        .filter(|t| !t.in_frontmatter)
}

/// The nearest heading above the task.
#[inline]
pub fn heading_of<'n>(note: &'n Note, task: Task<'_>) -> Option<&'n Heading> {
    let at = note.headings.partition_point(|h| h.line < task.line);
    at.checked_sub(1).map(|i| &note.headings[i])
}

/// How tasks can be listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The plugin's default: status type (in progress, to do, on hold,
    /// then done ones), due date (none last), priority (highest first),
    /// then path and line.
    Default,
    /// By a date, earliest first, tasks without it last.
    Date(DateKind),
    /// Highest first.
    Priority,
    /// By path, then line.
    Path,
    /// By description, any case.
    Description,
}

impl Order {
    pub fn parse(text: &str) -> Result<Order, String> {
        let order = match text.trim().to_ascii_lowercase().as_str() {
            "" | "default" | "status" => Order::Default,
            "priority" => Order::Priority,
            "path" | "note" | "file" => Order::Path,
            "description" | "text" => Order::Description,
            other => match DateKind::ALL.into_iter().find(|k| k.name() == other) {
                Some(kind) => Order::Date(kind),
                None => {
                    return Err(format!(
                        "cannot sort by `{other}`; use due, scheduled, start, created, done, \
                         cancelled, priority, path, description or status"
                    ));
                }
            },
        };
        Ok(order)
    }

    /// What the order reads of a task, smaller first: three numbers, then
    /// a text (the description in lower case, for `Description`); ties go
    /// by path, then line.
    pub fn key(self, settings: &TaskSettings, task: Task<'_>) -> ([i64; 3], Option<String>) {
        let date = |k: DateKind| task.date(k).days().unwrap_or(i64::MAX);
        let priority = -(task.priority as i64);
        match self {
            Order::Default => (
                [
                    settings.statuses.kind(task.symbol) as i64,
                    date(DateKind::Due),
                    priority,
                ],
                None,
            ),
            Order::Date(kind) => ([date(kind), 0, 0], None),
            Order::Priority => ([priority, 0, 0], None),
            Order::Path => ([0; 3], None),
            Order::Description => ([0; 3], Some(task.description().to_lowercase())),
        }
    }
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
