//! Lookup keys: how names compare (Unicode NFC, case-insensitive), heading
//! slugs, and vault path normalisation. Every comparison of note names,
//! aliases, titles, headings and tags goes through here.

use unicode_normalization::{UnicodeNormalization, is_nfc_quick};

/// The comparison key of a name: NFC, lower-cased. ASCII takes a fast path.
pub fn name_key(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    match is_nfc_quick(s.chars()) {
        unicode_normalization::IsNormalized::Yes => s.to_lowercase(),
        _ => s.nfc().collect::<String>().to_lowercase(),
    }
}

/// Whether two names are the same as names compare ([`name_key`]),
/// without making either key when both are ASCII.
pub fn same_name(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        name_key(a) == name_key(b)
    }
}

/// The key of a link target or note path: `.md` stripped, `\` read as `/`,
/// then [`name_key`].
pub fn path_key(s: &str) -> String {
    let s = super::note::strip_md(s.trim());
    if s.contains('\\') {
        name_key(&s.replace('\\', "/"))
    } else {
        name_key(s)
    }
}

/// A heading slug as Markdown renderers make it: lower-case, spaces and
/// dashes to `-`, other punctuation dropped. `My Heading!` → `my-heading`.
pub fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.nfc() {
        if c.is_alphanumeric() || c == '_' {
            out.extend(c.to_lowercase());
        } else if (c.is_whitespace() || c == '-') && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Heading text as a comparison key: [`name_key`] with runs of white space
/// folded to one space.
pub(crate) fn heading_key(s: &str) -> String {
    let folded: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    name_key(&folded)
}

/// A fragment prepared once for comparing against many headings: matching
/// a heading then allocates nothing for ASCII text.
pub(crate) struct FragmentKey {
    key: String,
    slug: String,
}

impl FragmentKey {
    pub fn new(fragment: &str) -> Self {
        FragmentKey {
            key: heading_key(fragment),
            slug: slug(fragment),
        }
    }

    pub fn matches(&self, heading: &str) -> bool {
        if heading.is_ascii() {
            return ascii_folded_eq(heading, &self.key)
                || (!self.slug.is_empty() && ascii_slug_eq(heading, &self.slug));
        }
        heading_key(heading) == self.key || (!self.slug.is_empty() && slug(heading) == self.slug)
    }
}

/// White space as `str::split_whitespace` (and so [`heading_key`] and
/// [`slug`]) count it; unlike `u8::is_ascii_whitespace`, the vertical tab
/// is white space too.
fn is_space(b: u8) -> bool {
    char::from(b).is_whitespace()
}

/// `heading_key(a) == key` for ASCII `a`, without allocating.
fn ascii_folded_eq(a: &str, key: &str) -> bool {
    let mut words = a
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty());
    let mut rest = key.as_bytes();
    let mut first = true;
    for word in words.by_ref() {
        if !first {
            match rest.split_first() {
                Some((b' ', tail)) => rest = tail,
                _ => return false,
            }
        }
        first = false;
        if rest.len() < word.len() || !rest[..word.len()].eq_ignore_ascii_case(word.as_bytes()) {
            return false;
        }
        rest = &rest[word.len()..];
    }
    rest.is_empty()
}

/// `slug(a) == slug` for ASCII `a`, without allocating.
fn ascii_slug_eq(a: &str, slug: &str) -> bool {
    let mut out = slug.bytes().peekable();
    let mut pending_dash = false;
    let mut started = false;
    for b in a.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            if pending_dash && started && out.next() != Some(b'-') {
                return false;
            }
            pending_dash = false;
            started = true;
            if out.next() != Some(b.to_ascii_lowercase()) {
                return false;
            }
        } else if is_space(b) || b == b'-' {
            pending_dash = true;
        }
    }
    out.peek().is_none()
}

/// Joins a relative target (`./x`, `../x/y`) onto a folder and folds `.` and
/// `..`. Returns `None` when the path climbs above the vault root.
pub fn join_relative(folder: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The path of `to` (a vault path) relative to `from_folder`: `b.md`,
/// `../x/b.md`.
pub fn relative_path(from_folder: &str, to: &str) -> String {
    let from: Vec<&str> = from_folder.split('/').filter(|p| !p.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| name_key(a) == name_key(b))
        .count()
        .min(to_parts.len().saturating_sub(1));
    let mut out = String::new();
    for _ in common..from.len() {
        out.push_str("../");
    }
    out.push_str(&to_parts[common..].join("/"));
    out
}

/// Percent-encodes what a Markdown link destination cannot hold bare:
/// spaces, parentheses, angle brackets, `#`, `?`, `%`, quotes, brackets and
/// control characters. Other characters (non-ASCII letters included) stay
/// as they are, as Obsidian writes them.
pub fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_control()
            || matches!(
                c,
                ' ' | '(' | ')' | '<' | '>' | '#' | '?' | '%' | '"' | '`' | '[' | ']'
            )
        {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The spelling written most (ties: the first in byte order) of a name's
/// spellings with their use counts: how a tag or a key is displayed.
pub fn most_written(spellings: &[(Box<str>, u32)]) -> &str {
    spellings
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map_or("", |s| &s.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_case_and_normal_form() {
        // "é" precomposed and decomposed compare equal.
        assert_eq!(name_key("Caf\u{e9}"), name_key("Cafe\u{301}"));
        assert_eq!(name_key("ÉTÉ"), "été");
        assert_eq!(path_key("Folder/Note.MD"), "folder/note");
        assert_eq!(path_key("a\\b.md"), "a/b");
    }

    /// Whether a fragment (`My Heading`, `my-heading`) names a heading.
    fn heading_matches(heading: &str, fragment: &str) -> bool {
        FragmentKey::new(fragment).matches(heading)
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("My Heading!"), "my-heading");
        assert_eq!(slug("  Über  das -- Ding "), "über-das-ding");
        assert!(heading_matches("My Heading", "my-heading"));
        assert!(heading_matches("My  heading", "my heading"));
        assert!(!heading_matches("Other", "my-heading"));
        assert!(!heading_matches("!!!", "???"));
        // The allocation-free ASCII paths agree with the general ones.
        for (h, f) in [
            ("My  Heading", "my heading"),
            ("A - B", "a-b"),
            ("a_b c", "A_B-C"),
            ("x", "xy"),
            ("x y", "x"),
            ("Q&A: part 2", "qa-part-2"),
            ("-Lead", "lead"),
            ("", ""),
            // Regression (found by the `headings` fuzz target): the fast
            // paths did not take a vertical tab for white space, so a
            // heading holding one named no section, not even itself.
            ("k\u{b}p", "k\u{b}p"),
            ("k\u{b}p", "k p"),
            ("a\u{b}b", "a-b"),
        ] {
            let general =
                heading_key(h) == heading_key(f) || (!slug(f).is_empty() && slug(h) == slug(f));
            assert_eq!(heading_matches(h, f), general, "{h:?} vs {f:?}");
        }
    }

    #[test]
    fn relative_paths() {
        assert_eq!(join_relative("a/b", "../c/d").as_deref(), Some("a/c/d"));
        assert_eq!(join_relative("a", "./x").as_deref(), Some("a/x"));
        assert_eq!(join_relative("", "../x"), None);
    }
}
