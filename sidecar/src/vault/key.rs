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
pub fn heading_key(s: &str) -> String {
    let folded: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    name_key(&folded)
}

/// Whether a fragment (`My Heading`, `my-heading`) names a heading.
pub fn heading_matches(heading: &str, fragment: &str) -> bool {
    heading_key(heading) == heading_key(fragment) || {
        let s = slug(fragment);
        !s.is_empty() && slug(heading) == s
    }
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

    #[test]
    fn slugs() {
        assert_eq!(slug("My Heading!"), "my-heading");
        assert_eq!(slug("  Über  das -- Ding "), "über-das-ding");
        assert!(heading_matches("My Heading", "my-heading"));
        assert!(heading_matches("My  heading", "my heading"));
        assert!(!heading_matches("Other", "my-heading"));
        assert!(!heading_matches("!!!", "???"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(join_relative("a/b", "../c/d").as_deref(), Some("a/c/d"));
        assert_eq!(join_relative("a", "./x").as_deref(), Some("a/x"));
        assert_eq!(join_relative("", "../x"), None);
    }
}
