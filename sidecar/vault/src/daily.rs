//! Dates as Obsidian's daily notes name them: a calendar [`Date`], the
//! moment.js date formats (`YYYY-MM-DD`, `dddd D MMMM`, `GGGG-[W]WW`), the
//! daily note's path for a date and the note that is today's. One rule for
//! the language server, the tools and the prompts. Pure: callers pass the
//! date in.

use super::index::{NoteId, VaultIndex};
use super::note::strip_md;
use super::query::{Lookup, lookup};

/// A calendar date (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: i32,
    /// 1..=12
    pub month: u8,
    /// 1..=31
    pub day: u8,
}

impl Date {
    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// Days since 1970-01-01.
    pub fn days(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let m = i64::from(self.month);
        let mp = if m > 2 { m - 3 } else { m + 9 };
        let doy = (153 * mp + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    pub fn add_days(self, n: i64) -> Date {
        Date::from_days(self.days() + n)
    }

    /// 0 = Sunday … 6 = Saturday.
    pub fn weekday(self) -> u8 {
        (self.days() + 4).rem_euclid(7) as u8
    }

    /// 1-based day of the year.
    pub fn ordinal(self) -> u32 {
        (self.days()
            - Date {
                year: self.year,
                month: 1,
                day: 1,
            }
            .days()
            + 1) as u32
    }

    /// ISO 8601 week-numbering year and week.
    pub fn iso_week(self) -> (i32, u32) {
        let iso_weekday = i64::from((self.weekday() + 6) % 7) + 1; // Mon=1..Sun=7
        let thursday = Date::from_days(self.days() - iso_weekday + 4);
        let week = (thursday.ordinal() - 1) / 7 + 1;
        (thursday.year, week)
    }
}

const MONTHS: [&str; 12] = [
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
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Formats a date with a moment.js format as Obsidian uses them: `YYYY`,
/// `YY`, `Q`, `MMMM`, `MMM`, `MM`, `M`, `DDDD`, `DDD`, `DD`, `Do`, `D`,
/// `dddd`, `ddd`, `dd`, `d`, `GGGG`, `WW`, `W`, and `[literal text]`.
pub fn format_date(date: Date, format: &str) -> String {
    const TOKENS: [&str; 20] = [
        "YYYY", "GGGG", "MMMM", "DDDD", "dddd", "MMM", "DDD", "ddd", "YY", "MM", "DD", "Do", "dd",
        "WW", "Q", "M", "D", "d", "W", "E",
    ];
    let mut out = String::new();
    let mut rest = format;
    while !rest.is_empty() {
        if let Some(literal) = rest.strip_prefix('[') {
            let end = literal.find(']').unwrap_or(literal.len());
            out.push_str(&literal[..end]);
            rest = literal.get(end + 1..).unwrap_or("");
            continue;
        }
        let Some(token) = TOKENS.iter().find(|t| rest.starts_with(**t)) else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        let (iso_year, iso_week) = date.iso_week();
        let month = usize::from(date.month - 1);
        let weekday = usize::from(date.weekday());
        match *token {
            "YYYY" => out.push_str(&format!("{:04}", date.year)),
            "GGGG" => out.push_str(&format!("{iso_year:04}")),
            "YY" => out.push_str(&format!("{:02}", date.year.rem_euclid(100))),
            "Q" => out.push_str(&((date.month - 1) / 3 + 1).to_string()),
            "MMMM" => out.push_str(MONTHS[month]),
            "MMM" => out.push_str(&MONTHS[month][..3]),
            "MM" => out.push_str(&format!("{:02}", date.month)),
            "M" => out.push_str(&date.month.to_string()),
            "DDDD" => out.push_str(&format!("{:03}", date.ordinal())),
            "DDD" => out.push_str(&date.ordinal().to_string()),
            "DD" => out.push_str(&format!("{:02}", date.day)),
            "Do" => {
                let suffix = match (date.day % 10, date.day) {
                    (_, 11..=13) => "th",
                    (1, _) => "st",
                    (2, _) => "nd",
                    (3, _) => "rd",
                    _ => "th",
                };
                out.push_str(&format!("{}{suffix}", date.day));
            }
            "D" => out.push_str(&date.day.to_string()),
            "dddd" => out.push_str(WEEKDAYS[weekday]),
            "ddd" => out.push_str(&WEEKDAYS[weekday][..3]),
            "dd" => out.push_str(&WEEKDAYS[weekday][..2]),
            "d" => out.push_str(&weekday.to_string()),
            "E" => out.push_str(&((weekday + 6) % 7 + 1).to_string()),
            "WW" => out.push_str(&format!("{iso_week:02}")),
            "W" => out.push_str(&iso_week.to_string()),
            _ => {}
        }
        rest = &rest[token.len()..];
    }
    out
}

/// The daily note at `wanted` (a [`daily_note_path`]) as indexed: that
/// path, else the one note elsewhere with its file name (daily notes kept in
/// a folder the configuration does not name). One rule for the tool, the
/// prompt and completion.
pub fn find_daily_note(index: &VaultIndex, wanted: &str) -> Option<NoteId> {
    if let Some(id) = index.id_of(wanted) {
        return Some(id);
    }
    let name = wanted.rsplit('/').next().unwrap_or(wanted);
    match lookup(index, strip_md(name)) {
        Lookup::Found(id) => {
            let found = &index.note(id).path;
            // The same file name, not a title or an alias.
            (found.rsplit('/').next() == Some(name)).then_some(id)
        }
        _ => None,
    }
}

/// The vault path (with `.md`) of the daily note for `date`. A format may
/// hold `/` to file notes in dated folders (`YYYY/MM/YYYY-MM-DD`).
pub fn daily_note_path(folder: &str, format: &str, date: Date) -> String {
    let name = format_date(date, format);
    let folder = folder.trim_matches('/');
    if folder.is_empty() {
        format!("{name}.md")
    } else {
        format!("{folder}/{name}.md")
    }
}
