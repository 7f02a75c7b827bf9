//! Edits to a note's text, as an ordered list of operations applied all or
//! nothing: append/prepend, body replacement, unique find-and-replace,
//! anchors, sections addressed as `Heading` or `Parent::Child` (resolved
//! by `headings`, as every tool and link does), and line ranges. Pure text
//! in, text out: no IO, no protocol types.
//!
//! Line endings are kept: in a CRLF note, inserted text gets CRLF too.

use std::fmt;
use std::ops::Range;

use super::headings::{SectionError, resolve_section};
use super::lines;
use super::parse::parse_text;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOp {
    /// At the end of the note.
    Append {
        content: String,
    },
    /// At the start of the body, after the frontmatter.
    Prepend {
        content: String,
    },
    /// Everything after the frontmatter.
    ReplaceBody {
        content: String,
    },
    /// `find` must occur exactly once, unless `replace_all`.
    ReplaceText {
        find: String,
        replace: String,
        replace_all: bool,
    },
    /// Before / after the one line containing `anchor`.
    InsertBefore {
        anchor: String,
        content: String,
    },
    InsertAfter {
        anchor: String,
        content: String,
    },
    /// At the end of a section's body (before the next heading of the same
    /// or a higher level).
    AppendSection {
        section: String,
        content: String,
    },
    /// Right after a section's heading line.
    PrependSection {
        section: String,
        content: String,
    },
    /// A section's body; its heading stays.
    ReplaceSection {
        section: String,
        content: String,
    },
    /// A section, heading and body.
    DeleteSection {
        section: String,
    },
    /// Before 1-based line `at`; `at` = line count + 1 appends.
    InsertLines {
        at: usize,
        content: String,
    },
    /// 1-based, inclusive.
    ReplaceLines {
        from: usize,
        to: usize,
        content: String,
    },
    DeleteLines {
        from: usize,
        to: usize,
    },
}

impl EditOp {
    pub fn name(&self) -> &'static str {
        match self {
            EditOp::Append { .. } => "append",
            EditOp::Prepend { .. } => "prepend",
            EditOp::ReplaceBody { .. } => "replace_body",
            EditOp::ReplaceText { .. } => "replace_text",
            EditOp::InsertBefore { .. } => "insert_before",
            EditOp::InsertAfter { .. } => "insert_after",
            EditOp::AppendSection { .. } => "append_section",
            EditOp::PrependSection { .. } => "prepend_section",
            EditOp::ReplaceSection { .. } => "replace_section",
            EditOp::DeleteSection { .. } => "delete_section",
            EditOp::InsertLines { .. } => "insert_lines",
            EditOp::ReplaceLines { .. } => "replace_lines",
            EditOp::DeleteLines { .. } => "delete_lines",
        }
    }
}

/// Why an operation could not be applied; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    EmptyFind,
    /// `find` (or an anchor) occurs `count` times where once was required.
    NotUnique {
        what: &'static str,
        text: String,
        count: usize,
        lines: Vec<usize>,
    },
    /// The section names no heading, or several.
    Section(SectionError),
    LinesOutOfRange {
        from: usize,
        to: usize,
        line_count: usize,
    },
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::EmptyFind => f.write_str("the text to find is empty"),
            EditError::NotUnique {
                what,
                text,
                count: 0,
                ..
            } => write!(
                f,
                "{what} {text:?} does not occur in the note (case, spaces and line breaks count)"
            ),
            EditError::NotUnique {
                what,
                text,
                count,
                lines,
            } => write!(
                f,
                "{what} {text:?} occurs {count} times (lines {})",
                join(lines)
            ),
            EditError::Section(e) => write!(f, "{e}"),
            EditError::LinesOutOfRange {
                from,
                to,
                line_count,
            } => write!(
                f,
                "lines {from}..{to} are outside the note, which has {line_count} lines (lines count from 1, \
                 `to` is inclusive)"
            ),
        }
    }
}

impl std::error::Error for EditError {}

fn join(lines: &[usize]) -> String {
    lines
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What applying the operations did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    pub text: String,
    /// Per operation: how many replacements (`replace_text`), else 1.
    pub counts: Vec<usize>,
}

/// Applies `ops` in order; the first failing one (its index and error)
/// aborts the whole edit.
pub fn apply_ops(text: &str, ops: &[EditOp]) -> Result<EditOutcome, (usize, EditError)> {
    let mut text = text.to_string();
    let mut counts = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let (next, count) = apply_op(&text, op).map_err(|e| (i, e))?;
        text = next;
        counts.push(count);
    }
    Ok(EditOutcome { text, counts })
}

fn apply_op(text: &str, op: &EditOp) -> Result<(String, usize), EditError> {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = |content: &str| as_block(content, eol);
    Ok(match op {
        EditOp::Append { content } => {
            let mut out = text.to_string();
            out.push_str(last_line_break(text, eol));
            out.push_str(&block(content));
            (out, 1)
        }
        EditOp::Prepend { content } => {
            let at = body_start(text);
            (splice(text, at..at, &body_block(text, at, content, eol)), 1)
        }
        EditOp::ReplaceBody { content } => {
            let at = body_start(text);
            (
                splice(text, at..text.len(), &body_block(text, at, content, eol)),
                1,
            )
        }
        EditOp::ReplaceText {
            find,
            replace,
            replace_all,
        } => {
            if find.is_empty() {
                return Err(EditError::EmptyFind);
            }
            let found: Vec<usize> = text.match_indices(find.as_str()).map(|(i, _)| i).collect();
            if found.is_empty() || (found.len() > 1 && !replace_all) {
                return Err(not_unique("`find`", find, text, &found));
            }
            (text.replace(find.as_str(), replace), found.len())
        }
        EditOp::InsertBefore { anchor, content } | EditOp::InsertAfter { anchor, content } => {
            let line = unique_line(text, anchor)?;
            let at = if matches!(op, EditOp::InsertBefore { .. }) {
                line.start
            } else {
                line.end
            };
            let insert = block_at(text, at, content, eol);
            (splice(text, at..at, &insert), 1)
        }
        EditOp::AppendSection { section, content } => {
            let s = find_section(text, section)?;
            // After the section's last non-blank line, keeping blank lines
            // before the next heading.
            let body = &text[s.body.clone()];
            let trimmed = body.trim_end_matches(['\n', '\r', ' ', '\t']);
            let mut at = s.body.start + trimmed.len();
            if trimmed.is_empty() {
                at = s.body.start;
            } else {
                // Move past the end of the last line, never past the
                // section.
                at = lines::next_line_start(text, at).unwrap_or(text.len());
                at = at.min(s.body.end);
            }
            (splice(text, at..at, &block_at(text, at, content, eol)), 1)
        }
        EditOp::PrependSection { section, content } => {
            let s = find_section(text, section)?;
            let insert = block_at(text, s.body.start, content, eol);
            (splice(text, s.body.start..s.body.start, &insert), 1)
        }
        EditOp::ReplaceSection { section, content } => {
            let s = find_section(text, section)?;
            let mut insert = block_at(text, s.body.start, content, eol);
            // Keep one blank line before the next heading, if there is one.
            if s.body.end < text.len() && !insert.is_empty() {
                insert.push_str(eol);
            }
            (splice(text, s.body.clone(), &insert), 1)
        }
        EditOp::DeleteSection { section } => {
            let s = find_section(text, section)?;
            (splice(text, s.heading_start..s.body.end, ""), 1)
        }
        EditOp::InsertLines { at, content } => {
            let lines = line_starts(text);
            let count = line_count(text);
            if *at == 0 || *at > count + 1 {
                return Err(EditError::LinesOutOfRange {
                    from: *at,
                    to: *at,
                    line_count: count,
                });
            }
            let offset = if *at > count {
                text.len()
            } else {
                lines[*at - 1]
            };
            let insert = block_at(text, offset, content, eol);
            (splice(text, offset..offset, &insert), 1)
        }
        EditOp::ReplaceLines { from, to, content } => {
            let range = line_range(text, *from, *to)?;
            let mut insert = block(content);
            if range.end == text.len() && !text.ends_with('\n') {
                insert.truncate(insert.trim_end_matches(['\r', '\n']).len());
            }
            (splice(text, range, &insert), 1)
        }
        EditOp::DeleteLines { from, to } => {
            let range = line_range(text, *from, *to)?;
            (splice(text, range, ""), 1)
        }
    })
}

/// Content as whole lines: line endings made `eol`, a final one added.
/// `content` as a block to put at `at` in `text`: on a line of its own,
/// also when `at` ends a last line that has no line break.
fn block_at(text: &str, at: usize, content: &str, eol: &str) -> String {
    let mut block = as_block(content, eol);
    if at == text.len() {
        block.insert_str(0, last_line_break(text, eol));
    }
    block
}

/// What ends the last line of `text` when something is written after it:
/// nothing when it ends with `\n` (or there is none), `\n` after a lone
/// `\r` (so that a closing fence `---\r` stays a fence, `---\r\n`, where
/// `\r\r\n` would make it a line of text), else `eol`.
fn last_line_break<'a>(text: &str, eol: &'a str) -> &'a str {
    if text.is_empty() || text.ends_with('\n') {
        ""
    } else if text.ends_with('\r') {
        "\n"
    } else {
        eol
    }
}

/// `content` as a block at the body's start `at`: after a frontmatter
/// whose closing fence ends the text without a line break, on a line of
/// its own (else it would lengthen the fence, and the frontmatter would be
/// lost).
fn body_block(text: &str, at: usize, content: &str, eol: &str) -> String {
    if !content.is_empty() && super::frontmatter::block(text).is_some() {
        block_at(text, at, content, eol)
    } else {
        as_block(content, eol)
    }
}

fn as_block(content: &str, eol: &str) -> String {
    if content.is_empty() {
        return String::new();
    }
    let mut out = content.replace("\r\n", "\n");
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if eol == "\r\n" {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

fn splice(text: &str, range: Range<usize>, insert: &str) -> String {
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..range.start]);
    out.push_str(insert);
    out.push_str(&text[range.end..]);
    out
}

pub use super::frontmatter::body_start;

/// Where each line starts, as people count lines: a final line break does
/// not start one.
fn line_starts(text: &str) -> Vec<usize> {
    lines::starts(text)
        .enumerate()
        .filter(|&(n, at)| n == 0 || at < text.len())
        .map(|(_, at)| at)
        .collect()
}

/// Lines as people count them: a final line break does not start a line.
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        line_starts(text).len()
    }
}

/// Byte range of 1-based inclusive lines `from..=to`, line breaks included.
fn line_range(text: &str, from: usize, to: usize) -> Result<Range<usize>, EditError> {
    let starts = line_starts(text);
    let count = line_count(text);
    if from == 0 || to < from || to > count {
        return Err(EditError::LinesOutOfRange {
            from,
            to,
            line_count: count,
        });
    }
    let end = starts.get(to).copied().unwrap_or(text.len());
    Ok(starts[from - 1]..end)
}

/// The 1-based line holding byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    lines::line_of(text, offset) + 1
}

fn not_unique(what: &'static str, find: &str, text: &str, found: &[usize]) -> EditError {
    EditError::NotUnique {
        what,
        text: find.to_string(),
        count: found.len(),
        lines: {
            // The first ten lines it is on (twice on one line is one line).
            let mut lines: Vec<usize> = Vec::new();
            for &i in found {
                let line = line_of(text, i);
                if lines.last() != Some(&line) {
                    if lines.len() == 10 {
                        break;
                    }
                    lines.push(line);
                }
            }
            lines
        },
    }
}

/// The one line containing `anchor`, with its line break.
fn unique_line(text: &str, anchor: &str) -> Result<Range<usize>, EditError> {
    if anchor.is_empty() {
        return Err(EditError::EmptyFind);
    }
    let found: Vec<usize> = text.match_indices(anchor).map(|(i, _)| i).collect();
    let mut numbers: Vec<usize> = found.iter().map(|&i| line_of(text, i)).collect();
    numbers.dedup();
    if numbers.len() != 1 {
        return Err(not_unique("anchor", anchor, text, &found));
    }
    let start = lines::line_start_at(text, found[0]);
    let end = lines::next_line_start(text, found[0]).unwrap_or(text.len());
    Ok(start..end)
}

/// A section: its heading line's start and its body (after the heading
/// line up to the next heading of the same or a higher level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionSpan {
    pub heading_start: usize,
    pub body: Range<usize>,
}

/// Finds a section by `Heading` or `A::B::C`, by the heading-path rules of
/// [`super::headings`] (the ones `read_note` and links use). Several
/// headings fitting equally well is an error, not a guess.
pub fn find_section(text: &str, section: &str) -> Result<SectionSpan, EditError> {
    let note = parse_text("", text);
    let i = resolve_section(&note, section).map_err(EditError::Section)?;
    let heading = &note.headings[i];
    // The heading's span may or may not include its line break. Its last
    // byte may be inside a character (a heading ending the note with `é`):
    // the line break is looked for in bytes, from the heading's last line.
    let last = (heading.span.end as usize)
        .saturating_sub(1)
        .max(heading.span.start as usize);
    let body_start = lines::next_line_start(text, last).unwrap_or(text.len());
    let end = (note.section_span(i).end as usize).max(body_start);
    Ok(SectionSpan {
        heading_start: heading.span.start as usize,
        body: body_start..end,
    })
}
