//! Dates and templates for new notes: the clock, day names a caller types
//! (`today`, `yesterday`, `2024-05-01`), moment.js formats with times
//! (`YYYY-MM-DD HH:mm`) and template variables (`{{title}}`, `{{date}}`,
//! `{{time}}`, `{{date:FORMAT}}`, `{{time:FORMAT}}`). Pure text; no IO
//! beyond reading the clock, no protocol.

use chrono::{Datelike, NaiveTime, Timelike};

use super::error::OpError;
use crate::vault::complete::{Date, format_date};

/// The local date and time now.
pub fn now() -> (Date, NaiveTime) {
    let now = chrono::Local::now();
    let date = Date {
        year: now.year(),
        month: now.month() as u8,
        day: now.day() as u8,
    };
    (date, now.time())
}

/// A date as a caller gives it: `today` (or nothing), `yesterday`,
/// `tomorrow`, or `YYYY-MM-DD`.
pub fn parse_day(input: Option<&str>, today: Date) -> Result<Date, OpError> {
    let input = input.map(str::trim).unwrap_or("");
    match input.to_ascii_lowercase().as_str() {
        "" | "today" => return Ok(today),
        "yesterday" => return Ok(today.add_days(-1)),
        "tomorrow" => return Ok(today.add_days(1)),
        _ => {}
    }
    let invalid = || {
        OpError::Invalid(format!(
            "`{input}` is not a date; give YYYY-MM-DD (e.g. 2024-05-01), `today`, `yesterday` or `tomorrow`"
        ))
    };
    let parsed = chrono::NaiveDate::parse_from_str(input, "%Y-%m-%d").map_err(|_| invalid())?;
    Ok(Date {
        year: parsed.year(),
        month: parsed.month() as u8,
        day: parsed.day() as u8,
    })
}

/// `YYYY-MM-DD`.
pub fn iso_date(date: Date) -> String {
    format_date(date, "YYYY-MM-DD")
}

/// Formats a date and time with a moment.js format: the date tokens of
/// [`format_date`] plus `HH`, `H`, `hh`, `h`, `mm`, `m`, `ss`, `s`, `A`, `a`,
/// and `[literal text]`.
pub fn format_moment(date: Date, time: NaiveTime, format: &str) -> String {
    const TIME_TOKENS: [&str; 10] = ["HH", "hh", "mm", "ss", "H", "h", "m", "s", "A", "a"];
    let mut out = String::new();
    // Date tokens never contain a time token's letters, so runs between
    // time tokens can go to `format_date` whole.
    let mut run = String::new();
    let mut rest = format;
    let flush = |run: &mut String, out: &mut String| {
        if !run.is_empty() {
            out.push_str(&format_date(date, run));
            run.clear();
        }
    };
    while !rest.is_empty() {
        if rest.starts_with('[') {
            let end = rest.find(']').map_or(rest.len(), |i| i + 1);
            run.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        let Some(token) = TIME_TOKENS.iter().find(|t| rest.starts_with(**t)) else {
            let c = rest.chars().next().unwrap_or(' ');
            run.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        flush(&mut run, &mut out);
        let hour12 = match time.hour() % 12 {
            0 => 12,
            h => h,
        };
        let value = match *token {
            "HH" => format!("{:02}", time.hour()),
            "H" => time.hour().to_string(),
            "hh" => format!("{hour12:02}"),
            "h" => hour12.to_string(),
            "mm" => format!("{:02}", time.minute()),
            "m" => time.minute().to_string(),
            "ss" => format!("{:02}", time.second()),
            "s" => time.second().to_string(),
            "A" => if time.hour() < 12 { "AM" } else { "PM" }.to_string(),
            _ => if time.hour() < 12 { "am" } else { "pm" }.to_string(),
        };
        out.push_str(&value);
        rest = &rest[token.len()..];
    }
    flush(&mut run, &mut out);
    out
}

/// Fills a template's variables: `{{title}}`, `{{date}}` (`YYYY-MM-DD`),
/// `{{time}}` (`HH:mm`), `{{date:FORMAT}}` and `{{time:FORMAT}}`. Unknown
/// variables are left as written.
pub fn fill(template: &str, title: &str, date: Date, time: NaiveTime) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let name = after[..close].trim();
        let (var, format) = match name.split_once(':') {
            Some((v, f)) => (v.trim(), Some(f.trim())),
            None => (name, None),
        };
        match (var.to_ascii_lowercase().as_str(), format) {
            ("title", None) => out.push_str(title),
            ("date", None) => out.push_str(&iso_date(date)),
            ("time", None) => out.push_str(&format_moment(date, time, "HH:mm")),
            ("date" | "time", Some(f)) => out.push_str(&format_moment(date, time, f)),
            _ => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> Date {
        Date {
            year: 2024,
            month: 3,
            day: 9,
        }
    }

    #[test]
    fn moment_formats_with_times() {
        let time = NaiveTime::from_hms_opt(14, 5, 7).unwrap();
        assert_eq!(
            format_moment(day(), time, "YYYY-MM-DD HH:mm:ss"),
            "2024-03-09 14:05:07"
        );
        assert_eq!(
            format_moment(day(), time, "dddd, h:mm A"),
            "Saturday, 2:05 PM"
        );
        assert_eq!(
            format_moment(day(), time, "[Week] WW [at] HH"),
            "Week 10 at 14"
        );
        assert_eq!(format_moment(day(), time, "YYYY/MM/DD"), "2024/03/09");
    }

    #[test]
    fn templates_fill_known_variables_only() {
        let time = NaiveTime::from_hms_opt(9, 30, 0).unwrap();
        assert_eq!(
            fill(
                "# {{title}}\n{{date}} {{time}} {{date:dddd}} {{time:h A}} {{other}} {{",
                "T",
                day(),
                time
            ),
            "# T\n2024-03-09 09:30 Saturday 9 AM {{other}} {{"
        );
    }

    #[test]
    fn days_parse_relative_and_iso() {
        assert_eq!(parse_day(None, day()).unwrap(), day());
        assert_eq!(parse_day(Some("Yesterday"), day()).unwrap().day, 8);
        assert_eq!(parse_day(Some("tomorrow"), day()).unwrap().day, 10);
        assert_eq!(
            parse_day(Some("2023-12-31"), day()).unwrap(),
            Date {
                year: 2023,
                month: 12,
                day: 31
            }
        );
        let error = parse_day(Some("31/12/2023"), day())
            .unwrap_err()
            .to_string();
        assert!(error.contains("YYYY-MM-DD"), "{error}");
    }
}
