//! Parsing one note's text into a [`Note`]: frontmatter, title, aliases,
//! tags, headings, block ids and every link form.
//!
//! Parsing never fails: any bytes give a note, with diagnostics for what was
//! wrong (invalid UTF-8, malformed YAML, duplicate block ids). Nothing inside
//! code spans, code blocks, math or HTML (comments included) counts. A
//! file is indexed up to [`MAX_NOTE_BYTES`]: readers read no more, and
//! [`parse_file`] says what was left out.
//!
//! The parts: `markdown` walks the body and assembles the note,
//! `properties` reads the frontmatter, `links` reads one link's syntax; this
//! file is the entry point (bytes or text in, a note out).

mod links;
mod markdown;
mod properties;

use crate::lines::{last_break_end, line_of};
use crate::note::{Note, NoteDiagnostic};
pub use links::wikilink_target;
pub(crate) use markdown::Body;
use markdown::NoteParser;

/// Notes are indexed with `u32` offsets; text past this is not parsed.
const MAX_PARSED_LEN: usize = u32::MAX as usize - 1;

/// The most of a note file that is read from disk and indexed (16 MiB):
/// what a file holds past it is not read, so one huge file cannot take the
/// memory and time of a whole vault. Readers read at most this much and
/// hand it to [`parse_file`].
pub const MAX_NOTE_BYTES: u64 = 16 << 20;

/// Parses a note read from a file of `file_len` bytes of which `bytes` is
/// the beginning (all of it, or [`MAX_NOTE_BYTES`]). A file cut short is
/// parsed up to its last line break read, and says so in a diagnostic.
pub fn parse_file(path: &str, bytes: &[u8], file_len: u64) -> Note {
    if file_len <= bytes.len() as u64 {
        return parse_note(path, bytes);
    }
    // Whole lines only: no link, tag or character cut in two.
    let cut = last_break_end(bytes);
    let end = cut.unwrap_or(bytes.len());
    let mut note = parse_note(path, &bytes[..end]);
    // The (empty) line after the last one read.
    let line = line_of(&bytes[..end], end) as u32;
    note.diagnostics.push(NoteDiagnostic {
        span: note.len..note.len,
        line,
        message: format!(
            "the note is {:.1} MiB, more than the {} MiB Weft reads: only {} \
             indexed, and links, headings and tags after that are not seen (nor rewritten \
             when a note they name is renamed); split the note, or add it to `exclude`",
            file_len as f64 / f64::from(1u32 << 20),
            MAX_NOTE_BYTES >> 20,
            match cut {
                Some(_) => format!("lines 1 to {line} are"),
                None => format!("its first {} MiB is", MAX_NOTE_BYTES >> 20),
            },
        )
        .into(),
    });
    note
}

/// Parses a note from raw bytes; invalid UTF-8 is replaced and reported.
pub fn parse_note(path: &str, bytes: &[u8]) -> Note {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(path, text),
        Err(error) => {
            let text = String::from_utf8_lossy(bytes);
            let mut note = parse_text(path, &text);
            let at = error.valid_up_to().min(note.len as usize) as u32;
            let line = line_of(&*text, at as usize) as u32;
            note.diagnostics.insert(
                0,
                NoteDiagnostic {
                    span: at..at,
                    line,
                    message: format!(
                        "invalid UTF-8 at byte {}: the note was read with replacement characters; \
                         save it as UTF-8 before editing it with Weft",
                        error.valid_up_to()
                    )
                    .into(),
                },
            );
            note
        }
    }
}

/// The links, tags and headings of the Markdown after a note's frontmatter,
/// as [`parse_text`] finds them there, without reading the frontmatter's
/// YAML nor fingerprinting the note: for checking edits that leave the
/// frontmatter as it was (a hub's rename checks thousands of notes).
pub(crate) fn parse_body(path: &str, text: &str) -> Body {
    let mut parser = NoteParser::new(path, text);
    parser.run();
    parser.body()
}

/// Parses a note from its text.
pub fn parse_text(path: &str, text: &str) -> Note {
    let mut text = text;
    let mut diagnostics = Vec::new();
    if text.len() > MAX_PARSED_LEN {
        let mut end = MAX_PARSED_LEN;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text = &text[..end];
        diagnostics.push(NoteDiagnostic {
            span: end as u32..end as u32,
            line: 0,
            message: "the note is larger than 4 GiB; only its beginning is indexed".into(),
        });
    }
    let mut parser = NoteParser::new(path, text);
    parser.diagnostics = diagnostics;
    parser.run();
    parser.finish()
}
