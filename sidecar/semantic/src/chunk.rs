//! A note cut into the passages that are embedded: the text before the
//! first heading, then one section per heading (to the next heading of any
//! level); a section longer than [`MAX_CHUNK_BYTES`] is cut at paragraph
//! breaks (at line breaks, then at a character, when one paragraph is
//! longer). Frontmatter is not embedded.
//!
//! What is embedded for a passage is its text with each link shown as it
//! reads (`[[Target|shown]]` → `shown`), after a line of context: the
//! note's title (and aliases, for the first passage) and the passage's
//! heading path. Its fingerprint is of that text, so a passage is embedded
//! again only when it, its title or its headings changed.

use weft_vault::Note;
use weft_vault::frontmatter::body_start;
use weft_vault::headings::heading_path;

/// A passage longer than this (bytes) is cut at paragraph breaks.
pub const MAX_CHUNK_BYTES: usize = 1_500;

/// Passages embedded per note at most: the rest of a very long note is
/// found by its full text only.
pub const MAX_CHUNKS: usize = 256;

/// One embedded passage of a note: its bytes in the note's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    pub start: u32,
    pub end: u32,
    /// Fingerprint of the text embedded for it (context included).
    pub hash: u64,
}

/// A passage and the text to embed for it.
#[derive(Debug, Clone)]
pub struct ChunkText {
    pub chunk: Chunk,
    pub text: String,
}

/// The passages of `note`, whose text is `text` (the parse of that very
/// text: spans index into it).
pub fn chunks(note: &Note, text: &str) -> Vec<ChunkText> {
    let body = body_start(text).min(text.len());
    // (start, owning heading)
    let mut sections: Vec<(usize, Option<usize>)> = Vec::new();
    if !text[body..first_heading(note, body, text.len())]
        .trim()
        .is_empty()
    {
        sections.push((body, None));
    }
    for (i, h) in note.headings.iter().enumerate() {
        let start = h.span.start as usize;
        if start >= body && start < text.len() && text.is_char_boundary(start) {
            sections.push((start, Some(i)));
        }
    }
    let mut out = Vec::new();
    for (k, &(start, heading)) in sections.iter().enumerate() {
        let end = sections.get(k + 1).map_or(text.len(), |s| s.0);
        if start >= end {
            continue;
        }
        let context = context_line(note, heading, out.is_empty());
        for (a, b) in pieces(text, start, end) {
            if out.len() >= MAX_CHUNKS {
                return out;
            }
            let mut embedded = context.clone();
            embedded.push('\n');
            shown(note, text, a, b, &mut embedded);
            out.push(ChunkText {
                chunk: Chunk {
                    start: a as u32,
                    end: b as u32,
                    hash: xxhash_rust::xxh3::xxh3_64(embedded.as_bytes()),
                },
                text: embedded,
            });
        }
    }
    if out.is_empty() {
        // A note of a title alone (or frontmatter alone) is still findable
        // by its title.
        let text = context_line(note, None, true);
        out.push(ChunkText {
            chunk: Chunk {
                start: body as u32,
                end: body as u32,
                hash: xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
            },
            text,
        });
    }
    out
}

fn first_heading(note: &Note, body: usize, len: usize) -> usize {
    note.headings
        .iter()
        .map(|h| h.span.start as usize)
        .find(|&s| s >= body)
        .unwrap_or(len)
        .min(len)
}

fn context_line(note: &Note, heading: Option<usize>, first: bool) -> String {
    let mut line = note.title.to_string();
    if first {
        for alias in note.aliases.iter().take(8) {
            line.push_str(", ");
            line.push_str(alias);
        }
    }
    if let Some(h) = heading {
        line.push_str(" — ");
        line.push_str(&heading_path(note, h, " › "));
    }
    line
}

/// `start..end` cut into pieces of at most [`MAX_CHUNK_BYTES`] where it
/// can be: at blank lines, else at line breaks, else at a character.
fn pieces(text: &str, start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = start;
    while end - from > MAX_CHUNK_BYTES {
        let window = &text[from..floor_char(text, from + MAX_CHUNK_BYTES)];
        let cut = window
            .rfind("\n\n")
            .map(|i| i + 2)
            .or_else(|| window.rfind('\n').map(|i| i + 1))
            .filter(|&i| i > MAX_CHUNK_BYTES / 4)
            .unwrap_or(window.len());
        let cut = if cut == 0 {
            // One character longer than the window: take it whole.
            ceil_char(text, from + 1)
        } else {
            from + cut
        };
        out.push((from, cut));
        from = cut;
    }
    if !text[from..end].trim().is_empty() || out.is_empty() {
        out.push((from, end));
    }
    out
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(text: &str, mut i: usize) -> usize {
    while i < text.len() && !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Appends `text[a..b]` with each link inside it replaced by what it shows.
fn shown(note: &Note, text: &str, a: usize, b: usize, out: &mut String) {
    let mut at = a;
    for link in &note.links {
        let (s, e) = (link.span.start as usize, link.span.end as usize);
        if s < at || e > b || s >= e || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(link.alias().unwrap_or_else(|| link.target()));
        at = e;
    }
    out.push_str(&text[at..b]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::parse_note;

    fn cut(text: &str) -> Vec<(String, String)> {
        let note = parse_note("n.md", text.as_bytes());
        chunks(&note, text)
            .into_iter()
            .map(|c| {
                (
                    text[c.chunk.start as usize..c.chunk.end as usize].to_string(),
                    c.text,
                )
            })
            .collect()
    }

    #[test]
    fn sections_by_heading_with_their_path_and_links_as_shown() {
        let text = "---\ntags: [a]\n---\nIntro with [[Other|a friend]].\n\n# Top\nOne.\n## Sub\nTwo [[Third]].\n";
        let got = cut(text);
        assert_eq!(got.len(), 3, "{got:#?}");
        assert_eq!(got[0].0, "Intro with [[Other|a friend]].\n\n");
        // The title (here the first heading) is the context.
        assert_eq!(got[0].1, "Top\nIntro with a friend.\n\n");
        assert_eq!(got[1].0, "# Top\nOne.\n");
        assert_eq!(got[1].1, "Top — Top\n# Top\nOne.\n");
        assert_eq!(got[2].1, "Top — Top › Sub\n## Sub\nTwo Third.\n");
    }

    #[test]
    fn long_sections_are_cut_at_paragraphs_and_never_inside_a_character() {
        let para = "Mot très long é. ".repeat(30); // ~540 bytes
        let text = format!("# H\n{para}\n\n{para}\n\n{para}\n\n{para}\n");
        let note = parse_note("n.md", text.as_bytes());
        let got = chunks(&note, &text);
        assert!(got.len() >= 2, "{}", got.len());
        let mut at = got[0].chunk.start;
        for c in &got {
            assert_eq!(c.chunk.start, at, "pieces are contiguous");
            assert!((c.chunk.end - c.chunk.start) as usize <= MAX_CHUNK_BYTES);
            at = c.chunk.end;
        }
        // One paragraph longer than a piece, no line break at all.
        let text = "é".repeat(4_000);
        let note = parse_note("n.md", text.as_bytes());
        let got = chunks(&note, &text);
        assert!(got.len() >= 5);
        assert_eq!(got.last().unwrap().chunk.end as usize, text.len());
    }

    #[test]
    fn a_note_with_no_text_is_its_title_and_chunks_are_bounded() {
        let got = cut("---\na: 1\n---\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1, "n");
        let text = "# h\nx\n".repeat(MAX_CHUNKS * 2);
        let note = parse_note("n.md", text.as_bytes());
        assert_eq!(chunks(&note, &text).len(), MAX_CHUNKS);
    }

    #[test]
    fn the_fingerprint_follows_the_text_and_its_context() {
        let text = "## H\nsame\n";
        assert_eq!(cut(text), cut(text));
        let hash = |path: &str, text: &str| {
            chunks(&parse_note(path, text.as_bytes()), text)[0]
                .chunk
                .hash
        };
        assert_eq!(hash("n.md", text), hash("n.md", text));
        assert_ne!(
            hash("n.md", text),
            hash("m.md", text),
            "another title is another context"
        );
        assert_ne!(
            hash("n.md", text),
            hash("n.md", "## G\nsame\n"),
            "another heading too"
        );
    }
}
