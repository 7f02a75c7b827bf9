//! The words and the data of a `query_notes` answer: a line saying what
//! ran and how many rows, the page as a Markdown table, the errors of rows
//! that could not be computed, how to continue.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::compute::Asked;
use crate::common::page_line;

#[derive(Debug, Serialize, JsonSchema)]
pub struct GroupOut {
    /// The `groupBy` value shared by the group's rows (null: none).
    pub key: Value,
    pub rows: Vec<Vec<Value>>,
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summaries: Option<Map<String, Value>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryNotesOut {
    /// The base run (its path, and block), absent for a query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    pub view: String,
    /// The base's views.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub views: Vec<String>,
    /// Column keys (`file.name`, `status`, `formula.x`).
    pub columns: Vec<String>,
    /// Column names as the base shows them.
    pub headers: Vec<String>,
    /// This page's rows, cells in column order (dates `YYYY-MM-DD`, links
    /// `[[target]]`); empty when grouped.
    pub rows: Vec<Vec<Value>>,
    /// Each row's vault path.
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summaries: Option<Map<String, Value>>,
    /// Rows in the table in all.
    pub total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Rows or cells that could not be computed (the first few).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    #[serde(skip_serializing_if = "is_zero")]
    pub error_count: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn rows_of(v: Option<&Value>) -> Vec<Vec<Value>> {
    v.and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|r| r.as_array().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

fn strings_of(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn map_of(v: Option<&Value>) -> Option<Map<String, Value>> {
    v.and_then(Value::as_object).cloned()
}

pub fn out(asked: &Asked, next: Option<String>) -> QueryNotesOut {
    let json = &asked.json;
    let groups = json.get("groups").and_then(Value::as_array).map(|groups| {
        groups
            .iter()
            .map(|g| GroupOut {
                key: g.get("key").cloned().unwrap_or(Value::Null),
                rows: rows_of(g.get("rows")),
                paths: strings_of(g.get("paths")),
                summaries: map_of(g.get("summaries")),
            })
            .collect()
    });
    let table = &asked.table;
    QueryNotesOut {
        base: asked.base.clone(),
        view: table.view.clone(),
        views: asked.views.clone(),
        columns: table.columns.clone(),
        headers: table.headers.clone(),
        rows: rows_of(json.get("rows")),
        paths: strings_of(json.get("paths")),
        groups,
        summaries: map_of(json.get("summaries")),
        total: table.total,
        next_cursor: next,
        errors: table.errors.clone(),
        error_count: table.error_count,
    }
}

pub fn markdown(asked: &Asked, out: &QueryNotesOut) -> String {
    let table = &asked.table;
    let what = match &asked.base {
        Some(base) => format!("View `{}` of `{base}`", table.view),
        None => "Query".to_string(),
    };
    let mut text = format!(
        "{what}: {} row{}.",
        table.total,
        if table.total == 1 { "" } else { "s" }
    );
    if asked.views.len() > 1 {
        text.push_str(&format!(" Views: {}.", asked.views.join(", ")));
    }
    text.push_str("\n\n");
    if table.total > 0 {
        text.push_str(&asked.markdown);
    }
    let page = page_line(
        table.offset,
        asked.shown,
        table.total,
        out.next_cursor.as_deref(),
    );
    if !page.is_empty() {
        text.push('\n');
        text.push_str(&page);
        text.push('\n');
    }
    if table.error_count > 0 {
        text.push_str(&format!(
            "\n**{} row{} or cell{} could not be computed** (left out or empty):\n",
            table.error_count,
            if table.error_count == 1 { "" } else { "s" },
            if table.error_count == 1 { "" } else { "s" },
        ));
        for e in &table.errors {
            text.push_str(&format!("- {e}\n"));
        }
    }
    text.trim_end().to_string()
}
