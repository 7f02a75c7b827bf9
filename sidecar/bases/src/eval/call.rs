//! The global functions: `date`, `now`, `today`, `duration`, `if`,
//! `link`, `file`, `list`, `number`, `min`, `max`, `image`, `icon`,
//! `html`, `escapeHTML` (`if`, which evaluates lazily, is the walk's).
//! Any other name is an error naming it.

use std::ops::Range;

use super::dates;
use super::env::{Env, EvalError, Result};
use super::value::{LinkValue, Place, Value};

pub const GLOBALS: &[&str] = &[
    "date",
    "now",
    "today",
    "duration",
    "if",
    "link",
    "file",
    "list",
    "number",
    "min",
    "max",
    "image",
    "icon",
    "html",
    "escapeHTML",
];

pub(super) fn call(
    env: &Env<'_>,
    name: &str,
    values: &[Value],
    span: &Range<usize>,
) -> Result<Value> {
    let index = env.index;
    let first = values.first();
    let text = |v: Option<&Value>| v.map(|v| v.text(index)).unwrap_or_default();
    Ok(match name {
        "now" => Value::Date(env.now, true),
        "today" => Value::Date(
            env.now.date().and_hms_opt(0, 0, 0).expect("midnight"),
            false,
        ),
        "date" => match first {
            Some(Value::Date(at, time)) => Value::Date(*at, *time),
            Some(Value::Null) | None => Value::Null,
            Some(v) => match dates::parse_date(&v.text(index)) {
                Some((at, time)) => Value::Date(at, time),
                None => Value::Null,
            },
        },
        "duration" => match first {
            Some(Value::Duration(dur)) => Value::Duration(*dur),
            Some(v) => match dates::parse_duration(&v.text(index)) {
                Some(dur) => Value::Duration(dur),
                None => {
                    return Err(EvalError::new(
                        format!(
                            "duration(\"{}\") does not read as a duration (\"7d\", \"1M\", \"2 weeks\")",
                            v.text(index)
                        ),
                        span,
                    ));
                }
            },
            None => Value::Null,
        },
        "link" => match first {
            Some(Value::File(row)) => Value::Link(LinkValue {
                target: super::value::file_target(row.path(index)).to_string(),
                display: values.get(1).map(|v| v.text(index)),
                from: String::new(),
            }),
            Some(Value::Link(link)) => Value::Link(link.clone()),
            Some(v) => Value::Link(LinkValue {
                target: strip_brackets(&v.text(index)),
                display: values.get(1).map(|v| v.text(index)),
                from: String::new(),
            }),
            None => Value::Null,
        },
        "file" => match first.and_then(|v| super::file::place_of(env, v)) {
            Some(Place::Row(row)) => env.seen(row).map_or(Value::Null, Value::File),
            _ => Value::Null,
        },
        "list" => match first {
            Some(Value::List(items)) => Value::List(items.clone()),
            Some(Value::Null) | None => Value::List(Vec::new()),
            Some(v) => Value::List(vec![v.clone()]),
        },
        "number" => first
            .and_then(Value::as_number)
            .map_or(Value::Null, Value::Number),
        "min" | "max" => {
            let numbers: Vec<f64> = values
                .iter()
                .flat_map(|v| match v {
                    Value::List(items) => items.clone(),
                    one => vec![one.clone()],
                })
                .filter_map(|v| v.as_number())
                .collect();
            let pick = if name == "min" { f64::min } else { f64::max };
            numbers
                .into_iter()
                .reduce(pick)
                .map_or(Value::Null, Value::Number)
        }
        // Views draw these; as a value they are what they show.
        "image" | "icon" | "html" => first.cloned().unwrap_or(Value::Null),
        "escapeHTML" => Value::Str(
            text(first)
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;"),
        ),
        "random" => {
            return Err(EvalError::new(
                "random() is not supported: a table that changes at every run cannot be checked",
                span,
            ));
        }
        _ => {
            return Err(EvalError::new(
                format!(
                    "unknown function `{name}` (the global functions are {})",
                    GLOBALS.join(", ")
                ),
                span,
            ));
        }
    })
}

/// `[[X]]` → `X`; anything else as it is.
fn strip_brackets(text: &str) -> String {
    weft_vault::parse::wikilink_target(text.trim())
        .map_or_else(|| text.trim().to_string(), str::to_string)
}
