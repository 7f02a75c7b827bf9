//! The operators on values (`+ - * / %`, indexing) and regular
//! expression literals: what the walk applies once both sides are known.

use std::ops::Range;
use std::sync::Arc;

use weft_vault::VaultIndex;

use super::dates::{self, Duration};
use super::env::{EvalError, Result};
use super::value::{self, Value};

pub(super) fn arithmetic(x: &Value, y: &Value, f: fn(f64, f64) -> f64) -> Value {
    match (x.as_number(), y.as_number()) {
        (Some(p), Some(q)) => Value::Number(f(p, q)),
        _ => Value::Null,
    }
}

/// A duration a value stands for in date arithmetic: a duration, or text
/// such as `"7d"`.
fn as_duration(v: &Value) -> Option<Duration> {
    match v {
        Value::Duration(d) => Some(*d),
        Value::Str(s) => dates::parse_duration(s),
        _ => None,
    }
}

/// `+`: date + duration, duration + duration, text joined with anything,
/// numbers added.
pub(super) fn add(x: &Value, y: &Value, index: &VaultIndex) -> Value {
    match (x, y) {
        // A date and a duration (or text that reads as one) move the date;
        // a date and other text are joined as text, as JavaScript joins them.
        (Value::Date(at, time), other) | (other, Value::Date(at, time))
            if as_duration(other).is_some() || !matches!(other, Value::Str(_)) =>
        {
            match as_duration(other).and_then(|d| dates::add(*at, d).map(|t| (t, d))) {
                Some((moved, d)) => Value::Date(moved, *time || d.ms % 86_400_000 != 0),
                None => Value::Null,
            }
        }
        (Value::Duration(a), Value::Duration(b)) => Value::Duration(a.plus(*b)),
        (Value::Str(_), _) | (_, Value::Str(_)) => {
            Value::Str(format!("{}{}", x.text(index), y.text(index)))
        }
        _ => arithmetic(x, y, |p, q| p + q),
    }
}

/// `-`: date − duration, date − date (a duration), numbers.
pub(super) fn subtract(x: &Value, y: &Value) -> Value {
    match (x, y) {
        (Value::Date(a, _), Value::Date(b, _)) => {
            Value::Duration(Duration::of_millis((*a - *b).num_milliseconds()))
        }
        (Value::Date(a, _), Value::Str(s)) if dates::parse_date(s).is_some() => {
            let (b, _) = dates::parse_date(s).expect("checked");
            Value::Duration(Duration::of_millis((*a - b).num_milliseconds()))
        }
        (Value::Date(at, time), other) => {
            match as_duration(other).and_then(|d| dates::add(*at, d.negated()).map(|t| (t, d))) {
                Some((moved, d)) => Value::Date(moved, *time || d.ms % 86_400_000 != 0),
                None => Value::Null,
            }
        }
        (Value::Duration(a), Value::Duration(b)) => Value::Duration(a.plus(b.negated())),
        _ => arithmetic(x, y, |p, q| p - q),
    }
}

/// `a[key]`: a list's item (negative from the end), an object's entry, a
/// text's character; null when there is none.
pub(super) fn index_of(object: &Value, key: &Value) -> Value {
    match (object, key) {
        (Value::List(items), k) => k
            .as_number()
            .and_then(|n| {
                let n = n as i64;
                let at = if n < 0 { items.len() as i64 + n } else { n };
                usize::try_from(at).ok().and_then(|i| items.get(i).cloned())
            })
            .unwrap_or(Value::Null),
        (Value::Object(entries), Value::Str(k)) => entries
            .iter()
            .find(|(name, _)| name == k)
            .map_or(Value::Null, |(_, v)| v.clone()),
        (Value::Str(s), k) => k
            .as_number()
            .and_then(|n| s.chars().nth(n as usize))
            .map_or(Value::Null, |c| Value::Str(c.to_string())),
        _ => Value::Null,
    }
}

/// A regular expression literal: JavaScript's flags (`g`: every match —
/// `replace` replaces all anyway), read as the vault reads every such
/// literal (`weft_vault::js_regex`).
pub(super) fn regex(pattern: &str, flags: &str, span: &Range<usize>) -> Result<Value> {
    let global = flags.contains('g');
    weft_vault::js_regex::build(pattern, flags)
        .map(|re| Value::Regex(Arc::new(value::Pattern { re, global })))
        .map_err(|e| EvalError::new(e, span))
}
