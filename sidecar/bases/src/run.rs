//! Running a view of a base: every file of the vault is a candidate (notes
//! and attachments, as Obsidian's bases have no `from`); the base's and the
//! view's filters pass rows; `sort`, `limit`, `groupBy`; the columns of
//! `order` computed for one page only; `summaries` over every row of the
//! table (or of each group).
//!
//! A row whose filter or cell cannot be computed is counted in the table's
//! `errors` with the row and the reason — never dropped silently.

use std::cmp::Ordering;
use std::collections::HashMap;

use chrono::NaiveDateTime;
use weft_vault::VaultIndex;

use crate::base::{Base, BaseError, FilterNode, View, column_id};
use crate::eval::value::{Row, Value};
use crate::eval::{Env, EvalError, Files, Formulas, Scope};
use crate::plan::Plan;
use crate::summary;

/// How many row errors a table names (it counts them all).
pub const MAX_ERRORS_NAMED: usize = 10;

/// What a run reads besides the base.
pub struct Context<'a> {
    pub index: &'a VaultIndex,
    pub files: &'a dyn Files,
    /// Now, in the vault's local time.
    pub now: NaiveDateTime,
    pub local: &'a dyn Fn(i64) -> NaiveDateTime,
    /// The base file, or the note embedding the block.
    pub this: Option<Row>,
    /// Whether the reader may see a row (the agent's access rule): the
    /// rows it may not see are no rows, and have no fields, here.
    pub sees: &'a dyn Fn(&Row) -> bool,
}

/// Which view, and which page of its rows.
#[derive(Debug, Clone, Default)]
pub struct Request<'r> {
    /// The view's name; the first view when `None`.
    pub view: Option<&'r str>,
    /// Rows skipped before the page.
    pub offset: usize,
    /// Rows in the page; every row when `None`.
    pub page: Option<usize>,
}

/// A group of rows with the same `groupBy` value.
#[derive(Debug, Clone)]
pub struct Group {
    pub key: Value,
    /// The group's rows in this page.
    pub rows: Vec<Vec<Value>>,
    pub paths: Vec<String>,
    /// Over every row of the group.
    pub summaries: Vec<(String, Value)>,
    /// Rows in the group in all.
    pub total: usize,
}

/// A view's answer.
#[derive(Debug, Clone)]
pub struct Table {
    pub view: String,
    /// `table`, `cards`…: what the view draws (every view answers as a table).
    pub kind: String,
    /// The columns as keyed (`note.` dropped).
    pub columns: Vec<String>,
    /// What each column is called (its `displayName`, else its key).
    pub headers: Vec<String>,
    /// The page's rows (when not grouped).
    pub rows: Vec<Vec<Value>>,
    /// The vault path of each row of `rows`.
    pub paths: Vec<String>,
    /// The groups, when the view has `groupBy`.
    pub groups: Option<Vec<Group>>,
    /// Over every row of the table (when not grouped).
    pub summaries: Vec<(String, Value)>,
    /// Rows in the table in all (after `limit`).
    pub total: usize,
    pub offset: usize,
    /// Rows or cells that could not be computed, named (the first few).
    pub errors: Vec<String>,
    pub error_count: usize,
}

/// Why a run failed as a whole.
pub type RunError = BaseError;

/// A column or key as a view names it.
#[derive(Debug, Clone)]
enum Prop {
    File(String),
    Formula(String),
    Note(String),
}

impl Prop {
    fn of(written: &str) -> Prop {
        let id = column_id(written);
        if let Some(field) = id.strip_prefix("file.") {
            Prop::File(field.to_string())
        } else if let Some(name) = id.strip_prefix("formula.") {
            Prop::Formula(name.to_string())
        } else {
            Prop::Note(id.to_string())
        }
    }

    fn value(&self, scope: &Scope<'_, '_>, row: &Row) -> Result<Value, EvalError> {
        let none = 0..0;
        match self {
            Prop::File(field) => scope.file_field(row, field, &none),
            Prop::Formula(name) => scope.formula(name, &none),
            Prop::Note(key) => Ok(scope.env.property(row, key)),
        }
    }
}

/// Errors of rows, counted, the first few named.
#[derive(Default)]
struct Errors {
    named: Vec<String>,
    count: usize,
}

impl Errors {
    fn add(&mut self, path: &str, at: &str, e: &EvalError) {
        self.count += 1;
        if self.named.len() < MAX_ERRORS_NAMED {
            self.named.push(format!("{path}: {at}: {}", e.message));
        }
    }
}

/// Runs `request`'s view of `base`.
pub fn run(base: &Base, cx: &Context<'_>, request: &Request<'_>) -> Result<Table, RunError> {
    run_with(base, cx, request, true)
}

/// [`run`] evaluating every row's filters, without the prefilter (`plan`):
/// the answer is the same, only slower. For the tests that check so and
/// the benchmark that times both.
#[doc(hidden)]
pub fn run_evaluating_every_row(
    base: &Base,
    cx: &Context<'_>,
    request: &Request<'_>,
) -> Result<Table, RunError> {
    run_with(base, cx, request, false)
}

fn run_with(
    base: &Base,
    cx: &Context<'_>,
    request: &Request<'_>,
    prefilter: bool,
) -> Result<Table, RunError> {
    let view = base.view(request.view)?;
    let formulas: Formulas = base
        .formulas
        .iter()
        .map(|(name, w)| (name.clone(), w.expr.clone()))
        .collect();
    let env = Env::new(
        cx.index,
        cx.files,
        cx.now,
        cx.local,
        cx.this.clone(),
        &formulas,
        cx.sees,
    );
    let mut errors = Errors::default();

    // Every file is a candidate; the filters pass rows. The prefilter
    // leaves out the rows that cannot pass (nor fail) them.
    let plan = prefilter.then(|| Plan::of(base, &view, cx.index));
    let mut candidates = crate::plan::candidates(plan.as_ref(), cx.index);
    candidates.retain(|row| (cx.sees)(row));
    let sort_props: Vec<(Prop, bool)> = view
        .sort
        .iter()
        .map(|k| (Prop::of(&k.property), k.descending))
        .collect();
    let group_prop = view.group_by.as_ref().map(|g| Prop::of(&g.property));
    // The passing rows (the candidates kept in place), each with its sort
    // keys and group key only: the cells are computed for the page alone.
    let mut keys: Vec<Value> = Vec::new();
    let mut group_keys: Vec<Value> = Vec::new();
    let mut rows = candidates;
    rows.retain(|row| {
        let scope = Scope::of_row(&env, row.clone());
        let path = row.path(cx.index);
        let pass = [
            ("filters", base.filters.as_ref()),
            ("view filters", view.filters.as_ref()),
        ]
        .into_iter()
        .try_fold(true, |ok, (at, f)| match (ok, f) {
            (false, _) => Ok(false),
            (true, None) => Ok(true),
            (true, Some(f)) => passes(&scope, f, 0).map_err(|e| (at, e)),
        });
        match pass {
            Ok(true) => {}
            Ok(false) => return false,
            Err((at, e)) => {
                errors.add(path, at, &e);
                return false;
            }
        }
        for (prop, _) in &sort_props {
            keys.push(prop.value(&scope, row).unwrap_or_else(|e| {
                errors.add(path, "sort", &e);
                Value::Null
            }));
        }
        if let Some(prop) = &group_prop {
            group_keys.push(prop.value(&scope, row).unwrap_or_else(|e| {
                errors.add(path, "groupBy", &e);
                Value::Null
            }));
        }
        true
    });

    // Sort (the rows' places): by the keys in turn (rows without a value
    // last, whichever the direction), ties by path — a total order. Only
    // the rows up to the page's end need their places when nothing else
    // reads the rest (summaries, groups).
    let index = cx.index;
    let k = sort_props.len();
    let cmp = |a: &usize, b: &usize| -> Ordering {
        for (j, (_, descending)) in sort_props.iter().enumerate() {
            let order = key_order(&keys[a * k + j], &keys[b * k + j], *descending, index);
            if order != Ordering::Equal {
                return order;
            }
        }
        rows[*a].path(index).cmp(rows[*b].path(index))
    };
    let page = request.offset
        ..request
            .offset
            .saturating_add(request.page.unwrap_or(usize::MAX));
    let total = view.limit.map_or(rows.len(), |limit| limit.min(rows.len()));
    let needed = match view.group_by.is_none() && view.summaries.is_empty() {
        true => page.end.min(total),
        false => total,
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    if k == 0 {
        // By path alone: the index mostly files notes in path order, which
        // a stable sort reads in one pass (a selection would not).
        order.sort_by(cmp);
    } else {
        if needed < order.len() {
            if needed > 0 {
                order.select_nth_unstable_by(needed - 1, cmp);
            }
            order.truncate(needed);
        }
        order.sort_unstable_by(cmp);
    }
    order.truncate(total.min(needed));
    drop(keys);
    let columns: Vec<String> = view
        .order
        .iter()
        .map(|c| column_id(c).to_string())
        .collect();
    let headers: Vec<String> = columns
        .iter()
        .map(|c| base.display.get(c).cloned().unwrap_or_else(|| c.clone()))
        .collect();
    let props: Vec<Prop> = view.order.iter().map(|c| Prop::of(c)).collect();

    let mut table = Table {
        view: view.name.clone(),
        kind: view.kind.clone(),
        columns,
        headers,
        rows: Vec::new(),
        paths: Vec::new(),
        groups: None,
        summaries: Vec::new(),
        total,
        offset: request.offset,
        errors: Vec::new(),
        error_count: 0,
    };
    let cells = |row: &Row, errors: &mut Errors| -> Vec<Value> {
        let scope = Scope::of_row(&env, row.clone());
        props
            .iter()
            .zip(&table.columns)
            .map(|(prop, column)| {
                prop.value(&scope, row).unwrap_or_else(|e| {
                    errors.add(row.path(index), column, &e);
                    Value::Null
                })
            })
            .collect()
    };
    match &view.group_by {
        None => {
            for &at in order.iter().skip(page.start).take(page.len()) {
                table.rows.push(cells(&rows[at], &mut errors));
                table.paths.push(rows[at].path(index).to_string());
            }
            let all: Vec<&Row> = match view.summaries.is_empty() {
                true => Vec::new(),
                false => order.iter().map(|&at| &rows[at]).collect(),
            };
            table.summaries = summaries(base, &view, &env, &all, &mut errors)?;
        }
        Some(key) => {
            // Groups by the key as rendered; rows without one last.
            let mut groups: Vec<(Value, Vec<usize>)> = Vec::new();
            let mut by_text: HashMap<String, usize> = HashMap::new();
            for (i, value) in order.iter().map(|&at| &group_keys[at]).enumerate() {
                let text = if value.is_empty() {
                    "\u{0}null".to_string()
                } else {
                    value.json(index).to_string()
                };
                let at = *by_text.entry(text).or_insert_with(|| {
                    groups.push((value.clone(), Vec::new()));
                    groups.len() - 1
                });
                groups[at].1.push(i);
            }
            groups.sort_by(|a, b| key_order(&a.0, &b.0, key.descending, index));
            let mut out = Vec::new();
            let mut seen = 0usize;
            for (value, members) in groups {
                let rows: Vec<&Row> = members.iter().map(|i| &rows[order[*i]]).collect();
                let mut group = Group {
                    key: if value.is_empty() { Value::Null } else { value },
                    rows: Vec::new(),
                    paths: Vec::new(),
                    summaries: summaries(base, &view, &env, &rows, &mut errors)?,
                    total: rows.len(),
                };
                for row in rows {
                    if page.contains(&seen) {
                        group.rows.push(cells(row, &mut errors));
                        group.paths.push(row.path(index).to_string());
                    }
                    seen += 1;
                }
                out.push(group);
            }
            table.groups = Some(out);
        }
    }
    table.errors = errors.named;
    table.error_count = errors.count;
    Ok(table)
}

/// How two sort keys order: rows without a value last in either direction.
fn key_order(x: &Value, y: &Value, descending: bool, index: &VaultIndex) -> Ordering {
    match (x.is_empty(), y.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => {
            let order = crate::eval::sort_order(x, y, index);
            if descending { order.reverse() } else { order }
        }
    }
}

/// Whether the row of `scope` passes `filter`.
fn passes(scope: &Scope<'_, '_>, filter: &FilterNode, depth: usize) -> Result<bool, EvalError> {
    Ok(match filter {
        FilterNode::Expr(w) => scope.eval(&w.expr, depth)?.truthy(),
        FilterNode::All(items) => {
            for f in items {
                if !passes(scope, f, depth + 1)? {
                    return Ok(false);
                }
            }
            true
        }
        FilterNode::Any(items) => {
            for f in items {
                if passes(scope, f, depth + 1)? {
                    return Ok(true);
                }
            }
            false
        }
        FilterNode::None(items) => {
            for f in items {
                if passes(scope, f, depth + 1)? {
                    return Ok(false);
                }
            }
            true
        }
    })
}

/// The view's summaries over `rows`, in the view's order of them.
fn summaries(
    base: &Base,
    view: &View,
    env: &Env<'_>,
    rows: &[&Row],
    errors: &mut Errors,
) -> Result<Vec<(String, Value)>, RunError> {
    let mut out = Vec::new();
    for (column, name) in &view.summaries {
        let prop = Prop::of(column);
        let values: Vec<Value> = rows
            .iter()
            .map(|row| {
                let scope = Scope::of_row(env, (*row).clone());
                prop.value(&scope, row).unwrap_or_else(|e| {
                    errors.add(row.path(env.index), column, &e);
                    Value::Null
                })
            })
            .collect();
        let value = match summary::built_in(name, &values, env.index) {
            Some(v) => v,
            None => {
                let Some((_, custom)) = base.summaries.iter().find(|(n, _)| n == name) else {
                    return Err(BaseError {
                        at: format!("views.{}.summaries.{column}", view.name),
                        message: format!(
                            "`{name}` is neither a built-in summary ({}) nor one of the base's `summaries`",
                            summary::BUILT_IN.join(", ")
                        ),
                    });
                };
                let scope = Scope::of_values(env, values);
                scope.eval(&custom.expr, 0).map_err(|e| BaseError {
                    at: format!("summaries.{name}"),
                    message: format!(
                        "{} (at {})",
                        e.message,
                        crate::base::pointer(&custom.source, &e.span)
                    ),
                })?
            }
        };
        out.push((column_id(column).to_string(), value));
    }
    Ok(out)
}
