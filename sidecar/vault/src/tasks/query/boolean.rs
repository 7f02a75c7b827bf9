//! Boolean lines: filters each inside one kind of delimiters — `( )`,
//! `[ ]`, `{ }` or `" "`, the kind the line starts and ends with — joined
//! by `AND`, `OR`, `XOR`, `NOT`, `AND NOT`, `OR NOT` (upper case), nested
//! in more delimiters. As the Tasks plugin evaluates them, `NOT` binds
//! first, then `XOR`, then `AND`, then `OR`. Nesting is limited to
//! [`MAX_DEPTH`]; each filter inside is read by `filter.rs`.

use super::filter::Filter;

/// Reads a filter inside delimiters, at a nesting depth.
pub(super) type Leaf<'a> = &'a dyn Fn(&str, usize) -> Option<Result<Filter, String>>;

/// The deepest nesting of delimiters (and of lines within lines).
pub const MAX_DEPTH: usize = 32;

const PAIRS: [(char, char); 4] = [('(', ')'), ('[', ']'), ('{', '}'), ('"', '"')];

/// A boolean line's filter; `None` when the line is not one.
pub(super) fn parse(line: &str, depth: usize, leaf: Leaf) -> Option<Result<Filter, String>> {
    let line = line.trim();
    // Leading unary operators aside, the first and last characters are a
    // pair of delimiters.
    let body = line.trim_start_matches(|c: char| c.is_ascii_uppercase() || c == ' ');
    let first = body.chars().next()?;
    let (open, close) = PAIRS.into_iter().find(|(o, _)| *o == first)?;
    if !body.ends_with(close) {
        return Some(Err(format!(
            "all filters in a boolean line must be inside one kind of delimiters: (…), […], \
             {{…}} or \"…\"; this line starts with `{open}` but does not end with `{close}`"
        )));
    }
    if depth >= MAX_DEPTH {
        return Some(Err(format!(
            "boolean filters nest deeper than {MAX_DEPTH} levels"
        )));
    }
    let mut parser = Parser {
        text: line,
        at: 0,
        open,
        close,
        leaf,
        depth,
    };
    let result = parser.or().and_then(|filter| {
        parser.spaces();
        if parser.at < parser.text.len() {
            Err(format!(
                "unexpected `{}` at column {}",
                parser.rest().chars().take(12).collect::<String>(),
                parser.at + 1
            ))
        } else {
            Ok(filter)
        }
    });
    Some(result.map_err(|e| format!("malformed boolean query: {e}")))
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    open: char,
    close: char,
    leaf: Leaf<'a>,
    depth: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    /// Takes `word` (upper case, then a space or a delimiter) if it comes
    /// next.
    fn keyword(&mut self, word: &str) -> bool {
        self.spaces();
        let rest = self.rest();
        let after = rest.strip_prefix(word);
        match after.and_then(|a| a.chars().next()) {
            Some(c) if c.is_whitespace() || c == self.open => {
                self.at += word.len();
                true
            }
            _ => false,
        }
    }

    fn or(&mut self) -> Result<Filter, String> {
        let mut left = self.and()?;
        while self.keyword("OR") {
            let right = self.and()?;
            left = Filter::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Filter, String> {
        let mut left = self.xor()?;
        while self.keyword("AND") {
            let right = self.xor()?;
            left = Filter::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn xor(&mut self) -> Result<Filter, String> {
        let mut left = self.unary()?;
        while self.keyword("XOR") {
            let right = self.unary()?;
            left = Filter::Xor(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Filter, String> {
        if self.keyword("NOT") {
            self.nest()?;
            let inner = self.unary();
            self.depth -= 1;
            return Ok(Filter::Not(Box::new(inner?)));
        }
        self.primary()
    }

    fn nest(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("filters nest deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    /// `(filter)` or `( expression )`.
    fn primary(&mut self) -> Result<Filter, String> {
        self.spaces();
        let Some(rest) = self.rest().strip_prefix(self.open) else {
            let found = self.rest().chars().take(12).collect::<String>();
            return Err(if found.is_empty() {
                format!(
                    "a filter in `{}…{}` is missing at the end",
                    self.open, self.close
                )
            } else {
                format!(
                    "expected `{}` at column {}, found `{found}` (use AND, OR, XOR, NOT, AND NOT \
                     or OR NOT between filters, each in `{}…{}`)",
                    self.open,
                    self.at + 1,
                    self.open,
                    self.close
                )
            });
        };
        let inner_at = self.at + self.open.len_utf8();
        let inner = rest.trim_start();
        // A nested expression starts with another delimiter or `NOT`.
        let nested = inner.starts_with(self.open)
            || (inner.starts_with("NOT")
                && inner[3..].trim_start().starts_with(self.open)
                && self.open != '"');
        if nested {
            self.at = inner_at;
            self.nest()?;
            let filter = self.or();
            self.depth -= 1;
            let filter = filter?;
            self.spaces();
            return match self.rest().strip_prefix(self.close) {
                Some(_) => {
                    self.at += self.close.len_utf8();
                    Ok(filter)
                }
                None => Err(format!(
                    "`{}` missing at column {}",
                    self.close,
                    self.at + 1
                )),
            };
        }
        // A filter: up to the first closing delimiter followed by the end,
        // another closing delimiter or an operator.
        let mut search = inner_at;
        loop {
            let Some(found) = self.text[search..].find(self.close) else {
                return Err(format!(
                    "`{}` missing after `{}`",
                    self.close,
                    &self.text[inner_at..].trim()
                ));
            };
            let end = search + found;
            let after = self.text[end + self.close.len_utf8()..].trim_start();
            let ends = after.is_empty()
                || after.starts_with(self.close)
                || ["AND", "OR", "XOR", "NOT"].iter().any(|op| {
                    after
                        .strip_prefix(op)
                        .and_then(|a| a.chars().next())
                        .is_some_and(|c| c.is_whitespace() || c == self.open)
                });
            if ends && end > inner_at {
                let text = &self.text[inner_at..end];
                self.at = end + self.close.len_utf8();
                return match (self.leaf)(text, self.depth + 1) {
                    Some(Ok(filter)) => Ok(filter),
                    Some(Err(e)) => Err(format!(
                        "couldn't parse sub-expression '{}': {e}",
                        text.trim()
                    )),
                    None => Err(format!("couldn't parse sub-expression '{}'", text.trim())),
                };
            }
            search = end + self.close.len_utf8();
        }
    }
}
