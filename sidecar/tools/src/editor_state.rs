//! `editor_state`: what the user is working on — the notes open in the
//! vault's editors, the most recently edited first, each with its unsaved
//! changes by section and where the last edit was, so "summarise what I'm
//! writing" needs no path. Only Weft can say it: the editor and the agent
//! share one hub. The agent's access rule hides what it may not see.
//!
//! An adapter over `Buffers::activity`.

use std::time::SystemTime;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::lenient;
use super::common::limit;
use super::format::{Reply, ToolResult, escape, plural};
use super::state::ToolState;
use weft_search::dates::{Zone, format_time, unix};
use weft_workspace::hub::OpenNote;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditorStateArgs {
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
}

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

pub fn run(state: &ToolState, args: EditorStateArgs) -> ToolResult {
    let policy = state.policy();
    let limit = limit(args.limit, 10, 50);
    let open = state
        .hub()
        .buffers
        .activity(state.root(), |path| policy.access.sees(path), limit);
    let out = EditorStateOut {
        notes: open
            .into_iter()
            .map(|open| note_out(open, state.zone()))
            .collect(),
    };
    Ok(Reply::new(render(&out), &out))
}

fn time(t: SystemTime, zone: Zone) -> String {
    format_time(unix(Ok(t)).unwrap_or(0), zone)
}

fn note_out(open: OpenNote, zone: Zone) -> OpenNoteOut {
    OpenNoteOut {
        path: open.path,
        title: open.title,
        unsaved: open.unsaved,
        opened: time(open.opened, zone),
        edited: open.edited.map(|t| time(t, zone)),
        last_edit: open.last_edit.map(|p| LastEdit {
            line: p.line,
            section: p.section,
            text: p.text,
        }),
        changed_sections: open
            .changed
            .into_iter()
            .map(|c| ChangedSection {
                section: c.section,
                added_lines: c.added,
                removed_lines: c.removed,
            })
            .collect(),
    }
}

fn render(out: &EditorStateOut) -> String {
    if out.notes.is_empty() {
        return "No note is open in an editor on this vault (Weft sees the notes open in \
                editors that run its language server, such as Zed)."
            .to_string();
    }
    let mut text = format!(
        "{} open in the editor, most recently edited first:",
        plural(out.notes.len(), "note")
    );
    for (i, note) in out.notes.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. **{}** (`{}`)",
            i + 1,
            escape(&note.title),
            note.path
        ));
        if note.unsaved {
            let sections: Vec<String> = note
                .changed_sections
                .iter()
                .map(|c| {
                    format!(
                        "{} (+{} −{})",
                        c.section.as_deref().unwrap_or("top"),
                        c.added_lines,
                        c.removed_lines
                    )
                })
                .collect();
            text.push_str(&format!(" — unsaved changes in {}", sections.join(", ")));
        } else {
            text.push_str(" — saved");
        }
        match (&note.last_edit, &note.edited) {
            (Some(edit), Some(when)) => text.push_str(&format!(
                "; last edit {when} at line {}{}: `{}`",
                edit.line,
                edit.section
                    .as_deref()
                    .map_or(String::new(), |s| format!(" ({s})")),
                edit.text.replace('`', "'")
            )),
            _ => text.push_str(&format!("; opened {}", note.opened)),
        }
    }
    text.push_str("\nread_note shows the editor's text, unsaved changes included.");
    text
}
