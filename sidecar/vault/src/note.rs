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
    /// The frontmatter as a JSON object (YAML mapping), when it parsed.
    /// Stored as JSON text by non-self-describing formats (snapshots).
    #[serde(with = "frontmatter_as_json")]
    pub frontmatter: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    /// Byte range of the frontmatter block including its `---` fences.
    pub frontmatter_span: Option<Span>,
    pub diagnostics: Vec<NoteDiagnostic>,
    /// Length of the text in bytes.
    pub len: u32,
    /// A fast hash of the text, to skip re-indexing unchanged content.
    pub content_hash: u64,
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub kind: LinkKind,
    /// `![[…]]` or `![…](…)`.
    pub embed: bool,
    /// The target as written, decoded (percent-decoding for Markdown links),
    /// without fragment or alias. Empty for `[[#Heading]]`.
    pub target: Box<str>,
    /// After the first `#`: `H1#H2` or `^block`.
    pub fragment: Option<Box<str>>,
    /// Display text: the `|alias` of a wikilink, the text of a Markdown link.
    pub alias: Option<Box<str>>,
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
    /// The link's length in UTF-16 code units when it stands on one line;
    /// `u16::MAX` when it spans lines (or is that long): then the editor
    /// edge reads the text.
    pub len16: u16,
    /// For a link in a frontmatter value, the property key (`part_of`).
    pub rel: Option<Box<str>>,
}

impl Link {
    /// `[[#Heading]]`, `[[#^block]]`, `[text](#frag)`: a link into its own note.
    pub fn is_self_link(&self) -> bool {
        self.target.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteDiagnostic {
    pub span: Span,
    pub line: u32,
    pub message: Box<str>,
}

impl Note {
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
                .all(|(a, b)| a.target == b.target && a.kind == b.kind)
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
