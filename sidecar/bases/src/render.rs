//! A table as the faces give it: JSON (the cases' form: `columns`, `rows`
//! or `groups`, `summaries`), Markdown and CSV. One rendering of values
//! for every face (`Value::json`, `Value::text`).

use serde_json::{Map, Value as J, json};
use weft_vault::VaultIndex;

use crate::eval::value::Value;
use crate::run::Table;

/// The table as JSON: `{"columns", "rows" | "groups", "summaries"?,
/// "errors"?}`; `paths` adds each row's vault path (`"paths": [...]`).
pub fn json(table: &Table, index: &VaultIndex, paths: bool) -> J {
    let rows = |rows: &[Vec<Value>]| -> J {
        J::Array(
            rows.iter()
                .map(|r| J::Array(r.iter().map(|v| v.json(index)).collect()))
                .collect(),
        )
    };
    let summaries = |s: &[(String, Value)]| -> J {
        J::Object(
            s.iter()
                .map(|(k, v)| (k.clone(), v.json(index)))
                .collect::<Map<_, _>>(),
        )
    };
    let mut out = Map::new();
    out.insert("columns".into(), json!(table.columns));
    match &table.groups {
        None => {
            out.insert("rows".into(), rows(&table.rows));
            if paths {
                out.insert("paths".into(), json!(table.paths));
            }
            if !table.summaries.is_empty() {
                out.insert("summaries".into(), summaries(&table.summaries));
            }
        }
        Some(groups) => {
            let groups: Vec<J> = groups
                .iter()
                .map(|g| {
                    let mut o = Map::new();
                    o.insert("key".into(), g.key.json(index));
                    o.insert("rows".into(), rows(&g.rows));
                    if paths {
                        o.insert("paths".into(), json!(g.paths));
                    }
                    if !g.summaries.is_empty() {
                        o.insert("summaries".into(), summaries(&g.summaries));
                    }
                    J::Object(o)
                })
                .collect();
            out.insert("groups".into(), J::Array(groups));
        }
    }
    if table.error_count > 0 {
        out.insert("errors".into(), json!(table.errors));
        out.insert("error_count".into(), json!(table.error_count));
    }
    J::Object(out)
}

/// A cell as Markdown table text: `|` and line breaks escaped.
fn cell(v: &Value, index: &VaultIndex) -> String {
    v.text(index)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// The table as Markdown: a header of display names, the page's rows, a
/// summaries row; groups as `### key` sections.
pub fn markdown(table: &Table, index: &VaultIndex) -> String {
    let mut out = String::new();
    let header = |out: &mut String| {
        out.push_str(&format!("| {} |\n", table.headers.join(" | ")));
        out.push_str(&format!(
            "|{}\n",
            " --- |".repeat(table.headers.len().max(1))
        ));
    };
    let body = |out: &mut String, rows: &[Vec<Value>], summaries: &[(String, Value)]| {
        header(out);
        for row in rows {
            let cells: Vec<String> = row.iter().map(|v| cell(v, index)).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        if !summaries.is_empty() {
            let cells: Vec<String> = table
                .columns
                .iter()
                .map(|c| {
                    summaries
                        .iter()
                        .find(|(k, _)| k == c)
                        .map(|(_, v)| format!("**{}**", cell(v, index)))
                        .unwrap_or_default()
                })
                .collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
    };
    match &table.groups {
        None => body(&mut out, &table.rows, &table.summaries),
        Some(groups) => {
            for g in groups {
                let key = match &g.key {
                    Value::Null => "(none)".to_string(),
                    k => cell(k, index),
                };
                out.push_str(&format!("### {key} ({} rows)\n\n", g.total));
                body(&mut out, &g.rows, &g.summaries);
                out.push('\n');
            }
        }
    }
    out
}

/// The table as CSV (RFC 4180): a header of column keys, then the rows;
/// a grouped table gets a first column with the group's key.
pub fn csv(table: &Table, index: &VaultIndex) -> String {
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let line = |cells: Vec<String>| {
        cells
            .into_iter()
            .map(|c| field(&c))
            .collect::<Vec<_>>()
            .join(",")
            + "\r\n"
    };
    let mut out = String::new();
    match &table.groups {
        None => {
            out.push_str(&line(table.columns.clone()));
            for row in &table.rows {
                out.push_str(&line(row.iter().map(|v| v.text(index)).collect()));
            }
        }
        Some(groups) => {
            let mut header = vec!["group".to_string()];
            header.extend(table.columns.iter().cloned());
            out.push_str(&line(header));
            for g in groups {
                for row in &g.rows {
                    let mut cells = vec![g.key.text(index)];
                    cells.extend(row.iter().map(|v| v.text(index)));
                    out.push_str(&line(cells));
                }
            }
        }
    }
    out
}
