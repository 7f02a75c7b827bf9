//! The query's grammar: tokens into an [`Expr`], with precedence (`OR`
//! below `AND`, juxtaposition as `AND`), negation, field groups such as
//! `title:(a OR b)`, dates and ranges on `modified:` and `created:`, and
//! errors that say how to write the query instead ("did you mean"). Nesting
//! is bounded by [`MAX_DEPTH`].
//!
//! It must not know tantivy or the index: field names are checked against
//! the fixed fields and the frontmatter keys the caller passes in, so the
//! grammar can be tested on strings alone.

use std::ops::Bound;

use super::expr::{DateField, Expr, QueryError, Target, error};
use super::lex::{Tok, lex};
use crate::dates::{End, Now, parse_time};
use crate::schema::QUERY_FIELDS;
use weft_vault::filter::{Cmp, Filter, Folder, Test, TimeRange, Value};
use weft_vault::key::name_key;
use weft_vault::props::{PropType, Types};

/// How deeply groups, negations and field groups may nest. The parser, the
/// compiler and the parsed expression's drop all recurse once per level, so
/// a bound here keeps a hostile query (thousands of `(` or `-`) from
/// overflowing the stack of the process that serves the whole vault.
pub const MAX_DEPTH: usize = 64;

const SYNTAX_HINT: &str = "Syntax: words, \"a phrase\", title:x, tag:x, folder:x, key:value, \
     AND, OR, -exclude, ( ), modified:[now-7d TO now].";

/// What a query may refer to besides the fixed fields.
pub struct Context<'a> {
    /// The moment and zone `now`, `today` and dates are read at.
    pub now: Now,
    /// Frontmatter keys in use, as written.
    pub keys: &'a [String],
    /// The property types the vault declares: a literal for a key declared
    /// text is text (`zip:01234` is no number).
    pub types: &'a Types,
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
                        match kind {
                            FieldKind::Date(field) => {
                                self.range(field, &lo, lo_inclusive, &hi, hi_inclusive)
                            }
                            FieldKind::Property(key) => property_range(
                                Key::new(key, self.ctx),
                                &lo,
                                lo_inclusive,
                                &hi,
                                hi_inclusive,
                            ),
                            _ => Err(error(
                                format!("`{name}:` does not take a range."),
                                "Ranges work on modified:, created: and properties (due:[2026-12-01 TO 2026-12-31]).",
                            )),
                        }
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
                    return Ok(Expr::Filter(Filter::Tag(text[1..].into())));
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
            Some(FieldKind::Tag) => Ok(Expr::Filter(Filter::Tag(text.into()))),
            Some(FieldKind::Path) => Folder::new(&text)
                .map(|folder| Expr::Filter(Filter::Folder(folder)))
                .map_err(|e| {
                    error(
                        format!("{e}."),
                        "Write folder:projects or folder:projects/weft.",
                    )
                }),
            Some(FieldKind::Property(key)) => property(Key::new(key, self.ctx), &text, phrase),
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
        Ok(times(field, lo, hi))
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
        Ok(times(field, lo, hi))
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

/// A file-time filter from a range's bounds (Unix seconds).
fn times(field: DateField, lo: Bound<i64>, hi: Bound<i64>) -> Expr {
    let range = TimeRange {
        from: match lo {
            Bound::Included(v) => Some(v),
            Bound::Excluded(v) => Some(v.saturating_add(1)),
            Bound::Unbounded => None,
        },
        to: match hi {
            Bound::Included(v) => Some(v.saturating_add(1)),
            Bound::Excluded(v) => Some(v),
            Bound::Unbounded => None,
        },
    };
    Expr::Filter(match field {
        DateField::Modified => Filter::Modified(range),
        DateField::Created => Filter::Created(range),
    })
}

const PROPERTY_HINT: &str = "Properties: status:active, status:*, priority:>=2, \
     due:<2026-12-28, due:[2026-12-01 TO 2026-12-31], part_of:\"[[Hub]]\".";

/// A property a query names, with what its literals are read by.
struct Key {
    name: String,
    /// Its type whatever its values (`Types::fixed`).
    fixed: Option<PropType>,
    now: Now,
}

impl Key {
    fn new(name: String, ctx: &Context<'_>) -> Key {
        Key {
            fixed: ctx.types.fixed(&name),
            name,
            now: ctx.now,
        }
    }

    fn textual(&self) -> bool {
        self.fixed.is_some_and(PropType::is_textual)
    }
}

/// A property test: `key:*` (has it), `key:value` (equals, by the value's
/// type), `key:<value` (and `<=`, `>`, `>=`: compares, by type).
fn property(key: Key, text: &str, phrase: bool) -> Result<Expr, QueryError> {
    let test = if phrase {
        Test::Equals(Value::of_text_as(text, key.fixed))
    } else if text == "*" {
        Test::Exists
    } else if let Some((cmp, rest)) = comparison(text) {
        Test::Compare(cmp, moment(&key, rest)?)
    } else {
        Test::Equals(literal(&key, text)?)
    };
    Ok(Expr::Filter(Filter::Property(key.name.into(), test)))
}

/// `<v`, `<=v`, `>v`, `>=v`.
fn comparison(text: &str) -> Option<(Cmp, &str)> {
    [
        ("<=", Cmp::LessOrEqual),
        (">=", Cmp::GreaterOrEqual),
        ("<", Cmp::Less),
        (">", Cmp::Greater),
    ]
    .into_iter()
    .find_map(|(op, cmp)| text.strip_prefix(op).map(|rest| (cmp, rest)))
}

/// A property's value as a query writes it, typed as the key's values are
/// (`vault::filter::Value`); a value that looks like a date and is none is
/// an error, not a text that silently compares with nothing.
fn literal(key: &Key, text: &str) -> Result<Value, QueryError> {
    let text = text.trim();
    let name = &key.name;
    if text.is_empty() {
        return Err(error(
            format!("`{name}:` needs a value after its comparison."),
            PROPERTY_HINT,
        ));
    }
    let value = Value::of_text_as(text, key.fixed);
    if key.textual() {
        return Ok(value);
    }
    let dated = text.len() >= 8
        && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && text.as_bytes()[4] == b'-';
    if dated && !matches!(value, Value::Date(_)) {
        return Err(error(
            format!("`{name}:` cannot read `{text}` as a date."),
            "Write dates as YYYY-MM-DD, or YYYY-MM-DDTHH:MM.",
        ));
    }
    Ok(value)
}

/// A bound of a comparison: a literal, or a time relative to now
/// (`today`, `yesterday`, `tomorrow`, `now`, `now+7d`, `-7d`), read in the
/// clock's zone as the local moment it names (`today`: its first second),
/// so `due:<today` is what falls due before today, wherever the vault's
/// day is. A key declared text takes none of these: its values are text.
fn moment(key: &Key, text: &str) -> Result<Value, QueryError> {
    let t = text.trim();
    let now = key.now;
    if key.textual() {
        return literal(key, t);
    }
    let named = matches!(
        t.to_ascii_lowercase().as_str(),
        "today" | "yesterday" | "tomorrow"
    );
    let relative = t.starts_with("now")
        || (t.starts_with('-') && t.ends_with(|c: char| c.is_ascii_alphabetic()));
    if named || relative {
        let at = parse_time(t, now, End::Start).map_err(|m| error(m, PROPERTY_HINT))?;
        return Ok(Value::Date(now.zone.local(at)));
    }
    literal(key, t)
}

/// `key:[lo TO hi]` (`{ }` to leave an end out; `*` for no end).
fn property_range(
    key: Key,
    lo: &str,
    lo_inclusive: bool,
    hi: &str,
    hi_inclusive: bool,
) -> Result<Expr, QueryError> {
    let mut tests = Vec::new();
    if !matches!(lo.trim(), "*" | "") {
        let cmp = if lo_inclusive {
            Cmp::GreaterOrEqual
        } else {
            Cmp::Greater
        };
        tests.push(Filter::Property(
            key.name.as_str().into(),
            Test::Compare(cmp, moment(&key, lo)?),
        ));
    }
    if !matches!(hi.trim(), "*" | "") {
        let cmp = if hi_inclusive {
            Cmp::LessOrEqual
        } else {
            Cmp::Less
        };
        tests.push(Filter::Property(
            key.name.as_str().into(),
            Test::Compare(cmp, moment(&key, hi)?),
        ));
    }
    if tests.is_empty() {
        tests.push(Filter::Property(key.name.into(), Test::Exists));
    }
    Ok(Expr::Filter(Filter::all_of(tests)))
}
