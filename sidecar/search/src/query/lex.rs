//! The query's words: quotes, parentheses, operators (`AND`, `&&`, `OR`,
//! `||`, `NOT`, `-`, `!`, `+`), `field:` names and `[a TO b]` ranges, in the
//! order written.
//!
//! It must not know what a field means or how tokens combine (the parser's
//! business): a token is read from the characters alone, so a URL stays a
//! word and a dash inside a word is no negation.

use super::expr::{QueryError, error};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
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

pub(super) fn lex(input: &str) -> Result<Vec<Tok>, QueryError> {
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
