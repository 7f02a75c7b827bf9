//! How a link's source text becomes a [`Link`]: `target#fragment|alias`
//! between `[[` and `]]` (Obsidian's `\|` in tables included), and a
//! Markdown destination, percent-decoded, when it points into the vault
//! rather than to a URL.
//!
//! It must not know where the link was found (the body or a frontmatter
//! value) nor its line: both callers place the link themselves, so one
//! reading of the link syntax serves them both.

use std::ops::Range;

use crate::note::{Link, LinkKind};

/// Reads `target#fragment|alias` between `[[` and `]]`.
pub(super) fn wiki_link(text: &str, inner: Range<usize>, whole: Range<usize>, embed: bool) -> Link {
    let (target, fragment, alias) = wiki_parts(&text[inner.clone()]);
    let lead = target.len() - target.trim_start().len();
    let target_trimmed = target.trim();
    let start = inner.start + lead;
    Link::new(
        LinkKind::Wiki,
        embed,
        target_trimmed,
        fragment.filter(|f| !f.is_empty()),
        alias.filter(|a| !a.is_empty()),
        whole.start as u32..whole.end as u32,
        start as u32..(start + target_trimmed.len()) as u32,
    )
}

/// `target`, `fragment` and `alias` of what stands between `[[` and `]]`
/// (the target untrimmed, the others trimmed).
fn wiki_parts(inner: &str) -> (&str, Option<&str>, Option<&str>) {
    let (dest, alias) = match inner.find('|') {
        // In a table Obsidian writes `[[target\|alias]]`.
        Some(bar) => (
            inner[..bar].strip_suffix('\\').unwrap_or(&inner[..bar]),
            Some(inner[bar + 1..].trim()),
        ),
        None => (inner, None),
    };
    let (target, fragment) = match dest.find('#') {
        Some(hash) => (&dest[..hash], Some(dest[hash + 1..].trim())),
        None => (dest, None),
    };
    (target, fragment, alias)
}

/// The target of `text` when all of it is one `[[wikilink]]` (a property
/// such as `part_of: "[[Hub|the hub]]"`): `Hub`.
pub fn wikilink_target(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("[[")?.strip_suffix("]]")?;
    if inner.contains("[[") || inner.contains("]]") || inner.contains('\n') {
        return None;
    }
    let target = wiki_parts(inner).0.trim();
    (!target.is_empty()).then_some(target)
}

/// A Markdown link `[text](dest)` into the vault; `None` for URLs.
pub(super) fn markdown_link(
    raw: &str,
    dest: &str,
    range: Range<usize>,
    embed: bool,
) -> Option<Link> {
    let dest = dest.trim();
    if dest.is_empty() || has_scheme(dest) || dest.starts_with("//") {
        return None;
    }
    let (path, fragment) = match dest.find('#') {
        Some(hash) => (&dest[..hash], Some(&dest[hash + 1..])),
        None => (dest, None),
    };
    let path = path.split('?').next().unwrap_or(path);
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let target = decode(path);
    // Where the destination stands in the source, when it is written inline.
    let target_span = raw
        .rfind("](")
        .and_then(|open| raw[open + 2..].find(path).map(|i| open + 2 + i))
        .filter(|_| !path.is_empty())
        .map_or(range.start..range.end, |i| {
            range.start + i..range.start + i + path.len()
        });
    let fragment = fragment.map(decode).filter(|f| !f.is_empty());
    Some(Link::new(
        LinkKind::Markdown,
        embed,
        &target,
        fragment.as_deref(),
        None,
        range.start as u32..range.end as u32,
        target_span.start as u32..target_span.end as u32,
    ))
}

/// `https:`, `mailto:`, `obsidian:`: a URL scheme (not a Windows drive).
fn has_scheme(dest: &str) -> bool {
    match dest.find(':') {
        Some(colon) if colon > 1 => {
            let scheme = &dest[..colon];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}
