//! What a parsed note holds: title, aliases, tags, headings, block ids, links.
//!
//! Everything is owned, compact and free of protocol types. Ranges are byte
//! offsets into the note's text as read (a UTF-8 BOM included).

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// Byte range inside a note. `u32` keeps the index small; notes over 4 GiB
/// are refused at load time.
pub(crate) type Span = Range<u32>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// Vault-relative path with `/` separators and its extension: `a/b c.md`.
    pub path: Box<str>,
    pub title: Box<str>,
    pub aliases: Vec<Box<str>>,
    pub tags: Vec<TagUse>,
    pub headings: Vec<Heading>,
    pub blocks: Vec<Block>,
    pub links: Vec<Link>,
    /// Its list items with a checkbox, in text order.
    pub tasks: crate::tasks::Tasks,
    /// The frontmatter as a JSON object (YAML mapping), when it parsed.
    /// Stored as JSON text by non-self-describing formats (snapshots).
    #[serde(with = "frontmatter_as_json")]
    pub frontmatter: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    /// Byte range of the frontmatter block including its `---` fences.
    pub frontmatter_span: Option<Span>,
    /// The text has a ```` ```base ```` block (a key rename edits it).
    pub has_base_block: bool,
    pub diagnostics: Vec<NoteDiagnostic>,
    /// Length of the text in bytes.
    pub len: u32,
    /// A fast hash of the text, to skip re-indexing unchanged content.
    pub content_hash: u64,
    /// `matcher::char_mask` of its stem, title and aliases together: symbol
    /// search passes over a note none of whose names can match without
    /// reading them.
    pub name_mask: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagUse {
    /// As written, without the leading `#`: `Project/Weft`.
    pub name: Box<str>,
    /// Where it stands in the text; `None` for a frontmatter tag whose place
    /// could not be pinned down.
    pub span: Option<Span>,
    pub line: u32,
    /// Columns of `span` as for [`Link::col`], [`Link::col16`] and
    /// [`Link::len16`].
    pub col: u32,
    pub col16: u32,
    pub len16: u16,
    pub in_frontmatter: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    /// Plain text of the heading, without the `#` markers.
    pub text: Box<str>,
    /// The whole heading line(s).
    pub span: Span,
    pub line: u32,
    /// `matcher::char_mask` of `text`: symbol search passes over a heading
    /// that cannot match without reading its text.
    pub mask: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The id without the caret: `abc-1` for `^abc-1`.
    pub id: Box<str>,
    /// The `^id` marker itself.
    pub span: Span,
    /// The paragraph or list item the id names.
    pub block_span: Span,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkKind {
    /// `[[target#frag|alias]]`
    Wiki,
    /// `[text](path/note.md#frag)`
    Markdown,
}

/// One link. Its texts (target, fragment, alias, property key) are kept
/// back to back in one string: a vault holds millions of links, so one
/// allocation and 64 bytes each rather than up to four and 96.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LinkFields")]
pub struct Link {
    pub kind: LinkKind,
    /// `![[…]]` or `![…](…)`.
    pub embed: bool,
    /// Which of fragment, alias and property key there are (`HAS_*`).
    has: u8,
    /// The link's length in UTF-16 code units when it stands on one line;
    /// `u16::MAX` when it spans lines (or is that long): then the editor
    /// edge reads the text.
    pub len16: u16,
    /// Where the target, fragment and alias end in `texts`; the property
    /// key is the rest.
    ends: [u32; 3],
    texts: Box<str>,
    /// The whole link, brackets included.
    pub span: Span,
    /// The target text inside the link (without fragment or alias).
    pub target_span: Span,
    /// The line of `span.start` (0-based).
    pub line: u32,
    /// Bytes from the start of that line to `span.start`.
    pub col: u32,
    /// The same distance in UTF-16 code units, the unit most editors count
    /// columns in: computed once here so that the language server can place
    /// thousands of links (references) without reading their notes again.
    /// Nothing in the domain uses it.
    pub col16: u32,
}

const HAS_FRAGMENT: u8 = 1;
const HAS_ALIAS: u8 = 2;
const HAS_REL: u8 = 4;

impl Link {
    /// A link found at `span` (its target at `target_span`), at line 0,
    /// column 0 until its finder places it.
    pub fn new(
        kind: LinkKind,
        embed: bool,
        target: &str,
        fragment: Option<&str>,
        alias: Option<&str>,
        span: Span,
        target_span: Span,
    ) -> Link {
        let (has, ends, texts) = pack([Some(target), fragment, alias, None]);
        Link {
            kind,
            embed,
            has,
            len16: u16::MAX,
            ends,
            texts,
            span,
            target_span,
            line: 0,
            col: 0,
            col16: 0,
        }
    }

    /// The target as written, decoded (percent-decoding for Markdown
    /// links), without fragment or alias. Empty for `[[#Heading]]`.
    pub fn target(&self) -> &str {
        &self.texts[..self.ends[0] as usize]
    }

    /// After the first `#`: `H1#H2` or `^block`.
    pub fn fragment(&self) -> Option<&str> {
        self.part(HAS_FRAGMENT, self.ends[0]..self.ends[1])
    }

    /// Display text: the `|alias` of a wikilink, the text of a Markdown link.
    pub fn alias(&self) -> Option<&str> {
        self.part(HAS_ALIAS, self.ends[1]..self.ends[2])
    }

    /// For a link in a frontmatter value, the property key (`part_of`).
    pub fn rel(&self) -> Option<&str> {
        self.part(HAS_REL, self.ends[2]..self.texts.len() as u32)
    }

    pub fn set_alias(&mut self, alias: Option<&str>) {
        self.set_part(2, alias);
    }

    pub fn set_rel(&mut self, rel: Option<&str>) {
        self.set_part(3, rel);
    }

    /// Target, fragment, alias and property key, in the order packed.
    fn parts(&self) -> [Option<&str>; 4] {
        [
            Some(self.target()),
            self.fragment(),
            self.alias(),
            self.rel(),
        ]
    }

    fn set_part(&mut self, at: usize, part: Option<&str>) {
        let mut parts = self.parts();
        parts[at] = part;
        (self.has, self.ends, self.texts) = pack(parts);
    }

    /// `[[#Heading]]`, `[[#^block]]`, `[text](#frag)`: a link into its own note.
    pub fn is_self_link(&self) -> bool {
        self.target().is_empty()
    }

    fn part(&self, flag: u8, range: Range<u32>) -> Option<&str> {
        (self.has & flag != 0).then(|| &self.texts[range.start as usize..range.end as usize])
    }
}

/// Target, fragment, alias and property key packed as a [`Link`] holds
/// them: which are there, where the first three end, and the texts. Each
/// is a part of a note, whose length fits `u32` (notes over 4 GiB are
/// refused at load time); so do the four together, parts of at most two
/// notes' worth of text.
fn pack(parts: [Option<&str>; 4]) -> (u8, [u32; 3], Box<str>) {
    let mut texts = String::with_capacity(parts.iter().flatten().map(|p| p.len()).sum());
    let mut ends = [0u32; 3];
    for (i, part) in parts.iter().enumerate() {
        texts.push_str(part.unwrap_or_default());
        if let Some(end) = ends.get_mut(i) {
            *end = u32::try_from(texts.len()).unwrap_or(u32::MAX);
        }
    }
    let has = [HAS_FRAGMENT, HAS_ALIAS, HAS_REL]
        .iter()
        .zip(&parts[1..])
        .filter(|(_, part)| part.is_some())
        .fold(0, |has, (flag, _)| has | flag);
    (has, ends, texts.into_boxed_str())
}

/// A link as read back from a snapshot, checked before it is a [`Link`]:
/// its text ends must lie in order on character boundaries.
#[derive(Deserialize)]
struct LinkFields {
    kind: LinkKind,
    embed: bool,
    has: u8,
    len16: u16,
    ends: [u32; 3],
    texts: Box<str>,
    span: Span,
    target_span: Span,
    line: u32,
    col: u32,
    col16: u32,
}

impl TryFrom<LinkFields> for Link {
    type Error = &'static str;

    fn try_from(f: LinkFields) -> Result<Link, Self::Error> {
        let mut at = 0;
        for end in f.ends {
            if end < at || !f.texts.is_char_boundary(end as usize) {
                return Err("a link's texts are out of place");
            }
            at = end;
        }
        if f.has & !(HAS_FRAGMENT | HAS_ALIAS | HAS_REL) != 0 {
            return Err("a link has unknown parts");
        }
        Ok(Link {
            kind: f.kind,
            embed: f.embed,
            has: f.has,
            len16: f.len16,
            ends: f.ends,
            texts: f.texts,
            span: f.span,
            target_span: f.target_span,
            line: f.line,
            col: f.col,
            col16: f.col16,
        })
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("kind", &self.kind)
            .field("embed", &self.embed)
            .field("target", &self.target())
            .field("fragment", &self.fragment())
            .field("alias", &self.alias())
            .field("rel", &self.rel())
            .field("span", &self.span)
            .field("target_span", &self.target_span)
            .field("line", &self.line)
            .field("col", &self.col)
            .field("col16", &self.col16)
            .field("len16", &self.len16)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteDiagnostic {
    pub span: Span,
    pub line: u32,
    pub message: Box<str>,
}

impl Note {
    /// Why this note could not have come from parsing a text of `len`
    /// bytes at its path, if it could not: a path that is no note's (not
    /// `.md`, absolute, with a `.`, `..` or empty segment), a span past the
    /// end or reversed, a link's target outside the link, a heading level
    /// outside 1–6. What a persisted index checks before trusting a note
    /// it reads back: its checksum says the bytes are those written, not
    /// that what wrote them was right.
    pub fn inconsistency(&self) -> Option<String> {
        let path = &*self.path;
        if !is_note_path(path)
            || path.starts_with('/')
            || path
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..")
        {
            return Some(format!("`{path}` is not a note's vault path"));
        }
        let inside = |span: &Span| span.start <= span.end && span.end <= self.len;
        let spans = self
            .links
            .iter()
            .flat_map(|l| [&l.span, &l.target_span])
            .chain(self.tags.iter().filter_map(|t| t.span.as_ref()))
            .chain(self.headings.iter().map(|h| &h.span))
            .chain(self.blocks.iter().flat_map(|b| [&b.span, &b.block_span]))
            .chain(self.diagnostics.iter().map(|d| &d.span))
            .chain(self.frontmatter_span.as_ref());
        for span in spans {
            if !inside(span) {
                return Some(format!(
                    "`{path}`: span {span:?} is outside its {} bytes",
                    self.len
                ));
            }
        }
        if let Some(link) = self
            .links
            .iter()
            .find(|l| l.target_span.start < l.span.start || l.target_span.end > l.span.end)
        {
            return Some(format!(
                "`{path}`: a link's target {:?} is outside the link {:?}",
                link.target_span, link.span
            ));
        }
        if let Some(heading) = self.headings.iter().find(|h| !(1..=6).contains(&h.level)) {
            return Some(format!("`{path}`: a heading of level {}", heading.level));
        }
        None
    }

    /// Whether `new` (an edit of this note) keeps its names: path, title
    /// and aliases. Other notes resolve to it as before when it does.
    pub fn same_names(&self, new: &Note) -> bool {
        self.path == new.path && self.title == new.title && self.aliases == new.aliases
    }

    /// Whether `new` (an edit of this note) keeps its link targets.
    pub fn same_links(&self, new: &Note) -> bool {
        self.links.len() == new.links.len()
            && self
                .links
                .iter()
                .zip(&new.links)
                .all(|(a, b)| a.target() == b.target() && a.kind == b.kind)
    }

    /// The note's identity: its path without the `.md` extension.
    pub fn id(&self) -> &str {
        strip_md(&self.path)
    }

    /// The file name without extension.
    pub fn stem(&self) -> &str {
        let id = self.id();
        id.rsplit('/').next().unwrap_or(id)
    }

    /// The folder holding the note, `""` at the vault root.
    pub fn folder(&self) -> &str {
        folder_of(&self.path)
    }

    /// The byte range of heading `index`'s section: from the heading to the
    /// next heading of the same or a higher level, or the end of the note.
    pub fn section_span(&self, index: usize) -> Span {
        let heading = &self.headings[index];
        let end = self.headings[index + 1..]
            .iter()
            .find(|h| h.level <= heading.level)
            .map_or(self.len, |h| h.span.start);
        heading.span.start..end
    }
}

/// The fingerprint of a note's text kept as [`Note::content_hash`]: equal
/// hashes (with equal lengths) mean the index's parse is of this very text.
/// XXH3: read at memory speed, so checking a thousand notes before a
/// rename costs next to nothing.
pub fn text_hash(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// `a/b.md` → `a/b`; other names are returned as they are.
pub fn strip_md(path: &str) -> &str {
    let bytes = path.as_bytes();
    if bytes.len() >= 3 && bytes[bytes.len() - 3..].eq_ignore_ascii_case(b".md") {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// `a/b/c.md` → `a/b`; `c.md` → ``.
pub fn folder_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Whether a vault-relative path names a note (a Markdown file).
pub fn is_note_path(path: &str) -> bool {
    strip_md(path).len() != path.len()
}

/// The frontmatter as JSON text when a note is serialised: binary formats
/// such as a persisted index cannot hold a JSON value of unknown shape.
mod frontmatter_as_json {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Frontmatter = Option<Box<serde_json::Map<String, serde_json::Value>>>;

    pub fn serialize<S: Serializer>(value: &Frontmatter, s: S) -> Result<S::Ok, S::Error> {
        value
            .as_ref()
            .map(|map| serde_json::to_string(map).map_err(serde::ser::Error::custom))
            .transpose()?
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Frontmatter, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| serde_json::from_str(&text).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link's texts read back as set, whichever are changed after.
    #[test]
    fn a_links_texts_read_back_as_set() {
        let mut link = Link::new(
            LinkKind::Wiki,
            false,
            "Café",
            Some("H1#H2"),
            None,
            0..9,
            2..6,
        );
        assert_eq!(
            (link.target(), link.fragment(), link.alias(), link.rel()),
            ("Café", Some("H1#H2"), None, None)
        );
        link.set_rel(Some("part_of"));
        link.set_alias(Some(""));
        assert_eq!(
            (link.target(), link.fragment(), link.alias(), link.rel()),
            ("Café", Some("H1#H2"), Some(""), Some("part_of"))
        );
        link.set_alias(None);
        assert_eq!(
            (link.target(), link.fragment(), link.alias(), link.rel()),
            ("Café", Some("H1#H2"), None, Some("part_of"))
        );
        let empty = Link::new(LinkKind::Markdown, true, "", None, Some("text"), 0..1, 0..0);
        assert!(empty.is_self_link());
        assert_eq!(empty.alias(), Some("text"));
        assert!(format!("{link:?}").contains(r#"target: "Café", fragment: Some("H1#H2")"#));
    }

    /// A link read back whose texts are out of place (a damaged or forged
    /// snapshot) is refused, never sliced wrongly.
    #[test]
    fn a_link_with_texts_out_of_place_is_refused() {
        let link = Link::new(LinkKind::Wiki, false, "Café", Some("x"), None, 0..9, 2..6);
        let good = serde_json::to_value(&link).unwrap();
        assert_eq!(serde_json::from_value::<Link>(good.clone()).unwrap(), link);
        for (field, value) in [
            ("ends", serde_json::json!([4, 6, 6])),  // inside `é`
            ("ends", serde_json::json!([6, 5, 7])),  // backwards
            ("ends", serde_json::json!([6, 7, 99])), // past the end
            ("has", serde_json::json!(8)),
        ] {
            let mut bad = good.clone();
            bad[field] = value;
            assert!(serde_json::from_value::<Link>(bad).is_err(), "{field}");
        }
    }
}
