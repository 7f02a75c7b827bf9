//! A calendar date, [`Date`]: what a daily note is named by and a task is
//! due on. Its arithmetic (day numbers, weekdays, ISO weeks) is chrono's;
//! no day count is written here.

use chrono::{Datelike, NaiveDate};

/// A calendar date (proleptic Gregorian). Its fields are a real date (made
/// from chrono's, or written by hand); the arithmetic is chrono's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    /// 1..=12
    pub month: u8,
    /// 1..=31
    pub day: u8,
}

/// Chrono counts days from 0001-01-01 (its day 1); 1970-01-01 is its day
/// 719,163.
const EPOCH_FROM_CE: i64 = 719_163;

/// The date `days` days after 1970-01-01; a day past the calendar's ends
/// (chrono's, about 262,000 years either way) gives its first or last day.
fn date_of_day(days: i64) -> NaiveDate {
    days.checked_add(EPOCH_FROM_CE)
        .and_then(|ce| i32::try_from(ce).ok())
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .unwrap_or(if days < 0 {
            NaiveDate::MIN
        } else {
            NaiveDate::MAX
        })
}

impl Date {
    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        Date::from(date_of_day(days))
    }

    /// Days since 1970-01-01. A day past the end of its month counts on
    /// into the next (`2024-02-30` is `2024-03-01`); a month outside 1..=12
    /// is read as the nearest.
    pub fn days(self) -> i64 {
        let month = u32::from(self.month.clamp(1, 12));
        let first = NaiveDate::from_ymd_opt(self.year, month, 1).unwrap_or(if self.year < 0 {
            NaiveDate::MIN
        } else {
            NaiveDate::MAX
        });
        i64::from(first.num_days_from_ce()) - EPOCH_FROM_CE + i64::from(self.day) - 1
    }

    pub fn add_days(self, n: i64) -> Date {
        Date::from_days(self.days() + n)
    }

    /// 0 = Sunday … 6 = Saturday.
    pub(crate) fn weekday(self) -> u8 {
        self.naive().weekday().num_days_from_sunday() as u8
    }

    /// 1-based day of the year.
    pub(crate) fn ordinal(self) -> u32 {
        self.naive().ordinal()
    }

    /// ISO 8601 week-numbering year and week.
    pub(crate) fn iso_week(self) -> (i32, u32) {
        let week = self.naive().iso_week();
        (week.year(), week.week())
    }

    /// The chrono date this one is.
    fn naive(self) -> NaiveDate {
        date_of_day(self.days())
    }
}

impl From<NaiveDate> for Date {
    fn from(date: NaiveDate) -> Date {
        Date {
            year: date.year(),
            month: date.month() as u8,
            day: date.day() as u8,
        }
    }
}
