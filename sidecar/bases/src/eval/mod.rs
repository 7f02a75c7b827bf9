//! Evaluating an expression for a row of a base: names (note properties
//! typed as the vault types them, `file`, `note`, `formula`, `this`, names
//! a list method binds), members, indexes, operators; the global functions
//! (`call`) and the methods of each type (`methods`). One row's error is
//! an error naming the construct and where it is — never a silent null.
//!
//! Layout: `env` (what a run shares; properties typed), `value` (values,
//! truth, text, JSON, equality and order), `dates` (dates, durations,
//! formats), `ops` (operators), `call`, `methods`, `file` (the `file.*`
//! fields and methods) — each over values already computed; this file the
//! walk, and what must evaluate lazily (`if`, a list method's expression).

mod call;
pub mod dates;
mod env;
mod file;
mod methods;
mod ops;
pub mod value;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use weft_vault::VaultIndex;

use crate::expr::{BinOp, Expr, Kind, MAX_DEPTH, UnOp};
pub use call::GLOBALS;
pub use dates::Duration;
pub use env::{Env, EvalError, Files, Formulas, Result, RowMeta};
pub use methods::sort_order;
pub use value::{LinkValue, Row, Value, compare, equal};

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
            Kind::Regex { pattern, flags } => ops::regex(pattern, flags, &e.span),
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
            // `formula["Type icon"]`, `note["my key"]`: a name in a string.
            Kind::Index(object, key)
                if matches!(&object.kind, Kind::Name(n) if (n == "formula" || n == "note") && self.bound(n).is_none())
                    && matches!(key.kind, Kind::Str(_)) =>
            {
                let (Kind::Name(base), Kind::Str(name)) = (&object.kind, &key.kind) else {
                    unreachable!("matched above")
                };
                match base.as_str() {
                    "formula" => self.formula(name, &key.span),
                    _ => self.row_or_null(|row| self.env.property(row, name)),
                }
            }
            Kind::Index(object, key) => {
                let object = self.eval(object, d)?;
                let key = self.eval(key, d)?;
                Ok(ops::index_of(&object, &key))
            }
            Kind::Call(name, args) if name == "if" => self.if_(args, &e.span, d),
            Kind::Call(name, args) => {
                let values = self.eval_all(args, d)?;
                call::call(self.env, name, &values, &e.span)
            }
            Kind::Method(object, name, span, args) => {
                let this = self.eval(object, d)?;
                // The list methods that take an expression evaluate it per item.
                if let Value::List(items) = &this
                    && matches!(name.as_str(), "filter" | "map" | "reduce" | "sort")
                    && !(name == "sort" && args.is_empty())
                {
                    return self.lambda(items, name, args, span, d);
                }
                let values = self.eval_all(args, d)?;
                methods::method(self.env, &this, name, &values, span)
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

    fn eval_all(&self, args: &[Expr], d: usize) -> Result<Vec<Value>> {
        args.iter().map(|a| self.eval(a, d)).collect()
    }

    /// `if(condition, then, else?)`: only the branch taken is evaluated.
    fn if_(&self, args: &[Expr], span: &Range<usize>, d: usize) -> Result<Value> {
        let [cond, rest @ ..] = args else {
            return Err(EvalError::new(
                "if(condition, then, else?) needs a condition",
                span,
            ));
        };
        if rest.is_empty() || rest.len() > 2 {
            return Err(EvalError::new(
                "if(condition, then, else?) takes two or three values",
                span,
            ));
        }
        match (self.eval(cond, d)?.truthy(), rest) {
            (true, [then, ..]) => self.eval(then, d),
            (false, [_, otherwise]) => self.eval(otherwise, d),
            _ => Ok(Value::Null),
        }
    }

    /// `list.filter(expr)`, `map(expr)`, `reduce(expr, init)`,
    /// `sort(expr)`: the expression evaluated per item with `value` and
    /// `index` (and `acc`) bound.
    fn lambda(
        &self,
        list: &[Value],
        name: &str,
        args: &[Expr],
        span: &Range<usize>,
        d: usize,
    ) -> Result<Value> {
        let Some(body) = args.first() else {
            return Err(EvalError::new(
                format!("{name}(…) needs an expression over `value` and `index`"),
                span,
            ));
        };
        let bind =
            |i: usize, v: &Value| vec![("value", v.clone()), ("index", Value::Number(i as f64))];
        match name {
            "filter" => {
                let mut out = Vec::new();
                for (i, v) in list.iter().enumerate() {
                    if self.eval_bound(body, bind(i, v), d)?.truthy() {
                        out.push(v.clone());
                    }
                }
                Ok(Value::List(out))
            }
            "map" => Ok(Value::List(
                list.iter()
                    .enumerate()
                    .map(|(i, v)| self.eval_bound(body, bind(i, v), d))
                    .collect::<Result<_>>()?,
            )),
            "sort" => {
                let mut keyed: Vec<(Value, Value)> = list
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Ok((self.eval_bound(body, bind(i, v), d)?, v.clone())))
                    .collect::<Result<_>>()?;
                keyed.sort_by(|a, b| sort_order(&a.0, &b.0, self.env.index));
                Ok(Value::List(keyed.into_iter().map(|(_, v)| v).collect()))
            }
            _ => {
                let mut acc = match args.get(1) {
                    Some(init) => self.eval(init, d)?,
                    None => Value::Null,
                };
                for (i, v) in list.iter().enumerate() {
                    let mut names = bind(i, v);
                    names.push(("acc", acc));
                    acc = self.eval_bound(body, names, d)?;
                }
                Ok(acc)
            }
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
            BinOp::Add => ops::add(&x, &y, index),
            BinOp::Sub => ops::subtract(&x, &y),
            BinOp::Mul => match (&x, &y) {
                (Value::Duration(dur), other) => {
                    Value::Duration(dur.times(other.as_number().unwrap_or(f64::NAN)))
                }
                _ => ops::arithmetic(&x, &y, |p, q| p * q),
            },
            BinOp::Div => ops::arithmetic(&x, &y, |p, q| p / q),
            BinOp::Rem => ops::arithmetic(&x, &y, |p, q| p % q),
            BinOp::And | BinOp::Or => unreachable!("handled above"),
        })
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
