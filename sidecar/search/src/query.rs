//! The search query language, parsed by hand into an expression and
//! compiled into tantivy queries.
//!
//! Syntax: `word`, `"a phrase"`, `field:value` (`title:`, `alias:`, `body:`,
//! `tag:`/`#tag`, `folder:`/`path:`, `file:`, `modified:`/`created:` with
//! `[now-7d TO now]`, `{a TO b}`, `>2024-01-01`, `2024-01`; any frontmatter
//! key: `status:draft`, `status:*`), `field:( … )`, `AND`/`&&`, `OR`/`||`,
//! `NOT`/`-`/`!`, `+`, `( … )`. Juxtaposition means AND.
//!
//! Negation is compiled as a `MustNot` clause next to the positive clauses,
//! with an all-documents clause when there is none. That is exactly the
//! `a -b` form: tantivy 0.27 matches nothing for a negative-only sub-clause
//! (`a AND NOT b` through its own parser), so `a AND NOT b`, `NOT a` and
//! `(a OR b) AND NOT c` all go through this rewrite. Must not know the
//! vault index or any protocol.

use std::ops::Bound;

use tantivy::Term;
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};

use super::dates::{End, parse_time};
use super::index::{path_prefixes, property_values, tag_key};
use super::schema::{Fields, QUERY_FIELDS, terms};
use weft_vault::key::{name_key, path_key};

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

fn error(message: impl Into<String>, hint: impl Into<String>) -> QueryError {
    QueryError {
        message: message.into(),
        hint: hint.into(),
    }
}

/// How deeply groups, negations and field groups may nest. The parser, the
/// compiler and the parsed expression's drop all recurse once per level, so
/// a bound here keeps a hostile query (thousands of `(` or `-`) from
/// overflowing the stack of the process that serves the whole vault.
pub const MAX_DEPTH: usize = 64;

const SYNTAX_HINT: &str = "Syntax: words, \"a phrase\", title:x, tag:x, folder:x, key:value, \
     AND, OR, -exclude, ( ), modified:[now-7d TO now].";

/// What a query may refer to besides the fixed fields.
pub struct Context<'a> {
    /// Unix seconds, for `now`.
    pub now: i64,
    /// Frontmatter keys in use, as written.
    pub keys: &'a [String],
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Plus,
    Word(String),
    Phrase(String),
    /// `name:` before a value.
    Field(String),
    /// `[a TO b]` or `{a TO b}`.
    Range {
        lo: String,
        lo_inclusive: bool,
        hi: String,
        hi_inclusive: bool,
    },
}

fn lex(input: &str) -> Result<Vec<Tok>, QueryError> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut after_field = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            after_field = false;
            continue;
        }
        let was_after_field = std::mem::take(&mut after_field);
        match c {
            '(' => {
                out.push(Tok::LParen);
                i += 1;
            }
            ')' => {
                out.push(Tok::RParen);
                i += 1;
            }
            '"' => {
                let start = i + 1;
                let Some(len) = chars[start..].iter().position(|&c| c == '"') else {
                    return Err(error(
                        "The query has an unclosed quote.",
                        "Close the phrase with `\"`, or remove the quote.",
                    ));
                };
                out.push(Tok::Phrase(chars[start..start + len].iter().collect()));
                i = start + len + 1;
            }
            '[' | '{' if was_after_field => {
                let start = i + 1;
                let Some(len) = chars[start..].iter().position(|&c| c == ']' || c == '}') else {
                    return Err(error(
                        format!("The range starting `{c}` is not closed."),
                        "Write ranges as modified:[2024-01-01 TO now] (`{ }` excludes the ends).",
                    ));
                };
                let inner: String = chars[start..start + len].iter().collect();
                // `[` and `]` include their end, `{` and `}` exclude it.
                let hi_inclusive = chars[start + len] == ']';
                let parts: Vec<&str> = inner.split(" TO ").collect();
                if parts.len() != 2 {
                    return Err(error(
                        format!("Cannot read the range `{c}{inner}`."),
                        "Write ranges as modified:[2024-01-01 TO now]; `*` leaves an end open.",
                    ));
                }
                out.push(Tok::Range {
                    lo: parts[0].trim().to_string(),
                    lo_inclusive: c == '[',
                    hi: parts[1].trim().to_string(),
                    hi_inclusive,
                });
                i = start + len + 1;
            }
            '-' | '!' | '+'
                if i + 1 < chars.len()
                    && !chars[i + 1].is_whitespace()
                    && !matches!(chars[i + 1], ')') =>
            {
                out.push(if c == '+' { Tok::Plus } else { Tok::Not });
                i += 1;
            }
            _ => {
                let start = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(chars[i], '(' | ')' | '"')
                {
                    // `field:` ends the field name; what follows is its value.
                    if chars[i] == ':'
                        && i > start
                        && chars[start].is_alphabetic()
                        && chars[start..i]
                            .iter()
                            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
                        && chars.get(i + 1).is_none_or(|c| *c != '/' && *c != ':')
                    {
                        break;
                    }
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if i < chars.len() && chars[i] == ':' {
                    out.push(Tok::Field(word));
                    i += 1;
                    after_field = true;
                    continue;
                }
                out.push(match word.as_str() {
                    "AND" | "&&" => Tok::And,
                    "OR" | "||" => Tok::Or,
                    "NOT" => Tok::Not,
                    _ => Tok::Word(word),
                });
            }
        }
    }
    Ok(out)
}

/// What a `field:` names.
#[derive(Debug, Clone, PartialEq)]
enum FieldKind {
    Text(Target),
    Tag,
    Path,
    Date(DateField),
    Property(String),
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    ctx: &'a Context<'a>,
    field: Option<FieldKind>,
    /// Groups and negations open around the current token.
    depth: usize,
}

/// Parses a query.
pub fn parse(input: &str, ctx: &Context<'_>) -> Result<Expr, QueryError> {
    if input.trim().is_empty() {
        return Err(error("The query is empty.", SYNTAX_HINT));
    }
    let mut parser = Parser {
        toks: lex(input)?,
        at: 0,
        ctx,
        field: None,
        depth: 0,
    };
    let expr = parser.or()?;
    match parser.toks.get(parser.at) {
        None => Ok(expr),
        Some(Tok::RParen) => Err(error(
            "The query has a `)` without its `(`.",
            "Remove it or add the opening parenthesis.",
        )),
        Some(other) => Err(error(
            format!("Unexpected {other:?} in the query."),
            SYNTAX_HINT,
        )),
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let tok = self.toks.get(self.at).cloned();
        self.at += 1;
        tok
    }

    /// Runs `inner` one nesting level down, refusing to go past
    /// [`MAX_DEPTH`].
    fn nested<T>(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        if self.depth >= MAX_DEPTH {
            return Err(error(
                format!(
                    "The query is nested too deeply (more than {MAX_DEPTH} levels of `( )`, `-`, `NOT` or `+`)."
                ),
                "Flatten it: `a -b -c` rather than `-(-(-a))`, `(a OR b) c` rather than `((a OR b)) c`.",
            ));
        }
        self.depth += 1;
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn or(&mut self) -> Result<Expr, QueryError> {
        let mut items = vec![self.and()?];
        while self.peek() == Some(&Tok::Or) {
            self.at += 1;
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one")
        } else {
            Expr::Or(items)
        })
    }

    fn and(&mut self) -> Result<Expr, QueryError> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None | Some(Tok::RParen) | Some(Tok::Or) => break,
                Some(Tok::And) => {
                    self.at += 1;
                    if items.is_empty() {
                        return Err(error(
                            "`AND` needs something on its left.",
                            "Write `a AND b`, or just `a b`.",
                        ));
                    }
                }
                _ => items.push(self.unary()?),
            }
        }
        match items.len() {
            0 => Err(error(
                "Part of the query is empty (around `OR`, `AND` or `( )`).",
                SYNTAX_HINT,
            )),
            1 => Ok(items.pop().expect("one")),
            _ => Ok(Expr::And(items)),
        }
    }

    fn unary(&mut self) -> Result<Expr, QueryError> {
        match self.peek() {
            Some(Tok::Not) => {
                self.at += 1;
                if matches!(self.peek(), None | Some(Tok::RParen) | Some(Tok::Or)) {
                    return Err(error(
                        "`NOT` or `-` needs a term after it.",
                        "Write `-word` or `NOT tag:x`.",
                    ));
                }
                Ok(Expr::Not(Box::new(self.nested(Self::unary)?)))
            }
            Some(Tok::Plus) => {
                self.at += 1;
                self.nested(Self::unary)
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Expr, QueryError> {
        match self.next() {
            Some(Tok::LParen) => {
                let inner = self.nested(Self::or)?;
                if self.next() != Some(Tok::RParen) {
                    return Err(error(
                        "The query has a `(` without its `)`.",
                        "Close the group with `)`.",
                    ));
                }
                Ok(inner)
            }
            Some(Tok::Field(name)) => {
                if self.field.is_some() {
                    return Err(error(
                        format!("`{name}:` cannot stand inside another field's group."),
                        "Write title:(a OR b) tag:x rather than nesting fields.",
                    ));
                }
                let kind = self.field_kind(&name)?;
                match self.peek() {
                    None | Some(Tok::RParen) | Some(Tok::And) | Some(Tok::Or) => Err(error(
                        format!("`{name}:` needs a value."),
                        format!("Write {name}:value, {name}:\"two words\" or {name}:(a OR b)."),
                    )),
                    Some(Tok::LParen) => {
                        self.at += 1;
                        self.field = Some(kind);
                        let inner = self.nested(Self::or);
                        self.field = None;
                        let inner = inner?;
                        if self.next() != Some(Tok::RParen) {
                            return Err(error(
                                "The query has a `(` without its `)`.",
                                "Close the group with `)`.",
                            ));
                        }
                        Ok(inner)
                    }
                    Some(Tok::Range { .. }) => {
                        let Some(Tok::Range {
                            lo,
                            lo_inclusive,
                            hi,
                            hi_inclusive,
                        }) = self.next()
                        else {
                            unreachable!("peeked a range")
                        };
                        let FieldKind::Date(field) = kind else {
                            return Err(error(
                                format!("`{name}:` does not take a range."),
                                "Ranges work on modified: and created:.",
                            ));
                        };
                        self.range(field, &lo, lo_inclusive, &hi, hi_inclusive)
                    }
                    _ => {
                        let saved = self.field.replace(kind);
                        let value = self.nested(Self::unary);
                        self.field = saved;
                        value
                    }
                }
            }
            Some(Tok::Word(word)) => self.value(word, false),
            Some(Tok::Phrase(text)) => self.value(text, true),
            Some(Tok::Range { lo, hi, .. }) => Err(error(
                format!("The range `[{lo} TO {hi}]` needs a field."),
                "Write modified:[… TO …] or created:[… TO …].",
            )),
            Some(Tok::RParen) => Err(error(
                "The query has a `)` without its `(`.",
                "Remove it or add the opening parenthesis.",
            )),
            Some(tok) => Err(error(format!("Unexpected {tok:?}."), SYNTAX_HINT)),
            None => Err(error("The query ends too early.", SYNTAX_HINT)),
        }
    }

    fn value(&mut self, text: String, phrase: bool) -> Result<Expr, QueryError> {
        match self.field.clone() {
            None => {
                if !phrase && text.len() > 1 && text.starts_with('#') {
                    return Ok(Expr::Tag(text[1..].to_string()));
                }
                Ok(Expr::Text {
                    target: Target::Default,
                    text,
                    phrase,
                })
            }
            Some(FieldKind::Text(target)) => Ok(Expr::Text {
                target,
                text,
                phrase,
            }),
            Some(FieldKind::Tag) => Ok(Expr::Tag(text)),
            Some(FieldKind::Path) => Ok(Expr::Path(text)),
            Some(FieldKind::Property(key)) => Ok(Expr::Property {
                key,
                value: (text != "*").then_some(text),
            }),
            Some(FieldKind::Date(field)) => self.date_value(field, &text),
        }
    }

    fn field_kind(&self, name: &str) -> Result<FieldKind, QueryError> {
        let lower = name.to_lowercase();
        if let Some((_, meaning)) = QUERY_FIELDS.iter().find(|(n, _)| *n == lower) {
            return Ok(match *meaning {
                "title" => FieldKind::Text(Target::Title),
                "aliases" => FieldKind::Text(Target::Aliases),
                "body" => FieldKind::Text(Target::Body),
                "file" => FieldKind::Text(Target::File),
                "tag" => FieldKind::Tag,
                "path" => FieldKind::Path,
                "modified" => FieldKind::Date(DateField::Modified),
                _ => FieldKind::Date(DateField::Created),
            });
        }
        let key = name_key(name);
        if self.ctx.keys.iter().any(|k| name_key(k) == key) {
            return Ok(FieldKind::Property(name.to_string()));
        }
        let mut candidates: Vec<(f64, String)> = QUERY_FIELDS
            .iter()
            .map(|(n, _)| n.to_string())
            .chain(self.ctx.keys.iter().cloned())
            .map(|c| (strsim::jaro_winkler(&lower, &c.to_lowercase()), c))
            .filter(|(s, _)| *s >= 0.8)
            .collect();
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let did_you_mean = candidates
            .first()
            .map(|(_, c)| format!(" Did you mean `{c}:`?"))
            .unwrap_or_default();
        let some_keys: Vec<&str> = self.ctx.keys.iter().take(8).map(String::as_str).collect();
        let keys = if some_keys.is_empty() {
            String::new()
        } else {
            format!(" (in this vault: {})", some_keys.join(", "))
        };
        Err(error(
            format!(
                "`{name}:` is neither a search field nor a frontmatter key in this vault.{did_you_mean}"
            ),
            format!(
                "Fields: title, alias, body, tag, folder, path, file, modified, created, or a frontmatter key{keys}. \
                 To search the text `{name}:` itself, quote it."
            ),
        ))
    }

    fn date_value(&self, field: DateField, text: &str) -> Result<Expr, QueryError> {
        let time = |s: &str, end: End| {
            parse_time(s, self.ctx.now, end).map_err(|m| {
                error(
                    m,
                    "Dates: modified:2024-01-15, modified:>=now-7d, modified:[2024-01-01 TO now].",
                )
            })
        };
        let (lo, hi) = if let Some(rest) = text.strip_prefix(">=") {
            (Bound::Included(time(rest, End::Start)?), Bound::Unbounded)
        } else if let Some(rest) = text.strip_prefix('>') {
            (Bound::Excluded(time(rest, End::Finish)?), Bound::Unbounded)
        } else if let Some(rest) = text.strip_prefix("<=") {
            (Bound::Unbounded, Bound::Included(time(rest, End::Finish)?))
        } else if let Some(rest) = text.strip_prefix('<') {
            (Bound::Unbounded, Bound::Excluded(time(rest, End::Start)?))
        } else if is_relative(text) {
            // `modified:7d`: within the last seven days.
            (Bound::Included(time(text, End::Start)?), Bound::Unbounded)
        } else {
            (
                Bound::Included(time(text, End::Start)?),
                Bound::Included(time(text, End::Finish)?),
            )
        };
        Ok(Expr::Range { field, lo, hi })
    }

    fn range(
        &self,
        field: DateField,
        lo: &str,
        lo_inclusive: bool,
        hi: &str,
        hi_inclusive: bool,
    ) -> Result<Expr, QueryError> {
        let time = |s: &str, end: End| {
            parse_time(s, self.ctx.now, end).map_err(|m| {
                error(
                    m,
                    "Ranges: modified:[2024-01-01 TO now], created:{now-30d TO *}.",
                )
            })
        };
        let lo = match lo {
            "*" | "" => Bound::Unbounded,
            s if lo_inclusive => Bound::Included(time(s, End::Start)?),
            s => Bound::Excluded(time(s, End::Finish)?),
        };
        let hi = match hi {
            "*" | "" => Bound::Unbounded,
            s if hi_inclusive => Bound::Included(time(s, End::Finish)?),
            s => Bound::Excluded(time(s, End::Start)?),
        };
        Ok(Expr::Range { field, lo, hi })
    }
}

fn is_relative(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("now") || t.starts_with('-') || {
        t.chars().next().is_some_and(|c| c.is_ascii_digit())
            && t.chars().last().is_some_and(|c| c.is_ascii_alphabetic())
            && !t.contains('-')
    }
}

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
            Expr::Tag(tag) => {
                let key = tag_key(tag);
                (!key.is_empty()).then(|| keyword(self.fields.tags, &key))
            }
            Expr::Path(path) => {
                let key = path_key(path.trim().trim_matches('/'));
                (!key.is_empty()).then(|| keyword(self.fields.folders, &key))
            }
            Expr::Property { key, value } => {
                let key = name_key(key);
                match value {
                    None => Some(keyword(self.fields.properties, &key)),
                    Some(value) => {
                        let mut should: Vec<(Occur, Box<dyn Query>)> = property_values(value)
                            .into_iter()
                            .map(|v| {
                                (
                                    Occur::Should,
                                    keyword(self.fields.properties, &format!("{key}={v}")),
                                )
                            })
                            .collect();
                        if should.len() == 1 {
                            should.pop().map(|(_, q)| q)
                        } else {
                            Some(Box::new(BooleanQuery::new(should)))
                        }
                    }
                }
            }
            Expr::Range { field, lo, hi } => {
                let field = match field {
                    DateField::Modified => self.fields.modified,
                    DateField::Created => self.fields.created,
                };
                let term = |v: &i64| Term::from_field_i64(field, *v);
                let lo = match lo {
                    Bound::Included(v) => Bound::Included(term(v)),
                    Bound::Excluded(v) => Bound::Excluded(term(v)),
                    Bound::Unbounded => Bound::Included(term(&i64::MIN)),
                };
                let hi = match hi {
                    Bound::Included(v) => Bound::Included(term(v)),
                    Bound::Excluded(v) => Bound::Excluded(term(v)),
                    Bound::Unbounded => Bound::Included(term(&i64::MAX)),
                };
                Some(Box::new(RangeQuery::new(lo, hi)))
            }
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

pub(super) fn keyword(field: Field, key: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, key),
        IndexRecordOption::Basic,
    ))
}

/// `must` AND NOT `must_not`; an all-documents clause stands in for an
/// empty `must` (a purely negative boolean query matches nothing).
pub(super) fn boolean(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(input: &str) -> Result<Expr, QueryError> {
        let keys = vec!["status".to_string(), "type".to_string()];
        parse(
            input,
            &Context {
                now: 1_705_314_600,
                keys: &keys,
            },
        )
    }

    fn text(t: &str) -> Expr {
        Expr::Text {
            target: Target::Default,
            text: t.into(),
            phrase: false,
        }
    }

    #[test]
    fn words_fields_and_operators() {
        assert_eq!(p("mcp").unwrap(), text("mcp"));
        assert_eq!(
            p("mcp tag:research -tag:archived").unwrap(),
            Expr::And(vec![
                text("mcp"),
                Expr::Tag("research".into()),
                Expr::Not(Box::new(Expr::Tag("archived".into())))
            ])
        );
        assert_eq!(
            p("(tag:urgent OR tag:priority) folder:projects").unwrap(),
            Expr::And(vec![
                Expr::Or(vec![
                    Expr::Tag("urgent".into()),
                    Expr::Tag("priority".into())
                ]),
                Expr::Path("projects".into())
            ])
        );
        assert_eq!(
            p("a AND NOT b").unwrap(),
            Expr::And(vec![text("a"), Expr::Not(Box::new(text("b")))])
        );
        assert_eq!(
            p("title:\"more rust\"").unwrap(),
            Expr::Text {
                target: Target::Title,
                text: "more rust".into(),
                phrase: true
            }
        );
        assert_eq!(
            p("title:(a OR b)").unwrap(),
            Expr::Or(vec![
                Expr::Text {
                    target: Target::Title,
                    text: "a".into(),
                    phrase: false
                },
                Expr::Text {
                    target: Target::Title,
                    text: "b".into(),
                    phrase: false
                }
            ])
        );
        assert_eq!(
            p("status:draft type:*").unwrap(),
            Expr::And(vec![
                Expr::Property {
                    key: "status".into(),
                    value: Some("draft".into())
                },
                Expr::Property {
                    key: "type".into(),
                    value: None
                }
            ])
        );
        assert_eq!(p("#vc/project").unwrap(), Expr::Tag("vc/project".into()));
        // A URL is a word, not a field.
        assert_eq!(
            p("https://example.com").unwrap(),
            text("https://example.com")
        );
        // Dashes inside words are not negation.
        assert_eq!(p("wiki-ai").unwrap(), text("wiki-ai"));
    }

    #[test]
    fn dates() {
        let day = 86_400;
        let now = 1_705_314_600;
        assert_eq!(
            p("modified:[now-7d TO now]").unwrap(),
            Expr::Range {
                field: DateField::Modified,
                lo: Bound::Included(now - 7 * day),
                hi: Bound::Included(now)
            }
        );
        assert_eq!(
            p("created:>=2024-01-01").unwrap(),
            Expr::Range {
                field: DateField::Created,
                lo: Bound::Included(1_704_067_200),
                hi: Bound::Unbounded
            }
        );
        assert_eq!(
            p("modified:{* TO 2024-01-01}").unwrap(),
            Expr::Range {
                field: DateField::Modified,
                lo: Bound::Unbounded,
                hi: Bound::Excluded(1_704_067_200)
            }
        );
        assert_eq!(
            p("modified:7d").unwrap(),
            Expr::Range {
                field: DateField::Modified,
                lo: Bound::Included(now - 7 * day),
                hi: Bound::Unbounded
            }
        );
    }

    #[test]
    fn errors_say_how_to_fix() {
        let e = p("\"unclosed").unwrap_err();
        assert!(e.hint.contains("Close the phrase"), "{e}");
        let e = p("(a OR b").unwrap_err();
        assert!(e.message.contains("without its `)`"), "{e}");
        let e = p("a)").unwrap_err();
        assert!(e.message.contains("without its `(`"), "{e}");
        let e = p("titel:foo").unwrap_err();
        assert!(e.message.contains("Did you mean `title:`?"), "{e}");
        let e = p("statsu:x").unwrap_err();
        assert!(e.message.contains("Did you mean `status:`?"), "{e}");
        let e = p("modified:[2024-13-01 TO now]").unwrap_err();
        assert!(e.message.contains("cannot read `2024-13-01`"), "{e}");
        let e = p("title:").unwrap_err();
        assert!(e.message.contains("needs a value"), "{e}");
        let e = p("a OR").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = p("   ").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = p("tag:[a TO b]").unwrap_err();
        assert!(e.message.contains("does not take a range"), "{e}");
    }

    /// Regression: thousands of nested `(`, `-`, `!`, `NOT` or `+` used to
    /// recurse in the parser, the compiler and the drop until the stack
    /// overflowed and the daemon serving the vault aborted.
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = 100_000;
        for query in [
            format!("{}a{}", "(".repeat(deep), ")".repeat(deep)),
            format!("{}a", "-".repeat(deep)),
            format!("{}a", "!".repeat(deep)),
            format!("{}a", "+".repeat(deep)),
            format!("{}a", "NOT ".repeat(deep)),
            format!("{}a", "- ( ".repeat(deep)),
            format!("title:{}a{}", "(".repeat(deep), ")".repeat(deep)),
        ] {
            let e = p(&query).unwrap_err();
            assert!(e.message.contains("nested too deeply"), "{e}");
        }
        // The limit itself parses, and compiles.
        let ok = format!("{}a{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert_eq!(p(&ok).unwrap(), text("a"));
        let ok = format!("{}a", "-".repeat(MAX_DEPTH));
        assert!(p(&ok).is_ok());
        let over = format!(
            "{}a{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert!(p(&over).is_err());
    }
}
