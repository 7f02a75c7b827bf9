//! Days as people ask for tasks by them: a date or a period (`2024-05-01`,
//! `2024-05`, `2024`, `2024-W05`, `2024-Q1`, or two as a range:
//! `2024-01-01 2024-02-15`), a day named from today
//! (`today`, `tomorrow`, `yesterday`, `next monday`, `last friday`,
//! `in 3 days`, `2 weeks ago`) or a period named from today (`this week`,
//! `next month`, `last quarter`, `this year`; weeks are ISO weeks, Monday
//! first, as the Tasks plugin's). Pure: the caller says what today is (THE
//! clock, `weft_search::clock`). A phrase not understood is an error that
//! names it, never a guessed day.

use chrono::{Datelike, Months, NaiveDate, Weekday};

use crate::date::Date;

/// An inclusive range of days, as days since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Days {
    pub first: i64,
    pub last: i64,
}

impl Days {
    fn of(first: NaiveDate, last: NaiveDate) -> Days {
        Days {
            first: Date::from(first).days(),
            last: Date::from(last).days(),
        }
    }

    fn day(day: NaiveDate) -> Days {
        Days::of(day, day)
    }

    pub fn contains(self, day: i64) -> bool {
        (self.first..=self.last).contains(&day)
    }

    /// `2024-05-01` or `2024-05-01 … 2024-05-31`.
    pub fn text(self) -> String {
        let show = |d: i64| {
            let d = Date::from_days(d);
            format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)
        };
        if self.first == self.last {
            show(self.first)
        } else {
            format!("{} … {}", show(self.first), show(self.last))
        }
    }
}

/// The most days `in N days` / `N weeks ago` may move (about 1,000 years).
const MAX_STEP_DAYS: i64 = 366_000;

/// The days `text` names, read on `today`.
pub fn days(text: &str, today: Date) -> Result<Days, String> {
    let lower = text.trim().to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let today = naive(today);
    let bad = || {
        format!(
            "cannot read `{}` as a day or a period; use YYYY-MM-DD, YYYY-MM, YYYY, YYYY-Www, \
             YYYY-Qn, today, tomorrow, yesterday, next monday, in 3 days, 2 weeks ago, \
             or this|next|last week|month|quarter|year",
            text.trim()
        )
    };
    match words.as_slice() {
        ["today"] => Ok(Days::day(today)),
        ["tomorrow"] => today.succ_opt().map(Days::day).ok_or_else(bad),
        ["yesterday"] => today.pred_opt().map(Days::day).ok_or_else(bad),
        [which @ ("this" | "next" | "last"), unit] => {
            if let Some(weekday) = weekday(unit) {
                return match *which {
                    "next" => Ok(Days::day(step_to(today, weekday, 1))),
                    "last" => Ok(Days::day(step_to(today, weekday, -1))),
                    _ => Ok(Days::day(this_weekday(today, weekday))),
                };
            }
            let shift = match *which {
                "next" => 1,
                "last" => -1,
                _ => 0,
            };
            period_around(today, unit, shift).ok_or_else(bad)
        }
        [day] if weekday(day).is_some() => {
            Ok(Days::day(step_to(today, weekday(day).ok_or_else(bad)?, 0)))
        }
        ["in", n, unit] => moved(today, n, unit, 1).ok_or_else(bad),
        [n, unit, "ago"] => moved(today, n, unit, -1).ok_or_else(bad),
        [one] => absolute(one).ok_or_else(bad),
        // Two dates or periods: from the first's first day to the
        // second's last (the plugin's `2024-01-01 2024-02-15`).
        [from, to] => match (absolute(from), absolute(to)) {
            (Some(a), Some(b)) if a.first <= b.last => Ok(Days {
                first: a.first,
                last: b.last,
            }),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

fn naive(date: Date) -> NaiveDate {
    NaiveDate::from_ymd_opt(date.year, u32::from(date.month), u32::from(date.day)).unwrap_or_else(
        || {
            NaiveDate::from_num_days_from_ce_opt((date.days() + 719_163) as i32)
                .unwrap_or(NaiveDate::MIN)
        },
    )
}

fn weekday(word: &str) -> Option<Weekday> {
    let day = match word {
        "monday" | "mon" => Weekday::Mon,
        "tuesday" | "tue" => Weekday::Tue,
        "wednesday" | "wed" => Weekday::Wed,
        "thursday" | "thu" => Weekday::Thu,
        "friday" | "fri" => Weekday::Fri,
        "saturday" | "sat" => Weekday::Sat,
        "sunday" | "sun" => Weekday::Sun,
        _ => return None,
    };
    Some(day)
}

/// The first `weekday` after today (`direction` 1), before it (-1), or
/// today or after (0).
fn step_to(today: NaiveDate, weekday: Weekday, direction: i32) -> NaiveDate {
    let mut day = today;
    if direction != 0 {
        day = step(day, direction);
    }
    for _ in 0..7 {
        if day.weekday() == weekday {
            break;
        }
        day = step(day, if direction < 0 { -1 } else { 1 });
    }
    day
}

fn step(day: NaiveDate, direction: i32) -> NaiveDate {
    let next = if direction < 0 {
        day.pred_opt()
    } else {
        day.succ_opt()
    };
    next.unwrap_or(day)
}

/// `weekday` in today's ISO week.
fn this_weekday(today: NaiveDate, weekday: Weekday) -> NaiveDate {
    let monday = today - chrono::Days::new(u64::from(today.weekday().num_days_from_monday()));
    monday + chrono::Days::new(u64::from(weekday.num_days_from_monday()))
}

/// This (`shift` 0), the next (1) or the last (-1) week, month, quarter or
/// year.
fn period_around(today: NaiveDate, unit: &str, shift: i32) -> Option<Days> {
    match unit.trim_end_matches('s') {
        "week" => {
            let monday = this_weekday(today, Weekday::Mon);
            let monday = if shift < 0 {
                monday.checked_sub_days(chrono::Days::new(7))?
            } else {
                monday.checked_add_days(chrono::Days::new(7 * shift as u64))?
            };
            Some(Days::of(monday, monday + chrono::Days::new(6)))
        }
        "month" => months_from(first_of_month(today), shift, 1),
        "quarter" => {
            let first = NaiveDate::from_ymd_opt(today.year(), (today.month0() / 3) * 3 + 1, 1)?;
            months_from(first, shift * 3, 3)
        }
        "year" => {
            let year = today.year().checked_add(shift)?;
            Some(Days::of(
                NaiveDate::from_ymd_opt(year, 1, 1)?,
                NaiveDate::from_ymd_opt(year, 12, 31)?,
            ))
        }
        _ => None,
    }
}

fn first_of_month(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

/// `count` months from the month `shift` months after `first`.
fn months_from(first: NaiveDate, shift: i32, count: u32) -> Option<Days> {
    let start = if shift < 0 {
        first.checked_sub_months(Months::new(shift.unsigned_abs()))?
    } else {
        first.checked_add_months(Months::new(shift as u32))?
    };
    let end = start.checked_add_months(Months::new(count))?.pred_opt()?;
    Some(Days::of(start, end))
}

/// `in 3 days`, `2 weeks ago`: a day `n` units from today.
fn moved(today: NaiveDate, n: &str, unit: &str, direction: i64) -> Option<Days> {
    let n: i64 = match n {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        n => n.parse().ok().filter(|n: &i64| *n >= 0)?,
    };
    let day = match unit.trim_end_matches('s') {
        "day" => {
            (n <= MAX_STEP_DAYS).then_some(())?;
            add_days(today, n * direction)?
        }
        "week" => {
            (n * 7 <= MAX_STEP_DAYS).then_some(())?;
            add_days(today, n * 7 * direction)?
        }
        "month" | "year" => {
            let months = if unit.starts_with('y') { n * 12 } else { n };
            (months <= 12_000).then_some(())?;
            let months = Months::new(months as u32);
            if direction < 0 {
                today.checked_sub_months(months)?
            } else {
                today.checked_add_months(months)?
            }
        }
        _ => return None,
    };
    Some(Days::day(day))
}

fn add_days(day: NaiveDate, n: i64) -> Option<NaiveDate> {
    if n < 0 {
        day.checked_sub_days(chrono::Days::new(n.unsigned_abs()))
    } else {
        day.checked_add_days(chrono::Days::new(n as u64))
    }
}

/// `2024-05-01`, `2024-05`, `2024`, `2024-W05`, `2024-Q1`.
fn absolute(text: &str) -> Option<Days> {
    let (year, rest) = match text.split_once('-') {
        Some((year, rest)) => (year, Some(rest)),
        None => (text, None),
    };
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = year.parse().ok()?;
    let number = |t: &str, len: usize| -> Option<u32> {
        (t.len() == len && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    match rest {
        None => Some(Days::of(
            NaiveDate::from_ymd_opt(year, 1, 1)?,
            NaiveDate::from_ymd_opt(year, 12, 31)?,
        )),
        Some(rest) => {
            if let Some(week) = rest.strip_prefix('w') {
                let monday = NaiveDate::from_isoywd_opt(year, number(week, 2)?, Weekday::Mon)?;
                return Some(Days::of(monday, monday + chrono::Days::new(6)));
            }
            if let Some(quarter) = rest.strip_prefix('q') {
                let q = number(quarter, 1).filter(|q| (1..=4).contains(q))?;
                let first = NaiveDate::from_ymd_opt(year, (q - 1) * 3 + 1, 1)?;
                return months_from(first, 0, 3);
            }
            match rest.split_once('-') {
                None => months_from(NaiveDate::from_ymd_opt(year, number(rest, 2)?, 1)?, 0, 1),
                Some((month, day)) => Some(Days::day(NaiveDate::from_ymd_opt(
                    year,
                    number(month, 2)?,
                    number(day, 2)?,
                )?)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> String {
        // 2024-05-15 is a Wednesday.
        let today = Date {
            year: 2024,
            month: 5,
            day: 15,
        };
        days(text, today).map_or_else(|e| format!("error: {e}"), |d| d.text())
    }

    #[test]
    fn days_and_periods() {
        let cases = [
            ("today", "2024-05-15"),
            ("Tomorrow", "2024-05-16"),
            ("yesterday", "2024-05-14"),
            ("next monday", "2024-05-20"),
            ("next wednesday", "2024-05-22"),
            ("last wednesday", "2024-05-08"),
            ("friday", "2024-05-17"),
            ("wednesday", "2024-05-15"),
            ("this monday", "2024-05-13"),
            ("in 3 days", "2024-05-18"),
            ("in two weeks", "2024-05-29"),
            ("14 days ago", "2024-05-01"),
            ("in 1 month", "2024-06-15"),
            ("a year ago", "2023-05-15"),
            ("this week", "2024-05-13 … 2024-05-19"),
            ("next week", "2024-05-20 … 2024-05-26"),
            ("last week", "2024-05-06 … 2024-05-12"),
            ("this month", "2024-05-01 … 2024-05-31"),
            ("next month", "2024-06-01 … 2024-06-30"),
            ("last month", "2024-04-01 … 2024-04-30"),
            ("this quarter", "2024-04-01 … 2024-06-30"),
            ("last quarter", "2024-01-01 … 2024-03-31"),
            ("next year", "2025-01-01 … 2025-12-31"),
            ("2024-02-29", "2024-02-29"),
            ("2024-02", "2024-02-01 … 2024-02-29"),
            ("2023", "2023-01-01 … 2023-12-31"),
            ("2024-W05", "2024-01-29 … 2024-02-04"),
            ("2024-Q1", "2024-01-01 … 2024-03-31"),
        ];
        for (text, want) in cases {
            assert_eq!(read(text), want, "{text}");
        }
    }

    #[test]
    fn what_is_not_a_day_says_so() {
        for text in [
            "",
            "soon",
            "2023-02-30",
            "2024-13",
            "2024-W54",
            "2024-Q5",
            "in 99999999999 days",
            "next fortnight",
            "in -3 days",
        ] {
            assert!(
                read(text).starts_with("error: cannot read"),
                "{text}: {}",
                read(text)
            );
        }
    }
}
