//! Running a search: a query and structured filters combined into one
//! tantivy query, counted, sorted, paged, with snippets marking the match.
//!
//! Must not know the vault index's locking or any protocol; restrictions
//! that come from the link graph (`backlinks_to`) or from policy arrive as
//! path sets.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::ops::Bound;

use tantivy::collector::{Count, TopDocs};
use tantivy::query::{EmptyQuery, Query, RangeQuery, TermSetQuery};
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Order, Searcher, TantivyDocument, Term};

use super::clock::Now;
use super::index::{FileSource, SearchError, SearchIndex, body_start, tag_key};
use super::query::{Compiler, Context, Expr, QueryError, boolean, keyword, parse};
use weft_vault::key::{name_key, path_key};

/// Structured filters; each one narrows the results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filters {
    /// Every one of these tags (hierarchical: `a` matches `a/b`).
    pub tags_all: Vec<String>,
    /// At least one of these tags.
    pub tags_any: Vec<String>,
    /// Under this folder (or this note path).
    pub path_prefix: Option<String>,
    /// Modified at or after (Unix seconds).
    pub modified_since: Option<i64>,
    /// Frontmatter key with a value (any of the values), or present (`None`).
    pub frontmatter: Vec<(String, Option<Vec<String>>)>,
    /// Only these vault paths (as indexed); `Some(empty)` matches nothing.
    pub within: Option<Vec<String>>,
    /// Never these vault paths.
    pub exclude: Vec<String>,
    /// The frontmatter keys a query may name (those of the notes the
    /// caller may see, as written): `key:` fields and "did you mean" come
    /// from these.
    pub keys: Vec<String>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.tags_all.is_empty()
            && self.tags_any.is_empty()
            && self
                .path_prefix
                .as_deref()
                .is_none_or(|p| p.trim().is_empty())
            && self.modified_since.is_none()
            && self.frontmatter.is_empty()
            && self.within.is_none()
    }
}

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

#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The query text; `None` or blank to use only filters.
    pub query: Option<&'a str>,
    pub filters: &'a Filters,
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
    /// Parses `query` against `keys` (the frontmatter keys the caller may
    /// name).
    pub fn parse_query(&self, query: &str, now: Now, keys: &[String]) -> Result<Expr, QueryError> {
        parse(query, &Context { now, keys })
    }

    /// The combined tantivy query of a request; `None` when it can match
    /// nothing (an empty `within`).
    pub fn compile(&self, expr: Option<&Expr>, filters: &Filters) -> Option<Box<dyn Query>> {
        let f = &self.fields;
        let compiler = Compiler { fields: f };
        let mut must: Vec<Box<dyn Query>> = Vec::new();
        let mut must_not: Vec<Box<dyn Query>> = Vec::new();
        if let Some(expr) = expr {
            must.extend(compiler.compile(expr));
        }
        for tag in &filters.tags_all {
            let key = tag_key(tag);
            if !key.is_empty() {
                must.push(keyword(f.tags, &key));
            }
        }
        let any: Vec<Term> = filters
            .tags_any
            .iter()
            .map(|t| tag_key(t))
            .filter(|k| !k.is_empty())
            .map(|k| Term::from_field_text(f.tags, &k))
            .collect();
        if !any.is_empty() {
            must.push(Box::new(TermSetQuery::new(any)));
        }
        if let Some(prefix) = &filters.path_prefix {
            let key = path_key(prefix.trim().trim_matches('/'));
            if !key.is_empty() {
                must.push(keyword(f.folders, &key));
            }
        }
        if let Some(since) = filters.modified_since {
            must.push(Box::new(RangeQuery::new(
                Bound::Included(Term::from_field_i64(f.modified, since)),
                Bound::Included(Term::from_field_i64(f.modified, i64::MAX)),
            )));
        }
        for (key, values) in &filters.frontmatter {
            let key = name_key(key);
            match values {
                None => must.push(keyword(f.properties, &key)),
                Some(values) => {
                    let terms: Vec<Term> = values
                        .iter()
                        .flat_map(|v| super::index::property_values(v))
                        .map(|v| Term::from_field_text(f.properties, &format!("{key}={v}")))
                        .collect();
                    if terms.is_empty() {
                        return None;
                    }
                    must.push(Box::new(TermSetQuery::new(terms)));
                }
            }
        }
        if let Some(within) = &filters.within {
            if within.is_empty() {
                return None;
            }
            must.push(Box::new(TermSetQuery::new(
                within.iter().map(|p| Term::from_field_text(f.path, p)),
            )));
        }
        if !filters.exclude.is_empty() {
            must_not.push(Box::new(TermSetQuery::new(
                filters
                    .exclude
                    .iter()
                    .map(|p| Term::from_field_text(f.path, p)),
            )));
        }
        Some(boolean(must, must_not).unwrap_or_else(|| Box::new(tantivy::query::AllQuery)))
    }

    /// Runs a search.
    pub fn find(&self, request: &Request<'_>, files: &dyn FileSource) -> Result<Page, FindError> {
        let expr = match request.query.map(str::trim).filter(|q| !q.is_empty()) {
            Some(q) => Some(self.parse_query(q, request.now, &request.filters.keys)?),
            None => None,
        };
        let searcher = self.reader.searcher();
        let query: Box<dyn Query> = self
            .compile(expr.as_ref(), request.filters)
            .unwrap_or_else(|| Box::new(EmptyQuery));
        let limit = request.limit.max(1);
        let scored = expr.is_some();
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
