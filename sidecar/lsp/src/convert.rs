//! The one place where protocol and domain coordinates meet: byte offsets
//! ↔ LSP positions (UTF-8 or UTF-16 code units, as negotiated), and `file:`
//! URIs ↔ file system paths (percent-encoded, spaces, non-ASCII).
//!
//! Lines are the domain's (`weft_vault::lines`: which line an offset is on,
//! where a line starts); this file adds only what the protocol needs on top,
//! columns in the client's unit. It must not know the vault, the index or
//! any feature: it converts numbers and names, nothing else.

use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::{Position, PositionEncodingKind, Range as LspRange, Uri};
use weft_vault::lines::LineIndex as Lines;

/// How the client counts characters in a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units: the protocol's default.
    #[default]
    Utf16,
}

impl Encoding {
    /// Picks UTF-8 when the client offers it, else UTF-16 (which every
    /// client must support).
    pub(crate) fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// A character wider in UTF-8 than in the client's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wide {
    /// Byte column where it starts.
    col: u32,
    len8: u8,
    len16: u8,
}

/// A text's lines (the domain's [`Lines`]: byte offsets ↔ lines and byte
/// columns) and its non-ASCII characters, enough to convert positions in
/// either encoding without keeping the text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineIndex {
    lines: Lines,
    /// For each line holding non-ASCII characters: (line, its characters).
    wide: Vec<(u32, Box<[Wide]>)>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let lines = Lines::new(text);
        let mut wide = Vec::new();
        if !text.is_ascii() {
            for line in 0..lines.line_count() {
                let (Some(start), Some(end)) = (lines.line_start(line), lines.line_end(line))
                else {
                    break;
                };
                let slice = &text[start..end];
                if slice.is_ascii() {
                    continue;
                }
                let chars: Box<[Wide]> = slice
                    .char_indices()
                    .filter(|(_, c)| !c.is_ascii())
                    .map(|(col, c)| Wide {
                        col: col as u32,
                        len8: c.len_utf8() as u8,
                        len16: c.len_utf16() as u8,
                    })
                    .collect();
                wide.push((line, chars));
            }
        }
        LineIndex { lines, wide }
    }

    /// Heap bytes held, for cache budgets.
    pub fn heap_bytes(&self) -> usize {
        self.lines.heap_bytes()
            + self.wide.capacity() * std::mem::size_of::<(u32, Box<[Wide]>)>()
            + self
                .wide
                .iter()
                .map(|(_, w)| w.len() * std::mem::size_of::<Wide>())
                .sum::<usize>()
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn line_count(&self) -> u32 {
        self.lines.line_count()
    }

    fn wide_of(&self, line: u32) -> &[Wide] {
        match self.wide.binary_search_by_key(&line, |(l, _)| *l) {
            Ok(i) => &self.wide[i].1,
            Err(_) => &[],
        }
    }

    /// Byte offset where `line` starts (the end of the text past the last).
    pub fn line_start(&self, line: u32) -> usize {
        self.lines.line_start(line).unwrap_or(self.len())
    }

    /// Byte offset where `line` ends, before its `\n` (a `\r` before it is
    /// part of the line); the end of the text past the last line.
    pub fn line_end(&self, line: u32) -> usize {
        self.lines.line_end(line).unwrap_or(self.len())
    }

    /// The position of byte `offset` (clamped to the text, snapped back to
    /// a character start).
    pub fn position(&self, offset: usize, encoding: Encoding) -> Position {
        let (line, mut col8) = self.lines.position(offset);
        let wide = self.wide_of(line);
        // Inside a character: snap to its start.
        if let Some(w) = wide
            .iter()
            .find(|w| w.col < col8 && col8 < w.col + u32::from(w.len8))
        {
            col8 = w.col;
        }
        let character = match encoding {
            Encoding::Utf8 => col8,
            Encoding::Utf16 => {
                col8 - wide
                    .iter()
                    .take_while(|w| w.col < col8)
                    .map(|w| u32::from(w.len8 - w.len16))
                    .sum::<u32>()
            }
        };
        Position::new(line, character)
    }

    /// The byte offset of `position`, clamped to its line (a character past
    /// the end of a line means the end of the line; a line past the end of
    /// the text means the end of the text).
    pub fn offset(&self, position: Position, encoding: Encoding) -> usize {
        let line = position.line;
        if line >= self.line_count() {
            return self.len();
        }
        let start = self.line_start(line);
        let line_len = (self.line_end(line) - start) as u32;
        let wanted = position.character;
        let col8 = match encoding {
            Encoding::Utf8 => {
                let mut col = wanted.min(line_len);
                for w in self.wide_of(line) {
                    if w.col < col && col < w.col + u32::from(w.len8) {
                        col = w.col;
                    }
                }
                col
            }
            Encoding::Utf16 => {
                let mut extra = 0u32;
                let mut col = None;
                for w in self.wide_of(line) {
                    let w16 = w.col - extra;
                    if wanted <= w16 {
                        break;
                    }
                    if wanted < w16 + u32::from(w.len16) {
                        col = Some(w.col); // inside a surrogate pair
                        break;
                    }
                    extra += u32::from(w.len8 - w.len16);
                }
                // Saturating: a client may ask for `u32::MAX` to mean the
                // end of the line.
                col.unwrap_or(wanted.saturating_add(extra)).min(line_len)
            }
        };
        start + col8 as usize
    }

    pub fn range(&self, range: Range<usize>, encoding: Encoding) -> LspRange {
        LspRange::new(
            self.position(range.start, encoding),
            self.position(range.end, encoding),
        )
    }

    /// The range of a span, its end pulled back before a final line break
    /// (heading spans include theirs; editors show ranges on one line).
    pub fn span(&self, span: &Range<u32>, encoding: Encoding) -> LspRange {
        let mut range = self.range(span.start as usize..span.end as usize, encoding);
        if range.end.character == 0 && range.end.line > range.start.line {
            range.end = self.position(self.line_end(range.end.line - 1), encoding);
        }
        range
    }

    pub fn byte_range(&self, range: LspRange, encoding: Encoding) -> Range<usize> {
        let start = self.offset(range.start, encoding);
        let end = self.offset(range.end, encoding).max(start);
        start..end
    }

    /// The position just past the end of the text.
    pub fn end(&self, encoding: Encoding) -> Position {
        self.position(self.len(), encoding)
    }
}

/// Applies a `didChange`'s content changes to `text`, in order — the one
/// place the language server and the daemon's replay of a session do it. A
/// change with a range replaces the bytes it covers, its positions clamped
/// to the text and to character boundaries (a range past the end edits at
/// the end, a reversed one inserts at its start: never a panic); one
/// without a range replaces the whole text. `lines` is the index of `text`
/// as it stands, when the caller has it (spares building it for the first
/// change). Returns the index of the new text.
pub fn apply_changes<'a>(
    text: &mut String,
    lines: Option<&LineIndex>,
    changes: impl IntoIterator<Item = (Option<LspRange>, &'a str)>,
    encoding: Encoding,
) -> LineIndex {
    // The index of the text as it stands: the caller's until a change
    // (never copied), then built again only if another change needs it.
    let mut current = lines.map(Cow::Borrowed);
    for (range, new) in changes {
        match range {
            Some(range) => {
                let index = current.get_or_insert_with(|| Cow::Owned(LineIndex::new(text)));
                let bytes = index.byte_range(range, encoding);
                // `byte_range` clamps to the text and to characters; the
                // check keeps an index that does not match the text (a
                // caller's mistake) from ever panicking.
                if bytes.end <= text.len()
                    && text.is_char_boundary(bytes.start)
                    && text.is_char_boundary(bytes.end)
                {
                    text.replace_range(bytes, new);
                }
            }
            None => new.clone_into(text),
        }
        current = None;
    }
    current.map_or_else(|| LineIndex::new(text), Cow::into_owned)
}

/// The file system path of a `file:` URI, percent-decoded.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.to_file_path()?;
    Some(path.into_owned())
}

/// The `file:` URI of an absolute path, percent-encoded.
pub(crate) fn path_to_uri(path: &Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str, encoding: Encoding) {
        let index = LineIndex::new(text);
        for (offset, _) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            let position = index.position(offset, encoding);
            assert_eq!(
                index.offset(position, encoding),
                offset,
                "{position:?} in {text:?}"
            );
        }
    }

    #[test]
    fn positions_in_both_encodings() {
        let text = "a😀b\nCafé [[x]]\r\n\n𝄞é";
        let index = LineIndex::new(text);
        let b = text.find('b').unwrap();
        assert_eq!(index.position(b, Encoding::Utf16), Position::new(0, 3));
        assert_eq!(index.position(b, Encoding::Utf8), Position::new(0, 5));
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x, Encoding::Utf16), Position::new(1, 7));
        assert_eq!(index.position(x, Encoding::Utf8), Position::new(1, 8));
        let last = text.rfind('é').unwrap();
        assert_eq!(index.position(last, Encoding::Utf16), Position::new(3, 2));
        assert_eq!(index.position(last, Encoding::Utf8), Position::new(3, 4));
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            round_trip(text, encoding);
            round_trip("", encoding);
            round_trip("\n\n", encoding);
        }
        // Past the end of a line: the end of the line; past the text: its end.
        assert_eq!(index.offset(Position::new(0, 99), Encoding::Utf16), 6);
        assert_eq!(
            index.offset(Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        // Inside a surrogate pair or a UTF-8 sequence: the character start.
        assert_eq!(index.offset(Position::new(0, 2), Encoding::Utf16), 1);
        assert_eq!(index.offset(Position::new(0, 3), Encoding::Utf8), 1);
        assert_eq!(index.position(2, Encoding::Utf16), Position::new(0, 1));
    }

    /// Regression (found by the `positions` fuzz target): a character
    /// far past the end of a line holding characters wider in UTF-8 than in
    /// UTF-16 overflowed, so a client asking for `u32::MAX` (the end of the
    /// line) got the line's start in a release build.
    #[test]
    fn the_largest_character_is_the_end_of_its_line() {
        let index = LineIndex::new("é😀x\nnext");
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            assert_eq!(index.offset(Position::new(0, u32::MAX), encoding), 7);
            assert_eq!(index.offset(Position::new(1, u32::MAX), encoding), 12);
        }
    }

    #[test]
    fn uris_round_trip_with_spaces_and_non_ascii() {
        let path = Path::new("/tmp/v/Café notes/Crème brûlée #1.md");
        let uri = path_to_uri(path).unwrap();
        assert_eq!(
            uri.as_str(),
            "file:///tmp/v/Caf%C3%A9%20notes/Cr%C3%A8me%20br%C3%BBl%C3%A9e%20%231.md"
        );
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        let lower: Uri = "file:///tmp/v/caf%c3%a9.md".parse().unwrap();
        assert_eq!(uri_to_path(&lower).unwrap(), Path::new("/tmp/v/café.md"));
        let other: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(uri_to_path(&other), None);
    }

    /// One `didChange` rule for the server and the daemon's replay: changes
    /// apply in order, each against the text the previous one left; ranges
    /// past the end or reversed, and positions inside a character, edit
    /// where they are clamped to and never panic.
    #[test]
    fn changes_apply_in_order_and_out_of_range_ones_are_clamped() {
        let at = |l1, c1, l2, c2| Some(LspRange::new(Position::new(l1, c1), Position::new(l2, c2)));
        let apply = |text: &str, changes: &[(Option<LspRange>, &str)], encoding| {
            let mut text = text.to_string();
            let lines = LineIndex::new(&text);
            let after = apply_changes(&mut text, Some(&lines), changes.iter().copied(), encoding);
            assert_eq!(after, LineIndex::new(&text), "the index follows the text");
            text
        };
        use Encoding::{Utf8, Utf16};
        type Changes<'a> = &'a [(Option<LspRange>, &'a str)];
        let cases: &[(&str, Changes, Encoding, &str)] = &[
            // The second change's position is in the text the first left.
            (
                "Hello\nworld",
                &[(at(0, 0, 0, 0), "# "), (at(0, 7, 0, 7), "!")],
                Utf16,
                "# Hello!\nworld",
            ),
            // `😀` is two UTF-16 units and four bytes; a position inside
            // it is its start.
            ("a😀b", &[(at(0, 3, 0, 3), "x")], Utf16, "a😀xb"),
            ("a😀b", &[(at(0, 2, 0, 2), "x")], Utf16, "ax😀b"),
            ("a😀b", &[(at(0, 5, 0, 5), "x")], Utf8, "a😀xb"),
            // Past the end: at the end. Reversed: an insertion at its start.
            ("ab", &[(at(9, 9, 12, 0), "!")], Utf16, "ab!"),
            ("abc", &[(at(0, 2, 0, 1), "-")], Utf16, "ab-c"),
            // A whole-text change, then a ranged one against it.
            (
                "old",
                &[(None, "new\ntext"), (at(1, 0, 1, 4), "line")],
                Utf8,
                "new\nline",
            ),
        ];
        for (text, changes, encoding, want) in cases {
            assert_eq!(
                apply(text, changes, *encoding),
                *want,
                "{text:?} {changes:?}"
            );
        }
        // Without the caller's index, the same.
        let mut text = "Hello".to_string();
        apply_changes(&mut text, None, [(at(0, 5, 0, 5), "!")], Encoding::Utf8);
        assert_eq!(text, "Hello!");
    }
}
