//! The expression's tokens, each with its byte range in the source: names,
//! numbers, strings (`"…"`, `'…'`), regular expressions (`/…/flags`, where
//! an operand may stand), operators and brackets.

use std::ops::Range;

use super::ExprError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Name(String),
    Number(f64),
    Str(String),
    Regex {
        pattern: String,
        flags: String,
    },
    /// An operator or a bracket: `(`, `==`, `&&`, `.`…
    Op(&'static str),
}

/// Operators and brackets, longest first.
const OPS: &[&str] = &[
    "===", "!==", "==", "!=", ">=", "<=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ".", ":",
    "+", "-", "*", "/", "%", ">", "<", "!",
];

/// The tokens of `src` with their byte ranges.
pub fn lex(src: &str) -> Result<Vec<(Tok, Range<usize>)>, ExprError> {
    let bytes = src.as_bytes();
    let mut out: Vec<(Tok, Range<usize>)> = Vec::new();
    let mut at = 0;
    while at < src.len() {
        let c = src[at..].chars().next().expect("a char at a boundary");
        if c.is_whitespace() {
            at += c.len_utf8();
            continue;
        }
        let start = at;
        if c == '"' || c == '\'' {
            let (text, end) = string(src, at, c)?;
            out.push((Tok::Str(text), start..end));
            at = end;
        } else if c.is_ascii_digit()
            || (c == '.' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit))
        {
            let mut end = at;
            while end < src.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
                // `1.round()`: a dot not followed by a digit ends the number.
                if bytes[end] == b'.' && !bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
                    break;
                }
                end += 1;
            }
            let text = &src[at..end];
            let n: f64 = text.parse().map_err(|_| ExprError {
                message: format!("`{text}` is not a number"),
                span: start..end,
            })?;
            out.push((Tok::Number(n), start..end));
            at = end;
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let mut end = at;
            for ch in src[at..].chars() {
                if ch.is_alphanumeric() || ch == '_' || ch == '$' {
                    end += ch.len_utf8();
                } else {
                    break;
                }
            }
            out.push((Tok::Name(src[at..end].to_string()), start..end));
            at = end;
        } else if c == '/' && operand_expected(out.last().map(|(t, _)| t)) {
            let (pattern, flags, end) = regex(src, at)?;
            out.push((Tok::Regex { pattern, flags }, start..end));
            at = end;
        } else if let Some(op) = OPS.iter().find(|op| src[at..].starts_with(**op)) {
            out.push((Tok::Op(op), start..start + op.len()));
            at += op.len();
        } else {
            return Err(ExprError {
                message: format!("`{c}` is not part of the expression language"),
                span: start..start + c.len_utf8(),
            });
        }
    }
    Ok(out)
}

/// Whether an operand (not an operator) comes after `prev`: then `/`
/// opens a regular expression rather than dividing.
fn operand_expected(prev: Option<&Tok>) -> bool {
    match prev {
        None => true,
        Some(Tok::Op(op)) => !matches!(*op, ")" | "]" | "}"),
        Some(_) => false,
    }
}

/// A quoted string from `at` (its opening `quote`): its text, and where it
/// ends. Escapes: `\n`, `\t`, `\\`, `\"`, `\'`, and any other `\x` as `x`.
fn string(src: &str, at: usize, quote: char) -> Result<(String, usize), ExprError> {
    let mut text = String::new();
    let mut chars = src[at + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((text, at + 1 + i + 1)),
            '\\' => match chars.next() {
                Some((_, 'n')) => text.push('\n'),
                Some((_, 't')) => text.push('\t'),
                Some((_, other)) => text.push(other),
                None => break,
            },
            c => text.push(c),
        }
    }
    Err(ExprError {
        message: format!("a string opened with {quote} is not closed"),
        span: at..src.len(),
    })
}

/// A regular expression from `at` (its opening `/`): pattern, flags and
/// where it ends. A `/` inside `[…]` or after `\` does not close it.
fn regex(src: &str, at: usize) -> Result<(String, String, usize), ExprError> {
    let mut in_class = false;
    let mut escaped = false;
    for (i, c) in src[at + 1..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => {
                let end = at + 1 + i;
                let flags_end = src[end + 1..]
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .map_or(src.len(), |n| end + 1 + n);
                return Ok((
                    src[at + 1..end].to_string(),
                    src[end + 1..flags_end].to_string(),
                    flags_end,
                ));
            }
            '\n' => break,
            _ => {}
        }
    }
    Err(ExprError {
        message: "a regular expression opened with / is not closed".into(),
        span: at..src.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src).unwrap().into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn tokens_with_their_places() {
        assert_eq!(
            toks(r#"!file.name.contains("Te\"mp") && x >= 2.5"#),
            [
                Tok::Op("!"),
                Tok::Name("file".into()),
                Tok::Op("."),
                Tok::Name("name".into()),
                Tok::Op("."),
                Tok::Name("contains".into()),
                Tok::Op("("),
                Tok::Str("Te\"mp".into()),
                Tok::Op(")"),
                Tok::Op("&&"),
                Tok::Name("x".into()),
                Tok::Op(">="),
                Tok::Number(2.5),
            ]
        );
        let spans: Vec<_> = lex("a == 'b'")
            .unwrap()
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(spans, [0..1, 2..4, 5..8]);
    }

    #[test]
    fn a_slash_divides_after_an_operand_and_opens_a_regex_before_one() {
        assert_eq!(
            toks("a / 2"),
            [Tok::Name("a".into()), Tok::Op("/"), Tok::Number(2.0)]
        );
        assert_eq!(
            toks(r"/^\d{4}[/-]x/gi.matches(b)")[0],
            Tok::Regex {
                pattern: r"^\d{4}[/-]x".into(),
                flags: "gi".into()
            }
        );
        assert_eq!(toks("1.round()")[..2], [Tok::Number(1.0), Tok::Op(".")]);
    }

    #[test]
    fn unclosed_and_stray_characters_are_errors_with_a_place() {
        assert!(lex("'abc").unwrap_err().message.contains("not closed"));
        assert!(lex("/abc").unwrap_err().message.contains("not closed"));
        let e = lex("a # b").unwrap_err();
        assert_eq!(e.span, 2..3);
    }
}
