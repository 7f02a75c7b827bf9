//! Dates and templates for new notes: day names a caller types (`today`,
//! `yesterday`, `2024-05-01`) against a today given by the clock
//! (`weft_search::clock`), moment.js formats with times (`YYYY-MM-DD
//! HH:mm`) and template variables (`{{title}}`, `{{date}}`, `{{time}}`,
//! `{{date:FORMAT}}`, `{{time:FORMAT}}`). Pure text; no IO, no clock, no
//! protocol.

use chrono::Datelike;

use super::error::OpError;
use weft_vault::daily::{Date, format_date};
pub use weft_vault::template::{fill, format_moment};

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

#[cfg(test)]
mod tests {
    use chrono::NaiveTime;

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

    /// The date formats the search module's own (removed) copy of
    /// `format_moment` was tested with, kept against the one that remains.
    #[test]
    fn moment_formats() {
        let day = Date {
            year: 2024,
            month: 1,
            day: 15,
        };
        let time = NaiveTime::from_hms_opt(10, 30, 0).unwrap();
        assert_eq!(format_moment(day, time, "YYYY-MM-DD"), "2024-01-15");
        assert_eq!(
            format_moment(day, time, "dddd, MMMM Do YYYY"),
            "Monday, January 15th 2024"
        );
        assert_eq!(
            format_moment(day, time, "YYYY/MM/[Week] D"),
            "2024/01/Week 15"
        );
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
