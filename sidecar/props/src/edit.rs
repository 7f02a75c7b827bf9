//! `text_edit`: `edit_note`'s operations (`vault::edit`) on any note. A
//! list of operations is all or nothing: it fails at the first operation
//! that fails on the text the ones before it made, or gives what they give
//! one by one. Each operation changes only the bytes it addresses (the
//! end, the body, the found text, the anchor's line, the section, the
//! lines), worked out here from the text alone; those that address the
//! body keep the frontmatter as it was.

use std::ops::Range;

use arbitrary::Arbitrary;
use weft_vault::edit::{EditOp, apply_ops, find_section};
use weft_vault::frontmatter::{block, body_start};
use weft_vault::headings::heading_path;
use weft_vault::parse::parse_text;

use crate::input::{Pick, choices, nth, split};

/// A section as a tool names it: one of the note's headings by its full
/// path or its text, or any string.
#[derive(Debug, Arbitrary)]
enum Section {
    Path(u8),
    Text(u8),
    Any(Pick),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Append(Pick),
    Prepend(Pick),
    ReplaceBody(Pick),
    ReplaceText {
        find: Pick,
        replace: Pick,
        all: bool,
    },
    InsertBefore {
        anchor: Pick,
        content: Pick,
    },
    InsertAfter {
        anchor: Pick,
        content: Pick,
    },
    AppendSection {
        section: Section,
        content: Pick,
    },
    PrependSection {
        section: Section,
        content: Pick,
    },
    ReplaceSection {
        section: Section,
        content: Pick,
    },
    DeleteSection {
        section: Section,
    },
    InsertLines {
        at: u8,
        content: Pick,
    },
    ReplaceLines {
        from: u8,
        to: u8,
        content: Pick,
    },
    DeleteLines {
        from: u8,
        to: u8,
    },
}

pub fn text_edit(data: &[u8]) {
    let (text, mut u) = split(data);
    // Strings are picked from the note as the caller read it.
    let note = parse_text("fuzz.md", &text);
    let indexes: Vec<usize> = (0..note.headings.len()).collect();
    let section = |s: &Section| match s {
        Section::Path(h) => nth(&indexes, *h)
            .map(|&h| heading_path(&note, h, "::"))
            .unwrap_or_default(),
        Section::Text(h) => nth(&indexes, *h)
            .map(|&h| note.headings[h].text.to_string())
            .unwrap_or_default(),
        Section::Any(pick) => pick.get(&text),
    };
    let ops: Vec<EditOp> = choices::<Op>(&mut u, 4)
        .into_iter()
        .map(|op| {
            let s = |p: &Pick| p.get(&text);
            match op {
                Op::Append(c) => EditOp::Append { content: s(&c) },
                Op::Prepend(c) => EditOp::Prepend { content: s(&c) },
                Op::ReplaceBody(c) => EditOp::ReplaceBody { content: s(&c) },
                Op::ReplaceText { find, replace, all } => EditOp::ReplaceText {
                    find: s(&find),
                    replace: s(&replace),
                    replace_all: all,
                },
                Op::InsertBefore { anchor, content } => EditOp::InsertBefore {
                    anchor: s(&anchor),
                    content: s(&content),
                },
                Op::InsertAfter { anchor, content } => EditOp::InsertAfter {
                    anchor: s(&anchor),
                    content: s(&content),
                },
                Op::AppendSection {
                    section: n,
                    content,
                } => EditOp::AppendSection {
                    section: section(&n),
                    content: s(&content),
                },
                Op::PrependSection {
                    section: n,
                    content,
                } => EditOp::PrependSection {
                    section: section(&n),
                    content: s(&content),
                },
                Op::ReplaceSection {
                    section: n,
                    content,
                } => EditOp::ReplaceSection {
                    section: section(&n),
                    content: s(&content),
                },
                Op::DeleteSection { section: n } => EditOp::DeleteSection {
                    section: section(&n),
                },
                Op::InsertLines { at, content } => EditOp::InsertLines {
                    at: usize::from(at),
                    content: s(&content),
                },
                Op::ReplaceLines { from, to, content } => EditOp::ReplaceLines {
                    from: usize::from(from),
                    to: usize::from(to),
                    content: s(&content),
                },
                Op::DeleteLines { from, to } => EditOp::DeleteLines {
                    from: usize::from(from),
                    to: usize::from(to),
                },
            }
        })
        .collect();
    check(&text, &ops);
}

/// The whole list against the operations one by one, each checked.
fn check(text: &str, ops: &[EditOp]) {
    let whole = apply_ops(text, ops);
    let mut current = text.to_string();
    let mut counts = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match apply_ops(&current, std::slice::from_ref(op)) {
            Ok(one) => {
                check_op(&current, op, &one.text, one.counts[0]);
                current = one.text;
                counts.extend(one.counts);
            }
            Err((_, error)) => {
                assert!(!error.to_string().is_empty(), "an error without a message");
                match whole {
                    Err((at, whole_error)) => {
                        assert_eq!(
                            (at, &whole_error),
                            (i, &error),
                            "not the first failing operation"
                        )
                    }
                    Ok(_) => panic!("the list succeeded although operation {i} fails: {error}"),
                }
                return;
            }
        }
    }
    match whole {
        Ok(outcome) => {
            assert!(
                outcome.text == current,
                "the list gives another text than its operations one by one"
            );
            assert_eq!(outcome.counts, counts, "the counts of the list");
        }
        Err((at, error)) => {
            panic!("the list failed at operation {at} ({error}) though each succeeds")
        }
    }
}

/// One operation that succeeded: only its range changed.
fn check_op(before: &str, op: &EditOp, after: &str, count: usize) {
    let range = edited_range(before, op, count);
    let (head, tail) = (&before[..range.start], &before[range.end..]);
    assert!(
        after.len() >= head.len() + tail.len() && after.starts_with(head) && after.ends_with(tail),
        "{} changed bytes outside {range:?}:\nbefore {before:?}\nafter  {after:?}",
        op.name()
    );
    let keeps_frontmatter = matches!(
        op,
        EditOp::Append { .. }
            | EditOp::Prepend { .. }
            | EditOp::ReplaceBody { .. }
            | EditOp::AppendSection { .. }
            | EditOp::PrependSection { .. }
            | EditOp::ReplaceSection { .. }
            | EditOp::DeleteSection { .. }
    );
    if keeps_frontmatter && let Some(fm) = block(before) {
        let yaml = &before[fm.yaml];
        assert!(
            block(after).is_some_and(|new| &after[new.yaml] == yaml),
            "{} lost or changed the frontmatter:\nbefore {before:?}\nafter  {after:?}",
            op.name()
        );
    }
}

/// The bytes of `text` that `op` may change, from the text alone.
fn edited_range(text: &str, op: &EditOp, count: usize) -> Range<usize> {
    let end = text.len();
    let point = |at: usize| at..at;
    match op {
        EditOp::Append { .. } => point(end),
        EditOp::Prepend { .. } => point(body_start(text)),
        EditOp::ReplaceBody { .. } => body_start(text)..end,
        EditOp::ReplaceText {
            find, replace_all, ..
        } => {
            let found: Vec<usize> = text
                .match_indices(find.as_str())
                .map(|(at, _)| at)
                .collect();
            assert_eq!(count, found.len(), "replace_text's count");
            assert!(
                *replace_all || count == 1,
                "replace_text replaced {count} without replace_all"
            );
            found[0]..found[found.len() - 1] + find.len()
        }
        EditOp::InsertBefore { anchor, .. } | EditOp::InsertAfter { anchor, .. } => {
            let at = text
                .find(anchor.as_str())
                .expect("the anchor is in the text");
            let breaks = break_ends(text);
            let start = breaks.iter().rev().find(|&&e| e <= at).map_or(0, |&e| e);
            let line_end = breaks.iter().find(|&&e| e > at).map_or(end, |&e| e);
            point(if matches!(op, EditOp::InsertBefore { .. }) {
                start
            } else {
                line_end
            })
        }
        EditOp::AppendSection { section, .. }
        | EditOp::PrependSection { section, .. }
        | EditOp::ReplaceSection { section, .. } => {
            find_section(text, section)
                .expect("the section was found")
                .body
        }
        EditOp::DeleteSection { section } => {
            let s = find_section(text, section).expect("the section was found");
            s.heading_start..s.body.end
        }
        EditOp::InsertLines { at, .. } => {
            let starts = line_starts(text);
            point(starts.get(at - 1).copied().unwrap_or(end))
        }
        EditOp::ReplaceLines { from, to, .. } | EditOp::DeleteLines { from, to } => {
            let starts = line_starts(text);
            starts[from - 1]..starts.get(*to).copied().unwrap_or(end)
        }
    }
}

/// Where each line starts, as people count lines (a final line break
/// starts none; an empty text has none).
/// Where each line break ends: after every `\n`, and after every `\r` no
/// `\n` follows (CommonMark's lines), counted here apart from
/// `vault::lines`.
fn break_ends(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .filter(|&i| bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .map(|i| i + 1)
        .collect()
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts: Vec<usize> = std::iter::once(0)
        .chain(break_ends(text))
        .filter(|&at| at < text.len())
        .collect();
    if text.is_empty() {
        starts.clear();
    }
    starts
}
