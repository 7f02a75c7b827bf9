//! Recurrence rules as the Obsidian Tasks plugin reads them (the text after
//! 🔁 or in `[repeat:: …]`): the rule's parse, its text as the plugin writes
//! it back, and the dates of a completed task's next copy. Pure: the caller
//! passes today in. It knows nothing of task lines, their emoji, files or
//! settings beyond the one flag it is given.
//!
//! The plugin hands the rule to rrule.js (`RRule.parseText`, `toText`,
//! `after`) and corrects monthly and yearly rules that would skip a short
//! month (`src/Task/Recurrence.ts`, `src/Task/Occurrence.ts` in
//! obsidian-tasks-group/obsidian-tasks). This module follows both: rrule's
//! tokens (case-insensitive prefixes such as `mon`, `tues`, `sept`) and
//! grammar, its quirks included, and the plugin's date arithmetic.
//!
//! Read: `every [n]` then `day(s)`, `weekday(s)`, `week(s)`, `month(s)`,
//! `year(s)`, a weekday list (`every Monday, Friday`), or a month list
//! (`every April and December`); then `on [the] …` with weekdays, `weekday`,
//! month names, day numbers (`1st`, `31st`, `last`, `2nd last`, `first`,
//! `second`, `third`), nth weekdays (`last Friday`, `2nd last Friday`), or
//! after a weekday list `the 13th`; then ` when done`. Where rrule stops at
//! the first word its grammar does not expect and ignores the rest (`every
//! day in January` is `every day` there), the rest is an error here: a
//! date read from half a rule would be a guess. `every 0 days`,
//! `every other week` and `every two weeks` are not read (rrule rejects them).
//!
//! Read by rrule but refused here (the plugin works in whole days, and these
//! either mean nothing for a date or, for `for` and `until`, change what the
//! next copy is): hourly and minutely rules (`every 3 hours`), `at <hour>`,
//! `for <n> times`, `until <date>`, week numbers (`every year on week 5`).
//! Intervals above 100,000 are refused; a rule with no date before the year
//! 10000 (rrule's last year), such as `every February on the 30th`, is an
//! error rather than a guess.

use std::fmt;

use chrono::{Datelike, Days, NaiveDate};

use crate::daily::Date;

/// The longest rule text read, in bytes; rules are a few words.
const MAX_RULE_BYTES: usize = 1024;
/// The largest interval read (`every 100000 days`).
const MAX_INTERVAL: u32 = 100_000;
/// rrule's last year: it stops looking for an occurrence after it.
const MAX_YEAR: i32 = 9999;
/// The Gregorian calendar repeats every 400 years: 146,097 days, 20,871
/// weeks, 4,800 months. A rule with no occurrence in that many periods has
/// none at all.
const CYCLE_DAYS: i64 = 146_097;
const CYCLE_WEEKS: i64 = 20_871;
const CYCLE_MONTHS: i64 = 4_800;
const CYCLE_YEARS: i64 = 400;
/// How many days the month-end correction may move back (it needs three at
/// most for a rule it is meant for).
const MAX_STEPS_BACK: u32 = 366;

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// rrule's weekday order: Monday is 0.
const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Why a rule was not read, or gives no next date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecurError {
    /// The text is not a rule the plugin reads, or one this module refuses.
    Unreadable {
        /// The rule text as given.
        text: String,
        /// What was not understood.
        reason: String,
    },
    /// The rule has no date after `from` before the year 10000.
    NoNextDate {
        /// The rule, as [`Recurrence::to_text`] writes it.
        rule: String,
        /// The date counted from.
        from: Date,
    },
    /// The reference date (or today) is not a calendar date, e.g. 2022-02-30.
    InvalidDate(Date),
}

impl fmt::Display for RecurError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecurError::Unreadable { text, reason } => write!(f, "cannot read {text:?}: {reason}"),
            RecurError::NoNextDate { rule, from } => write!(
                f,
                "{rule:?} gives no date after {} before the year 10000",
                iso(*from)
            ),
            RecurError::InvalidDate(date) => write!(f, "{} is not a calendar date", iso(*date)),
        }
    }
}

impl std::error::Error for RecurError {}

fn iso(date: Date) -> String {
    format!("{:04}-{:02}-{:02}", date.year, date.month, date.day)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freq {
    Yearly,
    Monthly,
    Weekly,
    Daily,
}

/// A parsed recurrence rule: rrule's options as its text parser sets them,
/// and whether it counts from the completion day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recurrence {
    freq: Freq,
    interval: u32,
    /// (weekday, Monday = 0; nth in the month or year, 0 for every one), in
    /// the order written.
    by_weekday: Vec<(u8, i32)>,
    /// Days of the month, negative from the end (-1 the last), as written.
    by_month_day: Vec<i32>,
    /// Months 1..=12, as written.
    by_month: Vec<u8>,
    when_done: bool,
}

const MO_TO_FR: [(u8, i32); 5] = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)];

impl Recurrence {
    /// Parses the text after 🔁 (or in `[repeat:: …]`), e.g. "every 2 weeks
    /// on Monday, Friday when done". Never panics.
    pub fn parse(text: &str) -> Result<Recurrence, RecurError> {
        let text = text.trim();
        let fail = |reason: String| RecurError::Unreadable {
            text: text.to_string(),
            reason,
        };
        if text.is_empty() {
            return Err(fail("the rule is empty".into()));
        }
        if text.len() > MAX_RULE_BYTES {
            return Err(fail(format!("a rule is at most {MAX_RULE_BYTES} bytes")));
        }
        if let Some(c) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, ',' | ' ' | '!')))
        {
            return Err(fail(format!(
                "{c:?}: a rule holds only letters, digits, spaces, commas and '!'"
            )));
        }
        // The plugin's /^([a-zA-Z0-9, !]+?)( when done)?$/i.
        const WHEN_DONE: &str = " when done";
        let split = text.len().checked_sub(WHEN_DONE.len()).filter(|&at| {
            at > 0 && text.as_bytes()[at..].eq_ignore_ascii_case(WHEN_DONE.as_bytes())
        });
        let (rule, when_done) = match split {
            Some(at) => (text[..at].trim(), true),
            None => (text, false),
        };
        let mut parser = Parser {
            lex: Lexer::new(rule.as_bytes()),
            rule: Recurrence {
                freq: Freq::Daily,
                interval: 1,
                by_weekday: Vec::new(),
                by_month_day: Vec::new(),
                by_month: Vec::new(),
                when_done,
            },
        };
        parser.rule_text().map_err(fail)?;
        // rrule stops at the first word it does not expect and ignores the
        // rest (`every day in January` would be `every day`): a date read
        // from half a rule is a guess, so the rest is an error here.
        if parser.lex.sym.is_some() || !parser.lex.text.trim_ascii().is_empty() {
            return Err(fail(format!(
                "{} is not part of a rule (the Tasks plugin would ignore it and repeat \
                 by the words before it)",
                parser.lex.here()
            )));
        }
        Ok(parser.rule)
    }

    /// Whether the next date counts from the completion day (`when done`)
    /// rather than from the task's reference date.
    pub fn when_done(&self) -> bool {
        self.when_done
    }

    /// The rule as the plugin writes it back: rrule's `toText()`, then
    /// " when done". `every Sunday` is written `every week on Sunday`.
    pub fn to_text(&self) -> String {
        let mut text = self.rrule_text();
        if self.when_done {
            text.push_str(" when done");
        }
        text
    }

    /// rrule's `toText()` (totext.ts), for the options its parser sets.
    fn rrule_text(&self) -> String {
        let mut out = vec!["every".to_string()];
        let interval = self.interval;
        let plural = interval % 100 != 1;
        let wk = WeekdayText::new(&self.by_weekday);
        let mdays = self.month_day_text();
        let months = || {
            list(
                self.by_month
                    .iter()
                    .map(|&m| MONTH_NAMES[usize::from(m - 1)].to_string()),
                Some("and"),
            )
        };
        let unit = |one: &str, many: &str| if plural { many } else { one }.to_string();
        match self.freq {
            Freq::Daily => {
                if interval != 1 {
                    out.push(interval.to_string());
                }
                if wk.as_ref().is_some_and(|w| w.is_weekdays) {
                    out.push(unit("weekday", "weekdays"));
                } else {
                    out.push(unit("day", "days"));
                }
            }
            Freq::Weekly => {
                if interval != 1 {
                    out.push(interval.to_string());
                    out.push(unit("week", "weeks"));
                }
                if wk.as_ref().is_some_and(|w| w.is_weekdays) {
                    if interval == 1 {
                        out.push("weekday".into());
                    } else {
                        out.push("on".into());
                        out.push("weekdays".into());
                    }
                } else if wk.as_ref().is_some_and(|w| w.is_every_day) {
                    out.push(unit("day", "days"));
                } else {
                    if interval == 1 {
                        out.push("week".into());
                    }
                    if !self.by_month.is_empty() {
                        out.push("in".into());
                        out.push(months());
                    }
                    self.days_text(&mut out, wk.as_ref(), mdays.as_deref());
                }
            }
            Freq::Monthly => {
                if self.by_month.is_empty() {
                    if interval != 1 {
                        out.push(interval.to_string());
                    }
                    out.push(unit("month", "months"));
                } else {
                    if interval != 1 {
                        out.push(interval.to_string());
                        out.push("months".into());
                        if plural {
                            out.push("in".into());
                        }
                    }
                    out.push(months());
                }
                match (&mdays, &wk) {
                    (Some(_), _) => self.days_text(&mut out, wk.as_ref(), mdays.as_deref()),
                    (None, Some(w)) if w.is_weekdays => {
                        out.push("on".into());
                        out.push("weekdays".into());
                    }
                    _ => self.days_text(&mut out, wk.as_ref(), None),
                }
            }
            Freq::Yearly => {
                if self.by_month.is_empty() {
                    if interval != 1 {
                        out.push(interval.to_string());
                    }
                    out.push(unit("year", "years"));
                } else {
                    if interval != 1 {
                        out.push(interval.to_string());
                        out.push("years".into());
                    }
                    out.push(months());
                }
                self.days_text(&mut out, wk.as_ref(), mdays.as_deref());
            }
        }
        out.join(" ")
    }

    /// Positive days ascending, then negative ones from -1 down (totext.ts).
    fn month_day_text(&self) -> Option<Vec<i32>> {
        if self.by_month_day.is_empty() {
            return None;
        }
        let mut pos: Vec<i32> = self
            .by_month_day
            .iter()
            .copied()
            .filter(|&d| d > 0)
            .collect();
        let mut neg: Vec<i32> = self
            .by_month_day
            .iter()
            .copied()
            .filter(|&d| d < 0)
            .collect();
        pos.sort_unstable();
        neg.sort_unstable_by(|a, b| b.cmp(a));
        pos.extend(neg);
        Some(pos).filter(|days| !days.is_empty())
    }

    /// `_bymonthday`, else `_byweekday`.
    fn days_text(&self, out: &mut Vec<String>, wk: Option<&WeekdayText>, mdays: Option<&[i32]>) {
        if let Some(mdays) = mdays {
            let days = mdays.iter().map(|&d| nth(d));
            match wk.filter(|w| !w.all.is_empty()) {
                Some(w) => {
                    out.push("on".into());
                    out.push(list(w.all.iter().map(|&d| weekday_text(d)), Some("or")));
                    out.push("the".into());
                    out.push(list(days, Some("or")));
                }
                None => {
                    out.push("on the".into());
                    out.push(list(days, Some("and")));
                }
            }
        } else if let Some(w) = wk {
            if !w.all.is_empty() && !w.is_weekdays {
                out.push("on".into());
                out.push(list(w.all.iter().map(|&d| weekday_text(d)), None));
            }
            if !w.some.is_empty() {
                if !w.all.is_empty() {
                    out.push("and".into());
                }
                out.push("on the".into());
                out.push(list(w.some.iter().map(|&d| weekday_text(d)), Some("and")));
            }
        }
    }

    /// The first date after `start` (not `start` itself) that the rule
    /// gives when rrule's `dtstart` is `start`; `None` past the year 9999.
    fn occurrence_after(&self, start: NaiveDate) -> Option<NaiveDate> {
        let set = DaySet::new(self, start);
        let interval = i64::from(self.interval);
        let accept = |d: NaiveDate| d > start && set.matches(d);
        match self.freq {
            Freq::Daily => {
                for k in 1..=CYCLE_DAYS {
                    let d = add_days(start, k.checked_mul(interval)?)?;
                    if d.year() > MAX_YEAR {
                        return None;
                    }
                    if accept(d) {
                        return Some(d);
                    }
                }
                None
            }
            Freq::Weekly => {
                let monday = add_days(start, -i64::from(start.weekday().num_days_from_monday()))?;
                for k in 0..=CYCLE_WEEKS {
                    let first = add_days(monday, k * interval * 7)?;
                    if first.year() > MAX_YEAR {
                        return None;
                    }
                    if let Some(d) = (0..7)
                        .filter_map(|i| add_days(first, i))
                        .find(|&d| accept(d))
                    {
                        return Some(d);
                    }
                }
                None
            }
            Freq::Monthly => {
                let month0 = i64::from(start.year()) * 12 + i64::from(start.month0());
                for k in 0..=CYCLE_MONTHS {
                    let m = month0 + k * interval;
                    let year = i32::try_from(m.div_euclid(12)).ok()?;
                    if year > MAX_YEAR {
                        return None;
                    }
                    let month = m.rem_euclid(12) as u32 + 1;
                    if let Some(d) = month_days(year, month).find(|&d| accept(d)) {
                        return Some(d);
                    }
                }
                None
            }
            Freq::Yearly => {
                for k in 0..=CYCLE_YEARS {
                    let year = i32::try_from(i64::from(start.year()) + k * interval).ok()?;
                    if year > MAX_YEAR {
                        return None;
                    }
                    let found = (1..=12)
                        .filter(|&m| set.months.is_empty() || set.months.contains(&m))
                        .flat_map(|m| month_days(year, m))
                        .find(|&d| accept(d));
                    if found.is_some() {
                        return found;
                    }
                }
                None
            }
        }
    }

    /// The next reference date counted from `anchor`, as the plugin's
    /// `nextAfter` finds it: rrule's next date, moved back for `every
    /// [n] month(s)` and `every [n] year(s)` rules that would skip a month
    /// (or a year) too many from the end of a month.
    fn next_reference(&self, anchor: NaiveDate) -> Result<NaiveDate, RecurError> {
        let no_next = || RecurError::NoNextDate {
            rule: self.to_text(),
            from: Date::from(anchor),
        };
        let mut next = self.occurrence_after(anchor).ok_or_else(no_next)?;
        let text = self.to_text();
        let month_skip = every_n(&text, "month").filter(|_| !text.contains(" on "));
        let mut after = anchor;
        let mut steps = 0;
        let months = |a: NaiveDate, b: NaiveDate| {
            (i64::from(b.year()) - i64::from(a.year())) * 12 + i64::from(b.month())
                - i64::from(a.month())
        };
        let years = |a: NaiveDate, b: NaiveDate| i64::from(b.year()) - i64::from(a.year());
        for (skip, between) in [
            (month_skip, &months as &dyn Fn(NaiveDate, NaiveDate) -> i64),
            (every_n(&text, "year"), &years),
        ] {
            let Some(skip) = skip else { continue };
            while between(after, next) > skip {
                steps += 1;
                if steps > MAX_STEPS_BACK {
                    return Err(no_next());
                }
                after = after.pred_opt().ok_or_else(no_next)?;
                next = self.occurrence_after(after).ok_or_else(no_next)?;
            }
        }
        Ok(next)
    }
}

/// In `text`, rrule's `every( \d+)? <unit>` as the plugin matches it: the
/// number (1 when absent) if the pattern is there.
fn every_n(text: &str, unit: &str) -> Option<i64> {
    text.match_indices("every").find_map(|(at, _)| {
        let rest = &text[at + "every".len()..];
        let digits = rest
            .strip_prefix(' ')
            .map(|r| r.bytes().take_while(u8::is_ascii_digit).count())
            .unwrap_or(0);
        let with_number = &rest[(digits + 1).min(rest.len())..];
        if digits > 0
            && with_number
                .strip_prefix(' ')
                .is_some_and(|r| r.starts_with(unit))
        {
            Some(rest[1..=digits].parse::<i64>().unwrap_or(i64::MAX))
        } else if rest.strip_prefix(' ').is_some_and(|r| r.starts_with(unit)) {
            Some(1)
        } else {
            None
        }
    })
}

fn add_days(date: NaiveDate, n: i64) -> Option<NaiveDate> {
    if n >= 0 {
        date.checked_add_days(Days::new(n.unsigned_abs()))
    } else {
        date.checked_sub_days(Days::new(n.unsigned_abs()))
    }
}

fn month_len(year: i32, month: u32) -> u32 {
    (28..=31)
        .rev()
        .find(|&d| NaiveDate::from_ymd_opt(year, month, d).is_some())
        .unwrap_or(28)
}

fn month_days(year: i32, month: u32) -> impl Iterator<Item = NaiveDate> {
    (1..=month_len(year, month)).filter_map(move |d| NaiveDate::from_ymd_opt(year, month, d))
}

/// rrule's options once `dtstart` fills in what the rule leaves open
/// (parseoptions.ts), and its day filter (iter/index.ts `isFiltered`).
struct DaySet {
    freq: Freq,
    months: Vec<u32>,
    weekdays: Vec<u32>,
    nth_weekdays: Vec<(u32, i32)>,
    month_days: Vec<i32>,
    month_days_from_end: Vec<i32>,
}

impl DaySet {
    fn new(rule: &Recurrence, start: NaiveDate) -> DaySet {
        let mut set = DaySet {
            freq: rule.freq,
            months: rule.by_month.iter().map(|&m| u32::from(m)).collect(),
            weekdays: Vec::new(),
            nth_weekdays: Vec::new(),
            month_days: Vec::new(),
            month_days_from_end: Vec::new(),
        };
        let mut month_days = rule.by_month_day.clone();
        let mut weekdays = rule.by_weekday.clone();
        if weekdays.is_empty() && month_days.is_empty() {
            match rule.freq {
                Freq::Yearly => {
                    if set.months.is_empty() {
                        set.months.push(start.month());
                    }
                    month_days.push(start.day() as i32);
                }
                Freq::Monthly => month_days.push(start.day() as i32),
                Freq::Weekly => weekdays.push((start.weekday().num_days_from_monday() as u8, 0)),
                Freq::Daily => {}
            }
        }
        for (day, n) in weekdays {
            if n != 0 && matches!(rule.freq, Freq::Monthly | Freq::Yearly) {
                set.nth_weekdays.push((u32::from(day), n));
            } else {
                set.weekdays.push(u32::from(day));
            }
        }
        set.month_days = month_days.iter().copied().filter(|&d| d > 0).collect();
        set.month_days_from_end = month_days.iter().copied().filter(|&d| d < 0).collect();
        set
    }

    fn matches(&self, d: NaiveDate) -> bool {
        let weekday = d.weekday().num_days_from_monday();
        let day = d.day() as i32;
        let len = month_len(d.year(), d.month()) as i32;
        if !self.months.is_empty() && !self.months.contains(&d.month()) {
            return false;
        }
        if !self.weekdays.is_empty() && !self.weekdays.contains(&weekday) {
            return false;
        }
        if !self.nth_weekdays.is_empty() && !self.is_nth_weekday(d) {
            return false;
        }
        let by_day = !self.month_days.is_empty() || !self.month_days_from_end.is_empty();
        !by_day
            || self.month_days.contains(&day)
            || self.month_days_from_end.contains(&(day - len - 1))
    }

    /// Whether `d` is one of the nth weekdays of its month (monthly, or
    /// yearly in given months) or of its year (yearly).
    fn is_nth_weekday(&self, d: NaiveDate) -> bool {
        let (first, last) = if self.freq == Freq::Yearly && self.months.is_empty() {
            (
                NaiveDate::from_ymd_opt(d.year(), 1, 1),
                NaiveDate::from_ymd_opt(d.year(), 12, 31),
            )
        } else {
            (d.with_day(1), d.with_day(month_len(d.year(), d.month())))
        };
        let (Some(first), Some(last)) = (first, last) else {
            return false;
        };
        let weekday = d.weekday().num_days_from_monday();
        let from_first = (d - first).num_days() / 7;
        let from_last = (last - d).num_days() / 7;
        self.nth_weekdays.iter().any(|&(w, n)| {
            w == weekday
                && if n > 0 {
                    from_first == i64::from(n) - 1
                } else {
                    from_last == -i64::from(n) - 1
                }
        })
    }
}

/// The weekdays of a rule split as totext.ts splits them.
struct WeekdayText {
    all: Vec<(u8, i32)>,
    some: Vec<(u8, i32)>,
    is_weekdays: bool,
    is_every_day: bool,
}

impl WeekdayText {
    fn new(by_weekday: &[(u8, i32)]) -> Option<WeekdayText> {
        if by_weekday.is_empty() {
            return None;
        }
        let has = |w: u8| by_weekday.iter().any(|&(d, _)| d == w);
        let mo_to_fr = (0..5).all(has);
        let mut all: Vec<(u8, i32)> = by_weekday
            .iter()
            .copied()
            .filter(|&(_, n)| n == 0)
            .collect();
        let mut some: Vec<(u8, i32)> = by_weekday
            .iter()
            .copied()
            .filter(|&(_, n)| n != 0)
            .collect();
        all.sort_by_key(|&(d, _)| d);
        some.sort_by_key(|&(d, _)| d);
        Some(WeekdayText {
            all,
            some,
            is_weekdays: mo_to_fr && !has(5) && !has(6),
            is_every_day: mo_to_fr && has(5) && has(6),
        })
    }
}

/// rrule's `nth`: `1st`, `22nd`, `last`, `2nd last`.
fn nth(n: i32) -> String {
    if n == -1 {
        return "last".into();
    }
    let npos = n.unsigned_abs();
    let suffix = match npos {
        1 | 21 | 31 => "st",
        2 | 22 => "nd",
        3 | 23 => "rd",
        _ => "th",
    };
    if n < 0 {
        format!("{npos}{suffix} last")
    } else {
        format!("{npos}{suffix}")
    }
}

fn weekday_text((day, n): (u8, i32)) -> String {
    let name = DAY_NAMES[usize::from(day)];
    if n == 0 {
        name.to_string()
    } else {
        format!("{} {name}", nth(n))
    }
}

/// rrule's `list`: "a, b and c" with a final word, else "a, b, c".
fn list(items: impl Iterator<Item = String>, final_delim: Option<&str>) -> String {
    let items: Vec<String> = items.collect();
    match final_delim {
        None => items.join(", "),
        Some(word) => {
            let mut out = String::new();
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    if i == items.len() - 1 {
                        out.push_str(&format!(" {word} "));
                    } else {
                        out.push_str(", ");
                    }
                }
                out.push_str(item);
            }
            out
        }
    }
}

/// The dates a recurring task carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TaskDates {
    /// 🛫
    pub start: Option<Date>,
    /// ⏳
    pub scheduled: Option<Date>,
    /// 📅
    pub due: Option<Date>,
}

/// The next occurrence's dates, as the plugin computes them when the task is
/// completed on `today`. The reference date is the due date, else the
/// scheduled, else the start date (due, start, scheduled when
/// `remove_scheduled`, the "remove scheduled date on recurrence" setting);
/// the rule counts from it, or from `today` for `when done`, and the other
/// dates keep their distance in days from it. With `remove_scheduled` the
/// copy has no scheduled date, unless that is its only date. A task with none
/// of the three dates gets a copy with none.
pub fn next_dates(
    rule: &Recurrence,
    dates: TaskDates,
    today: Date,
    remove_scheduled: bool,
) -> Result<TaskDates, RecurError> {
    let order = if remove_scheduled {
        [dates.due, dates.start, dates.scheduled]
    } else {
        [dates.due, dates.scheduled, dates.start]
    };
    let Some(reference) = order.into_iter().flatten().next() else {
        return Ok(TaskDates::default());
    };
    let naive = |d: Date| NaiveDate::from_ymd_opt(d.year, u32::from(d.month), u32::from(d.day));
    let reference_day = naive(reference).ok_or(RecurError::InvalidDate(reference))?;
    let anchor = if rule.when_done {
        naive(today).ok_or(RecurError::InvalidDate(today))?
    } else {
        reference_day
    };
    let next = Date::from(rule.next_reference(anchor)?);
    // A date that is not a calendar date gets the reference date's new value,
    // as moment's NaN offset leaves it (tests/Task/Recurrence.test.ts).
    let shift = |date: Option<Date>| {
        date.map(|d| match naive(d) {
            Some(_) => next.add_days(d.days() - reference.days()),
            None => next,
        })
    };
    let drop_scheduled = remove_scheduled && (dates.start.is_some() || dates.due.is_some());
    Ok(TaskDates {
        start: shift(dates.start),
        scheduled: if drop_scheduled {
            None
        } else {
            shift(dates.scheduled)
        },
        due: shift(dates.due),
    })
}

// ---------------------------------------------------------------------------
// rrule's text parser (nlp/parsetext.ts, nlp/i18n.ts ENGLISH tokens)

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    Skip,
    Number,
    NumberAsText,
    Every,
    Days,
    Weekdays,
    Weeks,
    Hours,
    Minutes,
    Months,
    Years,
    On,
    At,
    The,
    First,
    Second,
    Third,
    Nth,
    Last,
    For,
    Times,
    Until,
    /// Monday = 0.
    Weekday(u8),
    /// January = 1.
    Month(u8),
    Comma,
}

/// The tokens that are words, in rrule's order, each with its spellings
/// longest first (a token matches its longest spelling that is a prefix).
const WORDS: &[(Sym, &[&str])] = &[
    (Sym::NumberAsText, &["three", "one", "two"]),
    (Sym::Every, &["every"]),
    (Sym::Days, &["days", "day"]),
    (Sym::Weekdays, &["weekdays", "weekday"]),
    (Sym::Weeks, &["weeks", "week"]),
    (Sym::Hours, &["hours", "hour"]),
    (Sym::Minutes, &["minutes", "minute"]),
    (Sym::Months, &["months", "month"]),
    (Sym::Years, &["years", "year"]),
    (Sym::On, &["on", "in"]),
    (Sym::At, &["at"]),
    (Sym::The, &["the"]),
    (Sym::First, &["first"]),
    (Sym::Second, &["second"]),
    (Sym::Third, &["third"]),
];
const WORDS_AFTER_NTH: &[(Sym, &[&str])] = &[
    (Sym::Last, &["last"]),
    (Sym::For, &["for"]),
    (Sym::Times, &["times", "time"]),
    (Sym::Until, &["until", "til"]),
    (Sym::Weekday(0), &["monday", "mon", "mo"]),
    (Sym::Weekday(1), &["tuesday", "tues", "tue", "tu"]),
    (Sym::Weekday(2), &["wednesday", "wedn", "wed", "we"]),
    (Sym::Weekday(3), &["thursday", "thur", "thu", "th"]),
    (Sym::Weekday(4), &["friday", "fri", "fr"]),
    (Sym::Weekday(5), &["saturday", "sat", "sa"]),
    (Sym::Weekday(6), &["sunday", "sun", "su"]),
    (Sym::Month(1), &["january", "jan"]),
    (Sym::Month(2), &["february", "feb"]),
    (Sym::Month(3), &["march", "mar"]),
    (Sym::Month(4), &["april", "apr"]),
    (Sym::Month(5), &["may"]),
    (Sym::Month(6), &["june", "jun"]),
    (Sym::Month(7), &["july", "jul"]),
    (Sym::Month(8), &["august", "aug"]),
    (Sym::Month(9), &["september", "sept", "sep"]),
    (Sym::Month(10), &["october", "oct"]),
    (Sym::Month(11), &["november", "nov"]),
    (Sym::Month(12), &["december", "dec"]),
];

fn starts_with_ci(s: &[u8], word: &str) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word.as_bytes())
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn word_len(s: &[u8], spellings: &[&str]) -> usize {
    spellings
        .iter()
        .find(|w| starts_with_ci(s, w))
        .map_or(0, |w| w.len())
}

/// The token at the start of `s`: the longest match, the earliest token on a
/// tie, as rrule's `nextSymbol` picks it.
fn lex(s: &[u8]) -> Option<(Sym, usize)> {
    let mut best: Option<(Sym, usize)> = None;
    let mut offer = |sym: Sym, len: usize| {
        if len > 0 && best.is_none_or(|(_, l)| len > l) {
            best = Some((sym, len));
        }
    };
    let spaces = s.iter().take_while(|&&b| is_space(b)).count();
    offer(Sym::Skip, if s == b"." { 1 } else { spaces });
    let digits = if s.first().is_some_and(|b| (b'1'..=b'9').contains(b)) {
        s.iter().take_while(|b| b.is_ascii_digit()).count()
    } else {
        0
    };
    offer(Sym::Number, digits);
    for &(sym, spellings) in WORDS {
        offer(sym, word_len(s, spellings));
    }
    if digits > 0 {
        let rest = &s[digits..];
        let suffix = if rest.first() == Some(&b'.') {
            1
        } else {
            word_len(rest, &["th", "nd", "rd", "st"])
        };
        if suffix > 0 {
            offer(Sym::Nth, digits + suffix);
        }
    }
    for &(sym, spellings) in WORDS_AFTER_NTH {
        offer(sym, word_len(s, spellings));
    }
    let mut comma = 0;
    loop {
        let rest = &s[comma..];
        let step = if rest.first() == Some(&b',') {
            1
        } else {
            word_len(rest, &["and", "or"])
        };
        if step == 0 {
            break;
        }
        comma += step;
        comma += s[comma..].iter().take_while(|&&b| is_space(b)).count();
    }
    offer(Sym::Comma, comma);
    best
}

/// rrule's `Parser`: the current symbol and its text, and what is left.
struct Lexer<'a> {
    text: &'a [u8],
    sym: Option<Sym>,
    value: &'a [u8],
    done: bool,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a [u8]) -> Lexer<'a> {
        let mut lexer = Lexer {
            text,
            sym: None,
            value: &[],
            done: false,
        };
        lexer.next();
        lexer
    }

    /// Moves to the next symbol; false at the end or at text no token reads.
    fn next(&mut self) -> bool {
        self.sym = None;
        self.value = &[];
        loop {
            if self.done {
                return false;
            }
            let Some((sym, len)) = lex(self.text) else {
                self.done = true;
                return false;
            };
            let (value, rest) = self.text.split_at(len);
            self.text = rest;
            if rest.is_empty() {
                self.done = true;
            }
            if sym != Sym::Skip {
                self.sym = Some(sym);
                self.value = value;
                return true;
            }
        }
    }

    fn is_done(&self) -> bool {
        self.done && self.sym.is_none()
    }

    fn accept(&mut self, sym: Sym) -> Option<&'a [u8]> {
        if self.sym == Some(sym) {
            let value = self.value;
            self.next();
            Some(value)
        } else {
            None
        }
    }

    /// What the parser stopped at, for an error.
    fn here(&self) -> String {
        let rest = String::from_utf8_lossy(self.text);
        match self.sym {
            Some(_) => format!(
                "{:?}",
                format!("{}{rest}", String::from_utf8_lossy(self.value))
            ),
            None if rest.trim().is_empty() => "the end of the rule".into(),
            None => format!("{:?}", rest.trim()),
        }
    }
}

/// Digits read as a number, saturating (they are bounded by the caller).
fn number(digits: &[u8]) -> u64 {
    digits
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |n, &b| {
            n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
        })
}

struct Parser<'a> {
    lex: Lexer<'a>,
    rule: Recurrence,
}

type Parse<T> = Result<T, String>;

impl Parser<'_> {
    /// rrule's `S`.
    fn rule_text(&mut self) -> Parse<()> {
        if self.lex.accept(Sym::Every).is_none() {
            return Err(format!(
                "a rule starts with \"every\", not {}",
                self.lex.here()
            ));
        }
        if let Some(n) = self.lex.accept(Sym::Number) {
            let n = number(n);
            if n > u64::from(MAX_INTERVAL) {
                return Err(format!("the interval {n} is larger than {MAX_INTERVAL}"));
            }
            self.rule.interval = n as u32;
        }
        if self.lex.is_done() {
            return Err(format!(
                "expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month at {}",
                self.lex.here()
            ));
        }
        match self.lex.sym {
            Some(Sym::Days) => {
                self.rule.freq = Freq::Daily;
                if self.lex.next() {
                    self.at()?;
                    self.until_or_count()?;
                }
            }
            Some(Sym::Weekdays) => {
                self.rule.freq = Freq::Weekly;
                self.rule.by_weekday = MO_TO_FR.to_vec();
                self.lex.next();
                self.at()?;
                self.until_or_count()?;
            }
            Some(Sym::Weeks) => {
                self.rule.freq = Freq::Weekly;
                if self.lex.next() {
                    self.on()?;
                    self.at()?;
                    self.until_or_count()?;
                }
            }
            Some(Sym::Hours | Sym::Minutes) => {
                return Err(
                    "hourly and minutely rules are not followed: a task's dates are days".into(),
                );
            }
            Some(Sym::Months | Sym::Years) => {
                self.rule.freq = if self.lex.sym == Some(Sym::Months) {
                    Freq::Monthly
                } else {
                    Freq::Yearly
                };
                if self.lex.next() {
                    self.on()?;
                    self.until_or_count()?;
                }
            }
            Some(Sym::Weekday(day)) => {
                self.rule.freq = Freq::Weekly;
                self.rule.by_weekday = vec![(day, 0)];
                if !self.lex.next() {
                    return Ok(());
                }
                while self.lex.accept(Sym::Comma).is_some() {
                    let Some(Sym::Weekday(day)) = self.lex.sym else {
                        return Err(format!("expected a weekday at {}", self.lex.here()));
                    };
                    self.rule.by_weekday.push((day, 0));
                    self.lex.next();
                }
                self.at()?;
                self.month_days()?;
                self.until_or_count()?;
            }
            Some(Sym::Month(month)) => {
                self.rule.freq = Freq::Yearly;
                self.rule.by_month = vec![month];
                if !self.lex.next() {
                    return Ok(());
                }
                while self.lex.accept(Sym::Comma).is_some() {
                    let Some(Sym::Month(month)) = self.lex.sym else {
                        return Err(format!("expected a month at {}", self.lex.here()));
                    };
                    self.rule.by_month.push(month);
                    self.lex.next();
                }
                self.on()?;
                self.until_or_count()?;
            }
            _ => {
                return Err(format!(
                    "expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month at {}",
                    self.lex.here()
                ));
            }
        }
        Ok(())
    }

    /// rrule's `ON`: `on|in [the]` days, weekdays and months, repeated.
    fn on(&mut self) -> Parse<()> {
        let on = self.lex.accept(Sym::On).is_some();
        let the = self.lex.accept(Sym::The).is_some();
        if !(on || the) {
            return Ok(());
        }
        loop {
            let nth = self.nth()?;
            let sym = self.lex.sym;
            match (nth, sym) {
                (Some(n), Some(Sym::Weekday(day))) => {
                    self.lex.next();
                    self.rule.by_weekday.push((day, n));
                }
                (Some(n), _) => {
                    self.rule.by_month_day.push(n);
                    self.lex.accept(Sym::Days);
                }
                (None, Some(Sym::Weekday(day))) => {
                    self.lex.next();
                    self.rule.by_weekday.push((day, 0));
                }
                (None, Some(Sym::Weekdays)) => {
                    self.lex.next();
                    if self.rule.by_weekday.is_empty() {
                        self.rule.by_weekday = MO_TO_FR.to_vec();
                    }
                }
                (None, Some(Sym::Weeks)) => {
                    return Err("week numbers (\"on week 5\") are not followed".into());
                }
                (None, Some(Sym::Month(month))) => {
                    self.lex.next();
                    self.rule.by_month.push(month);
                }
                _ => return Ok(()),
            }
            if self.lex.accept(Sym::Comma).is_none()
                && self.lex.accept(Sym::The).is_none()
                && self.lex.accept(Sym::On).is_none()
            {
                return Ok(());
            }
        }
    }

    /// rrule's `AT`: refused when it is reached (hours mean nothing for a date).
    fn at(&mut self) -> Parse<()> {
        if self.lex.sym == Some(Sym::At) {
            return Err(format!(
                "times of day are not followed, at {}",
                self.lex.here()
            ));
        }
        Ok(())
    }

    /// rrule's `F`: `until` and `for` are refused when they are reached.
    fn until_or_count(&mut self) -> Parse<()> {
        match self.lex.sym {
            Some(Sym::Until) => Err(format!("\"until\" is not followed, at {}", self.lex.here())),
            Some(Sym::For) => Err(format!(
                "\"for … times\" is not followed, at {}",
                self.lex.here()
            )),
            _ => Ok(()),
        }
    }

    /// rrule's `decodeNTH`: `last`, `first`, `second [last]`, `third
    /// [last]`, `<n>th [last]`; moves past what it reads.
    fn nth(&mut self) -> Parse<Option<i32>> {
        let n = match self.lex.sym {
            Some(Sym::Last) => {
                self.lex.next();
                return Ok(Some(-1));
            }
            Some(Sym::First) => {
                self.lex.next();
                return Ok(Some(1));
            }
            Some(Sym::Second) => 2,
            Some(Sym::Third) => 3,
            Some(Sym::Nth) => {
                let n = number(self.lex.value);
                if n > 366 {
                    return Err(format!("{n} is past the 366th"));
                }
                n as i32
            }
            _ => return Ok(None),
        };
        self.lex.next();
        Ok(Some(if self.lex.accept(Sym::Last).is_some() {
            -n
        } else {
            n
        }))
    }

    /// rrule's `MDAYs`, after a weekday list: `[on] [the] <nth>, …`. Like
    /// rrule it steps one symbol past each day it reads.
    fn month_days(&mut self) -> Parse<()> {
        self.lex.accept(Sym::On);
        self.lex.accept(Sym::The);
        let Some(n) = self.nth()? else {
            return Ok(());
        };
        self.rule.by_month_day = vec![n];
        self.lex.next();
        while self.lex.accept(Sym::Comma).is_some() {
            let Some(n) = self.nth()? else {
                return Err(format!(
                    "expected a day of the month at {}",
                    self.lex.here()
                ));
            };
            self.rule.by_month_day.push(n);
            self.lex.next();
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "recur_tests.rs"]
mod tests;
