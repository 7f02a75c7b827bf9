//! Lines of a text: where each one starts, which line a byte offset is on,
//! and back. A line starts at byte 0 and after every `\n` (a `\r` before
//! the `\n` belongs to its line); lines count from 0 and columns are bytes.
//!
//! Every part of Weft that turns a byte offset into a line, or a line into a
//! byte offset, asks here: the parser (the line of each heading, link, tag,
//! block and diagnostic), edits by line number, the search passages' line
//! numbers, the moves' reports, the configuration's errors, and the language
//! server, whose `convert.rs` only adds UTF-16 columns on top of a
//! [`LineIndex`]. So the rule is written once and every face counts the
//! same lines.
//!
//! It must not know notes, Markdown or any protocol: it counts `\n` bytes,
//! nothing else. That is why columns here are bytes; characters and UTF-16
//! units are the caller's conversion, because only the caller knows which
//! one it needs.

use memchr::{memchr_iter, memrchr};

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
        starts.extend(memchr_iter(b'\n', bytes).map(|i| i as u32 + 1));
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

    /// Byte offset where `line` ends, before its `\n`; `None` past the last
    /// line.
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

/// Where each line of `text` starts, in order: 0, then the byte after each
/// `\n` (the text's length too, when it ends with one).
pub fn starts<T: AsRef<[u8]> + ?Sized>(text: &T) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(memchr_iter(b'\n', text.as_ref()).map(|i| i + 1))
}

/// The 0-based line holding byte `offset` of `text` (clamped to it), for a
/// single lookup in a text of any length.
pub fn line_of<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> usize {
    let bytes = text.as_ref();
    memchr_iter(b'\n', &bytes[..offset.min(bytes.len())]).count()
}

/// The byte offset where the line holding `offset` starts.
pub fn line_start_at<T: AsRef<[u8]> + ?Sized>(text: &T, offset: usize) -> usize {
    let bytes = text.as_ref();
    memrchr(b'\n', &bytes[..offset.min(bytes.len())]).map_or(0, |i| i + 1)
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
