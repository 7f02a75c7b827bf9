//! Evaluating an expression for a row of a base: names (note properties
//! typed as the vault types them, `file`, `note`, `formula`, `this`, names
//! a list method binds), members, indexes, operators; the global functions
//! (`call`) and the methods of each type (`methods`). One row's error is
//! an error naming the construct and where it is — never a silent null.
//!
//! Layout: `value` (values, truth, text, JSON, equality and order),
//! `dates` (dates, durations, formats), `call`, `methods`, `file` (the
//! `file.*` fields and methods); this file the walk.

mod call;
pub mod dates;
mod file;
mod methods;
pub mod value;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use chrono::NaiveDateTime;
use serde_json::Value as Json;
use weft_vault::VaultIndex;
use weft_vault::key::name_key;
use weft_vault::parse::wikilink_target;
use weft_vault::props::PropType;

use crate::expr::{BinOp, Expr, Kind, MAX_DEPTH, UnOp};
pub use call::GLOBALS;
pub use dates::Duration;
pub use methods::sort_order;
pub use value::{LinkValue, Row, Value, compare, equal};

/// What the engine knows of a file besides the index: its times (Unix
/// seconds) and size in bytes, when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowMeta {
    pub modified: Option<i64>,
    pub created: Option<i64>,
    pub size: Option<u64>,
}

/// Where the engine asks for what the index does not hold of a file.
pub trait Files {
    fn meta(&self, path: &str) -> RowMeta;
}

/// Why an expression could not be evaluated, and where in its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    pub message: String,
    pub span: Range<usize>,
}

impl EvalError {
    pub fn new(message: impl Into<String>, span: &Range<usize>) -> EvalError {
        EvalError {
            message: message.into(),
            span: span.clone(),
        }
    }
}

pub type Result<T> = std::result::Result<T, EvalError>;

/// Formulas by name, read once per base.
pub type Formulas = HashMap<String, Expr>;

/// What every row of a run shares.
pub struct Env<'a> {
    pub index: &'a VaultIndex,
    pub files: &'a dyn Files,
    /// Now, in the vault's local time.
    pub now: NaiveDateTime,
    /// A Unix time as the vault's local time.
    pub local: &'a dyn Fn(i64) -> NaiveDateTime,
    /// The base file, or the note that embeds the block.
    pub this: Option<Row>,
    pub formulas: &'a Formulas,
    /// Whether the reader may see a row (the agent's access rule): a row
    /// it may not see has no fields or properties here and is no row.
    pub sees: &'a dyn Fn(&Row) -> bool,
    /// Each key's type (declared, else inferred), asked once per run.
    types: RefCell<HashMap<String, Option<PropType>>>,
}

impl<'a> Env<'a> {
    pub fn new(
        index: &'a VaultIndex,
        files: &'a dyn Files,
        now: NaiveDateTime,
        local: &'a dyn Fn(i64) -> NaiveDateTime,
        this: Option<Row>,
        formulas: &'a Formulas,
        sees: &'a dyn Fn(&Row) -> bool,
    ) -> Env<'a> {
        Env {
            index,
            files,
            now,
            local,
            this,
            formulas,
            sees,
            types: RefCell::default(),
        }
    }

    /// `row` when the reader may see it.
    pub fn seen(&self, row: Row) -> Option<Row> {
        (self.sees)(&row).then_some(row)
    }

    fn type_of(&self, key: &str) -> Option<PropType> {
        let k = name_key(key);
        if let Some(t) = self.types.borrow().get(&k) {
            return *t;
        }
        let t = self.index.props().type_of(self.index.types(), key);
        self.types.borrow_mut().insert(k, t);
        t
    }

    /// The property `key` of `row`, typed as the vault types it; null
    /// when the row has none.
    pub fn property(&self, row: &Row, key: &str) -> Value {
        let Row::Note(id) = row else {
            return Value::Null;
        };
        if !(self.sees)(row) {
            return Value::Null;
        }
        let note = self.index.note(*id);
        let wanted = name_key(key);
        let found = note
            .frontmatter
            .as_ref()
            .and_then(|fm| fm.iter().find(|(k, _)| name_key(k) == wanted));
        match found {
            Some((k, v)) => self.typed(v, k, note.folder(), 0),
            None => Value::Null,
        }
    }

    /// Every property of `row` as an object.
    pub fn properties(&self, row: &Row) -> Value {
        let Row::Note(id) = row else {
            return Value::Object(Vec::new());
        };
        if !(self.sees)(row) {
            return Value::Null;
        }
        let note = self.index.note(*id);
        let entries = note
            .frontmatter
            .as_ref()
            .map(|fm| {
                fm.iter()
                    .map(|(k, v)| (k.clone(), self.typed(v, k, note.folder(), 0)))
                    .collect()
            })
            .unwrap_or_default();
        Value::Object(entries)
    }

    /// A frontmatter value as a value of the language: a `[[link]]` is a
    /// link (resolved from `folder`), a date property's text a date, a
    /// number property's text a number.
    fn typed(&self, v: &Json, key: &str, folder: &str, depth: usize) -> Value {
        let ty = self.type_of(key);
        let textual = self
            .index
            .types()
            .fixed(key)
            .is_some_and(PropType::is_textual);
        self.typed_as(v, ty, textual, folder, depth)
    }

    /// [`Env::typed`] with the key's type (declared, else inferred) and
    /// whether it is declared text (then numbers and yes/no are text too).
    fn typed_as(
        &self,
        v: &Json,
        ty: Option<PropType>,
        textual: bool,
        folder: &str,
        depth: usize,
    ) -> Value {
        match v {
            Json::Null => Value::Null,
            // Of a text or list type, every value is text (`types.json`'s
            // word, as the one note filter reads it).
            Json::Bool(_) | Json::Number(_) if textual => Value::Str(v.to_string()),
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => n.as_f64().map_or(Value::Null, Value::Number),
            Json::String(s) => {
                if let Some(target) = wikilink_target(s.trim()) {
                    let display = s
                        .trim()
                        .strip_suffix("]]")
                        .and_then(|inner| inner.split_once('|'))
                        .map(|(_, shown)| shown.to_string());
                    return Value::Link(LinkValue {
                        target: target.to_string(),
                        display,
                        from: folder.to_string(),
                    });
                }
                match ty {
                    Some(PropType::Date | PropType::DateTime) => match dates::parse_date(s) {
                        Some((at, time)) => Value::Date(at, time),
                        None => Value::Str(s.clone()),
                    },
                    Some(PropType::Number) => match s.trim().parse::<f64>() {
                        Ok(n) => Value::Number(n),
                        Err(_) => Value::Str(s.clone()),
                    },
                    Some(PropType::Checkbox) => match s.trim() {
                        "true" => Value::Bool(true),
                        "false" => Value::Bool(false),
                        _ => Value::Str(s.clone()),
                    },
                    _ => Value::Str(s.clone()),
                }
            }
            Json::Array(items) if depth < MAX_DEPTH => Value::List(
                items
                    .iter()
                    .map(|item| self.typed_as(item, ty, textual, folder, depth + 1))
                    .collect(),
            ),
            Json::Object(map) if depth < MAX_DEPTH => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.typed_as(v, None, false, folder, depth + 1)))
                    .collect(),
            ),
            _ => Value::Null,
        }
    }
}

/// One evaluation: the row (none for a summary), the names bound, and the
/// formulas computed for the row so far.
pub struct Scope<'e, 'a> {
    pub env: &'e Env<'a>,
    pub row: Option<Row>,
    bound: RefCell<Vec<(&'static str, Value)>>,
    formulas: RefCell<HashMap<String, Value>>,
    /// The formulas being computed (a cycle the base's check missed is
    /// still an error, not a stack overflow).
    computing: RefCell<Vec<String>>,
}

impl<'e, 'a> Scope<'e, 'a> {
    pub fn of_row(env: &'e Env<'a>, row: Row) -> Self {
        Scope {
            env,
            row: Some(row),
            bound: RefCell::default(),
            formulas: RefCell::default(),
            computing: RefCell::default(),
        }
    }

    /// A summary's scope: no row, `values` bound.
    pub fn of_values(env: &'e Env<'a>, values: Vec<Value>) -> Self {
        Scope {
            env,
            row: None,
            bound: RefCell::new(vec![("values", Value::List(values))]),
            formulas: RefCell::default(),
            computing: RefCell::default(),
        }
    }

    fn index(&self) -> &'a VaultIndex {
        self.env.index
    }

    /// The formula `name` for this row.
    pub fn formula(&self, name: &str, span: &Range<usize>) -> Result<Value> {
        if let Some(v) = self.formulas.borrow().get(name) {
            return Ok(v.clone());
        }
        let Some(expr) = self.env.formulas.get(name) else {
            return Err(EvalError::new(
                format!("there is no formula `{name}` in this base"),
                span,
            ));
        };
        if self.computing.borrow().iter().any(|n| n == name) || self.computing.borrow().len() > 32 {
            return Err(EvalError::new(
                format!("the formula `{name}` depends on itself"),
                span,
            ));
        }
        self.computing.borrow_mut().push(name.to_string());
        let value = self.eval(expr, 0);
        self.computing.borrow_mut().pop();
        let value = value.map_err(|e| EvalError {
            message: format!("in the formula `{name}`: {}", e.message),
            span: span.clone(),
        })?;
        self.formulas
            .borrow_mut()
            .insert(name.to_string(), value.clone());
        Ok(value)
    }

    /// The field `name` of the file `row` (`file.name`).
    pub fn file_field(&self, row: &Row, name: &str, span: &Range<usize>) -> Result<Value> {
        file::field(self.env, row, name, span)
    }

    /// Evaluates `e` with `names` bound (a list method's `value`, `index`,
    /// `acc`).
    fn eval_bound(
        &self,
        e: &Expr,
        names: Vec<(&'static str, Value)>,
        depth: usize,
    ) -> Result<Value> {
        let before = self.bound.borrow().len();
        self.bound.borrow_mut().extend(names);
        let out = self.eval(e, depth);
        self.bound.borrow_mut().truncate(before);
        out
    }

    fn bound(&self, name: &str) -> Option<Value> {
        self.bound
            .borrow()
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    }

    pub fn eval(&self, e: &Expr, depth: usize) -> Result<Value> {
        if depth > MAX_DEPTH * 2 {
            return Err(EvalError::new("the expression nests too deeply", &e.span));
        }
        let d = depth + 1;
        match &e.kind {
            Kind::Null => Ok(Value::Null),
            Kind::Bool(b) => Ok(Value::Bool(*b)),
            Kind::Number(n) => Ok(Value::Number(*n)),
            Kind::Str(s) => Ok(Value::Str(s.clone())),
            Kind::Regex { pattern, flags } => regex(pattern, flags, &e.span),
            Kind::List(items) => Ok(Value::List(
                items
                    .iter()
                    .map(|i| self.eval(i, d))
                    .collect::<Result<_>>()?,
            )),
            Kind::Object(entries) => Ok(Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval(v, d)?)))
                    .collect::<Result<_>>()?,
            )),
            Kind::Name(name) => self.name(name, &e.span),
            Kind::Member(object, name, span) => self.member(object, name, span, d),
            Kind::Index(object, key) => {
                let object = self.eval(object, d)?;
                let key = self.eval(key, d)?;
                Ok(index_of(&object, &key))
            }
            Kind::Call(name, args) => call::call(self, name, args, &e.span, d),
            Kind::Method(object, name, span, args) => {
                methods::method(self, object, name, span, args, d)
            }
            Kind::Unary(op, inner) => {
                let v = self.eval(inner, d)?;
                Ok(match op {
                    UnOp::Not => Value::Bool(!v.truthy()),
                    UnOp::Neg => match v {
                        Value::Duration(dur) => Value::Duration(dur.negated()),
                        other => Value::Number(-other.as_number().unwrap_or(f64::NAN)),
                    },
                    UnOp::Plus => Value::Number(v.as_number().unwrap_or(f64::NAN)),
                })
            }
            Kind::Binary(op, a, b) => self.binary(*op, a, b, d),
        }
    }

    fn name(&self, name: &str, span: &Range<usize>) -> Result<Value> {
        if let Some(v) = self.bound(name) {
            return Ok(v);
        }
        match name {
            "file" => self.row_or_null(|row| Value::File(row.clone())),
            "note" => self.row_or_null(|row| self.env.properties(row)),
            "this" => Ok(self.env.this.clone().map_or(Value::Null, Value::File)),
            "formula" => Err(EvalError::new(
                "`formula` needs a formula's name: `formula.name`",
                span,
            )),
            _ => self.row_or_null(|row| self.env.property(row, name)),
        }
    }

    fn row_or_null(&self, f: impl FnOnce(&Row) -> Value) -> Result<Value> {
        Ok(self.row.as_ref().map_or(Value::Null, f))
    }

    fn member(&self, object: &Expr, name: &str, span: &Range<usize>, d: usize) -> Result<Value> {
        if let Kind::Name(base) = &object.kind
            && self.bound(base).is_none()
        {
            match base.as_str() {
                "note" => return self.row_or_null(|row| self.env.property(row, name)),
                "formula" => return self.formula(name, span),
                "this" => {
                    let Some(this) = &self.env.this else {
                        return Ok(Value::Null);
                    };
                    return Ok(match name {
                        "file" => Value::File(this.clone()),
                        "note" => self.env.properties(this),
                        _ => self.env.property(this, name),
                    });
                }
                _ => {}
            }
        }
        let value = self.eval(object, d)?;
        member_of(self, &value, name, span)
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, d: usize) -> Result<Value> {
        // `&&` and `||` give yes/no and look at the right only when needed.
        match op {
            BinOp::And => {
                return Ok(Value::Bool(
                    self.eval(a, d)?.truthy() && self.eval(b, d)?.truthy(),
                ));
            }
            BinOp::Or => {
                return Ok(Value::Bool(
                    self.eval(a, d)?.truthy() || self.eval(b, d)?.truthy(),
                ));
            }
            _ => {}
        }
        let (x, y) = (self.eval(a, d)?, self.eval(b, d)?);
        let index = self.index();
        let ordered = |want: fn(std::cmp::Ordering) -> bool| {
            Value::Bool(compare(&x, &y, index).is_some_and(want))
        };
        Ok(match op {
            BinOp::Eq => Value::Bool(equal(&x, &y, index)),
            BinOp::Ne => Value::Bool(!equal(&x, &y, index)),
            BinOp::Lt => ordered(|o| o.is_lt()),
            BinOp::Le => ordered(|o| o.is_le()),
            BinOp::Gt => ordered(|o| o.is_gt()),
            BinOp::Ge => ordered(|o| o.is_ge()),
            BinOp::Add => add(&x, &y, index),
            BinOp::Sub => subtract(&x, &y),
            BinOp::Mul => match (&x, &y) {
                (Value::Duration(dur), other) => {
                    Value::Duration(dur.times(other.as_number().unwrap_or(f64::NAN)))
                }
                _ => arithmetic(&x, &y, |p, q| p * q),
            },
            BinOp::Div => arithmetic(&x, &y, |p, q| p / q),
            BinOp::Rem => arithmetic(&x, &y, |p, q| p % q),
            BinOp::And | BinOp::Or => unreachable!("handled above"),
        })
    }
}

fn arithmetic(x: &Value, y: &Value, f: fn(f64, f64) -> f64) -> Value {
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
fn add(x: &Value, y: &Value, index: &VaultIndex) -> Value {
    match (x, y) {
        (Value::Date(at, time), other) | (other, Value::Date(at, time)) => {
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
fn subtract(x: &Value, y: &Value) -> Value {
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
fn index_of(object: &Value, key: &Value) -> Value {
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

/// `value.name`: a field of a date, duration, text or list, an object's
/// entry, a file's field.
fn member_of(
    scope: &Scope<'_, '_>,
    value: &Value,
    name: &str,
    span: &Range<usize>,
) -> Result<Value> {
    Ok(match value {
        Value::Null => Value::Null,
        Value::Object(entries) => entries
            .iter()
            .find(|(k, _)| k == name)
            .map_or(Value::Null, |(_, v)| v.clone()),
        Value::File(row) => file::field(scope.env, row, name, span)?,
        Value::Link(link) => match value::link_place(scope.index(), link) {
            value::Place::Row(row) => file::field(scope.env, &row, name, span)?,
            value::Place::Unresolved(_) => Value::Null,
        },
        Value::Date(at, _) => match dates::field(at, name) {
            Some(n) => Value::Number(n),
            None => return Err(no_field(value, name, span)),
        },
        Value::Duration(d) => match d.field(name) {
            Some(n) => Value::Number(n),
            None => return Err(no_field(value, name, span)),
        },
        Value::Str(s) if name == "length" => Value::Number(s.chars().count() as f64),
        Value::List(items) if name == "length" => Value::Number(items.len() as f64),
        _ => return Err(no_field(value, name, span)),
    })
}

fn no_field(value: &Value, name: &str, span: &Range<usize>) -> EvalError {
    EvalError::new(
        format!("a {} has no field `{name}`", value.type_name()),
        span,
    )
}

/// A regular expression literal: JavaScript's flags `g` (every match:
/// `replace` replaces all anyway), `i`, `m`, `s`, `u`; the pattern as the
/// `regex` crate reads it (no look-around or back-references: named in the
/// error).
fn regex(pattern: &str, flags: &str, span: &Range<usize>) -> Result<Value> {
    let mut builder = regex::RegexBuilder::new(pattern);
    builder.size_limit(1 << 20).nest_limit(64);
    for flag in flags.chars() {
        match flag {
            'i' => {
                builder.case_insensitive(true);
            }
            'm' => {
                builder.multi_line(true);
            }
            's' => {
                builder.dot_matches_new_line(true);
            }
            'g' | 'u' => {}
            other => {
                return Err(EvalError::new(
                    format!(
                        "the regular expression flag `{other}` is not supported (g, i, m, s, u are)"
                    ),
                    span,
                ));
            }
        }
    }
    let global = flags.contains('g');
    builder
        .build()
        .map(|re| Value::Regex(Arc::new(value::Pattern { re, global })))
        .map_err(|e| {
            EvalError::new(
                format!("the regular expression /{pattern}/ is not supported: {e}"),
                span,
            )
        })
}
