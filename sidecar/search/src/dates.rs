//! Times as people and agents write them: ISO dates and times, `now-7d`,
//! `7d`, `today`, `yesterday`; and back to ISO text. Unix seconds, UTC.
//!
//! Pure functions of their input and a given "now"; no clock reads except
//! [`now`]. The calendar itself (month lengths, leap years, day numbers) is
//! chrono's, as it is for the domain's daily notes: this module reads and
//! writes the text and never counts days by hand. Must not know the index or
//! any protocol.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{Datelike, Months, NaiveDate};

const DAY: i64 = 86_400;

/// The current time in Unix seconds.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Unix seconds of a file time, if the platform gives one.
pub fn unix(time: std::io::Result<SystemTime>) -> Option<i64> {
    let time = time.ok()?;
    Some(match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    })
}

/// Which end of a period a bare date names: `2024-01` is its first second
/// as a lower bound and its last second as an upper bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Start,
    Finish,
}

/// Reads a time: `now`, `now-7d`, `now+1h`, `-7d`, `7d` (ago), `today`,
/// `yesterday`, `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS]` with
/// an optional `Z` or `±HH:MM`, or Unix seconds. Units: `y`, `M` (months),
/// `w`, `d`, `h`, `m` (minutes), `s`.
pub fn parse_time(input: &str, now: i64, end: End) -> Result<i64, String> {
    let s = input.trim();
    let bad = || {
        format!(
            "cannot read `{s}` as a time; use YYYY-MM-DD, an ISO time (2024-01-15T10:30Z), \
             `today`, or a relative time such as `7d` or `now-2w`"
        )
    };
    if s.is_empty() {
        return Err(bad());
    }
    let lower = s.to_ascii_lowercase();
    match lower.as_str() {
        "now" => return Ok(now),
        "today" => return Ok(day_bound(now.div_euclid(DAY), end)),
        "yesterday" => return Ok(day_bound(now.div_euclid(DAY) - 1, end)),
        "tomorrow" => return Ok(day_bound(now.div_euclid(DAY) + 1, end)),
        _ => {}
    }
    if let Some(rest) = s.strip_prefix("now").or_else(|| s.strip_prefix("NOW")) {
        return relative(rest.trim(), now).ok_or_else(bad);
    }
    if let Some(rest) = s.strip_prefix('-') {
        return relative(&format!("-{rest}"), now).ok_or_else(bad);
    }
    if s.chars().next().is_some_and(|c| c.is_ascii_digit())
        && s.chars().last().is_some_and(|c| c.is_ascii_alphabetic())
        && !s.contains('-')
    {
        // `7d`: that long ago.
        return relative(&format!("-{s}"), now).ok_or_else(bad);
    }
    if s.len() > 4 && s.chars().all(|c| c.is_ascii_digit()) {
        return s.parse::<i64>().map_err(|_| bad());
    }
    absolute(s, end).ok_or_else(bad)
}

/// `-7d`, `+1h`, `-1M`: an offset from `now`.
fn relative(s: &str, now: i64) -> Option<i64> {
    if s.is_empty() {
        return Some(now);
    }
    let (sign, rest) = match s.as_bytes()[0] {
        b'-' => (-1, &s[1..]),
        b'+' => (1, &s[1..]),
        _ => return None,
    };
    let rest = rest.trim();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let amount: i64 = if digits == 0 {
        1
    } else {
        rest[..digits].parse().ok()?
    };
    let unit = rest[digits..].trim();
    let seconds = match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "H" | "hour" | "hours" => 3_600,
        "d" | "D" | "day" | "days" => DAY,
        "w" | "W" | "week" | "weeks" => 7 * DAY,
        "M" | "mo" | "month" | "months" => {
            return add_months(now, sign * amount);
        }
        "y" | "Y" | "year" | "years" => {
            return add_months(now, (sign * amount).checked_mul(12)?);
        }
        _ => return None,
    };
    // Checked: an amount typed by a person or an agent may be any length,
    // and a time past the calendar's ends is refused like any bad time.
    let moved = now.checked_add(amount.checked_mul(seconds)?.checked_mul(sign)?)?;
    date_of_day(moved.div_euclid(DAY))?;
    Some(moved)
}

/// `t` moved by whole months, the day of the month kept or, when the new
/// month is shorter, its last day (Jan 31 + 1 month = Feb 29 in 2024).
/// `None` past the calendar's ends.
fn add_months(t: i64, months: i64) -> Option<i64> {
    let date = date_of_day(t.div_euclid(DAY))?;
    let by = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
    let moved = if months < 0 {
        date.checked_sub_months(by)?
    } else {
        date.checked_add_months(by)?
    };
    Some(day_of_date(moved) * DAY + t.rem_euclid(DAY))
}

fn day_bound(day: i64, end: End) -> i64 {
    match end {
        End::Start => day * DAY,
        End::Finish => day * DAY + DAY - 1,
    }
}

fn absolute(s: &str, end: End) -> Option<i64> {
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let num = |p: &str, len: usize| -> Option<i64> {
        (p.len() == len && p.chars().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let year = num(parts.first()?, 4)?;
    let month = match parts.get(1) {
        Some(p) => Some(num(p, 2).or_else(|| num(p, 1))?),
        None => None,
    };
    let day = match parts.get(2) {
        Some(p) => Some(num(p, 2).or_else(|| num(p, 1))?),
        None => None,
    };
    if parts.len() > 3 {
        return None;
    }
    if let Some(m) = month
        && !(1..=12).contains(&m)
    {
        return None;
    }
    let ymd = |m: i64, d: i64| NaiveDate::from_ymd_opt(year as i32, m as u32, d as u32);
    if let (Some(m), Some(d)) = (month, day)
        && ymd(m, d).is_none()
    {
        return None;
    }
    let Some(time) = time else {
        // A period's last second is the second before the next one starts.
        let (first, next) = match (month, day) {
            (Some(m), Some(d)) => (ymd(m, d)?, ymd(m, d)?.succ_opt()?),
            (Some(m), None) => (ymd(m, 1)?, ymd(m, 1)?.checked_add_months(Months::new(1))?),
            _ => (ymd(1, 1)?, ymd(1, 1)?.checked_add_months(Months::new(12))?),
        };
        return Some(match end {
            End::Start => day_of_date(first) * DAY,
            End::Finish => day_of_date(next) * DAY - 1,
        });
    };
    let days = day_of_date(ymd(month?, day?)?);
    // HH:MM[:SS[.fff]][Z|±HH:MM]
    let (clock, offset) = split_offset(time)?;
    let fields: Vec<&str> = clock.split(':').collect();
    let hour = num(fields.first()?, 2)?;
    let minute = num(fields.get(1)?, 2)?;
    let second = match fields.get(2) {
        Some(p) => num(p.split('.').next()?, 2)?,
        None => 0,
    };
    if hour > 23 || minute > 59 || second > 60 || fields.len() > 3 {
        return None;
    }
    Some(days * DAY + hour * 3_600 + minute * 60 + second - offset)
}

/// Splits `10:30:00+02:00` into the clock and the offset in seconds.
fn split_offset(time: &str) -> Option<(&str, i64)> {
    if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        return Some((clock, 0));
    }
    if let Some(i) = time.rfind(['+', '-']) {
        let (clock, off) = (&time[..i], &time[i..]);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let digits: String = off[1..].chars().filter(|c| c.is_ascii_digit()).collect();
        if digits.len() != 4 && digits.len() != 2 {
            return None;
        }
        let hours: i64 = digits[..2].parse().ok()?;
        let minutes: i64 = if digits.len() == 4 {
            digits[2..].parse().ok()?
        } else {
            0
        };
        return Some((clock, sign * (hours * 3_600 + minutes * 60)));
    }
    Some((time, 0))
}

/// `2024-01-15T10:30:00Z`.
pub fn format_time(t: i64) -> String {
    let (y, m, d) = civil_from_days(t.div_euclid(DAY));
    let s = t.rem_euclid(DAY);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3_600,
        s % 3_600 / 60,
        s % 60
    )
}

/// `2024-01-15`.
pub fn format_date(t: i64) -> String {
    let (y, m, d) = civil_from_days(t.div_euclid(DAY));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Chrono counts days from 0001-01-01 (its day 1); 1970-01-01 is its day
/// 719,163.
const EPOCH_FROM_CE: i64 = 719_163;

/// The date of a day number since 1970-01-01; `None` past the calendar's
/// ends (chrono's, about 262,000 years either way).
fn date_of_day(day: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(day.checked_add(EPOCH_FROM_CE)?).ok()?)
}

/// The day number since 1970-01-01 of a date.
fn day_of_date(date: NaiveDate) -> i64 {
    i64::from(date.num_days_from_ce()) - EPOCH_FROM_CE
}

/// (year, month, day) of a day number since 1970-01-01; a day past the
/// calendar's ends gives its first or last day.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let date = date_of_day(z).unwrap_or(if z < 0 {
        NaiveDate::MIN
    } else {
        NaiveDate::MAX
    });
    (i64::from(date.year()), date.month(), date.day())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Day number since 1970-01-01 of a civil date. Days and months past their
    /// ends count on (`2024-02-30` is `2024-03-01`, month 13 the next January);
    /// a year past the calendar's ends gives its first or last day.
    fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
        let months = y.saturating_mul(12).saturating_add(i64::from(m) - 1);
        let (year, month) = (months.div_euclid(12), months.rem_euclid(12) as u32 + 1);
        let first = i32::try_from(year)
            .ok()
            .and_then(|year| NaiveDate::from_ymd_opt(year, month, 1))
            .unwrap_or(if year < 0 {
                NaiveDate::MIN
            } else {
                NaiveDate::MAX
            });
        day_of_date(first) + i64::from(d) - 1
    }

    const NOW: i64 = 1_705_314_600; // 2024-01-15T10:30:00Z

    #[test]
    fn formats_and_reads_back() {
        assert_eq!(format_time(NOW), "2024-01-15T10:30:00Z");
        assert_eq!(format_date(NOW), "2024-01-15");
        assert_eq!(parse_time("2024-01-15T10:30:00Z", 0, End::Start), Ok(NOW));
        assert_eq!(parse_time("2024-01-15T12:30+02:00", 0, End::Start), Ok(NOW));
        assert_eq!(parse_time("2024-01-15 10:30", 0, End::Start), Ok(NOW));
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
    }

    #[test]
    fn periods_have_two_ends() {
        let start = parse_time("2024-01-15", NOW, End::Start).unwrap();
        let finish = parse_time("2024-01-15", NOW, End::Finish).unwrap();
        assert_eq!(format_time(start), "2024-01-15T00:00:00Z");
        assert_eq!(format_time(finish), "2024-01-15T23:59:59Z");
        let feb = parse_time("2024-02", NOW, End::Finish).unwrap();
        assert_eq!(format_time(feb), "2024-02-29T23:59:59Z");
        let year = parse_time("2023", NOW, End::Finish).unwrap();
        assert_eq!(format_time(year), "2023-12-31T23:59:59Z");
    }

    #[test]
    fn relative_times() {
        assert_eq!(parse_time("now", NOW, End::Start), Ok(NOW));
        assert_eq!(parse_time("now-7d", NOW, End::Start), Ok(NOW - 7 * DAY));
        assert_eq!(parse_time("7d", NOW, End::Start), Ok(NOW - 7 * DAY));
        assert_eq!(parse_time("-2w", NOW, End::Start), Ok(NOW - 14 * DAY));
        assert_eq!(parse_time("now+1h", NOW, End::Start), Ok(NOW + 3_600));
        let month = parse_time("now-1M", NOW, End::Start).unwrap();
        assert_eq!(format_time(month), "2023-12-15T10:30:00Z");
        let today = parse_time("today", NOW, End::Start).unwrap();
        assert_eq!(format_time(today), "2024-01-15T00:00:00Z");
        let yesterday = parse_time("yesterday", NOW, End::Finish).unwrap();
        assert_eq!(format_time(yesterday), "2024-01-14T23:59:59Z");
    }

    #[test]
    fn relative_times_past_the_calendar_are_refused_not_overflowed() {
        for wild in [
            "now-99999999999999999d",
            "now+9223372036854775807s",
            "-999999999999w",
            "now-99999999999y",
            "now+4000000000M",
        ] {
            assert!(parse_time(wild, NOW, End::Start).is_err(), "{wild}");
        }
        assert!(parse_time("now-1000y", NOW, End::Start).is_ok());
    }

    #[test]
    fn bad_times_say_what_is_accepted() {
        for bad in [
            "",
            "2024-13-01",
            "2024-02-30",
            "soon",
            "now-7x",
            "2024-01-15T25:00",
        ] {
            let error = parse_time(bad, NOW, End::Start).unwrap_err();
            assert!(error.contains("YYYY-MM-DD"), "{bad}: {error}");
        }
    }
}
