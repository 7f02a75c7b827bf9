//! Template text for new notes, one filling for every face (the language
//! server's "create note" and the agent's write_note and daily_note):
//! moment.js formats with times (`YYYY-MM-DD HH:mm`) and the variables
//! `{{title}}`, `{{date}}`, `{{time}}`, `{{date:FORMAT}}`, `{{time:FORMAT}}`.
//! Pure text: the caller reads the clock. No IO, no protocol.

use chrono::{NaiveTime, Timelike};

use super::daily::{Date, format_date};

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
    let filled: Result<String, std::convert::Infallible> = fill_with(template, |name| {
        let (var, format) = match name.split_once(':') {
            Some((v, f)) => (v.trim(), Some(f.trim())),
            None => (name, None),
        };
        Ok(match (var.to_ascii_lowercase().as_str(), format) {
            ("title", None) => Some(title.to_string()),
            ("date", None) => Some(format_date(date, "YYYY-MM-DD")),
            ("time", None) => Some(format_moment(date, time, "HH:mm")),
            ("date" | "time", Some(f)) => Some(format_moment(date, time, f)),
            _ => None,
        })
    });
    filled.unwrap_or_else(|never| match never {})
}

/// Each `{{name}}` of `text` (the name trimmed) replaced by what `value`
/// gives; `None` leaves it as written, an error stops. A `{{` without its
/// `}}` stays as it is.
pub fn fill_with<E>(
    text: &str,
    mut value: impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        match value(after[..close].trim())? {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The text of a new note from a template (filled as every face fills
/// templates, `vault::template::fill`); without a template, a `# Title`
/// heading.
pub fn new_note_text(
    template: Option<&str>,
    title: &str,
    date: Date,
    time: chrono::NaiveTime,
) -> String {
    match template {
        Some(template) => fill(template, title, date, time),
        None => format!("# {title}\n"),
    }
}
