//! A value of the expression language, how it reads as a yes/no, as text
//! and as JSON, and how two values compare (the one place: filters, sort,
//! grouping and `contains` all ask here).

use std::cmp::Ordering;
use std::sync::Arc;

use chrono::NaiveDateTime;
use weft_vault::key::{name_key, path_key};
use weft_vault::{NoteId, VaultIndex};

use super::dates::Duration;

/// A row of a base: a note, or any other file of the vault.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Row {
    Note(NoteId),
    /// A file that is no note, by its vault path.
    File(Arc<str>),
}

impl Row {
    /// Its vault path.
    pub fn path<'a>(&'a self, index: &'a VaultIndex) -> &'a str {
        match self {
            Row::Note(id) => &index.note(*id).path,
            Row::File(path) => path,
        }
    }
}

/// A link: its target as written, what it shows, and the folder it is
/// resolved from (a property's link from its note's folder; `link()`'s
/// from the vault's root).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkValue {
    pub target: String,
    pub display: Option<String>,
    pub from: String,
}

#[derive(Debug, Clone)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    /// A moment, and whether it has a time of day (a date alone has not).
    Date(NaiveDateTime, bool),
    Duration(Duration),
    List(Vec<Value>),
    /// Keys in their order.
    Object(Vec<(String, Value)>),
    Link(LinkValue),
    File(Row),
    Regex(Arc<Pattern>),
}

/// A regular expression and whether it is global (`/…/g`): `replace`
/// replaces its first match only without `g`.
#[derive(Debug)]
pub struct Pattern {
    pub re: regex::Regex,
    pub global: bool,
}

impl Value {
    /// The type's name as `isType` and errors say it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::Str(_) => "string",
            Value::Date(..) => "date",
            Value::Duration(_) => "duration",
            Value::List(_) => "list",
            Value::Object(_) => "object",
            Value::Link(_) => "link",
            Value::File(_) => "file",
            Value::Regex(_) => "regexp",
        }
    }

    /// As JavaScript reads it as a condition: null, false, 0, NaN and ""
    /// are false; so are an empty list and object (Bases' `isTruthy`).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::Str(s) => !s.is_empty(),
            Value::List(items) => !items.is_empty(),
            Value::Object(entries) => !entries.is_empty(),
            Value::Duration(d) => d.millis() != 0,
            _ => true,
        }
    }

    /// Whether it is empty: null, "", an empty list or object.
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Str(s) => s.is_empty(),
            Value::List(items) => items.is_empty(),
            Value::Object(entries) => entries.is_empty(),
            _ => false,
        }
    }

    /// The value as a number where one is needed: numbers, yes/no as 1/0,
    /// dates as milliseconds since 1970, durations as milliseconds, text
    /// that reads as a number.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Date(at, _) => Some(at.and_utc().timestamp_millis() as f64),
            Value::Duration(d) => Some(d.millis() as f64),
            Value::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The value as text (`toString()`, `+` with a string, `join`).
    pub fn text(&self, index: &VaultIndex) -> String {
        match self {
            Value::Null => String::new(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_text(*n),
            Value::Str(s) => s.clone(),
            Value::Date(at, time) => date_text(at, *time),
            Value::Duration(d) => format!("{}ms", d.millis()),
            Value::List(items) => items
                .iter()
                .map(|v| v.text(index))
                .collect::<Vec<_>>()
                .join(", "),
            Value::Object(_) => self.json(index).to_string(),
            Value::Link(link) => link_text(link),
            Value::File(row) => format!("[[{}]]", file_target(row.path(index))),
            Value::Regex(p) => format!("/{}/", p.re.as_str()),
        }
    }

    /// The value as the answer's JSON (the README of the cases: dates as
    /// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS`, links as `[[target]]`).
    pub fn json(&self, index: &VaultIndex) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => json_number(*n),
            Value::List(items) => J::Array(items.iter().map(|v| v.json(index)).collect()),
            Value::Object(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.json(index)))
                    .collect(),
            ),
            other => J::String(other.text(index)),
        }
    }
}

/// A number as JSON: whole numbers as integers.
pub fn json_number(n: f64) -> serde_json::Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
    }
}

/// A number as JavaScript writes it (`3`, `2.5`).
pub fn number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

pub fn date_text(at: &NaiveDateTime, time: bool) -> String {
    if time {
        at.format("%Y-%m-%dT%H:%M:%S").to_string()
    } else {
        at.format("%Y-%m-%d").to_string()
    }
}

fn link_text(link: &LinkValue) -> String {
    match &link.display {
        Some(shown) => format!("[[{}|{shown}]]", link.target),
        None => format!("[[{}]]", link.target),
    }
}

/// A file's path as a link's target: without `.md`.
pub fn file_target(path: &str) -> &str {
    path.strip_suffix(".md").unwrap_or(path)
}

/// Where a link or a file leads, for comparing: a row, else the target's
/// path key.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    Row(Row),
    Unresolved(String),
}

/// Where a link value leads.
pub fn link_place(index: &VaultIndex, link: &LinkValue) -> Place {
    use weft_vault::{LinkKind, Resolution};
    match index.resolve(&link.from, &link.target, LinkKind::Wiki) {
        Resolution::Note(id) | Resolution::Ambiguous { chosen: id, .. } => {
            Place::Row(Row::Note(id))
        }
        Resolution::Attachment(path) => Place::Row(Row::File(Arc::from(&*path))),
        Resolution::Unresolved => Place::Unresolved(path_key(link.target.trim_start_matches('/'))),
    }
}

/// Whether two values are equal (`==`, `contains`, grouping): links and
/// files by where they lead, a link and a text by the note the text names,
/// dates with dates or date-like text, numbers with numbers (a number and
/// its text too), text exactly; lists item by item.
pub fn equal(a: &Value, b: &Value, index: &VaultIndex) -> bool {
    use Value as V;
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Null, _) | (_, V::Null) => false,
        (V::Link(x), V::Link(y)) => link_place(index, x) == link_place(index, y),
        (V::Link(l), V::File(r)) | (V::File(r), V::Link(l)) => {
            link_place(index, l) == Place::Row(r.clone())
        }
        (V::File(x), V::File(y)) => x == y,
        (V::Link(l), V::Str(s)) | (V::Str(s), V::Link(l)) => {
            let named = LinkValue {
                target: s.clone(),
                display: None,
                from: String::new(),
            };
            link_place(index, l) == link_place(index, &named)
        }
        (V::List(x), V::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q, index))
        }
        (V::Str(x), V::Str(y)) => x == y,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Date(..), _) | (_, V::Date(..)) => compare(a, b, index) == Some(Ordering::Equal),
        (V::Number(_) | V::Duration(_), V::Number(_) | V::Duration(_)) => {
            a.as_number() == b.as_number()
        }
        (V::Number(x), V::Str(s)) | (V::Str(s), V::Number(x)) => {
            s.trim().parse::<f64>().ok() == Some(*x)
        }
        _ => false,
    }
}

/// How `a` orders against `b` (`<`, sorting), when they order: numbers
/// (and durations), dates (a date-like text too), text (case-insensitive),
/// yes/no. `None` for values of kinds that do not order together.
pub fn compare(a: &Value, b: &Value, index: &VaultIndex) -> Option<Ordering> {
    use Value as V;
    match (a, b) {
        (V::Date(x, _), V::Date(y, _)) => Some(x.cmp(y)),
        (V::Date(x, _), V::Str(s)) => super::dates::parse_date(s).map(|(y, _)| x.cmp(&y)),
        (V::Str(s), V::Date(y, _)) => super::dates::parse_date(s).map(|(x, _)| x.cmp(y)),
        (V::Str(x), V::Str(y)) => Some(name_key(x).cmp(&name_key(y))),
        (V::Bool(x), V::Bool(y)) => Some(x.cmp(y)),
        (V::Link(_) | V::File(_), V::Link(_) | V::File(_)) => {
            Some(name_key(&a.text(index)).cmp(&name_key(&b.text(index))))
        }
        (V::Number(_) | V::Duration(_) | V::Str(_), V::Number(_) | V::Duration(_) | V::Str(_)) => {
            a.as_number()?.partial_cmp(&b.as_number()?)
        }
        _ => None,
    }
}
