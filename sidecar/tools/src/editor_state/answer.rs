//! What `editor_state` answers: the open notes as the structured content
//! the client gets.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Serialize, JsonSchema)]
pub struct EditorStateOut {
    /// Open notes, the most recently edited (or opened) first.
    pub notes: Vec<OpenNoteOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OpenNoteOut {
    pub path: String,
    pub title: String,
    /// The editor's text differs from the file.
    pub unsaved: bool,
    pub opened: String,
    /// When its text last changed in the editor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_edit: Option<LastEdit>,
    /// Sections with unsaved changes, in the note's order.
    pub changed_sections: Vec<ChangedSection>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LastEdit {
    /// 1-based.
    pub line: u32,
    /// Heading path (`A::B`); absent above the first heading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// That line's text.
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedSection {
    /// Heading path; absent above the first heading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    pub added_lines: usize,
    pub removed_lines: usize,
}
