//! Regular expressions written as JavaScript writes them (`/pattern/flags`),
//! as Obsidian's Bases and the Tasks plugin take them: read by the `regex`
//! crate, with its limits on size and nesting. What the crate does not do
//! (look-around, back-references) and flags other than `g i m s u` are
//! errors that name them, never a pattern quietly matching something else.

use regex::{Regex, RegexBuilder};

/// The compiled program's size limit (bytes) and the deepest nesting.
const SIZE_LIMIT: usize = 1 << 20;
const NEST_LIMIT: u32 = 64;

/// `pattern` with JavaScript's `flags`: `i` (any case), `m` (`^`/`$` at
/// lines), `s` (`.` matches line breaks); `g` and `u` change nothing a
/// match test sees.
pub fn build(pattern: &str, flags: &str) -> Result<Regex, String> {
    let mut builder = RegexBuilder::new(pattern);
    builder.size_limit(SIZE_LIMIT).nest_limit(NEST_LIMIT);
    for flag in flags.chars() {
        match flag {
            'i' => {
                builder.case_insensitive(true);
            }
            'm' => {
                builder.multi_line(true);
            }
            's' => {
                builder.dot_matches_new_line(true);
            }
            'g' | 'u' => {}
            other => {
                return Err(format!(
                    "the regular expression flag `{other}` is not supported (g, i, m, s, u are)"
                ));
            }
        }
    }
    builder
        .build()
        .map_err(|e| format!("the regular expression /{pattern}/ is not supported: {e}"))
}

/// `/pattern/flags` split: the pattern between the first `/` and the last,
/// the flags after it. `None` when the text is not in that form.
pub fn split_literal(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_prefix('/')?;
    let end = body.rfind('/')?;
    let (pattern, flags) = (&body[..end], &body[end + 1..]);
    (!pattern.is_empty() && flags.chars().all(|c| c.is_ascii_alphabetic()))
        .then_some((pattern, flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_literals() {
        assert!(build("^a.b$", "i").unwrap().is_match("A\u{1}B"));
        assert!(build("a", "x").unwrap_err().contains("`x`"));
        assert!(build("(?=a)", "").unwrap_err().contains("not supported"));
        assert_eq!(split_literal("/a/b/i"), Some(("a/b", "i")));
        assert_eq!(split_literal("/a/"), Some(("a", "")));
        assert_eq!(split_literal("a"), None);
        assert_eq!(split_literal("//"), None);
        assert_eq!(split_literal("/a/ x"), None);
    }
}
