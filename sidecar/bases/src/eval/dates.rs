//! Dates and durations as Bases reads them: `date("2026-12-01 10:30")`,
//! durations written `"1M"`, `"7d"`, `"2 weeks"`, `"1y 2h"`; calendar
//! arithmetic that overflows the JavaScript way (2024-01-31 + 1 month is
//! 2024-03-02); a date − date span and its fields; Moment.js formatting.

use chrono::{Datelike, Duration as Span, NaiveDate, NaiveDateTime, Timelike};

const DAY_MS: i64 = 86_400_000;

/// A duration: calendar years and months (added to a date as the calendar
/// goes) and milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Duration {
    pub years: i64,
    pub months: i64,
    pub ms: i64,
}

impl Duration {
    pub fn of_millis(ms: i64) -> Duration {
        Duration {
            ms,
            ..Duration::default()
        }
    }

    /// The whole span in milliseconds (a month counts 30 days, a year 365).
    pub fn millis(&self) -> i64 {
        self.years
            .saturating_mul(365 * DAY_MS)
            .saturating_add(self.months.saturating_mul(30 * DAY_MS))
            .saturating_add(self.ms)
    }

    pub fn negated(self) -> Duration {
        Duration {
            years: self.years.saturating_neg(),
            months: self.months.saturating_neg(),
            ms: self.ms.saturating_neg(),
        }
    }

    pub fn plus(self, other: Duration) -> Duration {
        Duration {
            years: self.years.saturating_add(other.years),
            months: self.months.saturating_add(other.months),
            ms: self.ms.saturating_add(other.ms),
        }
    }

    pub fn times(self, k: f64) -> Duration {
        Duration::of_millis((self.millis() as f64 * k) as i64)
    }

    /// A field: the whole span in that unit, as a fraction.
    pub fn field(&self, name: &str) -> Option<f64> {
        let ms = self.millis() as f64;
        let day = DAY_MS as f64;
        Some(match name {
            "years" => ms / (365.0 * day),
            "months" => ms / (30.0 * day),
            "weeks" => ms / (7.0 * day),
            "days" => ms / day,
            "hours" => ms / 3_600_000.0,
            "minutes" => ms / 60_000.0,
            "seconds" => ms / 1000.0,
            "milliseconds" => ms,
            _ => return None,
        })
    }
}

/// A duration as written: one or more `<number> <unit>` (`"1M"`, `"7d"`,
/// `"2 weeks"`, `"1y 2h"`, `"-3d"`).
pub fn parse_duration(text: &str) -> Option<Duration> {
    let mut out = Duration::default();
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut sign = 1i64;
    if let Some(r) = rest.strip_prefix('-') {
        sign = -1;
        rest = r.trim_start();
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r.trim_start();
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let n: f64 = rest[..digits].parse().ok()?;
        rest = rest[digits..].trim_start();
        let unit_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = rest[unit_len..].trim_start_matches([' ', ',']);
        // Saturating: a duration of a billion years is no panic.
        let whole = (n as i64).saturating_mul(sign);
        let ms = |per: i64| ((n * per as f64) as i64).saturating_mul(sign);
        let (years, months, millis) = match unit {
            "y" | "year" | "years" => (whole, 0, 0),
            "M" | "month" | "months" => (0, whole, 0),
            "w" | "week" | "weeks" => (0, 0, ms(7 * DAY_MS)),
            "d" | "day" | "days" => (0, 0, ms(DAY_MS)),
            "h" | "hour" | "hours" => (0, 0, ms(3_600_000)),
            "m" | "minute" | "minutes" => (0, 0, ms(60_000)),
            "s" | "second" | "seconds" => (0, 0, ms(1000)),
            "ms" | "millisecond" | "milliseconds" => (0, 0, ms(1)),
            _ => return None,
        };
        out = out.plus(Duration {
            years,
            months,
            ms: millis,
        });
    }
    Some(out)
}

/// A date as written: `2026-12-01`, with ` 10:30`, `T10:30`, `:15`
/// (vault's one rule, `props::date`); whether it has a time of day.
pub fn parse_date(text: &str) -> Option<(NaiveDateTime, bool)> {
    let t = text.trim();
    let at = weft_vault::props::date(t)?;
    Some((at, t.len() > 10))
}

/// `at` moved by `d`: years and months as the calendar goes, overflowing
/// into the next month as JavaScript's `setMonth` does; then milliseconds.
pub fn add(at: NaiveDateTime, d: Duration) -> Option<NaiveDateTime> {
    let months = d.years.checked_mul(12)?.checked_add(d.months)?;
    let moved = if months == 0 {
        at
    } else {
        let total = (i64::from(at.year()) * 12 + i64::from(at.month0())).checked_add(months)?;
        let year = i32::try_from(total.div_euclid(12)).ok()?;
        let month0 = total.rem_euclid(12) as u32;
        let first = NaiveDate::from_ymd_opt(year, month0 + 1, 1)?;
        // Day 31 of a 30-day month is the 1st of the next: JavaScript's way.
        let day = first.checked_add_signed(Span::try_days(i64::from(at.day()) - 1)?)?;
        day.and_time(at.time())
    };
    moved.checked_add_signed(Span::try_milliseconds(d.ms)?)
}

/// A date's field (`year`, `month` 1–12, `day`…).
pub fn field(at: &NaiveDateTime, name: &str) -> Option<f64> {
    Some(f64::from(match name {
        "year" => at.year(),
        "month" => at.month() as i32,
        "day" => at.day() as i32,
        "hour" => at.hour() as i32,
        "minute" => at.minute() as i32,
        "second" => at.second() as i32,
        "millisecond" => (at.nanosecond() / 1_000_000) as i32,
        _ => return None,
    }))
}

/// `at` written with a Moment.js pattern: `YYYY YY MMMM MMM MM M DD D
/// dddd ddd HH H hh h mm m ss s A a`, text in `[brackets]` as it is. Any
/// other letter is an error naming it (no silently wrong date).
pub fn format(at: &NaiveDateTime, pattern: &str) -> Result<String, String> {
    const TOKENS: &[&str] = &[
        "YYYY", "MMMM", "dddd", "MMM", "ddd", "YY", "MM", "DD", "Do", "HH", "hh", "mm", "ss",
        "SSS", "M", "D", "H", "h", "m", "s", "A", "a", "d", "E", "X", "x",
    ];
    let mut out = String::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']').unwrap_or(inner.len());
            out.push_str(&inner[..end]);
            rest = inner.get(end + 1..).unwrap_or("");
            continue;
        }
        let Some(token) = TOKENS.iter().find(|t| rest.starts_with(**t)) else {
            let c = rest.chars().next().expect("not empty");
            if c.is_ascii_alphabetic() {
                return Err(format!(
                    "`{c}` in the date format `{pattern}` is no Moment.js token Weft writes \
                     (YYYY MM DD dddd HH mm ss A…; put text in [brackets])"
                ));
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        let hour12 = match at.hour() % 12 {
            0 => 12,
            h => h,
        };
        let text = match *token {
            "YYYY" => format!("{:04}", at.year()),
            "YY" => format!("{:02}", at.year().rem_euclid(100)),
            "MMMM" => at.format("%B").to_string(),
            "MMM" => at.format("%b").to_string(),
            "MM" => format!("{:02}", at.month()),
            "M" => at.month().to_string(),
            "DD" => format!("{:02}", at.day()),
            "D" => at.day().to_string(),
            "Do" => ordinal(at.day()),
            "dddd" => at.format("%A").to_string(),
            "ddd" => at.format("%a").to_string(),
            "d" => at.weekday().num_days_from_sunday().to_string(),
            "E" => at.weekday().number_from_monday().to_string(),
            "HH" => format!("{:02}", at.hour()),
            "H" => at.hour().to_string(),
            "hh" => format!("{hour12:02}"),
            "h" => hour12.to_string(),
            "mm" => format!("{:02}", at.minute()),
            "m" => at.minute().to_string(),
            "ss" => format!("{:02}", at.second()),
            "s" => at.second().to_string(),
            "SSS" => format!("{:03}", at.nanosecond() / 1_000_000),
            "A" => if at.hour() < 12 { "AM" } else { "PM" }.to_string(),
            "a" => if at.hour() < 12 { "am" } else { "pm" }.to_string(),
            "X" => at.and_utc().timestamp().to_string(),
            _ => at.and_utc().timestamp_millis().to_string(),
        };
        out.push_str(&text);
        rest = &rest[token.len()..];
    }
    Ok(out)
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        parse_date(text).expect("a date").0
    }

    #[test]
    fn calendar_arithmetic_overflows_as_javascript_does() {
        let month = parse_duration("1M").unwrap();
        assert_eq!(add(at("2024-01-31"), month), Some(at("2024-03-02")));
        assert_eq!(add(at("2024-12-15"), month), Some(at("2025-01-15")));
        let back = parse_duration("-1M").unwrap();
        assert_eq!(add(at("2024-03-31"), back), Some(at("2024-03-02")));
        let mixed = parse_duration("1y 2w 4h").unwrap();
        assert_eq!(add(at("2024-02-29"), mixed), Some(at("2025-03-15T04:00")));
        assert_eq!(parse_duration("2 weeks").unwrap().ms, 14 * DAY_MS);
        assert_eq!(parse_duration("7 days").unwrap().field("days"), Some(7.0));
        assert!(parse_duration("soon").is_none());
        assert!(parse_duration("").is_none());
    }

    #[test]
    fn a_span_reads_in_every_unit() {
        let span = Duration::of_millis(36 * 3_600_000);
        assert_eq!(span.field("days"), Some(1.5));
        assert_eq!(span.field("hours"), Some(36.0));
        assert_eq!(parse_duration("1y").unwrap().field("days"), Some(365.0));
    }

    #[test]
    fn moment_patterns() {
        let t = at("2026-11-28T09:05:07");
        assert_eq!(format(&t, "YYYY-MM-DD").unwrap(), "2026-11-28");
        assert_eq!(
            format(&t, "dddd, MMMM Do").unwrap(),
            "Saturday, November 28th"
        );
        assert_eq!(format(&t, "h:mm A [at] HH").unwrap(), "9:05 AM at 09");
        assert!(format(&t, "YYYY-Q").unwrap_err().contains("`Q`"));
    }
}
