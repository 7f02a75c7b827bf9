//! `editor_state`'s answer in words: the open notes (as the hub's
//! `Buffers::activity` computes them) as structured content, times in the
//! vault's zone, and as Markdown.

use std::time::SystemTime;

use super::answer::{ChangedSection, EditorStateOut, LastEdit, OpenNoteOut};
use crate::format::{escape, plural};
use weft_search::dates::{Zone, format_time, unix};
use weft_workspace::hub::OpenNote;

/// A time in the vault's zone.
fn time(t: SystemTime, zone: Zone) -> String {
    format_time(unix(Ok(t)).unwrap_or(0), zone)
}

/// An open note as the structured answer gives it, times in `zone`.
pub(super) fn note_out(open: OpenNote, zone: Zone) -> OpenNoteOut {
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

/// The open notes as Markdown.
pub(super) fn markdown(out: &EditorStateOut) -> String {
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
