//! THE note filter (`vault::filter`) compiled into a tantivy query: one
//! compilation for the structured filters of every tool and the filter
//! parts of the query language.
//!
//! What the full text holds exactly (folders, tags, a property's presence,
//! file times, paths) it answers itself; for the rest (a property's value,
//! which compares by type and by where a `[[link]]` leads; links; names;
//! sizes) the compiled query is a superset — the notes that *may* pass —
//! and the caller's [`Judge`], the vault index's own evaluation of the
//! same filter, decides each candidate. One rule, never a second
//! implementation of it here.
//!
//! Must not know the vault index's locking or any protocol.

use std::collections::BTreeSet;
use std::ops::Bound;

use tantivy::collector::DocSetCollector;
use tantivy::query::TermQuery;
use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, Query, RangeQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use super::index::{LINKED, tag_key, typed_term};
use super::schema::Fields;
use weft_vault::filter::{Filter, Test, TimeRange, Value};
use weft_vault::key::name_key;

/// The vault index's answer for a note the full text cannot decide: whether
/// the note at this path (as indexed) passes this filter.
pub type Judge<'a> = &'a dyn Fn(&str, &Filter) -> bool;

/// A filter as a tantivy query.
pub(crate) struct Compiled {
    pub query: Box<dyn Query>,
    /// Whether the query selects exactly the notes the filter does (else a
    /// superset of them).
    pub exact: bool,
}

impl Compiled {
    fn exact(query: Box<dyn Query>) -> Compiled {
        Compiled { query, exact: true }
    }

    /// Every note may pass: the judge decides.
    fn open() -> Compiled {
        Compiled {
            query: Box::new(AllQuery),
            exact: false,
        }
    }
}

/// Compiles `filter`. Nesting is bounded by [`Filter::check`], which the
/// caller has run (`vault::filter::MAX_DEPTH`).
pub(crate) fn compile(fields: &Fields, filter: &Filter) -> Compiled {
    match filter {
        Filter::All => Compiled::exact(Box::new(AllQuery)),
        Filter::And(items) => {
            let mut must: Vec<Box<dyn Query>> = Vec::new();
            let mut must_not: Vec<Box<dyn Query>> = Vec::new();
            let mut exact = true;
            for item in items {
                match item {
                    Filter::Not(inner) => {
                        let c = compile(fields, inner);
                        if c.exact {
                            must_not.push(c.query);
                        } else {
                            // Excluding a superset would exclude too much.
                            exact = false;
                        }
                    }
                    other => {
                        let c = compile(fields, other);
                        exact &= c.exact;
                        must.push(c.query);
                    }
                }
            }
            Compiled {
                query: all_but(must, must_not),
                exact,
            }
        }
        Filter::Or(items) => {
            if items.is_empty() {
                return Compiled::exact(Box::new(EmptyQuery));
            }
            let mut exact = true;
            let should = items
                .iter()
                .map(|item| {
                    let c = compile(fields, item);
                    exact &= c.exact;
                    (Occur::Should, c.query)
                })
                .collect();
            Compiled {
                query: Box::new(BooleanQuery::new(should)),
                exact,
            }
        }
        Filter::Not(inner) => {
            let c = compile(fields, inner);
            if c.exact {
                Compiled::exact(all_but(Vec::new(), vec![c.query]))
            } else {
                Compiled::open()
            }
        }
        Filter::Folder(folder) if folder.is_root() => Compiled::exact(Box::new(AllQuery)),
        Filter::Folder(folder) => Compiled::exact(keyword(fields.folders, folder.key())),
        Filter::Tag(tag) => {
            let key = tag_key(tag);
            if key.is_empty() {
                // No tag is named so; the vault index says the same.
                Compiled::exact(Box::new(EmptyQuery))
            } else {
                Compiled::exact(keyword(fields.tags, &key))
            }
        }
        Filter::Property(key, test) => {
            let key = name_key(key);
            let query = match test {
                // Only the same text (as names compare) or a `[[link]]`,
                // which may lead where the text does, equals a text: the
                // candidates need not be every note with the key. (A value
                // of more than 200 characters has no value term,
                // `index::property_values`; 64 leaves room for a value
                // written in another Unicode form, up to three times longer.)
                Test::Equals(Value::Text(text)) if text.trim().chars().count() <= 64 => {
                    Box::new(BooleanQuery::new(vec![
                        (
                            Occur::Should,
                            keyword(
                                fields.properties,
                                &format!("{key}={}", name_key(text.trim())),
                            ),
                        ),
                        (
                            Occur::Should,
                            keyword(fields.properties, &format!("{key}{LINKED}")),
                        ),
                    ]))
                }
                // A number, a date or yes/no equals only one of its kind
                // with the same value: the notes with its typed term.
                Test::Equals(want) => match typed_term(&key, want) {
                    Some(term) => keyword(fields.properties, &term),
                    None => keyword(fields.properties, &key),
                },
                _ => keyword(fields.properties, &key),
            };
            Compiled {
                query,
                // The full text holds which keys a note has, also nested
                // ones (`a.b`), which the vault index does not read as
                // keys: a dotted key is the judge's.
                exact: *test == Test::Exists && !key.contains('.'),
            }
        }
        Filter::Modified(range) => Compiled::exact(times(fields.modified, range)),
        Filter::Created(range) => Compiled::exact(times(fields.created, range)),
        Filter::Paths(paths) => Compiled::exact(if paths.is_empty() {
            Box::new(EmptyQuery)
        } else {
            Box::new(TermSetQuery::new(
                paths.iter().map(|p| Term::from_field_text(fields.path, p)),
            ))
        }),
        Filter::LinksTo(_) | Filter::LinkedFrom(_) | Filter::Name(_) | Filter::Size(_) => {
            Compiled::open()
        }
    }
}

/// `must` and not `must_not`, every note standing in for an empty `must`
/// (tantivy matches nothing for a purely negative boolean query).
fn all_but(mut must: Vec<Box<dyn Query>>, must_not: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    if must_not.is_empty() && must.len() == 1 {
        return must.pop().expect("one clause");
    }
    if must.is_empty() {
        must.push(Box::new(AllQuery));
    }
    Box::new(BooleanQuery::new(
        must.into_iter()
            .map(|q| (Occur::Must, q))
            .chain(must_not.into_iter().map(|q| (Occur::MustNot, q)))
            .collect(),
    ))
}

fn times(field: Field, range: &TimeRange) -> Box<dyn Query> {
    let term = |v: i64| Term::from_field_i64(field, v);
    let lo = Bound::Included(term(range.from.unwrap_or(i64::MIN)));
    let hi = match range.to {
        Some(to) => Bound::Excluded(term(to)),
        None => Bound::Included(term(i64::MAX)),
    };
    Box::new(RangeQuery::new(lo, hi))
}

/// The part of `filter` the judge must decide for a candidate of its
/// compiled query: the whole of it, less the items of a top-level `and`
/// the full text answers exactly.
fn residue(fields: &Fields, filter: &Filter) -> Filter {
    match filter {
        Filter::And(items) => Filter::all_of(
            items
                .iter()
                .filter(|item| !compile(fields, item).exact)
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `filter` as one the full text answers exactly: itself when it does, else
/// the paths of its compiled query's candidates that the judge passes.
pub(crate) fn settle(
    fields: &Fields,
    searcher: &Searcher,
    filter: &Filter,
    judge: Judge<'_>,
) -> tantivy::Result<Filter> {
    let compiled = compile(fields, filter);
    if compiled.exact {
        return Ok(filter.clone());
    }
    let residue = residue(fields, filter);
    let mut passed = BTreeSet::new();
    for path in paths(fields, searcher, &*compiled.query)? {
        if judge(&path, &residue) {
            passed.insert(path.into_boxed_str());
        }
    }
    Ok(Filter::Paths(passed))
}

/// The paths of every note `query` matches.
fn paths(fields: &Fields, searcher: &Searcher, query: &dyn Query) -> tantivy::Result<Vec<String>> {
    let found = searcher.search(query, &DocSetCollector)?;
    let mut by_segment: Vec<Vec<u32>> = vec![Vec::new(); searcher.segment_readers().len()];
    for address in found {
        by_segment[address.segment_ord as usize].push(address.doc_id);
    }
    let name = searcher.schema().get_field_name(fields.path).to_string();
    let mut out = Vec::new();
    for (segment, docs) in by_segment.into_iter().enumerate() {
        if docs.is_empty() {
            continue;
        }
        let reader = searcher.segment_reader(segment as u32);
        let Some(column) = reader.fast_fields().str(&name)? else {
            continue;
        };
        let mut text = String::new();
        for doc in docs {
            for ord in column.term_ords(doc) {
                text.clear();
                if column.ord_to_str(ord, &mut text)? {
                    out.push(text.clone());
                }
            }
        }
    }
    Ok(out)
}

/// A keyword field's term.
pub(crate) fn keyword(field: Field, key: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, key),
        IndexRecordOption::Basic,
    ))
}
