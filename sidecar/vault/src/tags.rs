//! What a tag is, in one place: its syntax (one rule for inline `#tags`,
//! frontmatter values, writes, renames and configuration), its comparison
//! key, and how tags match. Every reader and writer of tags asks here.
//!
//! A tag name is letters and digits (any script), `_`, `-` and `/` (for
//! nesting: `project/weft`), with at least one character that is not a
//! digit, `-` or `/`, and no `/` at either end. Tags compare by their key
//! (Unicode NFC, lower-case, without `#`) and are hierarchical: `project`
//! matches `project` and `project/weft`. No IO, no protocol types.

use super::key::name_key;

/// Whether `c` may be part of a tag name.
pub(crate) fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '/')
}

/// Why `name` (without `#`) is not a tag name, if it is not.
pub fn problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if !name.chars().all(is_tag_char) {
        return Some("a tag is made of letters, digits, `_`, `-` and `/` (for nesting)");
    }
    if name.starts_with('/') || name.ends_with('/') {
        return Some("a tag cannot start or end with `/`");
    }
    if name
        .chars()
        .all(|c| c.is_ascii_digit() || c == '/' || c == '-')
    {
        return Some("a tag needs at least one letter (or `_`)");
    }
    None
}

/// The tag written as `raw` (`#` optional, spaces around ignored), checked:
/// the name as written, or a sentence saying why it is not a tag.
pub fn checked(raw: &str) -> Result<&str, String> {
    let name = raw.trim().trim_start_matches('#');
    match problem(name) {
        None => Ok(name),
        Some(why) => Err(format!(
            "`{raw}` is not a tag: {why} (for example `project/weft`: letters, digits, `_`, `-`, \
             and `/` for nesting, with at least one letter and no spaces)"
        )),
    }
}

/// The inline tag at the start of `s` (just after its `#`): the longest run
/// of tag characters, without a trailing `/`; empty when that is no tag.
pub(crate) fn inline_name(s: &str) -> &str {
    let end = s
        .char_indices()
        .find(|&(_, c)| !is_tag_char(c))
        .map_or(s.len(), |(i, _)| i);
    let name = s[..end].trim_end_matches('/');
    if problem(name).is_some() {
        return "";
    }
    name
}

/// The pieces of a frontmatter tag value (`tags: a, b` or one list item),
/// as (byte offset in `value`, piece without `#`): split at commas and
/// white space. Each piece still has to pass [`problem`].
pub fn frontmatter_pieces(value: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    let mut push = |from: usize, to: usize| {
        let piece = &value[from..to];
        let name = piece.trim_start_matches('#');
        if !name.is_empty() {
            out.push((to - name.len(), name));
        }
    };
    for (i, c) in value.char_indices() {
        match (c == ',' || c.is_whitespace(), start) {
            (true, Some(s)) => {
                push(s, i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        push(s, value.len());
    }
    out
}

/// A tag's comparison key: without `#` and surrounding `/`, NFC, lower-case.
pub fn key(tag: &str) -> String {
    name_key(tag.trim().trim_start_matches('#').trim_matches('/'))
}

/// Whether the tag `name` is `wanted` or nested under it (`project`
/// matches `project/weft`, never `projects`), whichever way either is
/// written (`#` and case do not count).
pub fn matches(wanted: &str, name: &str) -> bool {
    let (w, n) = (
        wanted.trim().trim_start_matches('#'),
        name.trim().trim_start_matches('#'),
    );
    let (wb, nb) = (w.as_bytes(), n.as_bytes());
    if wb.is_ascii() && nb.is_ascii() {
        return nb.len() >= wb.len()
            && nb[..wb.len()].eq_ignore_ascii_case(wb)
            && (nb.len() == wb.len() || nb[wb.len()] == b'/');
    }
    let (w, n) = (key(w), key(n));
    n == w || n.starts_with(&format!("{w}/"))
}

/// The keys of a tag's ancestors, outermost first: `a/b/c` → `a`, `a/b`.
pub fn ancestors(tag: &str) -> Vec<String> {
    let key = key(tag);
    key.match_indices('/')
        .map(|(i, _)| key[..i].to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One rule for every reader and writer (regression: frontmatter took
    /// anything without a space or comma, writes refused what it took, and
    /// search and rename disagreed on `#` and case).
    #[test]
    fn one_rule_for_names_keys_and_matching() {
        let names: &[(&str, bool)] = &[
            ("project", true),
            ("project/weft", true),
            ("Über_tag-1", true),
            ("日本語", true),
            ("y2024", true),
            ("_2024", true),
            ("2024", false),
            ("2024/01", false),
            ("c++", false),
            ("a b", false),
            ("a,b", false),
            ("/lead", false),
            ("trail/", false),
            ("", false),
            ("-", false),
        ];
        for &(name, ok) in names {
            assert_eq!(problem(name).is_none(), ok, "{name:?}");
            assert_eq!(checked(&format!("#{name}")).is_ok(), ok, "#{name:?}");
        }
        assert!(checked("c++").unwrap_err().contains("`c++` is not a tag"));
        assert_eq!(inline_name("project/weft, more"), "project/weft");
        assert_eq!(inline_name("c++"), "c");
        assert_eq!(inline_name("2024 is a year"), "");
        assert_eq!(inline_name("done/."), "done");
        assert_eq!(
            frontmatter_pieces("a, #b  c,,d"),
            [(0, "a"), (4, "b"), (7, "c"), (10, "d")]
        );
        assert_eq!(key("#Project/Weft/"), "project/weft");
        assert_eq!(key("#Caf\u{e9}"), key("cafe\u{301}"));
        for (wanted, name, hit) in [
            ("project", "project", true),
            ("#project", "Project/Weft", true),
            ("project", "#project/weft", true),
            ("project", "projects", false),
            ("project/weft", "project", false),
            ("Café", "café/menu", true),
            ("cafe\u{301}", "Caf\u{e9}", true),
        ] {
            assert_eq!(matches(wanted, name), hit, "{wanted} ~ {name}");
        }
        assert_eq!(ancestors("a/B/c"), ["a", "a/b"]);
        assert!(ancestors("a").is_empty());
    }
}
