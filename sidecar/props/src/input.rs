//! How a fuzz input is read when it is more than one text: the text comes
//! first, up to the first NUL byte (UTF-8, invalid sequences replaced, as
//! Weft reads a note), and the bytes after it are choices read with
//! `arbitrary`. A text therefore never holds a NUL here; the parser's own
//! target reads raw bytes and gets them.
//!
//! Knows no target: each reads its choices its own way.

use arbitrary::{Arbitrary, Unstructured};

/// The longest text a target reads: several properties look at every
/// offset of a line, and libFuzzer finds more, sooner, with small inputs.
pub(crate) const MAX_TEXT: usize = 16 << 10;

/// The text and the choices of an input.
pub(crate) fn split(data: &[u8]) -> (String, Unstructured<'_>) {
    let (text, rest) = match memchr::memchr(0, data) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[data.len()..]),
    };
    (lossy(text, MAX_TEXT), Unstructured::new(rest))
}

/// At most `max` bytes of `bytes` as text, invalid UTF-8 replaced.
pub(crate) fn lossy(bytes: &[u8], max: usize) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(max)]).into_owned()
}

/// Up to `count` choices of type `T`, fewer when the bytes run out.
pub(crate) fn choices<'a, T: Arbitrary<'a>>(u: &mut Unstructured<'a>, count: usize) -> Vec<T> {
    let mut out = Vec::new();
    while out.len() < count && !u.is_empty() {
        match T::arbitrary(u) {
            Ok(choice) => out.push(choice),
            Err(_) => break,
        }
    }
    out
}

/// A string for an operation: a piece of the text the operation applies
/// to (so that finds, anchors and keys often exist) or one of the
/// fuzzer's own.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum Pick {
    Piece { at: u16, len: u8 },
    Own(String),
}

impl Pick {
    pub(crate) fn get(&self, text: &str) -> String {
        match self {
            Pick::Piece { at, len } => piece(text, usize::from(*at), usize::from(*len)).to_string(),
            Pick::Own(own) => own.clone(),
        }
    }
}

/// About `len` bytes of `text` from about `at` (`at` wrapped to the text),
/// both ends moved back to character boundaries.
pub(crate) fn piece(text: &str, at: usize, len: usize) -> &str {
    let start = floor(text, at % (text.len() + 1));
    let end = floor(text, (start + len).min(text.len()));
    &text[start..end]
}

/// `at`, or the character boundary before it.
pub(crate) fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The item `choice` picks among `items` (wrapping), none when there are
/// none.
pub(crate) fn nth<T>(items: &[T], choice: u8) -> Option<&T> {
    (!items.is_empty()).then(|| &items[usize::from(choice) % items.len()])
}
