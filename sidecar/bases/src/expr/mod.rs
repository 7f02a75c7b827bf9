//! The expression language of Bases (shared by filters, formulas and
//! summaries) as a tree with byte ranges into its source: literals, names,
//! `a.b`, `a[b]`, `f(…)`, `a.f(…)`, unary and binary operators with
//! JavaScript's precedence. Parsing is bounded: an expression of more than
//! [`MAX_BYTES`] or nesting deeper than [`MAX_DEPTH`] is an error.
//!
//! Layout: `lex` (tokens), `parse` (the tree); this file the tree and the
//! walk that finds property references (renames use it).

mod lex;
mod parse;

use std::ops::Range;

pub use parse::parse;

/// The longest expression read.
pub const MAX_BYTES: usize = 16 * 1024;
/// How deeply an expression may nest (brackets, calls, operators).
pub const MAX_DEPTH: usize = 64;

/// An expression and where it stands in its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: Kind,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Regex {
        pattern: String,
        flags: String,
    },
    List(Vec<Expr>),
    Object(Vec<(String, Expr)>),
    /// A bare name: a note property, or `file`, `note`, `formula`, `this`,
    /// `values`, or a name a list method binds (`value`, `index`, `acc`).
    Name(String),
    /// `a.name`, with the range of `name`.
    Member(Box<Expr>, String, Range<usize>),
    /// `a[b]`.
    Index(Box<Expr>, Box<Expr>),
    /// `name(args)`: a global function.
    Call(String, Vec<Expr>),
    /// `a.name(args)`: a method, with the range of `name`.
    Method(Box<Expr>, String, Range<usize>, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
    Plus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }
}

/// Why an expression does not read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub message: String,
    pub span: Range<usize>,
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The names a list method binds inside its argument (`filter`, `map`,
/// `reduce`): within those, such a bare name is no property.
pub const BOUND_NAMES: &[&str] = &["value", "index", "acc"];

/// Where an expression names a note property: a bare name (`status`),
/// `note.status`, `note["status"]`, `this.status`, `this.note.status`,
/// `this.note["status"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyRef {
    /// The property's name as written.
    pub name: String,
    /// The range to replace when it is renamed.
    pub span: Range<usize>,
    /// How it is written there.
    pub form: RefForm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefForm {
    /// A bare name or `x.name`: a new name must be an identifier there.
    Name,
    /// A quoted string inside `note[…]`: the span covers the quotes.
    Quoted,
}

impl Expr {
    /// Every node of the expression, itself first, children after their
    /// parent (a walk without recursion).
    pub fn nodes(&self) -> Vec<&Expr> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            out.push(e);
            match &e.kind {
                Kind::Member(object, _, _) => stack.push(object),
                Kind::Index(object, key) => {
                    stack.push(key);
                    stack.push(object);
                }
                Kind::Call(_, args) => stack.extend(args.iter().rev()),
                Kind::Method(object, _, _, args) => {
                    stack.extend(args.iter().rev());
                    stack.push(object);
                }
                Kind::Unary(_, inner) => stack.push(inner),
                Kind::Binary(_, a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Kind::List(items) => stack.extend(items.iter().rev()),
                Kind::Object(entries) => stack.extend(entries.iter().rev().map(|(_, v)| v)),
                Kind::Null
                | Kind::Bool(_)
                | Kind::Number(_)
                | Kind::Str(_)
                | Kind::Regex { .. } => {}
                Kind::Name(_) => {}
            }
        }
        out
    }

    /// The note properties the expression names, in source order. Names
    /// bound by a list method (`value`, `index`, `acc`) and in summaries
    /// (`values`) are not properties where they are bound.
    pub fn property_refs(&self) -> Vec<PropertyRef> {
        let mut out = Vec::new();
        self.collect_refs(&mut out, false, 0);
        out.sort_by_key(|r| r.span.start);
        out
    }

    fn collect_refs(&self, out: &mut Vec<PropertyRef>, in_lambda: bool, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let walk = |e: &Expr, out: &mut Vec<PropertyRef>, lambda: bool| {
            e.collect_refs(out, lambda, depth + 1)
        };
        match &self.kind {
            Kind::Name(name) => {
                let bound = in_lambda && BOUND_NAMES.contains(&name.as_str());
                if !bound && !RESERVED_NAMES.contains(&name.as_str()) {
                    out.push(PropertyRef {
                        name: name.clone(),
                        span: self.span.clone(),
                        form: RefForm::Name,
                    });
                }
            }
            Kind::Member(object, name, span) => match &object.kind {
                Kind::Name(n) if n == "this" && RESERVED_NAMES.contains(&name.as_str()) => {}
                Kind::Name(n) if n == "note" || n == "this" => out.push(PropertyRef {
                    name: name.clone(),
                    span: span.clone(),
                    form: RefForm::Name,
                }),
                Kind::Member(inner, n, _)
                    if n == "note" && matches!(&inner.kind, Kind::Name(t) if t == "this") =>
                {
                    out.push(PropertyRef {
                        name: name.clone(),
                        span: span.clone(),
                        form: RefForm::Name,
                    })
                }
                Kind::Name(_) => {}
                _ => walk(object, out, in_lambda),
            },
            Kind::Index(object, key) => {
                let of_note = match &object.kind {
                    Kind::Name(n) => n == "note" || n == "this",
                    Kind::Member(inner, n, _) => {
                        n == "note" && matches!(&inner.kind, Kind::Name(t) if t == "this")
                    }
                    _ => false,
                };
                match (&key.kind, of_note) {
                    (Kind::Str(name), true) => out.push(PropertyRef {
                        name: name.clone(),
                        span: key.span.clone(),
                        form: RefForm::Quoted,
                    }),
                    _ => {
                        if !matches!(&object.kind, Kind::Name(n) if RESERVED_NAMES.contains(&n.as_str()))
                        {
                            walk(object, out, in_lambda);
                        }
                        walk(key, out, in_lambda);
                    }
                }
            }
            Kind::Call(_, args) => {
                for a in args {
                    walk(a, out, in_lambda);
                }
            }
            Kind::Method(object, name, _, args) => {
                if !matches!(&object.kind, Kind::Name(n) if RESERVED_NAMES.contains(&n.as_str())) {
                    walk(object, out, in_lambda);
                }
                let binds = matches!(name.as_str(), "filter" | "map" | "reduce");
                for a in args {
                    walk(a, out, in_lambda || binds);
                }
            }
            Kind::Unary(_, e) => walk(e, out, in_lambda),
            Kind::Binary(_, a, b) => {
                walk(a, out, in_lambda);
                walk(b, out, in_lambda);
            }
            Kind::List(items) => {
                for e in items {
                    walk(e, out, in_lambda);
                }
            }
            Kind::Object(entries) => {
                for (_, e) in entries {
                    walk(e, out, in_lambda);
                }
            }
            Kind::Null | Kind::Bool(_) | Kind::Number(_) | Kind::Str(_) | Kind::Regex { .. } => {}
        }
    }
}

/// Bare names that are never a note property.
pub const RESERVED_NAMES: &[&str] = &["file", "note", "formula", "this", "values"];

#[cfg(test)]
mod tests;
