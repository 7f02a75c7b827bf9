//! An [`Expr`] compiled into tantivy queries over the index's [`Fields`]:
//! text over weighted fields (title, aliases, path, frontmatter, body),
//! tags, folders, properties and date ranges, with negation rewritten as a
//! `MustNot` clause next to the positive ones (tantivy 0.27 matches nothing
//! for a negative-only clause).
//!
//! It must not read the query's text: it compiles the parsed tree only, so
//! the syntax and its errors stay in the parser.

use tantivy::Term;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use super::expr::{Expr, Target};
use crate::filter::keyword;
use crate::index::{path_prefixes, tag_key};
use crate::schema::{Fields, terms};
use weft_vault::key::path_key;

/// Compiles expressions into tantivy queries over [`Fields`].
pub struct Compiler<'a> {
    pub fields: &'a Fields,
}

impl Compiler<'_> {
    /// The query for an expression; `None` when it constrains nothing (a
    /// word with no searchable characters, `key:*` on a missing key …).
    pub fn compile(&self, expr: &Expr) -> Option<Box<dyn Query>> {
        match expr {
            Expr::And(items) => {
                let mut must: Vec<Box<dyn Query>> = Vec::new();
                let mut must_not: Vec<Box<dyn Query>> = Vec::new();
                for item in items {
                    match item {
                        Expr::Not(inner) => must_not.extend(self.compile(inner)),
                        other => must.extend(self.compile(other)),
                    }
                }
                boolean(must, must_not)
            }
            Expr::Or(items) => {
                let mut should: Vec<Box<dyn Query>> =
                    items.iter().filter_map(|item| self.compile(item)).collect();
                match should.len() {
                    0 => None,
                    1 => should.pop(),
                    _ => Some(Box::new(BooleanQuery::new(
                        should.into_iter().map(|q| (Occur::Should, q)).collect(),
                    ))),
                }
            }
            Expr::Not(inner) => boolean(Vec::new(), self.compile(inner).into_iter().collect()),
            Expr::Text {
                target,
                text,
                phrase,
            } => self.text(*target, text, *phrase),
            // Settled by the caller first when the full text cannot answer
            // it exactly (`search::filter::settle`).
            Expr::Filter(filter) => Some(crate::filter::compile(self.fields, filter).query),
        }
    }

    fn text(&self, target: Target, text: &str, phrase: bool) -> Option<Box<dyn Query>> {
        let f = self.fields;
        let weighted: &[(Field, f32)] = match target {
            Target::Default => &[
                (f.title, 3.0),
                (f.aliases, 2.5),
                (f.path_text, 1.5),
                (f.frontmatter, 1.0),
                (f.body, 1.0),
            ],
            Target::Title => &[(f.title, 1.0)],
            Target::Aliases => &[(f.aliases, 1.0)],
            Target::Body => &[(f.body, 1.0)],
            Target::File => &[(f.path_text, 1.0)],
        };
        let tokens = terms(text);
        if tokens.is_empty() {
            return None;
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = weighted
            .iter()
            .map(|&(field, boost)| {
                let q = words(field, &tokens);
                let q: Box<dyn Query> = if boost == 1.0 {
                    q
                } else {
                    Box::new(BoostQuery::new(q, boost))
                };
                (Occur::Should, q)
            })
            .collect();
        if target == Target::Default && !phrase && tokens.len() == 1 {
            // A word may also be a tag written in frontmatter.
            let key = tag_key(text);
            if !key.is_empty() && !key.contains(char::is_whitespace) {
                should.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(keyword(f.tags, &key), 2.0)),
                ));
            }
        }
        if should.len() == 1 {
            return should.pop().map(|(_, q)| q);
        }
        Some(Box::new(BooleanQuery::new(should)))
    }
}

/// One word (a term) or several (a phrase) in a text field.
fn words(field: Field, tokens: &[String]) -> Box<dyn Query> {
    if tokens.len() == 1 {
        return Box::new(TermQuery::new(
            Term::from_field_text(field, &tokens[0]),
            IndexRecordOption::WithFreqs,
        ));
    }
    Box::new(PhraseQuery::new(
        tokens
            .iter()
            .map(|t| Term::from_field_text(field, t))
            .collect(),
    ))
}

/// `must` AND NOT `must_not`; an all-documents clause stands in for an
/// empty `must` (a purely negative boolean query matches nothing).
pub(crate) fn boolean(
    mut must: Vec<Box<dyn Query>>,
    must_not: Vec<Box<dyn Query>>,
) -> Option<Box<dyn Query>> {
    if must.is_empty() && must_not.is_empty() {
        return None;
    }
    if must_not.is_empty() && must.len() == 1 {
        return must.pop();
    }
    if must.is_empty() {
        must.push(Box::new(AllQuery));
    }
    let clauses = must
        .into_iter()
        .map(|q| (Occur::Must, q))
        .chain(must_not.into_iter().map(|q| (Occur::MustNot, q)))
        .collect();
    Some(Box::new(BooleanQuery::new(clauses)))
}

/// The folders (and own key) a note path is filed under; re-exported for
/// callers building path filters.
pub fn folder_terms(path: &str) -> Vec<String> {
    path_prefixes(&path_key(path))
        .into_iter()
        .map(str::to_string)
        .collect()
}
