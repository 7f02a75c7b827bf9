//! A parsed query, as data: the expression tree the parser builds and the
//! compiler reads, and the error (what went wrong, how to write it instead)
//! either of them gives.
//!
//! It must not know the query's syntax or tantivy: the tree is the contract
//! between the parser and the compiler, so that each can change without the
//! other and tests can state what a query means.

use std::ops::Bound;

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Text {
        target: Target,
        text: String,
        phrase: bool,
    },
    Tag(String),
    /// A folder or note path prefix.
    Path(String),
    /// A frontmatter key, with a value or (None) just present.
    Property {
        key: String,
        value: Option<String>,
    },
    Range {
        field: DateField,
        lo: Bound<i64>,
        hi: Bound<i64>,
    },
}

/// Where free text is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Title, aliases, tags, path, frontmatter values and body.
    Default,
    Title,
    Aliases,
    Body,
    /// The note's path and file name.
    File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateField {
    Modified,
    Created,
}

/// Why a query could not be read, and how to write it instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    pub message: String,
    pub hint: String,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.message, self.hint)
    }
}

pub(super) fn error(message: impl Into<String>, hint: impl Into<String>) -> QueryError {
    QueryError {
        message: message.into(),
        hint: hint.into(),
    }
}
