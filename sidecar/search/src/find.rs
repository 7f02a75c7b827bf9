//! Running a search: a query and a note filter combined into one
//! tantivy query, counted, sorted, paged, with snippets marking the match.
//!
//! Which notes qualify is THE note filter (`vault::filter`), compiled by
//! `filter`; the query's own filter parts join it. Must not know the vault
//! index's locking or any protocol: what the full text cannot answer, the
//! caller's judge does.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{AllQuery, Query};
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Order, Searcher, TantivyDocument};

use super::clock::Now;
use super::filter::{Judge, settle};
use super::index::{FileSource, SearchError, SearchIndex, body_start};
use super::query::{Compiler, Context, Expr, QueryError, boolean, parse};
use super::schema::{Fields, terms};
use weft_vault::filter::Filter;
use weft_vault::props::Types;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Sort {
    /// Best match first (newest first when nothing is scored).
    #[default]
    Relevance,
    /// Newest first.
    Modified,
    Created,
    /// By path.
    Alpha,
}

pub struct Request<'a> {
    /// The query text; `None` or blank to use only the filter.
    pub query: Option<&'a str>,
    /// Which notes qualify (THE note filter, `vault::filter`; the access
    /// rule included): the query's own filter parts join it.
    pub filter: &'a Filter,
    /// The vault index's say on what the full text cannot answer itself.
    pub judge: Judge<'a>,
    /// The frontmatter keys a query may name (those of the notes the
    /// caller may see, as written): `key:` fields and "did you mean" come
    /// from these.
    pub keys: &'a [String],
    /// The property types the vault declares (`VaultIndex::types`): how
    /// the query's property literals are typed.
    pub types: &'a Types,
    pub sort: Sort,
    pub offset: usize,
    pub limit: usize,
    /// Snippet length in characters; 0 for none.
    pub snippet_chars: usize,
    /// The moment and zone `now`, `today` and dates in the query are read at.
    pub now: Now,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Vault path as indexed (`a/b.md`).
    pub path: String,
    pub score: f32,
    /// A short extract with matches marked `**like this**`.
    pub snippet: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub hits: Vec<Hit>,
    /// Notes matching in all.
    pub total: usize,
}

/// Why a search could not run.
#[derive(Debug)]
pub enum FindError {
    /// The query does not parse; the caller's to fix.
    Query(QueryError),
    Internal(SearchError),
}

impl From<QueryError> for FindError {
    fn from(e: QueryError) -> Self {
        FindError::Query(e)
    }
}

impl From<SearchError> for FindError {
    fn from(e: SearchError) -> Self {
        FindError::Internal(e)
    }
}

impl From<tantivy::TantivyError> for FindError {
    fn from(e: tantivy::TantivyError) -> Self {
        FindError::Internal(e.into())
    }
}

impl SearchIndex {
    /// Parses `query` in `context` (the moment, the frontmatter keys the
    /// caller may name and their declared types). A query that constrains nothing (only symbols, such as
    /// `- [ ]` or `???`, which no note's words hold) is an error that says
    /// so, not every note in no order.
    pub fn parse_query(&self, query: &str, context: &Context<'_>) -> Result<Expr, QueryError> {
        let expr = parse(query, context)?;
        if !constrains(&expr) {
            return Err(QueryError {
                message: format!(
                    "`{}` has nothing to search for: the full text holds words (letters and digits), not symbols or punctuation.",
                    query.trim()
                ),
                hint: "Search for a word, or use a filter: tag:x, folder:x, a property such as status:active or due:<2026-12-31.".into(),
                nothing_to_search: true,
            });
        }
        Ok(expr)
    }

    /// The tantivy query of a parsed query and a filter, settled so that the
    /// full text answers all of it exactly (`filter::settle`).
    fn settled_query(
        &self,
        searcher: &Searcher,
        expr: Option<&Expr>,
        filter: &Filter,
        judge: Judge<'_>,
    ) -> Result<Box<dyn Query>, FindError> {
        filter.check().map_err(|e| {
            FindError::Query(QueryError {
                message: format!("{e}."),
                hint: String::new(),
                nothing_to_search: false,
            })
        })?;
        let f = &self.fields;
        // The query's filter parts at its top level join the filter: judged
        // together, on the candidates of everything else.
        let mut all = vec![filter.clone()];
        let mut text = Vec::new();
        match expr {
            Some(Expr::And(items)) => {
                for item in items {
                    match item {
                        Expr::Filter(part) => all.push(part.clone()),
                        other => text.push(settle_expr(f, searcher, other, judge)?),
                    }
                }
            }
            Some(Expr::Filter(part)) => all.push(part.clone()),
            Some(other) => text.push(settle_expr(f, searcher, other, judge)?),
            None => {}
        }
        let combined = settle(f, searcher, &Filter::all_of(all), judge)?;
        let compiler = Compiler { fields: f };
        let mut must: Vec<Box<dyn Query>> = Vec::new();
        let mut must_not: Vec<Box<dyn Query>> = Vec::new();
        for part in &text {
            match part {
                Expr::Not(inner) => must_not.extend(compiler.compile(inner)),
                other => must.extend(compiler.compile(other)),
            }
        }
        if !combined.is_all() {
            must.push(crate::filter::compile(f, &combined).query);
        }
        Ok(boolean(must, must_not).unwrap_or_else(|| Box::new(AllQuery)))
    }

    /// Runs a search.
    pub fn find(&self, request: &Request<'_>, files: &dyn FileSource) -> Result<Page, FindError> {
        let expr = match request.query.map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => Some(self.parse_query(
                q,
                &Context {
                    now: request.now,
                    keys: request.keys,
                    types: request.types,
                },
            )?),
            None => None,
        };
        let searcher = self.reader.searcher();
        let query = self.settled_query(&searcher, expr.as_ref(), request.filter, request.judge)?;
        let limit = request.limit.max(1);
        let scored = expr.as_ref().is_some_and(has_text);
        let sort = match request.sort {
            Sort::Relevance if !scored => Sort::Modified,
            s => s,
        };
        let top = TopDocs::with_limit(limit).and_offset(request.offset);
        let (total, addresses): (usize, Vec<(f32, DocAddress)>) = match sort {
            Sort::Relevance => {
                let (total, mut docs) = searcher.search(&*query, &(Count, top.order_by_score()))?;
                // Equal scores in a stable order: by path.
                let mut keyed: Vec<(f32, String, DocAddress)> = docs
                    .drain(..)
                    .map(|(s, a)| (s, self.path_of(&searcher, a).unwrap_or_default(), a))
                    .collect();
                keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                (total, keyed.into_iter().map(|(s, _, a)| (s, a)).collect())
            }
            Sort::Modified | Sort::Created => {
                let field = if sort == Sort::Modified {
                    "modified"
                } else {
                    "created"
                };
                let (total, docs) = searcher.search(
                    &*query,
                    &(Count, top.order_by_fast_field::<i64>(field, Order::Desc)),
                )?;
                (total, docs.into_iter().map(|(_, a)| (0.0, a)).collect())
            }
            Sort::Alpha => {
                let (total, docs) = searcher.search(
                    &*query,
                    &(Count, top.order_by_string_fast_field("sort", Order::Asc)),
                )?;
                (total, docs.into_iter().map(|(_, a)| (0.0, a)).collect())
            }
        };
        let generator = if request.snippet_chars > 0 {
            let mut g = SnippetGenerator::create(&searcher, &*query, self.fields.body)?;
            g.set_max_num_chars(request.snippet_chars);
            Some(g)
        } else {
            None
        };
        let mut hits = Vec::with_capacity(addresses.len());
        for (score, address) in addresses {
            let Some(path) = self.path_of(&searcher, address) else {
                continue;
            };
            let snippet = generator.as_ref().and_then(|g| {
                let file = files.read(&path)?;
                let text = String::from_utf8_lossy(&file.bytes);
                Some(snippet(
                    g,
                    head(&text[body_start(&text)..]),
                    request.snippet_chars,
                ))
            });
            hits.push(Hit {
                path,
                score,
                snippet,
            });
        }
        Ok(Page { hits, total })
    }

    pub(super) fn path_of(&self, searcher: &Searcher, address: DocAddress) -> Option<String> {
        let doc: TantivyDocument = searcher.doc(address).ok()?;
        doc.get_first(self.fields.path)
            .and_then(|v| v.as_str().map(str::to_string))
    }

    /// The body-field terms a query looks for, with their document
    /// frequency (for weighting passages).
    pub fn body_terms(&self, expr: &Expr) -> BTreeMap<String, u64> {
        let searcher = self.reader.searcher();
        let compiler = Compiler {
            fields: &self.fields,
        };
        let mut out = BTreeMap::new();
        let Some(query) = compiler.compile(expr) else {
            return out;
        };
        let mut negative = std::collections::BTreeSet::new();
        if let Expr::And(items) = expr {
            for item in items {
                if let Expr::Not(inner) = item
                    && let Some(q) = compiler.compile(inner)
                {
                    q.query_terms(&mut |t, _| {
                        negative.insert(t.clone());
                    });
                }
            }
        }
        query.query_terms(&mut |term, _| {
            if term.field() == self.fields.body
                && !negative.contains(term)
                && let Some(text) = term.value().as_str()
            {
                let df = searcher.doc_freq(term).unwrap_or(0);
                out.insert(text.to_string(), df);
            }
        });
        out
    }

    /// Total documents, for weighting.
    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }
}

/// A snippet with matches in bold; without a match, the body's opening.
fn snippet(generator: &SnippetGenerator, body: &str, max_chars: usize) -> String {
    let snippet = generator.snippet(body);
    if snippet.is_empty() || snippet.highlighted().is_empty() {
        return opening(body, max_chars);
    }
    let fragment = snippet.fragment();
    let mut out = String::new();
    let mut at = 0;
    for range in snippet.highlighted() {
        if range.start < at || range.end > fragment.len() {
            continue;
        }
        out.push_str(&fragment[at..range.start]);
        out.push_str("**");
        out.push_str(&fragment[range.clone()]);
        out.push_str("**");
        at = range.end;
    }
    out.push_str(&fragment[at..]);
    let range = snippet.fragment_range();
    let mut text = collapse(&plain(&out));
    if range.start > 0 {
        text.insert(0, '…');
    }
    if range.end < body.trim_end().len() {
        text.push('…');
    }
    text
}

/// Snippets look at most this far into a note: the generator tokenizes all
/// it is given, and a note of megabytes would cost a search hundreds of
/// milliseconds for one extract.
const SNIPPET_SCAN_BYTES: usize = 128 * 1024;

fn head(text: &str) -> &str {
    if text.len() <= SNIPPET_SCAN_BYTES {
        return text;
    }
    let mut end = SNIPPET_SCAN_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first lines of text, without heading markers, cut at `max_chars`.
pub fn opening(body: &str, max_chars: usize) -> String {
    let text = collapse(&plain(body));
    if text.chars().count() <= max_chars {
        return text;
    }
    let mut cut: String = text.chars().take(max_chars).collect();
    if let Some(space) = cut.rfind(' ').filter(|&i| i > max_chars / 2) {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

/// Text without heading markers and block ids, line by line.
fn plain(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.trim_start();
            let hashes = line.chars().take_while(|&c| c == '#').count();
            let line = if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
                &line[hashes + 1..]
            } else {
                line
            };
            line.split_whitespace()
                .filter(|w| {
                    !(w.len() > 1
                        && w.starts_with('^')
                        && w[1..].chars().all(|c| c.is_alphanumeric() || c == '-'))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An opaque page cursor: the offset of the next page, bound to the
/// request it continues (a different query or filters make it invalid).
pub fn cursor_for(offset: usize, fingerprint: u64) -> String {
    format!(
        "{:016x}{:08x}",
        fingerprint,
        offset as u32 ^ (fingerprint as u32)
    )
}

/// Reads a cursor back; `Err` says why it does not fit this request.
pub fn offset_of(cursor: &str, fingerprint: u64) -> Result<usize, String> {
    let cursor = cursor.trim();
    if cursor.len() != 24 || !cursor.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "`{cursor}` is not a cursor from this tool; pass the `next_cursor` of the previous page, \
             or omit `cursor` for the first page"
        ));
    }
    let fp = u64::from_str_radix(&cursor[..16], 16).map_err(|e| e.to_string())?;
    let masked = u32::from_str_radix(&cursor[16..], 16).map_err(|e| e.to_string())?;
    if fp != fingerprint {
        return Err(
            "this cursor belongs to a different query or filters; repeat the same arguments with \
             the cursor, or omit `cursor` to start over"
                .into(),
        );
    }
    Ok((masked ^ fingerprint as u32) as usize)
}

/// A stable fingerprint of anything hashable (for cursors).
pub fn fingerprint(value: &impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// Whether a query constrains anything: a word the full text can hold, or
/// a filter. `???` or `- [ ]` constrain nothing.
fn constrains(expr: &Expr) -> bool {
    match expr {
        Expr::And(items) | Expr::Or(items) => items.iter().any(constrains),
        Expr::Not(inner) => constrains(inner),
        Expr::Text { text, .. } => !terms(text).is_empty(),
        Expr::Filter(_) => true,
    }
}

/// Whether a query has words to score (else its hits are ordered by time).
fn has_text(expr: &Expr) -> bool {
    match expr {
        Expr::And(items) | Expr::Or(items) => items.iter().any(has_text),
        Expr::Not(_) | Expr::Filter(_) => false,
        Expr::Text { .. } => true,
    }
}

/// `expr` with each filter inside it settled (`filter::settle`), so that
/// its compiled query answers them exactly, under `or` and `not` too.
fn settle_expr(
    fields: &Fields,
    searcher: &Searcher,
    expr: &Expr,
    judge: Judge<'_>,
) -> Result<Expr, FindError> {
    Ok(match expr {
        Expr::And(items) => Expr::And(
            items
                .iter()
                .map(|item| settle_expr(fields, searcher, item, judge))
                .collect::<Result<_, _>>()?,
        ),
        Expr::Or(items) => Expr::Or(
            items
                .iter()
                .map(|item| settle_expr(fields, searcher, item, judge))
                .collect::<Result<_, _>>()?,
        ),
        Expr::Not(inner) => Expr::Not(Box::new(settle_expr(fields, searcher, inner, judge)?)),
        Expr::Filter(filter) => Expr::Filter(settle(fields, searcher, filter, judge)?),
        text @ Expr::Text { .. } => text.clone(),
    })
}
