//! Times as people and agents write them: ISO dates and times, `now-7d`,
//! `7d`, `today`, `yesterday`; and back to text. Unix seconds.
//!
//! Pure functions of their input and a given [`Now`]: days, dates and times
//! without an offset are read in its zone (THE clock, [`crate::clock`]), and
//! times are written back as RFC 3339 with that zone's offset. The calendar
//! itself (month lengths, leap years, summer time) is chrono's: this module
//! reads and writes the text and never counts days by hand. Must not know
//! the index or any protocol.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{Days, Months, NaiveDate, NaiveDateTime, NaiveTime};

pub use crate::clock::{Now, Zone};

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
/// `w`, `d`, `h`, `m` (minutes), `s`. Days, weeks, months and years count
/// on the calendar of `now`'s zone (the same wall-clock time, summer time
/// or not); hours, minutes and seconds are elapsed time. A day, or a time
/// without an offset, is read in that zone.
pub fn parse_time(input: &str, now: Now, end: End) -> Result<i64, String> {
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
    let today = now.zone.date_at(now.unix);
    let day = match lower.as_str() {
        "now" => return Ok(now.unix),
        "today" => Some(today),
        "yesterday" => today.pred_opt(),
        "tomorrow" => today.succ_opt(),
        _ => None,
    };
    if let Some(day) = day {
        return period(now, day, day.succ_opt(), end).ok_or_else(bad);
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
    absolute(s, now, end).ok_or_else(bad)
}

/// `-7d`, `+1h`, `-1M`: an offset from `now`.
fn relative(s: &str, now: Now) -> Option<i64> {
    if s.is_empty() {
        return Some(now.unix);
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
        "d" | "D" | "day" | "days" => return add_days(now, sign * amount),
        "w" | "W" | "week" | "weeks" => return add_days(now, (sign * amount).checked_mul(7)?),
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
    let moved = now
        .unix
        .checked_add(amount.checked_mul(seconds)?.checked_mul(sign)?)?;
    chrono::DateTime::from_timestamp(moved, 0)?;
    Some(moved)
}

/// `now` moved by whole days on its zone's calendar, the wall-clock time
/// kept. `None` past the calendar's ends.
fn add_days(now: Now, days: i64) -> Option<i64> {
    let local = now.zone.local(now.unix);
    let by = Days::new(days.unsigned_abs());
    let moved = if days < 0 {
        local.checked_sub_days(by)?
    } else {
        local.checked_add_days(by)?
    };
    now.zone.instant(moved)
}

/// `now` moved by whole months, the day of the month kept or, when the new
/// month is shorter, its last day (Jan 31 + 1 month = Feb 29 in 2024); the
/// wall-clock time kept. `None` past the calendar's ends.
fn add_months(now: Now, months: i64) -> Option<i64> {
    let local = now.zone.local(now.unix);
    let by = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
    let moved = if months < 0 {
        local.checked_sub_months(by)?
    } else {
        local.checked_add_months(by)?
    };
    now.zone.instant(moved)
}

/// The first second of the period from `first` up to `next` (exclusive),
/// or its last second, in `now`'s zone.
fn period(now: Now, first: NaiveDate, next: Option<NaiveDate>, end: End) -> Option<i64> {
    match end {
        End::Start => now.zone.day_start(first),
        End::Finish => Some(now.zone.day_start(next?)? - 1),
    }
}

fn absolute(s: &str, now: Now, end: End) -> Option<i64> {
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
            (Some(m), Some(d)) => (ymd(m, d)?, ymd(m, d)?.succ_opt()),
            (Some(m), None) => (ymd(m, 1)?, ymd(m, 1)?.checked_add_months(Months::new(1))),
            _ => (ymd(1, 1)?, ymd(1, 1)?.checked_add_months(Months::new(12))),
        };
        return period(now, first, next, end);
    };
    let date = ymd(month?, day?)?;
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
    // A leap second is read as the last second of its minute.
    let wall = NaiveTime::from_hms_opt(hour as u32, minute as u32, second.min(59) as u32)?;
    let local: NaiveDateTime = date.and_time(wall);
    let extra = second - second.min(59);
    Some(match offset {
        Some(offset) => local.and_utc().timestamp() - offset + extra,
        None => now.zone.instant(local)? + extra,
    })
}

/// Splits `10:30:00+02:00` into the clock and the offset in seconds, if
/// the time gives one (`Z` is 0; none is the reader's zone).
fn split_offset(time: &str) -> Option<(&str, Option<i64>)> {
    if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        return Some((clock, Some(0)));
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
        return Some((clock, Some(sign * (hours * 3_600 + minutes * 60))));
    }
    Some((time, None))
}

/// `2024-01-15T11:30:00+01:00`: RFC 3339 with `zone`'s offset at `t`.
pub fn format_time(t: i64, zone: Zone) -> String {
    zone.rfc3339(t)
}

/// `2024-01-15`: the date at `t` in `zone`.
pub fn format_date(t: i64, zone: Zone) -> String {
    zone.date_at(t).format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    const T: i64 = 1_705_314_600; // 2024-01-15T10:30:00Z
    const NOW: Now = Now::utc(T);

    fn berlin(unix: i64) -> Now {
        Now {
            unix,
            zone: Zone::named("Europe/Berlin").unwrap(),
        }
    }

    fn new_york(unix: i64) -> Now {
        Now {
            unix,
            zone: Zone::named("America/New_York").unwrap(),
        }
    }

    /// `text` read at `now`, shown in `now`'s zone.
    fn shown(text: &str, now: Now, end: End) -> String {
        format_time(parse_time(text, now, end).unwrap(), now.zone)
    }

    #[test]
    fn formats_and_reads_back() {
        assert_eq!(format_time(T, Zone::UTC), "2024-01-15T10:30:00+00:00");
        assert_eq!(format_date(T, Zone::UTC), "2024-01-15");
        assert_eq!(parse_time("2024-01-15T10:30:00Z", NOW, End::Start), Ok(T));
        assert_eq!(parse_time("2024-01-15T12:30+02:00", NOW, End::Start), Ok(T));
        assert_eq!(parse_time("2024-01-15 10:30", NOW, End::Start), Ok(T));
        let text = format_time(T, berlin(T).zone);
        assert_eq!(text, "2024-01-15T11:30:00+01:00");
        assert_eq!(parse_time(&text, NOW, End::Start), Ok(T));
    }

    #[test]
    fn times_without_an_offset_are_read_in_the_zone() {
        assert_eq!(parse_time("2024-01-15 11:30", berlin(0), End::Start), Ok(T));
        assert_eq!(
            parse_time("2024-01-15T05:30", new_york(0), End::Start),
            Ok(T)
        );
        assert_eq!(
            parse_time("2024-01-15T10:30Z", berlin(0), End::Start),
            Ok(T)
        );
    }

    #[test]
    fn periods_have_two_ends() {
        assert_eq!(
            shown("2024-01-15", NOW, End::Start),
            "2024-01-15T00:00:00+00:00"
        );
        assert_eq!(
            shown("2024-01-15", NOW, End::Finish),
            "2024-01-15T23:59:59+00:00"
        );
        assert_eq!(
            shown("2024-02", NOW, End::Finish),
            "2024-02-29T23:59:59+00:00"
        );
        assert_eq!(shown("2023", NOW, End::Finish), "2023-12-31T23:59:59+00:00");
        // A day is the zone's day.
        assert_eq!(
            shown("2024-01-15", berlin(T), End::Start),
            "2024-01-15T00:00:00+01:00"
        );
        assert_eq!(
            shown("2024-07", berlin(T), End::Finish),
            "2024-07-31T23:59:59+02:00"
        );
    }

    #[test]
    fn relative_times() {
        assert_eq!(parse_time("now", NOW, End::Start), Ok(T));
        assert_eq!(parse_time("now-7d", NOW, End::Start), Ok(T - 7 * DAY));
        assert_eq!(parse_time("7d", NOW, End::Start), Ok(T - 7 * DAY));
        assert_eq!(parse_time("-2w", NOW, End::Start), Ok(T - 14 * DAY));
        assert_eq!(parse_time("now+1h", NOW, End::Start), Ok(T + 3_600));
        assert_eq!(
            shown("now-1M", NOW, End::Start),
            "2023-12-15T10:30:00+00:00"
        );
        assert_eq!(shown("today", NOW, End::Start), "2024-01-15T00:00:00+00:00");
        assert_eq!(
            shown("yesterday", NOW, End::Finish),
            "2024-01-14T23:59:59+00:00"
        );
    }

    /// 23:30 UTC on the 15th is already the 16th in Berlin and still the
    /// 15th in New York: `today` is the zone's day, not UTC's.
    #[test]
    fn today_and_yesterday_are_the_zones_days() {
        let late = parse_time("2024-01-15T23:30Z", NOW, End::Start).unwrap();
        assert_eq!(
            shown("today", berlin(late), End::Start),
            "2024-01-16T00:00:00+01:00"
        );
        assert_eq!(
            shown("today", berlin(late), End::Finish),
            "2024-01-16T23:59:59+01:00"
        );
        assert_eq!(
            shown("yesterday", berlin(late), End::Start),
            "2024-01-15T00:00:00+01:00"
        );
        assert_eq!(
            shown("tomorrow", berlin(late), End::Finish),
            "2024-01-17T23:59:59+01:00"
        );
        assert_eq!(
            shown("today", new_york(late), End::Start),
            "2024-01-15T00:00:00-05:00"
        );
        assert_eq!(
            shown("today", new_york(late), End::Finish),
            "2024-01-15T23:59:59-05:00"
        );
        assert_eq!(
            shown("yesterday", new_york(late), End::Start),
            "2024-01-14T00:00:00-05:00"
        );
        // As Unix seconds: Berlin's today starts at 23:00 UTC, New York's at 05:00.
        assert_eq!(
            parse_time("today", berlin(late), End::Start),
            parse_time("2024-01-15T23:00Z", NOW, End::Start)
        );
        assert_eq!(
            parse_time("today", new_york(late), End::Start),
            parse_time("2024-01-15T05:00Z", NOW, End::Start)
        );
    }

    /// Summer time in Berlin starts on 2024-03-31 (a 23-hour day) and ends
    /// on 2024-10-27 (a 25-hour day): days and weeks keep the wall clock.
    #[test]
    fn days_across_summer_time_keep_the_wall_clock() {
        let after = parse_time("2024-04-01T12:00+02:00", NOW, End::Start).unwrap();
        assert_eq!(
            shown("now-1d", berlin(after), End::Start),
            "2024-03-31T12:00:00+02:00"
        );
        assert_eq!(
            shown("2d", berlin(after), End::Start),
            "2024-03-30T12:00:00+01:00"
        );
        assert_eq!(
            shown("now-1w", berlin(after), End::Start),
            "2024-03-25T12:00:00+01:00"
        );
        assert_eq!(
            shown("now-24h", berlin(after), End::Start),
            "2024-03-31T12:00:00+02:00"
        );
        assert_eq!(
            shown("now-48h", berlin(after), End::Start),
            "2024-03-30T11:00:00+01:00"
        );
        let day_of_change = berlin(parse_time("2024-03-31T20:00+02:00", NOW, End::Start).unwrap());
        let start = parse_time("today", day_of_change, End::Start).unwrap();
        let finish = parse_time("today", day_of_change, End::Finish).unwrap();
        assert_eq!(finish + 1 - start, 23 * 3_600);
        let autumn = berlin(parse_time("2024-10-27T20:00+01:00", NOW, End::Start).unwrap());
        let start = parse_time("today", autumn, End::Start).unwrap();
        let finish = parse_time("today", autumn, End::Finish).unwrap();
        assert_eq!(finish + 1 - start, 25 * 3_600);
        assert_eq!(format_time(start, autumn.zone), "2024-10-27T00:00:00+02:00");
        assert_eq!(
            format_time(finish, autumn.zone),
            "2024-10-27T23:59:59+01:00"
        );
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
            assert!(parse_time(wild, berlin(T), End::Start).is_err(), "{wild}");
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
