//! The methods of each type (`x.name(args)`): any, string, number, list
//! (with `filter`, `map`, `reduce` binding `value`, `index`, `acc`), date,
//! file, link, object, regexp. A method a type lacks is an error naming
//! the type and the method.

use std::ops::Range;

use super::dates;
use super::env::{Env, EvalError, Result};
use super::value::{Value, compare, equal, number_text};

/// The most items a list method makes (`repeat`, `split`, `flat`).
const MAX_ITEMS: usize = 100_000;
/// The longest text a method makes (`repeat`, `replace`).
const MAX_TEXT: usize = 1 << 20;

pub(super) fn method(
    env: &Env<'_>,
    this: &Value,
    name: &str,
    values: &[Value],
    span: &Range<usize>,
) -> Result<Value> {
    // A property one note writes as a single link and another as a list
    // (`categories: "[[X]]"`): `contains` reads the single value as a
    // one-item list, as `list(x).contains` would.
    if matches!(
        this,
        Value::Link(_) | Value::File(_) | Value::Number(_) | Value::Bool(_) | Value::Date(..)
    ) && matches!(name, "contains" | "containsAll" | "containsAny")
    {
        return Ok(list(env, std::slice::from_ref(this), name, values).unwrap_or(Value::Null));
    }
    let found = match this {
        Value::Str(s) => string(env, s, name, values, span)?,
        Value::Number(n) => number(*n, name, values),
        Value::List(items) => list(env, items, name, values),
        Value::Date(at, time) => date(at, *time, name, values, span)?,
        Value::File(row) => super::file::method(env, row, name, values, span).transpose()?,
        Value::Link(link) => match name {
            "asFile" => Some(match super::value::link_place(env.index, link) {
                super::value::Place::Row(row) => env.seen(row).map_or(Value::Null, Value::File),
                super::value::Place::Unresolved(_) => Value::Null,
            }),
            "linksTo" => {
                let target = values.first().and_then(|v| super::file::place_of(env, v));
                Some(Value::Bool(
                    match (super::value::link_place(env.index, link), target) {
                        (super::value::Place::Row(row), Some(target)) => {
                            super::file::has_link(env, &row, &target)
                        }
                        _ => false,
                    },
                ))
            }
            _ => None,
        },
        Value::Object(entries) => match name {
            "keys" => Some(Value::List(
                entries.iter().map(|(k, _)| Value::Str(k.clone())).collect(),
            )),
            "values" => Some(Value::List(
                entries.iter().map(|(_, v)| v.clone()).collect(),
            )),
            _ => None,
        },
        Value::Regex(p) => match name {
            "matches" => Some(Value::Bool(
                values
                    .first()
                    .is_some_and(|v| p.re.is_match(&v.text(env.index))),
            )),
            _ => None,
        },
        _ => None,
    };
    if let Some(v) = found {
        return Ok(v);
    }
    // What every value has.
    Ok(match name {
        "isTruthy" => Value::Bool(this.truthy()),
        "isEmpty" => Value::Bool(match this {
            Value::Date(..) => false,
            other => other.is_empty(),
        }),
        "isType" => {
            let wanted = values
                .first()
                .map(|v| v.text(env.index))
                .unwrap_or_default();
            Value::Bool(this.type_name() == wanted.to_lowercase())
        }
        "toString" => Value::Str(this.text(env.index)),
        // A property absent from a note is null: its methods answer as an
        // empty value's would, so `rating.isEmpty()` and
        // `x.contains("a")` pass over notes without it.
        _ if matches!(this, Value::Null) => match name {
            "contains" | "containsAll" | "containsAny" | "startsWith" | "endsWith" => {
                Value::Bool(false)
            }
            _ => Value::Null,
        },
        _ => {
            return Err(EvalError::new(
                format!("a {} has no method `{name}`", this.type_name()),
                span,
            ));
        }
    })
}

fn string(
    env: &Env<'_>,
    s: &str,
    name: &str,
    args: &[Value],
    span: &Range<usize>,
) -> Result<Option<Value>> {
    let index = env.index;
    let text = |i: usize| args.get(i).map(|v| v.text(index)).unwrap_or_default();
    let all_texts = || args.iter().flat_map(items).map(|v| v.text(index));
    let count = |i: usize| args.get(i).and_then(Value::as_number);
    let chars: Vec<char> = s.chars().collect();
    Ok(Some(match name {
        "contains" => Value::Bool(s.contains(&text(0))),
        "containsAll" => Value::Bool(all_texts().all(|t| s.contains(&t))),
        "containsAny" => Value::Bool(all_texts().any(|t| s.contains(&t))),
        "startsWith" => Value::Bool(s.starts_with(&text(0))),
        "endsWith" => Value::Bool(s.ends_with(&text(0))),
        "lower" => Value::Str(s.to_lowercase()),
        "upper" => Value::Str(s.to_uppercase()),
        "title" => Value::Str(title_case(s)),
        "trim" => Value::Str(s.trim().to_string()),
        "reverse" => Value::Str(chars.iter().rev().collect()),
        "repeat" => {
            let n = count(0).unwrap_or(0.0).max(0.0) as usize;
            if s.len().saturating_mul(n) > MAX_TEXT {
                return Err(EvalError::new(
                    format!("repeat({n}) would make more than {MAX_TEXT} bytes"),
                    span,
                ));
            }
            Value::Str(s.repeat(n))
        }
        "slice" => {
            let (a, b) = slice_bounds(chars.len(), count(0), count(1));
            Value::Str(chars[a..b].iter().collect())
        }
        "replace" => {
            let with = text(1);
            let out = match args.first() {
                Some(Value::Regex(p)) if p.global => {
                    p.re.replace_all(s, with.as_str()).into_owned()
                }
                Some(Value::Regex(p)) => p.re.replace(s, with.as_str()).into_owned(),
                _ => s.replace(&text(0), &with),
            };
            if out.len() > MAX_TEXT {
                return Err(EvalError::new("replace made too long a text", span));
            }
            Value::Str(out)
        }
        "split" => {
            let limit = count(1).map_or(MAX_ITEMS, |n| (n.max(0.0) as usize).min(MAX_ITEMS));
            let parts: Vec<Value> = match args.first() {
                Some(Value::Regex(p)) => {
                    p.re.split(s)
                        .take(limit)
                        .map(|p| Value::Str(p.to_string()))
                        .collect()
                }
                _ => {
                    let sep = text(0);
                    if sep.is_empty() {
                        chars
                            .iter()
                            .take(limit)
                            .map(|c| Value::Str(c.to_string()))
                            .collect()
                    } else {
                        s.split(sep.as_str())
                            .take(limit)
                            .map(|p| Value::Str(p.to_string()))
                            .collect()
                    }
                }
            };
            Value::List(parts)
        }
        _ => return Ok(None),
    }))
}

/// `Title Case`: every word's first letter upper-cased, the rest lower.
fn title_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if start {
                out.extend(c.to_uppercase());
            } else {
                out.extend(c.to_lowercase());
            }
            start = false;
        } else {
            out.push(c);
            start = true;
        }
    }
    out
}

/// JavaScript's `slice(a, b)` bounds over `len` items: negative from the
/// end, clamped.
fn slice_bounds(len: usize, a: Option<f64>, b: Option<f64>) -> (usize, usize) {
    let at = |n: f64| -> usize {
        let n = n as i64;
        let len = len as i64;
        (if n < 0 { (len + n).max(0) } else { n.min(len) }) as usize
    };
    let start = a.map_or(0, at);
    let end = b.map_or(len, at);
    (start, end.max(start))
}

fn number(n: f64, name: &str, args: &[Value]) -> Option<Value> {
    let digits = args.first().and_then(Value::as_number);
    Some(match name {
        "abs" => Value::Number(n.abs()),
        "ceil" => Value::Number(n.ceil()),
        "floor" => Value::Number(n.floor()),
        "round" => {
            let k = 10f64.powi(digits.unwrap_or(0.0).clamp(0.0, 15.0) as i32);
            // JavaScript's Math.round: halves go up.
            Value::Number((n * k + 0.5).floor() / k)
        }
        "toFixed" => {
            let p = digits.unwrap_or(0.0).clamp(0.0, 20.0) as usize;
            Value::Str(format!("{n:.p$}"))
        }
        "toString" => Value::Str(number_text(n)),
        _ => return None,
    })
}

/// A list's items, or the value itself (`containsAny("a", "b")` and
/// `containsAny(["a", "b"])` alike).
fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::List(items) => items.clone(),
        one => vec![one.clone()],
    }
}

fn list(env: &Env<'_>, list: &[Value], name: &str, args: &[Value]) -> Option<Value> {
    let index = env.index;
    let has = |want: &Value| list.iter().any(|item| equal(item, want, index));
    let wanted = || args.iter().flat_map(items);
    let count = |i: usize| args.get(i).and_then(Value::as_number);
    Some(match name {
        "contains" => Value::Bool(args.first().is_some_and(has)),
        "containsAll" => Value::Bool(wanted().all(|w| has(&w))),
        "containsAny" => Value::Bool(wanted().any(|w| has(&w))),
        "join" => Value::Str(
            list.iter()
                .map(|v| v.text(index))
                .collect::<Vec<_>>()
                .join(&args.first().map_or(",".to_string(), |v| v.text(index))),
        ),
        "reverse" => Value::List(list.iter().rev().cloned().collect()),
        "slice" => {
            let (a, b) = slice_bounds(list.len(), count(0), count(1));
            Value::List(list[a..b].to_vec())
        }
        "flat" => Value::List(list.iter().flat_map(items).take(MAX_ITEMS).collect()),
        "unique" => {
            let mut out: Vec<Value> = Vec::new();
            for v in list {
                if !out.iter().any(|seen| equal(seen, v, index)) {
                    out.push(v.clone());
                }
            }
            Value::List(out)
        }
        "sort" => {
            let mut out = list.to_vec();
            out.sort_by(|a, b| sort_order(a, b, index));
            Value::List(out)
        }
        "first" => list.first().cloned().unwrap_or(Value::Null),
        "last" => list.last().cloned().unwrap_or(Value::Null),
        // Summary helpers over `values` (documented, then withdrawn; kept).
        "sum" | "mean" | "average" | "median" | "stddev" | "min" | "max" => {
            let numbers: Vec<f64> = list.iter().filter_map(Value::as_number).collect();
            crate::summary::of_numbers(name, &numbers)
        }
        _ => return None,
    })
}

/// How two items of a list sort: values that order together by that
/// order, then by kind, so a mixed list still sorts the same every time.
pub fn sort_order(a: &Value, b: &Value, index: &weft_vault::VaultIndex) -> std::cmp::Ordering {
    compare(a, b, index).unwrap_or_else(|| a.type_name().cmp(b.type_name()))
}

fn date(
    at: &chrono::NaiveDateTime,
    time: bool,
    name: &str,
    args: &[Value],
    span: &Range<usize>,
) -> Result<Option<Value>> {
    Ok(Some(match name {
        "date" => Value::Date(at.date().and_hms_opt(0, 0, 0).expect("midnight"), false),
        "time" => Value::Str(at.format("%H:%M:%S").to_string()),
        "format" => {
            let pattern = match args.first() {
                Some(Value::Str(p)) => p.clone(),
                _ => "YYYY-MM-DD".to_string(),
            };
            Value::Str(dates::format(at, &pattern).map_err(|m| EvalError::new(m, span))?)
        }
        "toString" => Value::Str(super::value::date_text(at, time)),
        _ => return Ok(None),
    }))
}
