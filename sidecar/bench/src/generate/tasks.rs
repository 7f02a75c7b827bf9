//! The tasks of a generated note (Obsidian Tasks plugin checklists), drawn
//! from their own generator per note (stream [`TASK_STREAM`]) and put in as
//! whole blocks between the note's blocks once it is written: without
//! them, a note is byte for byte what it was.
//!
//! About 5 tasks a note on average (a quarter of the notes none, a few
//! dozens), in lists of 1–6, some nested under the task above, a few in a
//! `> ` quote. Statuses mostly `[ ]`, some `[x]` (`✅` date), `[/]` and
//! `[-]` (`❌` date); due, scheduled, start and created dates around the
//! generator's fixed today [`today`] (overdue, this week, the weeks ahead,
//! later); priorities; a few `#tags`; about 5% recurring; about 20% in the
//! Dataview format (`  [due:: 2025-02-14]`, two spaces before each field
//! as the plugin writes), the rest emoji (`📅 2025-02-14`).

use std::fmt::Write as _;

use fastrand::Rng;
use weft_vault::tasks::Priority;
use weft_vault::tasks::fields::Format;

use super::words::{NOUNS, PROSE, date, normal, pick, zipf};

/// The stream of the tasks' generators, apart from the note's own (2) and
/// its properties' so that adding tasks moves no other draw.
pub(super) const TASK_STREAM: u64 = 0x7A5C_5EED;

/// The generator's today as a day of [`date`]: 2025-02-12, a Wednesday.
pub const TODAY_DAY: u32 = 1503;

/// The day task dates are drawn around, and that `weft-bench tasks` asks
/// on (2025-02-12, a Wednesday).
pub fn today() -> weft_vault::date::Date {
    weft_vault::date::Date::from_days(18_628 + i64::from(TODAY_DAY))
}

/// Tags written on task lines, the most used first.
#[rustfmt::skip]
pub const TASK_TAGS: &[&str] = &[
    "work", "home", "errand", "call", "email", "waiting", "review", "project/weft", "someday",
    "health",
];

#[rustfmt::skip]
const VERBS: &[&str] = &[
    "Call", "Email", "Write", "Review", "Finish", "Read", "Fix", "Plan", "Book", "Pay", "Buy",
    "Send", "Update", "Draft", "Prepare", "Check", "Clean", "Schedule", "Follow up on",
    "Look into", "Sort out", "Ask about",
];

/// Rules of the recurring tasks, the most used first.
#[rustfmt::skip]
pub(super) const RULES: &[&str] = &[
    "every week", "every day", "every month on the 1st", "every 2 days when done",
    "every weekday", "every Monday", "every 2 weeks", "every month", "every 3 months when done",
    "every year", "every week on Friday when done",
];

/// One task as the generator meant it (for the tests, and counts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Meant {
    /// The line as written, without its line break.
    pub line: String,
    pub symbol: char,
    /// Days of [`date`]: created, start, scheduled, due, done, cancelled
    /// (`DateKind`'s order).
    pub dates: [Option<u32>; 6],
    pub priority: Priority,
    /// `None` when the task has no fields.
    pub format: Option<Format>,
    pub recurrence: Option<&'static str>,
    pub tags: Vec<&'static str>,
    /// The task it is nested under: an index into the note's meant tasks.
    pub parent: Option<usize>,
}

/// A list of tasks: its lines (each ending in `\n`).
pub(super) struct TaskList {
    pub text: String,
}

/// How many tasks a note holds: none for a quarter, else log-normal
/// (median 4–5, a long tail), 5 on average over all notes.
fn task_count(rng: &mut Rng) -> usize {
    if rng.f64() < 0.25 {
        return 0;
    }
    ((1.5 + 0.9 * normal(rng)).exp().round() as usize).clamp(1, 60)
}

/// A day around today: 30% overdue (mostly recent), 15% this week (Monday
/// to Sunday), 25% within the next five weeks, 30% later in the year.
fn around_today(rng: &mut Rng) -> u32 {
    let today = TODAY_DAY as i64;
    let day = match rng.f64() {
        r if r < 0.30 => today - 1 - (rng.f64().powi(2) * 180.0) as i64,
        r if r < 0.45 => today + rng.i64(-2..=4),
        r if r < 0.70 => today + rng.i64(5..=35),
        _ => today + rng.i64(36..=365),
    };
    day as u32
}

fn priority(rng: &mut Rng) -> Priority {
    if rng.f64() < 0.65 {
        return Priority::None;
    }
    match rng.u8(0..100) {
        0..=4 => Priority::Highest,
        5..=39 => Priority::High,
        40..=74 => Priority::Medium,
        75..=94 => Priority::Low,
        _ => Priority::Lowest,
    }
}

/// One task's fields and line, without its indentation and bullet.
fn task(rng: &mut Rng) -> Meant {
    let symbol = match rng.u8(0..100) {
        0..=69 => ' ',
        70..=87 => 'x',
        88..=93 => '/',
        _ => '-',
    };
    let recurrence = (rng.f64() < 0.05).then(|| RULES[zipf(rng, RULES.len())]);
    let mut dates = [None; 6];
    let [created, start, scheduled, due, done, cancelled] = &mut dates;
    if recurrence.is_some() || rng.f64() < 0.6 {
        *due = Some(around_today(rng));
    }
    if rng.f64() < 0.2 {
        *scheduled = Some(match *due {
            Some(d) => d.saturating_sub(rng.u32(0..=7)),
            None => around_today(rng),
        });
    }
    if rng.f64() < 0.12 {
        let base = due.or(*scheduled).unwrap_or(TODAY_DAY);
        *start = Some(base.saturating_sub(rng.u32(3..=30)));
    }
    if rng.f64() < 0.3 {
        let first = [*due, *scheduled, *start]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(TODAY_DAY)
            .min(TODAY_DAY);
        *created = Some(first.saturating_sub(rng.u32(0..=60)));
    }
    match symbol {
        'x' if rng.f64() < 0.9 => *done = Some(TODAY_DAY - zipf(rng, 200) as u32),
        '-' if rng.f64() < 0.85 => *cancelled = Some(TODAY_DAY - zipf(rng, 200) as u32),
        _ => {}
    }
    let priority = priority(rng);
    let mut tags = Vec::new();
    if rng.f64() < 0.3 {
        tags.push(TASK_TAGS[zipf(rng, TASK_TAGS.len())]);
        if rng.f64() < 0.15 {
            let other = TASK_TAGS[zipf(rng, TASK_TAGS.len())];
            if !tags.contains(&other) {
                tags.push(other);
            }
        }
    }
    let format = if rng.f64() < 0.2 {
        Format::Dataview
    } else {
        Format::Emoji
    };

    let mut line = format!("[{symbol}] {} {}", pick(rng, VERBS), pick(rng, NOUNS));
    for _ in 0..rng.usize(0..=4) {
        line.push(' ');
        line.push_str(pick(rng, PROSE));
    }
    for tag in &tags {
        let _ = write!(line, " #{tag}");
    }
    // The plugin's order: priority, recurrence, created, start, scheduled,
    // due, cancelled, done.
    let mut fields = 0;
    let mut field = |line: &mut String, emoji: &str, key: &str, value: &str| {
        fields += 1;
        match format {
            // A priority is its emoji alone.
            Format::Emoji if key == "priority" => {
                let _ = write!(line, " {emoji}");
            }
            Format::Emoji => {
                let _ = write!(line, " {emoji} {value}");
            }
            Format::Dataview => {
                let _ = write!(line, "  [{key}:: {value}]");
            }
        }
    };
    if let Some(emoji) = priority.emoji() {
        field(&mut line, emoji, "priority", priority.name());
    }
    if let Some(rule) = recurrence {
        field(&mut line, "🔁", "repeat", rule);
    }
    // Written in the plugin's order (cancelled before done); `dates` is in
    // `DateKind`'s.
    let keys = [
        (0, "➕", "created"),
        (1, "🛫", "start"),
        (2, "⏳", "scheduled"),
        (3, "📅", "due"),
        (5, "❌", "cancelled"),
        (4, "✅", "completion"),
    ];
    for (at, emoji, key) in keys {
        if let Some(day) = &dates[at] {
            field(&mut line, emoji, key, &date(*day));
        }
    }
    Meant {
        line,
        symbol,
        dates,
        priority,
        format: (fields > 0).then_some(format),
        recurrence,
        tags,
        parent: None,
    }
}

/// The task lists of one note, its tasks in `meant` (in the order the
/// lists are given back, which is their order in the note only when they
/// are put in that order).
pub(super) fn task_lists(rng: &mut Rng, meant: &mut Vec<Meant>) -> Vec<TaskList> {
    let mut left = task_count(rng);
    let mut lists = Vec::new();
    while left > 0 {
        let size = rng.usize(1..=6).min(left);
        left -= size;
        let quoted = rng.f64() < 0.04;
        let mut text = String::new();
        let mut top = None;
        for k in 0..size {
            let mut task = task(rng);
            let nested = k > 0 && !quoted && rng.f64() < 0.15;
            let lead = match (quoted, nested) {
                (true, _) => "> ",
                (false, true) => "\t",
                (false, false) => "",
            };
            if nested {
                task.parent = top;
            } else {
                top = Some(meant.len());
            }
            task.line = format!("{lead}- {}", task.line);
            text.push_str(&task.line);
            text.push('\n');
            meant.push(task);
        }
        lists.push(TaskList { text });
    }
    lists
}

/// Where a list may go in `text` (a note's whole text, its body starting at
/// `body`): after a blank line that ends a block other than a list (a task
/// list right after one would join it).
pub(super) fn places(text: &str, body: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for at in body.max(2)..=bytes.len() {
        if &bytes[at - 2..at] != b"\n\n" {
            continue;
        }
        let before = &text[..at - 2];
        let last = before.rsplit('\n').next().unwrap_or("").trim_start();
        let list = last.starts_with("- ")
            || last.starts_with("* ")
            || last.starts_with("+ ")
            || last
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !list {
            out.push(at);
        }
    }
    out
}
