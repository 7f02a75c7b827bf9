//! A parsed query, as data: the expression tree the parser builds and the
//! compiler reads, and the error (what went wrong, how to write it instead)
//! either of them gives.
//!
//! It must not know the query's syntax or tantivy: the tree is the contract
//! between the parser and the compiler, so that each can change without the
//! other and tests can state what a query means.

use weft_vault::filter::Filter;

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
    /// Which notes qualify: a tag, a folder, a property's test, a file
    /// time — THE note filter (`vault::filter`), compiled by
    /// `search::filter`.
    Filter(Filter),
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
    /// The query reads, but holds nothing to search for (only symbols):
    /// no way of reading it would find anything.
    pub nothing_to_search: bool,
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
        nothing_to_search: false,
    }
}

/// A query read as a question: its words, and the filters that stand at
/// its top level (`tag:work status:active budget` → the two filters, and
/// `budget`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Question {
    pub filters: Vec<Filter>,
    /// Words and phrases as written, in order.
    pub words: Vec<String>,
    /// A filter or a word stands under `NOT`, or a filter under `OR`: not
    /// a question's shape (a search is).
    pub not_a_question: bool,
}

impl Expr {
    /// The query as a question (see [`Question`]).
    pub fn question(&self) -> Question {
        let mut out = Question::default();
        let top: &[Expr] = match self {
            Expr::And(items) => items,
            one => std::slice::from_ref(one),
        };
        for item in top {
            match item {
                Expr::Filter(filter) => out.filters.push(filter.clone()),
                other => words(other, &mut out),
            }
        }
        out
    }
}

impl Expr {
    /// The query as one note filter when it holds no words (`tag:a
    /// (folder:b OR status:x) -tag:c`): which notes qualify, without the
    /// full text. `Err` holds the first word or phrase, which only the full
    /// text can judge. Nesting is the parser's, bounded.
    pub fn filter(&self) -> Result<Filter, String> {
        Ok(match self {
            Expr::And(items) => {
                Filter::all_of(items.iter().map(Expr::filter).collect::<Result<_, _>>()?)
            }
            Expr::Or(items) => {
                Filter::any_of(items.iter().map(Expr::filter).collect::<Result<_, _>>()?)
            }
            Expr::Not(inner) => Filter::Not(Box::new(inner.filter()?)),
            Expr::Filter(filter) => filter.clone(),
            Expr::Text { text, phrase, .. } => {
                return Err(if *phrase {
                    format!("\"{text}\"")
                } else {
                    text.clone()
                });
            }
        })
    }
}

fn words(expr: &Expr, out: &mut Question) {
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        match expr {
            Expr::And(items) | Expr::Or(items) => stack.extend(items.iter().rev()),
            Expr::Text { text, .. } => out.words.push(text.clone()),
            Expr::Not(_) | Expr::Filter(_) => out.not_a_question = true,
        }
    }
}
