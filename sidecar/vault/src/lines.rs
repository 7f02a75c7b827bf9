//! Lines of a text: where each one starts, which line a byte offset is on,
//! and back. A line ends at a line break as CommonMark, YAML and the
//! language server protocol read one: `\n`, `\r\n`, or a `\r` alone (a
//! `\r` before the `\n` belongs to its line). A line starts at byte 0 and
//! after every line break; lines count from 0 and columns are bytes.
//!
//! Every part of Weft that turns a byte offset into a line, or a line into a
//! byte offset, asks here: the parser (the line of each heading, link, tag,
//! block and diagnostic), edits by line number, the search passages' line
//! numbers, the moves' reports, the configuration's errors, and the language
//! server, whose `convert.rs` only adds UTF-16 columns on top of a
//! [`LineIndex`]. So the rule is written once and every face counts the
//! same lines — the ones the Markdown parser sees.
//!
//! It must not know notes, Markdown or any protocol: it counts line breaks,
//! nothing else. That is why columns here are bytes; characters and UTF-16
//! units are the caller's conversion, because only the caller knows which
//! one it needs.

use memchr::{memchr2_iter, memrchr2};

/// Where every line of a text starts, for many lookups on one text (the
/// parser asks once per link, the language server once per position).
///
/// Offsets are `u32`, as the index stores them: a text longer than 4 GiB is
/// indexed as its first 4 GiB, the part the parser reads. For a single
/// lookup in a text of any length, use [`line_of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// Byte offset of each line's start; the first is 0.
    starts: Vec<u32>,
    /// The text's length in bytes.
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = &text.as_bytes()[..text.len().min(u32::MAX as usize)];
        let mut starts = Vec::with_capacity(bytes.len() / 40 + 1);
        starts.push(0u32);
        starts.extend(break_ends(bytes).map(|end| end as u32));
        LineIndex {
            starts,
            len: bytes.len() as u32,
        }
    }

    /// Heap bytes held, for cache budgets.
    pub fn heap_bytes(&self) -> usize {
        self.starts.capacity() * std::mem::size_of::<u32>()
    }

    /// The text's length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many lines there are: one more than line breaks (a final `\n`
    /// starts an empty last line, as editors show it).
    #[inline]
    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// The 0-based line holding byte `offset` (the last line past the end).
    #[inline]
    pub fn line(&self, offset: usize) -> u32 {
        let offset = offset.min(self.len as usize) as u32;
        (self.starts.partition_point(|&start| start <= offset) - 1) as u32
    }

    /// Byte offset where `line` starts; `None` past the last line.
    #[inline]
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts.get(line as usize).map(|&start| start as usize)
    }

    /// Byte offset where `line` ends, before its `\n` (or lone `\r`);
    /// `None` past the last line.
    #[inline]
    pub fn line_end(&self, line: u32) -> Option<usize> {
        self.line_start(line)?;
        Some(match self.starts.get(line as usize + 1) {
            Some(&next) => next as usize - 1,
            None => self.len as usize,
        })
    }

    /// (line, byte column) of byte `offset`, clamped to the text.
    #[inline]
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.len as usize);
        let line = self.line(offset);
        (line, offset as u32 - self.starts[line as usize])
    }

    /// The byte offset of (line, byte column), clamped: a column past the
    /// end of its line is the line's end, a line past the last is the end of
    /// the text.
    #[inline]
    pub fn offset(&self, line: u32, column: u32) -> usize {
        match (self.line_start(line), self.line_end(line)) {
            (Some(start), Some(end)) => (start + column as usize).min(end),
            _ => self.len as usize,
        }
    }
}

/// The lines of an empty text: one, empty.
impl Default for LineIndex {
    fn default() -> LineIndex {
        LineIndex::new("")
    }
}

/// The end of every line break in `bytes` (the offset just after it), in
/// order: after each `\n`, and after each `\r` that no `\n` follows.
fn break_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr2_iter(b'\n', b'\r', bytes)
        .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
        .map(|i| i + 1)
}

/// Where each line of `text` starts, in order: 0, then the byte after each
/// line break (the text's length too, when it ends with one).
pub fn starts<T: AsRef<[u8]> + ?Sized>(text: &T) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(break_ends(text.as_ref()))
}

/// The 0-based line holding byte `offset` of `text` (clamped to it), for a
/// single lookup in a text of any length.
pub fn line_of<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> usize {
    let bytes = text.as_ref();
    let offset = offset.min(bytes.len());
    break_ends(bytes).take_while(|&end| end <= offset).count()
}

/// The byte offset where the line holding `offset` starts.
pub fn line_start_at<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> usize {
    let bytes = text.as_ref();
    let offset = offset.min(bytes.len());
    // The last line break ending at or before `offset`: a `\r` just before
    // `offset` counts only when no `\n` follows it.
    let mut before = &bytes[..offset];
    while let Some(i) = memrchr2(b'\n', b'\r', before) {
        if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
            return i + 1;
        }
        before = &bytes[..i];
    }
    0
}

/// Where the line after the one holding `offset` starts: just after that
/// line's break; `None` when it is the last line (no break ends it).
pub fn next_line_start<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> Option<usize> {
    let bytes = text.as_ref();
    let from = line_start_at(bytes, offset);
    break_ends(&bytes[from..]).next().map(|end| from + end)
}

/// Where the line holding `offset` ends: before its line break (a `\r`
/// before a `\n` is the line's), or at the end of the text.
pub fn line_end_at<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> usize {
    let bytes = text.as_ref();
    next_line_start(bytes, offset).map_or(bytes.len(), |next| next - 1)
}

/// The end of the last line break in `bytes` (where its last line starts),
/// `None` when it has none: a text cut anywhere is cut back to whole lines
/// there.
pub fn last_break_end<T: AsRef<[u8]> + ?Sized>(text: &T) -> Option<usize> {
    let bytes = text.as_ref();
    let at = line_start_at(bytes, bytes.len());
    (at > 0).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_start_after_each_line_break() {
        let text = "ab\r\n\ncd\n";
        let lines = LineIndex::new(text);
        assert_eq!(lines.line_count(), 4);
        assert_eq!(starts(text).collect::<Vec<_>>(), [0, 4, 5, 8]);
        assert_eq!(
            (0..=text.len() + 2)
                .map(|at| lines.line(at))
                .collect::<Vec<_>>(),
            [0, 0, 0, 0, 1, 2, 2, 2, 3, 3, 3]
        );
        for at in 0..=text.len() + 2 {
            assert_eq!(lines.line(at) as usize, line_of(text, at), "{at}");
            let (line, column) = lines.position(at);
            assert_eq!(lines.offset(line, column), at.min(text.len()));
            assert_eq!(
                lines.line_start(line),
                Some(line_start_at(text, at)),
                "{at}"
            );
        }
        // A `\r` is part of its line; columns past the end are clamped.
        assert_eq!(lines.line_end(0), Some(3));
        assert_eq!(lines.offset(0, 99), 3);
        assert_eq!(lines.offset(9, 0), text.len());
        assert_eq!(lines.line_start(4), None);
        assert_eq!(lines.position(6), (2, 1));
    }

    /// A `\r` alone ends a line, as CommonMark reads it (and the language
    /// server protocol); before a `\n` it is part of its line.
    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        let text = "a\rb\r\nc\r";
        let lines = LineIndex::new(text);
        assert_eq!(starts(text).collect::<Vec<_>>(), [0, 2, 5, 7]);
        assert_eq!(lines.line_count(), 4);
        assert_eq!(
            (0..=text.len())
                .map(|at| lines.line(at))
                .collect::<Vec<_>>(),
            [0, 0, 1, 1, 1, 2, 2, 3]
        );
        for at in 0..=text.len() {
            assert_eq!(lines.line(at) as usize, line_of(text, at), "{at}");
            assert_eq!(
                lines.line_start(lines.line(at)),
                Some(line_start_at(text, at)),
                "{at}"
            );
        }
        assert_eq!(lines.line_end(0), Some(1));
        assert_eq!(
            lines.line_end(1),
            Some(4),
            "the \\r of \\r\\n is its line's"
        );
        assert_eq!(
            (0..=text.len())
                .map(|at| next_line_start(text, at))
                .collect::<Vec<_>>(),
            [
                Some(2),
                Some(2),
                Some(5),
                Some(5),
                Some(5),
                Some(7),
                Some(7),
                None
            ]
        );
        assert_eq!(
            (0..=text.len())
                .map(|at| line_end_at(text, at))
                .collect::<Vec<_>>(),
            [1, 1, 4, 4, 4, 6, 6, 7]
        );
        assert_eq!(last_break_end(text), Some(7));
        assert_eq!(last_break_end("a\r\nb"), Some(3));
        assert_eq!(last_break_end("ab"), None);
    }

    #[test]
    fn an_empty_text_has_one_empty_line() {
        let lines = LineIndex::new("");
        assert_eq!(lines.line_count(), 1);
        assert_eq!(lines.position(5), (0, 0));
        assert_eq!(lines.line_end(0), Some(0));
        assert_eq!(line_of("", 3), 0);
        assert_eq!(line_start_at(b"", 3), 0);
    }
}
