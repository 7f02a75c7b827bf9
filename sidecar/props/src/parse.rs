//! `parse_note`: any bytes give a [`Note`] without a panic, and every span
//! the note holds (headings, blocks, links, tags, frontmatter,
//! diagnostics) lies inside the text on character boundaries, with the
//! line and columns the text says.
//!
//! Invalid UTF-8 is read with replacement characters, so spans are checked
//! against that text, as the parser promises.

use std::ops::Range;

use weft_vault::Note;
use weft_vault::lines::{line_of, line_start_at};

const PATH: &str = "fuzz/Note.md";

pub fn parse_note(data: &[u8]) {
    let note = weft_vault::parse_note(PATH, data);
    let text = String::from_utf8_lossy(data);
    check_note(&text, &note);
    assert_eq!(
        note.inconsistency(),
        None,
        "a persisted index would refuse this parse"
    );
    assert!(
        weft_vault::parse_note(PATH, data) == note,
        "two parses of the same bytes differ"
    );
}

/// Every span of `note` inside `text` on character boundaries, at the line
/// and columns the text gives.
fn check_note(text: &str, note: &Note) {
    assert_eq!(note.len as usize, text.len(), "the note's length");
    for heading in &note.headings {
        let span = inside(text, &heading.span, "a heading");
        assert!(
            (1..=6).contains(&heading.level),
            "heading level {}",
            heading.level
        );
        on_line(text, span.start, heading.line, "a heading");
    }
    for block in &note.blocks {
        let span = inside(text, &block.span, "a block id");
        let whole = inside(text, &block.block_span, "a block");
        assert_eq!(
            &text[span.clone()],
            format!("^{}", block.id),
            "a block id's text"
        );
        assert!(
            whole.start <= span.start && span.end <= whole.end,
            "block id {span:?} outside its block {whole:?}"
        );
        on_line(text, span.start, block.line, "a block id");
    }
    for link in &note.links {
        let span = inside(text, &link.span, "a link");
        let target = inside(text, &link.target_span, "a link's target");
        assert!(
            span.start <= target.start && target.end <= span.end,
            "link target {target:?} outside its link {span:?}"
        );
        on_line(text, span.start, link.line, "a link");
        columns(text, &span, (link.col, link.col16, link.len16), "a link");
    }
    for tag in &note.tags {
        let Some(span) = &tag.span else { continue };
        let span = inside(text, span, "a tag");
        on_line(text, span.start, tag.line, "a tag");
        columns(text, &span, (tag.col, tag.col16, tag.len16), "a tag");
        if !tag.in_frontmatter {
            assert_eq!(
                &text[span],
                format!("#{}", tag.name),
                "an inline tag's text"
            );
        }
    }
    if let Some(span) = &note.frontmatter_span {
        let span = inside(text, span, "the frontmatter");
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        assert_eq!(span.start, bom, "the frontmatter starts the note");
    }
    for diagnostic in &note.diagnostics {
        let span = inside(text, &diagnostic.span, "a diagnostic");
        on_line(text, span.start, diagnostic.line, "a diagnostic");
    }
}

/// `span` as a range, checked to lie in `text` on character boundaries.
fn inside(text: &str, span: &Range<u32>, what: &str) -> Range<usize> {
    let range = span.start as usize..span.end as usize;
    assert!(
        range.start <= range.end && text.get(range.clone()).is_some(),
        "{what} at {range:?} is not inside the text ({} bytes) on character boundaries",
        text.len()
    );
    range
}

fn on_line(text: &str, at: usize, line: u32, what: &str) {
    assert_eq!(
        line as usize,
        line_of(text, at),
        "the line of {what} at {at}"
    );
}

/// A span's byte column, UTF-16 column and UTF-16 length (`u16::MAX` when
/// it spans lines or is that long), as the text gives them.
fn columns(text: &str, span: &Range<usize>, (col, col16, len16): (u32, u32, u16), what: &str) {
    let start = line_start_at(text, span.start);
    let units = |s: &str| s.encode_utf16().count();
    assert_eq!(
        col as usize,
        span.start - start,
        "the column of {what} at {span:?}"
    );
    assert_eq!(
        col16 as usize,
        units(&text[start..span.start]),
        "the UTF-16 column of {what} at {span:?}"
    );
    let body = &text[span.clone()];
    let expected = if body.contains(['\n', '\r']) {
        u16::MAX
    } else {
        u16::try_from(units(body)).unwrap_or(u16::MAX)
    };
    assert_eq!(len16, expected, "the UTF-16 length of {what} at {span:?}");
}
