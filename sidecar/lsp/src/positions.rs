//! Where a span of a note is for the client: places the index can state
//! at once (a link's or tag's line and columns in both encodings), and the
//! line indexes of notes that are not open, cached by content hash within
//! a budget. Knows positions and the encoding, nothing of features.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp_server::ls_types::{Position, Uri};

use super::convert::{Encoding, LineIndex};

/// Line indexes of notes that are not open, by vault path, with the hash
/// of the text they were built from.
#[derive(Default)]
pub(crate) struct PositionCache {
    /// Vault path → (content hash, line index, URI).
    pub(crate) map: HashMap<String, (u64, Arc<LineIndex>, Uri)>,
    pub(crate) entries_bytes: usize,
}

impl PositionCache {
    pub(crate) fn insert(&mut self, rel: &str, hash: u64, lines: Arc<LineIndex>, uri: Uri) {
        let size = |lines: &LineIndex, uri: &Uri| {
            lines.heap_bytes() + rel.len() + uri.as_str().len() + POSITION_ENTRY_OVERHEAD
        };
        let added = size(&lines, &uri);
        if let Some((_, old_lines, old_uri)) = self.map.insert(rel.to_string(), (hash, lines, uri))
        {
            self.entries_bytes = self
                .entries_bytes
                .saturating_sub(size(&old_lines, &old_uri));
        }
        self.entries_bytes += added;
    }
}

/// The cache's budget. Warming stops at it; a miss past it drops the cache
/// whole (simple, and rebuilt lazily). The index itself takes about 1.6 ×
/// the Markdown bytes, so this stays small.
pub(crate) const POSITION_CACHE_BYTES: usize = 32 << 20;

/// A span in a note, to be shown to the client as a location.
pub struct Place<P> {
    /// The note's vault path.
    pub path: P,
    pub span: std::ops::Range<u32>,
    /// The note's content hash, which a cached line index must match.
    pub hash: u64,
    /// Where the span is, when the index knows (links on one line).
    pub known: Option<Known>,
}

/// A span on one line whose columns the index knows in both encodings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Known {
    pub line: u32,
    /// Bytes from the line start; and the span's length in bytes.
    pub col8: u32,
    pub len8: u32,
    /// The same in UTF-16 code units.
    pub col16: u32,
    pub len16: u32,
}

impl Known {
    /// The place of a link, unless it spans lines.
    pub(crate) fn of_link(link: &weft_vault::Link) -> Option<Known> {
        Known::of(link.line, &link.span, link.col, link.col16, link.len16)
    }

    /// The place of a tag, unless it spans lines.
    pub(crate) fn of_tag(tag: &weft_vault::note::TagUse) -> Option<Known> {
        Known::of(tag.line, tag.span.as_ref()?, tag.col, tag.col16, tag.len16)
    }

    fn of(
        line: u32,
        span: &std::ops::Range<u32>,
        col8: u32,
        col16: u32,
        len16: u16,
    ) -> Option<Known> {
        (len16 != u16::MAX).then(|| Known {
            line,
            col8,
            len8: span.end - span.start,
            col16,
            len16: u32::from(len16),
        })
    }

    pub(crate) fn range(&self, encoding: Encoding) -> tower_lsp_server::ls_types::Range {
        let (col, len) = match encoding {
            Encoding::Utf8 => (self.col8, self.len8),
            Encoding::Utf16 => (self.col16, self.len16),
        };
        tower_lsp_server::ls_types::Range::new(
            Position::new(self.line, col),
            Position::new(self.line, col + len),
        )
    }
}

/// Bookkeeping bytes of one cache entry besides its line index.
const POSITION_ENTRY_OVERHEAD: usize = 96;
