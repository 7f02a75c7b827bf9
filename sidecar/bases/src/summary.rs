//! A column's summary: the built-in ones by name (Average, Min, Max, Sum,
//! Range, Median, Stddev; Earliest, Latest; Checked, Unchecked; Empty,
//! Filled, Unique) and the arithmetic a custom summary's `values.mean()`
//! shares with them.

use crate::eval::value::{Value, equal};
use weft_vault::VaultIndex;

/// The built-in summaries' names, as views write them.
pub const BUILT_IN: &[&str] = &[
    "Average",
    "Min",
    "Max",
    "Sum",
    "Range",
    "Median",
    "Stddev",
    "Earliest",
    "Latest",
    "Checked",
    "Unchecked",
    "Empty",
    "Filled",
    "Unique",
];

/// A built-in summary of `values` (a column's, one per row), or `None`
/// when `name` is no built-in summary.
pub fn built_in(name: &str, values: &[Value], index: &VaultIndex) -> Option<Value> {
    let filled: Vec<&Value> = values.iter().filter(|v| !v.is_empty()).collect();
    let numbers: Vec<f64> = filled
        .iter()
        .filter(|v| !matches!(v, Value::Date(..)))
        .filter_map(|v| v.as_number())
        .collect();
    let count = |n: usize| Value::Number(n as f64);
    Some(match name {
        "Average" => of_numbers("mean", &numbers),
        "Sum" => of_numbers("sum", &numbers),
        "Min" => of_numbers("min", &numbers),
        "Max" => of_numbers("max", &numbers),
        "Median" => of_numbers("median", &numbers),
        "Stddev" => of_numbers("stddev", &numbers),
        "Range" => {
            let dates: Vec<&Value> = filled
                .iter()
                .copied()
                .filter(|v| matches!(v, Value::Date(..)))
                .collect();
            if !dates.is_empty() {
                let millis: Vec<f64> = dates.iter().filter_map(|v| v.as_number()).collect();
                let span = of_numbers("max", &millis).as_number().unwrap_or(0.0)
                    - of_numbers("min", &millis).as_number().unwrap_or(0.0);
                Value::Duration(crate::eval::Duration::of_millis(span as i64))
            } else if numbers.is_empty() {
                Value::Null
            } else {
                Value::Number(
                    of_numbers("max", &numbers).as_number().unwrap_or(0.0)
                        - of_numbers("min", &numbers).as_number().unwrap_or(0.0),
                )
            }
        }
        "Earliest" | "Latest" => {
            let mut dates: Vec<&Value> = filled
                .iter()
                .copied()
                .filter(|v| matches!(v, Value::Date(..)))
                .collect();
            dates.sort_by(|a, b| {
                crate::eval::compare(a, b, index).unwrap_or(std::cmp::Ordering::Equal)
            });
            let pick = if name == "Earliest" {
                dates.first()
            } else {
                dates.last()
            };
            pick.map_or(Value::Null, |v| (*v).clone())
        }
        "Checked" => count(
            values
                .iter()
                .filter(|v| matches!(v, Value::Bool(true)))
                .count(),
        ),
        "Unchecked" => count(
            values
                .iter()
                .filter(|v| matches!(v, Value::Bool(false)))
                .count(),
        ),
        "Empty" => count(values.len() - filled.len()),
        "Filled" => count(filled.len()),
        "Unique" => {
            let mut seen: Vec<&Value> = Vec::new();
            for v in &filled {
                if !seen.iter().any(|s| equal(s, v, index)) {
                    seen.push(v);
                }
            }
            count(seen.len())
        }
        _ => return None,
    })
}

/// `sum`, `mean`, `median`, `stddev` (population), `min`, `max` of
/// `numbers`; null for none.
pub fn of_numbers(name: &str, numbers: &[f64]) -> Value {
    if numbers.is_empty() {
        return match name {
            "sum" => Value::Number(0.0),
            _ => Value::Null,
        };
    }
    let n = numbers.len() as f64;
    let sum: f64 = numbers.iter().sum();
    let mean = sum / n;
    Value::Number(match name {
        "sum" => sum,
        "min" => numbers.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "median" => {
            let mut sorted = numbers.to_vec();
            sorted.sort_by(f64::total_cmp);
            let mid = sorted.len() / 2;
            if sorted.len().is_multiple_of(2) {
                (sorted[mid - 1] + sorted[mid]) / 2.0
            } else {
                sorted[mid]
            }
        }
        "stddev" => (numbers.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt(),
        _ => mean,
    })
}
