//! A property's value, typed: the one place that decides what a
//! frontmatter value or a query's literal *is* (text, number, yes/no, a
//! date, a `[[link]]`, a list) and how two values compare. A key that
//! `.obsidian/types.json` declares text or a list (or that Obsidian
//! reserves, `tags`, `aliases`) has text values whatever they look like.
//!
//! No IO, no protocol. Links compare by the note they lead to, through the
//! one resolver.

use std::cmp::Ordering;

use chrono::NaiveDateTime;

use crate::key::{name_key, path_key};
use crate::parse::wikilink_target;
use crate::props::PropType;
use crate::{NoteId, VaultIndex};

/// How deep a list in a property is read: a YAML value nested deeper is
/// compared as text.
const MAX_DEPTH: usize = 16;

/// A property's value, or a value a filter compares with.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(Box<str>),
    Number(f64),
    Bool(bool),
    /// A day, or a moment of one (local time as written, no zone).
    Date(NaiveDateTime),
    /// `[[target]]`: the target as written (no alias, no fragment).
    Link(Box<str>),
    List(Vec<Value>),
    /// Written without a value (`key:`).
    Empty,
}

impl Value {
    /// A frontmatter value as parsed from YAML, typed by what it looks like.
    pub fn of_json(value: &serde_json::Value) -> Value {
        Value::of_json_at(value, false, 0)
    }

    /// A value of a property whose type is fixed (`Types::fixed`): of a
    /// text or list type, every value is text or a `[[link]]`, whatever it
    /// looks like (`"01234"` is no number); else typed as [`Value::of_json`].
    pub fn of_json_as(value: &serde_json::Value, fixed: Option<PropType>) -> Value {
        Value::of_json_at(value, fixed.is_some_and(PropType::is_textual), 0)
    }

    fn of_json_at(value: &serde_json::Value, textual: bool, depth: usize) -> Value {
        use serde_json::Value as J;
        match value {
            J::Null => Value::Empty,
            J::Bool(b) if textual => Value::Text(b.to_string().into()),
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) if textual => Value::Text(n.to_string().into()),
            J::Number(n) => n
                .as_f64()
                .map_or(Value::Text(n.to_string().into()), Value::Number),
            J::String(s) => Value::of_text_at(s, textual),
            J::Array(items) if depth < MAX_DEPTH => Value::List(
                items
                    .iter()
                    .map(|item| Value::of_json_at(item, textual, depth + 1))
                    .collect(),
            ),
            other => Value::Text(other.to_string().into()),
        }
    }

    /// A query's literal for a property whose type is fixed, as
    /// [`Value::of_json_as`] types the property's values.
    pub fn of_text_as(text: &str, fixed: Option<PropType>) -> Value {
        Value::of_text_at(text, fixed.is_some_and(PropType::is_textual))
    }

    fn of_text_at(text: &str, textual: bool) -> Value {
        if !textual {
            return Value::of_text(text);
        }
        let t = text.trim();
        match wikilink_target(t) {
            Some(target) => Value::Link(target.into()),
            None => Value::Text(t.into()),
        }
    }

    /// A value written as text (a YAML string, a query's literal): a
    /// `[[link]]`, a date (`2026-12-28`, `2026-12-28T09:30`, with `:ss`), a
    /// number, `true`/`false`, else text.
    pub fn of_text(text: &str) -> Value {
        let t = text.trim();
        if let Some(target) = wikilink_target(t) {
            return Value::Link(target.into());
        }
        if let Some(date) = crate::props::date(t) {
            return Value::Date(date);
        }
        if let Ok(n) = t.parse::<f64>()
            && n.is_finite()
            && t.bytes().any(|b| b.is_ascii_digit())
        {
            return Value::Number(n);
        }
        match t {
            "true" | "True" | "TRUE" => Value::Bool(true),
            "false" | "False" | "FALSE" => Value::Bool(false),
            _ => Value::Text(t.into()),
        }
    }

    /// The items a test looks at: a list's items, else the value itself.
    pub(crate) fn items(&self) -> &[Value] {
        match self {
            Value::List(items) => items,
            one => std::slice::from_ref(one),
        }
    }
}

/// Where a value is compared: the index (links resolve through it) and the
/// folder of the note the property is in (its links resolve from there).
#[derive(Clone, Copy)]
pub struct Place<'a> {
    pub index: &'a VaultIndex,
    pub folder: &'a str,
}

impl Place<'_> {
    /// The note a link target leads to from here.
    fn note(&self, target: &str) -> Option<NoteId> {
        self.index
            .resolve(self.folder, target, crate::LinkKind::Wiki)
            .note()
    }
}

/// Whether a property's item `have` (in a note at `place`) equals `want` (a
/// filter's value, whose links resolve from the vault's root). Links equal
/// links or names that lead to the same note (else the same target); text
/// compares as names do (case, Unicode form); numbers, dates and yes/no by
/// value.
pub fn equals(have: &Value, want: &Value, place: Place<'_>) -> bool {
    let root = Place {
        index: place.index,
        folder: "",
    };
    match (have, want) {
        (Value::Link(a), Value::Link(b) | Value::Text(b)) => same_note(a, place, b, root),
        (Value::Text(a), Value::Link(b)) => same_note(a, place, b, root),
        (Value::Text(a), Value::Text(b)) => name_key(a) == name_key(b),
        (Value::Empty, Value::Empty) => true,
        (Value::List(_), _) | (_, Value::List(_)) => false,
        (a, b) => compare(a, b) == Some(Ordering::Equal),
    }
}

fn same_note(a: &str, at_a: Place<'_>, b: &str, at_b: Place<'_>) -> bool {
    match (at_a.note(a), at_b.note(b)) {
        (Some(x), Some(y)) => x == y,
        _ => path_key(a.trim_start_matches('/')) == path_key(b.trim_start_matches('/')),
    }
}

/// How `have` orders against `want`, when they are of a kind that orders:
/// two numbers, two dates, two texts (by their name keys). `None` for
/// values of different kinds (a number is never before a date), so that a
/// comparison on a property some notes write otherwise passes them over.
pub fn compare(have: &Value, want: &Value) -> Option<Ordering> {
    match (have, want) {
        (Value::Number(a), Value::Number(b)) => a.partial_cmp(b),
        (Value::Date(a), Value::Date(b)) => Some(a.cmp(b)),
        (Value::Text(a), Value::Text(b)) => Some(name_key(a).cmp(&name_key(b))),
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// Whether `have` (a property's value) contains `want`: a list one of whose
/// items equals it, or a text with it inside (as names compare).
pub fn contains(have: &Value, want: &Value, place: Place<'_>) -> bool {
    match have {
        Value::List(items) => items.iter().any(|item| equals(item, want, place)),
        Value::Text(text) => {
            let want = match want {
                Value::Text(w) | Value::Link(w) => name_key(w),
                other => return equals(have, other, place),
            };
            name_key(text).contains(&want)
        }
        one => equals(one, want, place),
    }
}
