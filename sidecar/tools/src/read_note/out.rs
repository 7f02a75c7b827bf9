//! `read_note`'s arguments and structured answer (the schemas agents see),
//! and what every view of a note shows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::{choice, lenient};
use crate::common::{NoteRef, tags_of};
use crate::versions::VersionOut;
use weft_search::index::sha256_hex;
use weft_vault::Note;

choice! {
    // What part of a note to read.
    pub enum View {
        Full = "full" | "all",
        Body = "body" | "content" | "text",
        Metadata = "metadata" | "meta" | "metadata_only" | "frontmatter",
        Outline = "outline" | "headings" | "toc" | "structure",
        Section = "section",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadNoteArgs {
    /// Path (.md optional), title or alias.
    #[serde(default, alias = "note", alias = "name", alias = "file")]
    pub path: Option<String>,
    #[serde(default, alias = "notes", deserialize_with = "lenient::strings")]
    pub paths: Option<Vec<String>>,
    #[serde(default)]
    pub view: Option<View>,
    /// Heading or A::B.
    #[serde(default, alias = "heading")]
    pub section: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(
        default,
        alias = "start_index",
        alias = "start",
        deserialize_with = "lenient::usize"
    )]
    pub offset: Option<usize>,
    /// Default 20000.
    #[serde(
        default,
        alias = "max_length",
        alias = "limit",
        deserialize_with = "lenient::usize"
    )]
    pub max_chars: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadNoteOut {
    pub notes: Vec<NoteOut>,
    /// Names in `paths` that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ReadError>,
    /// Set once the note history was found deleted or damaged and started
    /// anew: when, and why; the versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_lost: Option<weft_workspace::history::Lost>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadError {
    pub input: String,
    pub error: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteOut {
    /// Vault path without `.md`.
    pub path: String,
    pub title: String,
    /// The file, relative to the vault root.
    pub file: String,
    /// SHA-256 of the file as read now; pass it as `expected_sha256` when editing.
    pub sha256: String,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    pub view: View,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub links_out: usize,
    pub links_in: usize,
    /// The section read, as a `Parent::Child` path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// First and last line (1-based) of the section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Character offset of `content` in the view's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_chars: Option<usize>,
    /// Where the next page starts, when `content` was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlinks: Option<Vec<Backlink>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headings: Option<Vec<HeadingOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockOut>>,
    /// Frontmatter keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// Problems found while parsing (invalid UTF-8, malformed YAML …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
    /// Read from history: the version (then `sha256`, `bytes` and the
    /// metadata are the note's as it was in that version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<VersionOut>,
    /// The note is open in the editor with changes not saved yet: this is
    /// the editor's text (sha256 included), and writes to it are refused
    /// until the user saves.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsaved: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Backlink {
    pub from: NoteRef,
    /// 1-based line of the link in `from`.
    pub line: u32,
    pub context: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HeadingOut {
    pub level: u8,
    pub text: String,
    /// 1-based.
    pub line: u32,
    /// What `section` takes to address it.
    pub section: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct BlockOut {
    pub id: String,
    pub line: u32,
}

impl NoteOut {
    /// What every view shows of `note` (its file `bytes`); the view's own
    /// parts are filled in after.
    pub(super) fn of(note: &Note, bytes: &[u8], modified: Option<String>, view: View) -> NoteOut {
        NoteOut {
            path: note.id().to_string(),
            title: note.title.to_string(),
            file: note.path.to_string(),
            sha256: sha256_hex(bytes),
            bytes: bytes.len() as u64,
            modified,
            view,
            aliases: note.aliases.iter().map(|a| a.to_string()).collect(),
            tags: tags_of(note),
            links_out: note.links.len(),
            links_in: 0,
            section: None,
            lines: None,
            content: None,
            offset: None,
            total_chars: None,
            next_offset: None,
            frontmatter: None,
            backlinks: None,
            headings: None,
            blocks: None,
            keys: None,
            diagnostics: note
                .diagnostics
                .iter()
                .map(|d| format!("L{}: {}", d.line + 1, d.message))
                .collect(),
            version: None,
            unsaved: false,
        }
    }
}
