//! What `list_notes` answers: its sort and format choices, and the listing
//! or tree as the structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

use crate::args::choice;

choice! {
    pub enum ListSort {
        Alpha = "alpha" | "name" | "path" | "title",
        Modified = "modified" | "updated" | "recent" | "mtime",
        Created = "created" | "ctime",
    }
}

choice! {
    pub enum ListFormat {
        List = "list" | "flat",
        Tree = "tree",
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ListNotesOut {
    pub folder: String,
    /// The note whose path is the folder's path, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<NoteItem>,
    pub folders: Vec<FolderItem>,
    pub notes: Vec<NoteItem>,
    /// Notes matching in all (before paging).
    pub total: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<Vec<TreeEntry>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NoteItem {
    pub path: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    pub tags: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FolderItem {
    pub path: String,
    /// Notes in it and below.
    pub notes: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TreeEntry {
    pub path: String,
    /// `folder` or `note`.
    pub kind: String,
    pub depth: u32,
    /// For a folder: notes in it and below.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}
