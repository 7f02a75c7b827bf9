//! What is being typed at a byte offset of a note: a wikilink's target, a
//! heading or block fragment, a tag, a Markdown link's path or heading
//! slug, or a task's date after its field's emoji or Dataview key, with the
//! byte range a completion replaces.
//!
//! It reads the text alone and must not know the index, the candidates or
//! their ranking: the context is decided before anything is looked up, so
//! that it can be tested on strings and a face can tell "nothing to complete
//! here" without touching the vault.

use std::ops::Range;

use crate::lines::{line_end_at, line_start_at};
use crate::tasks::{DateKind, read_line};

/// What is being typed at the cursor. Ranges are byte ranges of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    /// `[[typed` or `![[typed`: a note name.
    Note { typed: String, link: LinkSlot },
    /// `[[target#H1#typed`: a heading of `target` (`""`: this note) under
    /// the headings already named in `scope`.
    Heading {
        target: String,
        scope: Vec<String>,
        typed: String,
        link: LinkSlot,
    },
    /// `[[target#^typed`: a block id of `target` (`""`: this note).
    Block {
        target: String,
        typed: String,
        link: LinkSlot,
    },
    /// A property's name, typed at the start of a frontmatter line.
    PropertyKey {
        typed: String,
        replace: Range<usize>,
        /// A `:` follows on the line already.
        colon: bool,
    },
    /// A value of the property `key`, typed after `key:`, as an item of a
    /// `[…]` list there, or as a `- item` under it.
    PropertyValue {
        key: String,
        typed: String,
        replace: Range<usize>,
    },
    /// `#typed`: a tag.
    Tag {
        typed: String,
        replace: Range<usize>,
    },
    /// `[text](typed`: a path from the note's folder, with `#typed` a
    /// heading slug of that note.
    MarkdownPath {
        typed: String,
        replace: Range<usize>,
        /// `)` follows already.
        closed: bool,
        /// The path is written `<like this>` (no percent-encoding).
        angle: bool,
        /// For `](path#typed`: the path before `#`, percent-decoded.
        fragment_of: Option<String>,
    },
    /// A date typed after a task's `📅`, `⏳`, `🛫` or `➕` (or in
    /// `[due:: `, `[scheduled:: `, `[start:: `, `[created:: `).
    TaskDate {
        date: DateKind,
        typed: String,
        replace: Range<usize>,
        /// The task's description as its line reads now: whether the line
        /// counts as a task under a global filter is asked of it.
        description: String,
    },
}

/// Where a wikilink's completion goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSlot {
    /// The bytes the completion replaces.
    pub replace: Range<usize>,
    /// `]]` closes the link already (on the same line).
    pub closed: bool,
    /// A `#fragment` or `|alias` follows the replaced part.
    pub has_tail: bool,
    pub embed: bool,
}

/// Finds what is being typed at byte `offset` of `text` (on its line).
pub fn context(text: &str, offset: usize) -> Option<Context> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = line_start_at(text, offset);
    let line_end = line_end_at(text, offset);
    let before = &text[line_start..offset];
    let after = &text[offset..line_end];
    if in_code_span(before) {
        return None;
    }
    if let Some(open) = before.rfind("[[")
        && !before[open..].contains("]]")
    {
        let inner_start = line_start + open + 2;
        let embed = before[..open].ends_with('!');
        return wiki_context(text, inner_start, offset, after, embed);
    }
    // In the frontmatter, YAML: a property's name or value, never a tag
    // (`#` starts a comment there) or a Markdown link.
    if let Some(block) = crate::frontmatter::block(text)
        && block.yaml.contains(&line_start)
    {
        return property_context(text, line_start, offset, line_end);
    }
    if let Some(found) = task_date_context(text, line_start, offset, line_end) {
        return Some(found);
    }
    if let Some(open) = before.rfind("](") {
        let dest = &before[open + 2..];
        let open_dest = match dest.strip_prefix('<') {
            Some(inner) => !inner.contains('>'),
            None => !dest.contains(')') && !dest.contains(char::is_whitespace),
        };
        if open_dest {
            return markdown_context(line_start + open + 2, offset, before, after);
        }
    }
    tag_context(text, line_start, offset)
}

/// What is typed on a frontmatter line: a key at the line's start, a value
/// after `key:` (or an item of a `[…]` list there), or a `- item` under a
/// key of the lines above.
fn property_context(
    text: &str,
    line_start: usize,
    offset: usize,
    line_end: usize,
) -> Option<Context> {
    let before = &text[line_start..offset];
    let after = &text[offset..line_end];
    // The rest of the word under the cursor is replaced too.
    let word_end = |stops: &[char]| {
        offset
            + after
                .find(|c: char| stops.contains(&c) || c == '\r')
                .unwrap_or(after.len())
    };
    if before.trim_start().starts_with('#') || before.contains(" #") {
        return None; // A comment.
    }
    let indented = before.starts_with([' ', '\t']);
    if let Some(item) = before.trim_start().strip_prefix("- ").filter(|_| indented) {
        let key = owning_key(text, line_start)?;
        let start = offset - item.len();
        return Some(Context::PropertyValue {
            key,
            typed: item.to_string(),
            replace: start..word_end(&[]),
        });
    }
    if indented {
        return None;
    }
    match before.find(':') {
        None => {
            let colon = after.contains(':');
            Some(Context::PropertyKey {
                typed: before.to_string(),
                replace: line_start..word_end(&[':', ' ']),
                colon,
            })
        }
        Some(colon) => {
            let key = before[..colon].trim().trim_matches(['"', '\'']).to_string();
            let value = &before[colon + 1..];
            // Inside `[a, b, typed`: the item being typed.
            let (typed, stops): (&str, &[char]) = match value.trim_start().strip_prefix('[') {
                Some(list) => (list.rsplit(',').next().unwrap_or(list), &[',', ']']),
                None => (value, &[]),
            };
            let typed_trimmed = typed.trim_start();
            let start = offset - typed_trimmed.len();
            Some(Context::PropertyValue {
                key,
                typed: typed_trimmed.to_string(),
                replace: start..word_end(stops),
            })
        }
    }
}

/// The key a `- item` line belongs to: the nearest line above it that
/// starts with no indent and is not a comment.
fn owning_key(text: &str, line_start: usize) -> Option<String> {
    let above = &text[..line_start];
    for line in above.lines().rev() {
        if line.starts_with([' ', '\t', '-']) || line.trim().is_empty() {
            continue;
        }
        if line.starts_with('#') || line.starts_with("---") {
            return None;
        }
        let (key, rest) = line.split_once(':')?;
        return rest
            .trim()
            .is_empty()
            .then(|| key.trim().trim_matches(['"', '\'']).to_string());
    }
    None
}

/// An odd number of backticks before the cursor: inside a code span.
fn in_code_span(before: &str) -> bool {
    before.bytes().filter(|&b| b == b'`').count() % 2 == 1
}

fn wiki_context(
    text: &str,
    inner_start: usize,
    offset: usize,
    after: &str,
    embed: bool,
) -> Option<Context> {
    let typed_all = &text[inner_start..offset];
    if typed_all.contains('|') || typed_all.contains('[') {
        return None;
    }
    // The link is closed on this line when `]]` comes before any `[[`.
    let close_at = after
        .find("]]")
        .filter(|&c| after.find("[[").is_none_or(|o| o > c));
    let closed = close_at.is_some();
    // After the cursor, the part being replaced runs to the next `#`, `|`
    // or `]]`; a `#fragment` or `|alias` there is kept.
    let (extra, has_tail) = match close_at {
        Some(close) => match after[..close].find(['#', '|']) {
            Some(i) => (i, true),
            None => (close, false),
        },
        None => (0, false),
    };
    match typed_all.find('#') {
        None => Some(Context::Note {
            typed: typed_all.to_string(),
            link: LinkSlot {
                replace: inner_start..offset + extra,
                closed,
                has_tail,
                embed,
            },
        }),
        Some(hash) => {
            let target = typed_all[..hash].trim().to_string();
            let fragment = &typed_all[hash + 1..];
            let fragment_start = inner_start + hash + 1;
            if let Some(block) = fragment.strip_prefix('^') {
                return Some(Context::Block {
                    target,
                    typed: block.to_string(),
                    link: LinkSlot {
                        replace: fragment_start + 1..offset + extra,
                        closed,
                        has_tail,
                        embed,
                    },
                });
            }
            let (scope_text, typed, typed_start) = match fragment.rfind('#') {
                Some(last) => (
                    &fragment[..last],
                    &fragment[last + 1..],
                    fragment_start + last + 1,
                ),
                None => ("", fragment, fragment_start),
            };
            let scope = scope_text
                .split('#')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            Some(Context::Heading {
                target,
                scope,
                typed: typed.to_string(),
                link: LinkSlot {
                    replace: typed_start..offset + extra,
                    closed,
                    has_tail,
                    embed,
                },
            })
        }
    }
}

fn markdown_context(
    dest_start: usize,
    offset: usize,
    before: &str,
    after: &str,
) -> Option<Context> {
    let open = before.rfind("](")?;
    let mut typed = &before[open + 2..];
    let mut start = dest_start;
    let angle = typed.starts_with('<');
    if angle {
        typed = &typed[1..];
        start += 1;
    }
    let close_char = if angle { '>' } else { ')' };
    let end_in_after = after
        .find(|c: char| c == close_char || (!angle && c.is_whitespace()))
        .unwrap_or(0);
    let closed = after[end_in_after..].starts_with(close_char);
    let extra = if closed { end_in_after } else { 0 };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    if let Some(hash) = typed.find('#') {
        return Some(Context::MarkdownPath {
            typed: decode(&typed[hash + 1..]),
            replace: start + hash + 1..offset + extra,
            closed,
            angle,
            fragment_of: Some(decode(&typed[..hash])),
        });
    }
    Some(Context::MarkdownPath {
        typed: decode(typed),
        replace: start..offset + extra,
        closed,
        angle,
        fragment_of: None,
    })
}

/// The dates completed on a task line: the plugin's auto-suggest offers
/// these four (done and cancelled dates come with a status).
const TASK_DATES: [DateKind; 4] = [
    DateKind::Due,
    DateKind::Scheduled,
    DateKind::Start,
    DateKind::Created,
];

/// A date typed right after a date field's emoji (a variation selector
/// and spaces between them allowed, as the plugin reads fields) or its
/// Dataview key and `[`, on a task line, after its checkbox. What is typed
/// is letters, digits and `-` (`2024-05`, `tom`); the rest of such a word
/// after the cursor is replaced too.
fn task_date_context(
    text: &str,
    line_start: usize,
    offset: usize,
    line_end: usize,
) -> Option<Context> {
    let line = &text[line_start..line_end];
    let col = offset - line_start;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let before = &line[..col];
    let typed = &before[before.trim_end_matches(word).len()..];
    let head = before[..col - typed.len()].trim_end_matches(' ');
    let emoji_head = head.strip_suffix('\u{fe0f}').unwrap_or(head);
    // Where the field starts, for each date whose field it is.
    let field_start = |date: &DateKind| {
        let field = date.field();
        let emoji = field
            .emojis()
            .iter()
            .find(|e| emoji_head.ends_with(**e))
            .map(|e| emoji_head.len() - e.len());
        let dataview = head
            .strip_suffix(field.dataview_key())
            .map(|h| h.trim_end_matches(' '))
            .filter(|h| h.ends_with(['[', '(']))
            .map(|h| h.len() - 1);
        emoji.or(dataview)
    };
    let (date, at) = TASK_DATES
        .into_iter()
        .find_map(|date| Some((date, field_start(&date)?)))?;
    // Only now the line is read (most lines are no task's date field).
    let parts = read_line(line)?;
    if at < parts.body.start {
        return None;
    }
    let after = &line[col..];
    let rest = after.len() - after.trim_start_matches(word).len();
    Some(Context::TaskDate {
        date,
        typed: typed.to_string(),
        replace: offset - typed.len()..offset + rest,
        description: parts.fields.description,
    })
}

fn tag_context(text: &str, line_start: usize, offset: usize) -> Option<Context> {
    let before = &text[line_start..offset];
    let hash = before.rfind('#')?;
    let typed = &before[hash + 1..];
    if !typed
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
    {
        return None;
    }
    let ok_before = before[..hash]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | ',' | ';'));
    // `#` at the start of a line with nothing typed is a heading in the
    // making, `##` is one for sure.
    if !ok_before || (hash == 0 && typed.is_empty()) || before[..hash].ends_with('#') {
        return None;
    }
    let after = &text[offset..];
    let rest = after
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
        .unwrap_or(after.len());
    let start = line_start + hash + 1;
    Some(Context::Tag {
        typed: typed.to_string(),
        replace: start..offset + rest,
    })
}
