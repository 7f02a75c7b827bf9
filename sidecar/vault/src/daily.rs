//! Dates as Obsidian's daily notes name them: a calendar [`Date`], the
//! moment.js date formats (`YYYY-MM-DD`, `dddd D MMMM`, `GGGG-[W]WW`), the
//! daily note's path for a date and the note that is today's. One rule for
//! the language server, the tools and the prompts. Pure: callers pass the
//! date in. The calendar itself (day numbers, weekdays, ISO weeks) is
//! chrono's, as it is for the search's times: only the moment.js tokens are
//! written here, never a day count.

pub use super::date::Date;
use super::index::{NoteId, VaultIndex};
use super::note::strip_md;
use super::query::{Lookup, lookup};

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
