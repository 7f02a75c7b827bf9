//! Recurrence rules against the plugin's documented examples and tests.
//! Each row: rule, dates in (start, scheduled, due), today, the "remove
//! scheduled date" setting, the next dates (start, scheduled, due) or an
//! error, and the rule as `to_text()` writes it.

use super::*;

fn date(s: &str) -> Option<Date> {
    if s.is_empty() {
        return None;
    }
    let d = NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .map(Date::from);
    // Dates that are not calendar dates (2022-02-30) are written by hand.
    d.or_else(|| {
        let mut parts = s.split('-').map(|p| p.parse::<i64>().unwrap());
        Some(Date {
            year: parts.next()? as i32,
            month: parts.next()? as u8,
            day: parts.next()? as u8,
        })
    })
}

fn show(d: Option<Date>) -> String {
    d.map(iso).unwrap_or_default()
}

/// What a row expects.
enum Want {
    /// start, scheduled, due
    Next(&'static str, &'static str, &'static str),
    /// A substring of the error's text.
    Err(&'static str),
}
use Want::{Err as Fails, Next};

struct Row {
    rule: &'static str,
    /// start, scheduled, due
    dates: (&'static str, &'static str, &'static str),
    today: &'static str,
    remove_scheduled: bool,
    want: Want,
    /// `to_text()`; empty when the rule is not read.
    text: &'static str,
}

const fn row(
    rule: &'static str,
    dates: (&'static str, &'static str, &'static str),
    today: &'static str,
    want: Want,
    text: &'static str,
) -> Row {
    Row {
        rule,
        dates,
        today,
        remove_scheduled: false,
        want,
        text,
    }
}

/// Due date only, completed on an unrelated day.
const fn due(rule: &'static str, due: &'static str, next: &'static str, text: &'static str) -> Row {
    row(rule, ("", "", due), "2000-06-15", Next("", "", next), text)
}

fn check(rows: &[Row]) {
    let mut failures = Vec::new();
    for r in rows {
        let dates = TaskDates {
            start: date(r.dates.0),
            scheduled: date(r.dates.1),
            due: date(r.dates.2),
        };
        let today = date(r.today).unwrap();
        let got = Recurrence::parse(r.rule).and_then(|rule| {
            let text = rule.to_text();
            next_dates(&rule, dates, today, r.remove_scheduled).map(|n| (n, text))
        });
        let text = Recurrence::parse(r.rule)
            .map(|rule| rule.to_text())
            .unwrap_or_default();
        let ok = match (&r.want, &got) {
            (Next(s, sc, d), Ok((n, _))) => {
                (show(n.start), show(n.scheduled), show(n.due))
                    == (s.to_string(), sc.to_string(), d.to_string())
            }
            (Fails(msg), Err(e)) => e.to_string().contains(msg),
            _ => false,
        };
        if !ok || text != r.text {
            failures.push(format!(
                "{:?} {:?} today {}: got {:?} text {text:?}, want text {:?}",
                r.rule,
                r.dates,
                r.today,
                got.map(|(n, _)| (show(n.start), show(n.scheduled), show(n.due)))
                    .map_err(|e| e.to_string()),
                r.text
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn brief_examples() {
    // docs/Getting Started/Recurring Tasks.md, "Examples"; the dates are ours.
    check(&[
        due("every 3 days", "2024-01-30", "2024-02-02", "every 3 days"),
        row(
            "every 10 days when done",
            ("", "", "2024-01-01"),
            "2024-03-05",
            Next("", "", "2024-03-15"),
            "every 10 days when done",
        ),
        // 2024-01-05 is a Friday.
        due("every weekday", "2024-01-05", "2024-01-08", "every weekday"),
        due("every weekday", "2024-01-08", "2024-01-09", "every weekday"),
        due(
            "every week on Sunday",
            "2024-01-07",
            "2024-01-14",
            "every week on Sunday",
        ),
        due(
            "every week on Sunday",
            "2024-01-03",
            "2024-01-07",
            "every week on Sunday",
        ),
        due(
            "every week on Tuesday, Friday",
            "2024-01-02",
            "2024-01-05",
            "every week on Tuesday, Friday",
        ),
        due(
            "every week on Tuesday, Friday",
            "2024-01-05",
            "2024-01-09",
            "every week on Tuesday, Friday",
        ),
        due("every 2 weeks", "2024-01-03", "2024-01-17", "every 2 weeks"),
        due(
            "every 3 weeks on Friday",
            "2024-01-05",
            "2024-01-26",
            "every 3 weeks on Friday",
        ),
        due(
            "every 2 months",
            "2024-01-15",
            "2024-03-15",
            "every 2 months",
        ),
        due(
            "every month on the 1st",
            "2024-01-15",
            "2024-02-01",
            "every month on the 1st",
        ),
        due(
            "every month on the 1st",
            "2024-02-01",
            "2024-03-01",
            "every month on the 1st",
        ),
        due(
            "every month on the last",
            "2024-01-31",
            "2024-02-29",
            "every month on the last",
        ),
        // The last Friday of February 2024 is the 23rd (the 29th is a Thursday).
        due(
            "every month on the last Friday",
            "2024-01-26",
            "2024-02-23",
            "every month on the last Friday",
        ),
        due(
            "every month on the 2nd last Friday",
            "2024-01-19",
            "2024-02-16",
            "every month on the 2nd last Friday",
        ),
        due(
            "every 6 months on the 2nd Wednesday",
            "2024-01-10",
            "2024-07-10",
            "every 6 months on the 2nd Wednesday",
        ),
        due(
            "every January on the 15th",
            "2024-01-15",
            "2025-01-15",
            "every January on the 15th",
        ),
        due(
            "every January on the 15th",
            "2024-03-01",
            "2025-01-15",
            "every January on the 15th",
        ),
        due(
            "every February on the last",
            "2024-02-29",
            "2025-02-28",
            "every February on the last",
        ),
        due(
            "every April and December on the 1st and 24th",
            "2024-04-01",
            "2024-04-24",
            "every April and December on the 1st and 24th",
        ),
        due(
            "every April and December on the 1st and 24th",
            "2024-04-24",
            "2024-12-01",
            "every April and December on the 1st and 24th",
        ),
        due(
            "every April and December on the 1st and 24th",
            "2024-12-24",
            "2025-04-01",
            "every April and December on the 1st and 24th",
        ),
        due("every year", "2024-03-10", "2025-03-10", "every year"),
        due(
            "every Sunday",
            "2024-01-07",
            "2024-01-14",
            "every week on Sunday",
        ),
        row(
            "every 2 weeks on Monday, Friday when done",
            ("", "", "2024-01-01"),
            "2024-03-06",
            // The first week counted is today's: its Friday comes first.
            Next("", "", "2024-03-08"),
            "every 2 weeks on Monday, Friday when done",
        ),
        row(
            "every 2 weeks on Monday, Friday when done",
            ("", "", "2024-01-01"),
            "2024-03-08",
            Next("", "", "2024-03-18"),
            "every 2 weeks on Monday, Friday when done",
        ),
    ]);
}

#[test]
fn plugin_task_tests() {
    // tests/Task/Task.test.ts, recurrenceCases.
    check(&[
        due("every 7 days", "2021-02-21", "2021-02-28", "every 7 days"),
        row(
            "every 7 days when done",
            ("", "", "2021-02-21"),
            "2021-02-18",
            Next("", "", "2021-02-25"),
            "every 7 days when done",
        ),
        row(
            "every 7 days when done",
            ("", "", "2021-02-21"),
            "2021-02-22",
            Next("", "", "2021-03-01"),
            "every 7 days when done",
        ),
        due("every day", "2021-02-21", "2021-02-22", "every day"),
        row(
            "every day when done",
            ("", "", "2021-02-21"),
            "2022-01-04",
            Next("", "", "2022-01-05"),
            "every day when done",
        ),
        due("every 4 weeks", "2021-10-15", "2021-11-12", "every 4 weeks"),
        due("every 4 weeks", "2021-10-12", "2021-11-09", "every 4 weeks"),
        due("every 4 weeks", "2033-10-12", "2033-11-09", "every 4 weeks"),
        row(
            "every 3 weeks when done",
            ("", "", "2022-01-10"),
            "2021-01-14",
            Next("", "", "2021-02-04"),
            "every 3 weeks when done",
        ),
        due("every month", "2021-10-15", "2021-11-15", "every month"),
        due("every month", "2021-10-18", "2021-11-18", "every month"),
        row(
            "every month when done",
            ("", "", "2021-10-18"),
            "2021-10-16",
            Next("", "", "2021-11-16"),
            "every month when done",
        ),
        row(
            "every month when done",
            ("", "", "2021-10-18"),
            "2021-10-24",
            Next("", "", "2021-11-24"),
            "every month when done",
        ),
        due(
            "every month on the 2nd Wednesday",
            "2021-09-08",
            "2021-10-13",
            "every month on the 2nd Wednesday",
        ),
        row(
            "every month on the 2nd Wednesday when done",
            ("", "", "2021-09-08"),
            "2021-09-15",
            Next("", "", "2021-10-13"),
            "every month on the 2nd Wednesday when done",
        ),
        row(
            "every month on the 2nd Wednesday when done",
            ("", "", "2021-09-08"),
            "2021-10-12",
            Next("", "", "2021-10-13"),
            "every month on the 2nd Wednesday when done",
        ),
        row(
            "every month on the 2nd Wednesday when done",
            ("", "", "2021-09-08"),
            "2021-10-13",
            Next("", "", "2021-11-10"),
            "every month on the 2nd Wednesday when done",
        ),
        due(
            "every 3 months on the 3rd Thursday",
            "2021-04-15",
            "2021-07-15",
            "every 3 months on the 3rd Thursday",
        ),
        due(
            "every 3 months on the 3rd Thursday",
            "2021-08-19",
            "2021-11-18",
            "every 3 months on the 3rd Thursday",
        ),
        due(
            "every 3 months on the 3rd Thursday",
            "2021-09-16",
            "2021-12-16",
            "every 3 months on the 3rd Thursday",
        ),
        due(
            "every week on Monday, Wednesday, Friday",
            "2022-01-24",
            "2022-01-26",
            "every week on Monday, Wednesday, Friday",
        ),
        row(
            "every week on Monday, Wednesday, Friday when done",
            ("", "", "2022-01-24"),
            "2022-01-25",
            Next("", "", "2022-01-26"),
            "every week on Monday, Wednesday, Friday when done",
        ),
        row(
            "every week on Monday, Wednesday, Friday when done",
            ("", "", "2022-01-24"),
            "2022-01-26",
            Next("", "", "2022-01-28"),
            "every week on Monday, Wednesday, Friday when done",
        ),
        // Offsets from the reference date are kept.
        row(
            "every 5 days",
            ("2021-10-10", "", ""),
            "2000-01-01",
            Next("2021-10-15", "", ""),
            "every 5 days",
        ),
        row(
            "every 5 days",
            ("", "2021-10-10", ""),
            "2000-01-01",
            Next("", "2021-10-15", ""),
            "every 5 days",
        ),
        row(
            "every 5 days",
            ("2021-10-10", "", "2021-10-11"),
            "2000-01-01",
            Next("2021-10-15", "", "2021-10-16"),
            "every 5 days",
        ),
        row(
            "every 5 days",
            ("", "2021-10-10", "2021-10-11"),
            "2000-01-01",
            Next("", "2021-10-15", "2021-10-16"),
            "every 5 days",
        ),
        row(
            "every 5 days",
            ("2021-10-09", "2021-10-10", "2021-10-11"),
            "2000-01-01",
            Next("2021-10-14", "2021-10-15", "2021-10-16"),
            "every 5 days",
        ),
        row(
            "every 10 days when done",
            ("2021-10-05", "2021-10-07", "2021-10-09"),
            "2021-10-04",
            Next("2021-10-10", "2021-10-12", "2021-10-14"),
            "every 10 days when done",
        ),
        row(
            "every 10 days when done",
            ("2021-10-05", "2021-10-07", "2021-10-09"),
            "2021-10-10",
            Next("2021-10-16", "2021-10-18", "2021-10-20"),
            "every 10 days when done",
        ),
        row(
            "every month on the 15th",
            ("2025-08-06", "2025-08-11", "2025-08-16"),
            "2000-01-01",
            Next("2025-09-05", "2025-09-10", "2025-09-15"),
            "every month on the 15th",
        ),
        row(
            "every month on the 15th",
            ("2025-08-05", "2025-08-10", ""),
            "2000-01-01",
            Next("2025-08-10", "2025-08-15", ""),
            "every month on the 15th",
        ),
        due("every month", "2021-03-31", "2021-04-30", "every month"),
        due("every month", "2021-01-29", "2021-02-28", "every month"),
        due(
            "every month on the 31st",
            "2021-01-31",
            "2021-03-31",
            "every month on the 31st",
        ),
        due(
            "every year on February the 29th",
            "2021-01-01",
            "2024-02-29",
            "every February on the 29th",
        ),
        due("every year", "2020-02-29", "2021-02-28", "every year"),
        row(
            "every month when done",
            ("", "1999-01-23", ""),
            "2021-08-31",
            Next("", "2021-09-30", ""),
            "every month when done",
        ),
        row(
            "every 2 years when done",
            ("1999-01-23", "", ""),
            "2020-02-29",
            Next("2022-02-28", "", ""),
            "every 2 years when done",
        ),
    ]);
}

#[test]
fn plugin_recurrence_tests() {
    // tests/Task/Recurrence.test.ts.
    let remove = |mut r: Row| {
        r.remove_scheduled = true;
        r
    };
    check(&[
        // No date: the copy has none.
        row(
            "every week",
            ("", "", ""),
            "2024-01-01",
            Next("", "", ""),
            "every week",
        ),
        row(
            "every week when done",
            ("", "", ""),
            "2024-01-01",
            Next("", "", ""),
            "every week when done",
        ),
        due("every month", "2022-01-31", "2022-02-28", "every month"),
        due(
            "every 3 months",
            "2022-01-31",
            "2022-04-30",
            "every 3 months",
        ),
        due(
            "every 2 months",
            "2023-12-31",
            "2024-02-29",
            "every 2 months",
        ),
        due("every 2 years", "2024-02-29", "2026-02-28", "every 2 years"),
        due(
            "every 11 months",
            "2020-03-31",
            "2021-02-28",
            "every 11 months",
        ),
        due(
            "every 13 months",
            "2020-01-31",
            "2021-02-28",
            "every 13 months",
        ),
        // An invalid reference date: no next copy. An invalid other date
        // takes the reference date's new value.
        row(
            "every day",
            ("", "", "2022-02-30"),
            "2022-01-01",
            Fails("2022-02-30 is not a calendar date"),
            "every day",
        ),
        row(
            "every day",
            ("", "2022-02-30", "2022-02-27"),
            "2022-01-01",
            Next("", "2022-02-28", "2022-02-28"),
            "every day",
        ),
        remove(row(
            "every month",
            ("2022-01-01", "2022-01-04", "2022-01-10"),
            "2022-01-01",
            Next("2022-02-01", "", "2022-02-10"),
            "every month",
        )),
        remove(row(
            "every month",
            ("", "2022-01-04", ""),
            "2022-01-01",
            Next("", "2022-02-04", ""),
            "every month",
        )),
        remove(row(
            "every 3 days when done",
            ("2022-01-01", "2022-01-04", ""),
            "2022-01-10",
            Next("2022-01-13", "", ""),
            "every 3 days when done",
        )),
        // Without the setting, scheduled is the reference: start keeps its
        // three days before it.
        row(
            "every 3 days when done",
            ("2022-01-01", "2022-01-04", ""),
            "2022-01-10",
            Next("2022-01-10", "2022-01-13", ""),
            "every 3 days when done",
        ),
        // With it, start is the reference before scheduled.
        remove(row(
            "every 7 days",
            ("2022-01-01", "2022-01-04", ""),
            "2022-01-10",
            Next("2022-01-08", "", ""),
            "every 7 days",
        )),
    ]);
}

#[test]
fn documented_month_ends() {
    // docs/Getting Started/Recurring Tasks.md, "Repeating Monthly", each
    // completion in turn; and "Priority of Dates", "Basic Example".
    let chain = |rule: &'static str, dates: &[&'static str]| {
        let rows: Vec<Row> = dates
            .windows(2)
            .map(|w| due(rule, w[0], w[1], rule))
            .collect();
        check(&rows);
    };
    chain(
        "every month on the last",
        &[
            "2022-01-31",
            "2022-02-28",
            "2022-03-31",
            "2022-04-30",
            "2022-05-31",
            "2022-06-30",
        ],
    );
    chain(
        "every month",
        &[
            "2021-10-31",
            "2021-11-30",
            "2021-12-30",
            "2022-01-30",
            "2022-02-28",
            "2022-03-28",
        ],
    );
    chain(
        "every month on the 31st",
        &[
            "2022-01-31",
            "2022-03-31",
            "2022-05-31",
            "2022-07-31",
            "2022-08-31",
        ],
    );
    chain("every month", &["2024-01-31", "2024-02-29", "2024-03-29"]);
    chain("every month on the 31st", &["2024-01-31", "2024-03-31"]);
    chain("every year", &["2023-02-28", "2024-02-28"]);
    chain("every February on the 29th", &["2024-02-29", "2028-02-29"]);
    chain(
        "every 2 months",
        &["2024-12-31", "2025-02-28", "2025-04-28"],
    );
    check(&[
        due(
            "every Sunday",
            "2021-04-25",
            "2021-05-02",
            "every week on Sunday",
        ),
        row(
            "every week",
            ("", "2021-02-06", ""),
            "2022-02-13",
            Next("", "2021-02-13", ""),
            "every week",
        ),
        row(
            "every week when done",
            ("", "2021-02-06", ""),
            "2022-02-13",
            Next("", "2022-02-20", ""),
            "every week when done",
        ),
        row(
            "every 2 weeks",
            ("", "2021-10-28", "2021-10-30"),
            "2021-10-30",
            Next("", "2021-11-11", "2021-11-13"),
            "every 2 weeks",
        ),
        // `when done` with a due date far in the past keeps the start's offset.
        row(
            "every week when done",
            ("1999-12-25", "", "2000-01-01"),
            "2024-06-10",
            Next("2024-06-10", "", "2024-06-17"),
            "every week when done",
        ),
    ]);
}

#[test]
fn other_phrases_rrule_reads() {
    // rrule src/nlp/parsetext.ts and totext.ts.
    check(&[
        due("EVERY DAY", "2024-01-01", "2024-01-02", "every day"),
        due(
            "every mon",
            "2024-01-01",
            "2024-01-08",
            "every week on Monday",
        ),
        due(
            "every Friday, Tuesday",
            "2024-01-02",
            "2024-01-05",
            "every week on Tuesday, Friday",
        ),
        due(
            "every Monday, Wednesday and Friday",
            "2024-01-05",
            "2024-01-08",
            "every week on Monday, Wednesday, Friday",
        ),
        due(
            "every Friday the 13th",
            "2024-01-01",
            "2024-09-13",
            "every week on Friday the 13th",
        ),
        due(
            "every week on Friday the 13th",
            "2024-09-13",
            "2024-12-13",
            "every week on Friday the 13th",
        ),
        due(
            "every month on the 2nd, 15th",
            "2024-01-02",
            "2024-01-15",
            "every month on the 2nd and 15th",
        ),
        due(
            "every month on the first Monday",
            "2024-01-01",
            "2024-02-05",
            "every month on the 1st Monday",
        ),
        due(
            "every month on the second last day",
            "2024-01-30",
            "2024-02-28",
            "every month on the 2nd last",
        ),
        due(
            "every year on the last Friday",
            "2024-01-01",
            "2024-12-27",
            "every year on the last Friday",
        ),
        due(
            "every 2 weekdays",
            "2024-01-05",
            "2024-01-15",
            "every 2 weeks on weekdays",
        ),
        due(
            "every month on weekdays",
            "2024-01-05",
            "2024-01-08",
            "every month on weekdays",
        ),
        due(
            "every month in January",
            "2024-01-15",
            "2025-01-15",
            "every January",
        ),
        due("every January", "2024-03-15", "2025-01-15", "every January"),
        // rrule's plural is `n % 100 != 1`.
        due(
            "every 101 days",
            "2024-01-01",
            "2024-04-11",
            "every 101 day",
        ),
        due(
            "every 100000 days",
            "2024-01-01",
            "2297-10-16",
            "every 100000 days",
        ),
        // The month-end correction is only for `every [n] month(s)` without `on`.
        due("every 2 years", "2024-02-29", "2026-02-28", "every 2 years"),
        due(
            "every year on the 31st",
            "2024-01-31",
            "2024-03-31",
            "every year on the 31st",
        ),
    ]);
}

#[test]
fn bad_rules() {
    let bad = |rule: &'static str, msg: &'static str| {
        row(rule, ("", "", "2024-01-01"), "2024-01-01", Fails(msg), "")
    };
    check(&[
        bad("", "the rule is empty"),
        bad("every", "expected day(s)"),
        // rrule would stop at the first word it does not expect and repeat
        // by the words before; that is a guess, so an error here.
        bad(
            "every day in January",
            "\"in January\" is not part of a rule",
        ),
        bad("every week on Mondya", "\"dya\" is not part of a rule"),
        bad(
            "every blue moon",
            "cannot read \"every blue moon\": expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month at \"blue moon\"",
        ),
        bad("daily", "a rule starts with \"every\""),
        bad("when done", "a rule starts with \"every\""),
        bad("every 0 days", "at \"0 days\""),
        bad("every other week", "at \"other week\""),
        bad("every two weeks", "at \"two weeks\""),
        bad(
            "every 99999999 days",
            "the interval 99999999 is larger than 100000",
        ),
        bad(
            "every 99999999999999999999999 days",
            "is larger than 100000",
        ),
        bad(
            "every monday and",
            "expected a weekday at the end of the rule",
        ),
        bad("every January, blue", "expected a month"),
        bad("every month on the 400th", "400 is past the 366th"),
        bad("every 2 weeks 📅", "a rule holds only letters"),
        bad("every day.", "a rule holds only letters"),
        bad("every 3 hours", "hourly and minutely rules"),
        bad("every day at 9", "times of day are not followed"),
        bad("every day for 3 times", "\"for … times\" is not followed"),
        bad(
            "every day until January 1 2025",
            "\"until\" is not followed",
        ),
        bad("every year on week 5", "week numbers"),
    ]);
    // Read, but with no date before the year 10000.
    check(
        &[
            due(
                "every February on the 30th",
                "2024-01-01",
                "",
                "every February on the 30th",
            ),
            due(
                "every month on the 32nd",
                "2024-01-01",
                "",
                "every month on the 32th",
            ),
            due("every 100000 years", "2024-01-01", "", "every 100000 years"),
            due("every day", "9999-12-31", "", "every day"),
            // rrule wants a Monday that is also a last Friday.
            due(
                "every month on Monday and last Friday",
                "2024-01-01",
                "",
                "every month on Monday and on the last Friday",
            ),
        ]
        .map(|mut r| {
            r.want = Fails("gives no date after");
            r
        }),
    );
}

#[test]
fn to_text_reads_back() {
    for rule in [
        "every 3 days",
        "every weekday",
        "every week on Sunday",
        "every week on Tuesday, Friday",
        "every 2 weeks",
        "every month on the 1st",
        "every month on the last",
        "every month on the last Friday",
        "every month on the 2nd last Friday",
        "every January on the 15th",
        "every April and December on the 1st and 24th",
        "every year",
        "every 2 weeks on weekdays",
        "every week on Friday the 13th",
        "every 3 months on the 3rd Thursday when done",
    ] {
        let parsed = Recurrence::parse(rule).unwrap();
        assert_eq!(parsed.to_text(), rule);
        assert_eq!(
            Recurrence::parse(&parsed.to_text()).unwrap(),
            parsed,
            "{rule}"
        );
    }
    assert!(
        Recurrence::parse("every day WHEN DONE")
            .unwrap()
            .when_done()
    );
    assert!(!Recurrence::parse("every day").unwrap().when_done());
}

/// Every rule text above, cut at every char boundary, and random word soups:
/// none panics, and what parses gives dates or an error from far-apart days.
#[test]
fn never_panics() {
    let rules = [
        "every 2 weeks on Monday, Friday when done",
        "every April and December on the 1st and 24th",
        "every month on the 2nd last Friday",
        "every 6 months on the 2nd Wednesday",
        "every year on February the 29th",
        "every Friday the 13th and 14th",
        "every 2 weekdays at 9, 10",
        "every day for 3 times",
        "every 99999999999999999999 days",
        "every 2 weeks 📅 🔁",
    ];
    let words = [
        "every", "2", "0", "366th", "367th", "99999", "day", "days", "weekday", "week", "month",
        "year", "on", "in", "the", "last", "first", "second", "third", "1st", "31st", "2nd",
        "Monday", "fr", "su", "January", "feb", "and", "or", ",", "when", "done", "at", "for",
        "until", "times", "!", " ", "  ", "x", "é",
    ];
    let froms = ["0001-01-01", "1970-01-01", "2024-02-29", "9999-12-31"];
    let mut rng = fastrand::Rng::with_seed(7);
    let mut texts: Vec<String> = Vec::new();
    for rule in rules {
        texts.extend(rule.char_indices().map(|(i, _)| rule[..i].to_string()));
        texts.push(rule.to_string());
    }
    for _ in 0..400 {
        let n = rng.usize(1..8);
        let mut text = String::from("every ");
        for _ in 0..n {
            text.push_str(words[rng.usize(..words.len())]);
            text.push(' ');
        }
        texts.push(text);
    }
    for text in &texts {
        let Ok(rule) = Recurrence::parse(text) else {
            continue;
        };
        let _ = rule.to_text();
        for from in froms {
            let d = date(from);
            for dates in [
                TaskDates {
                    start: None,
                    scheduled: None,
                    due: d,
                },
                TaskDates {
                    start: d,
                    scheduled: d,
                    due: None,
                },
            ] {
                let _ = next_dates(&rule, dates, date(froms[0]).unwrap(), true);
                let _ = next_dates(&rule, dates, date(from).unwrap(), false);
            }
        }
    }
}
