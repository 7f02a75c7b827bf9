//! `positions`: byte offsets ↔ lines (`vault::lines`) and ↔ LSP positions
//! in UTF-8 and UTF-16 units (`lsp::convert`) on any text. Every
//! character boundary gives the line and columns counted here character by
//! character, and back the same offset; an offset inside a character is
//! the position of its start; a position inside a character, past the end
//! of its line or past the last line is clamped to a boundary.

use tower_lsp_server::ls_types::Position;
use weft_lsp::convert::{Encoding, LineIndex as Positions};
use weft_vault::lines::{LineIndex, line_of, line_start_at};

use crate::input::lossy;

const ENCODINGS: [Encoding; 2] = [Encoding::Utf8, Encoding::Utf16];

pub fn positions(data: &[u8]) {
    let text = lossy(data, crate::input::MAX_TEXT);
    let lines = LineIndex::new(&text);
    let positions = Positions::new(&text);
    let (mut line, mut col8, mut col16) = (0u32, 0u32, 0u32);
    let mut boundaries: Vec<(usize, char)> = text.char_indices().collect();
    boundaries.push((text.len(), '\n'));
    for (at, c) in boundaries {
        assert_eq!(
            lines.position(at),
            (line, col8),
            "the line and byte column of {at}"
        );
        assert_eq!(
            lines.offset(line, col8),
            at,
            "the offset of ({line}, {col8})"
        );
        assert_eq!(line_of(&text, at), line as usize, "line_of({at})");
        assert_eq!(
            line_start_at(&text, at),
            at - col8 as usize,
            "line_start_at({at})"
        );
        for encoding in ENCODINGS {
            let column = if encoding == Encoding::Utf8 {
                col8
            } else {
                col16
            };
            let position = positions.position(at, encoding);
            assert_eq!(
                position,
                Position::new(line, column),
                "the {encoding:?} position of {at}"
            );
            assert_eq!(
                positions.offset(position, encoding),
                at,
                "the offset of {position:?} ({encoding:?})"
            );
            // Inside the character: its start.
            for inside in at + 1..at + c.len_utf8().min(text.len() - at) {
                assert_eq!(
                    positions.position(inside, encoding),
                    position,
                    "the {encoding:?} position of {inside}, inside a character"
                );
            }
        }
        for unit in 1..c.len_utf8() as u32 {
            let inside = Position::new(line, col8 + unit);
            assert_eq!(
                positions.offset(inside, Encoding::Utf8),
                at,
                "the offset of {inside:?}, inside a character"
            );
        }
        if c.len_utf16() == 2 {
            let inside = Position::new(line, col16 + 1);
            assert_eq!(
                positions.offset(inside, Encoding::Utf16),
                at,
                "the offset of {inside:?}, inside a surrogate pair"
            );
        }
        // A line ends at a `\n`, and at a `\r` no `\n` follows (as
        // CommonMark's lines do); the end of the text ends the last.
        let ends_line = c == '\n' || (c == '\r' && !text[at + 1..].starts_with('\n'));
        if ends_line {
            // Past the end of the line: its end.
            assert_eq!(lines.line_end(line), Some(at), "the end of line {line}");
            for encoding in ENCODINGS {
                let beyond = Position::new(line, u32::MAX);
                assert_eq!(
                    positions.offset(beyond, encoding),
                    at,
                    "the offset of {beyond:?}"
                );
            }
            (line, col8, col16) = (line + 1, 0, 0);
        } else {
            col8 += c.len_utf8() as u32;
            col16 += c.len_utf16() as u32;
        }
    }
    assert_eq!(lines.line_count(), line, "the number of lines");
    for encoding in ENCODINGS {
        let past = Position::new(line, 0);
        assert_eq!(
            positions.offset(past, encoding),
            text.len(),
            "past the last line"
        );
        assert_eq!(
            positions.end(encoding),
            positions.position(text.len(), encoding),
            "the end"
        );
    }
}
