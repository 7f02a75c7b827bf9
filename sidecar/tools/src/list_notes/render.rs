//! `list_notes`'s answer in words: the structured content of a listing or
//! tree (paths, titles, tags, times in the vault's zone), its Markdown,
//! and the error of a folder that does not exist.

use super::answer::{FolderItem, ListNotesOut, NoteItem, TreeEntry};
use super::compute::{Item, Listing, NoFolder, Row, View};
use crate::common::{page_line, tags_of, tags_text, time_text};
use crate::format::{ToolError, escape, plural};
use weft_search::dates::Zone;
use weft_vault::VaultIndex;

/// The structured answer; `folder` as the agent wrote it.
pub(super) fn out(
    index: &VaultIndex,
    zone: Zone,
    folder: &str,
    listing: Listing,
    next_cursor: Option<String>,
) -> ListNotesOut {
    let item = |i: Item| {
        let note = index.note(i.note);
        NoteItem {
            path: note.id().to_string(),
            title: note.title.to_string(),
            modified: time_text(i.modified, zone),
            tags: tags_of(note),
        }
    };
    let mut out = ListNotesOut {
        folder: folder.to_string(),
        note: listing.here.map(item),
        folders: Vec::new(),
        notes: Vec::new(),
        total: 0,
        next_cursor: None,
        tree: None,
    };
    match listing.view {
        View::List {
            folders,
            total,
            page,
        } => {
            out.folders = folders
                .into_iter()
                .map(|(path, notes)| FolderItem { path, notes })
                .collect();
            out.notes = page.into_iter().map(item).collect();
            out.total = total;
            out.next_cursor = next_cursor;
        }
        View::Tree { total, rows, .. } => {
            out.total = total;
            out.tree = Some(rows.into_iter().map(|r| row(index, r)).collect());
        }
    }
    out
}

fn row(index: &VaultIndex, row: Row) -> TreeEntry {
    match row {
        Row::Folder { path, depth, notes } => TreeEntry {
            path,
            kind: "folder".into(),
            depth,
            notes: Some(notes),
            title: None,
        },
        Row::Note { note, depth } => {
            let note = index.note(note);
            TreeEntry {
                path: note.id().to_string(),
                kind: "note".into(),
                depth,
                notes: None,
                title: Some(note.title.to_string()),
            }
        }
    }
}

/// A listing as Markdown: the note here, the subfolders, the page.
pub(super) fn markdown(out: &ListNotesOut, offset: usize, recursive: bool) -> String {
    let shown = if out.folder.is_empty() {
        "the vault root".to_string()
    } else {
        format!("`{}/`", out.folder)
    };
    let mut text = format!("Browsing {shown}");
    if let Some(note) = &out.note {
        text.push_str(&format!(
            "\n\nNote at this path: **{}** (`{}`){}",
            escape(&note.title),
            note.path,
            note.modified
                .as_deref()
                .map(|m| format!(" — modified {m}"))
                .unwrap_or_default()
        ));
    }
    if !out.folders.is_empty() {
        text.push_str("\n\nFolders:");
        for f in &out.folders {
            text.push_str(&format!("\n- `{}/` ({})", f.path, plural(f.notes, "note")));
        }
    }
    text.push_str(&notes(out, recursive));
    let page = page_line(
        offset,
        out.notes.len(),
        out.total,
        out.next_cursor.as_deref(),
    );
    if !page.is_empty() {
        text.push_str("\n\n");
        text.push_str(&page);
    }
    text
}

/// The notes of a listing, or why there are none.
fn notes(out: &ListNotesOut, recursive: bool) -> String {
    if out.notes.is_empty() {
        if out.folders.is_empty() && out.note.is_none() {
            return "\n\nNo notes here.".into();
        } else if out.total == 0 {
            let place = if recursive {
                "below that "
            } else {
                "at this level "
            };
            return format!("\n\nNo notes {place}match.");
        }
        return String::new();
    }
    let mut text = format!(
        "\n\n{} ({}):",
        if recursive {
            "Notes here and below"
        } else {
            "Notes at this level"
        },
        out.total
    );
    for n in &out.notes {
        text.push_str(&format!("\n- **{}** (`{}`)", escape(&n.title), n.path));
        if let Some(m) = &n.modified {
            text.push_str(&format!(" — {m}"));
        }
        if !n.tags.is_empty() {
            text.push_str(&format!(" {}", tags_text(&n.tags)));
        }
    }
    text
}

/// A tree as Markdown: `depth` levels, `more` rows left out.
pub(super) fn tree_markdown(out: &ListNotesOut, depth: u32, more: usize) -> String {
    let mut text = format!(
        "Tree of {} ({} levels):",
        if out.folder.is_empty() {
            "the vault".to_string()
        } else {
            format!("`{}/`", out.folder)
        },
        depth
    );
    for r in out.tree.iter().flatten() {
        let indent = "  ".repeat(r.depth as usize);
        let name = r.path.rsplit('/').next().unwrap_or(&r.path);
        match r.kind.as_str() {
            "folder" => text.push_str(&format!(
                "\n{indent}- {name}/ ({})",
                plural(r.notes.unwrap_or(0), "note")
            )),
            _ => text.push_str(&format!("\n{indent}- {name}")),
        }
    }
    if more > 0 {
        text.push_str(&format!(
            "\n… {more} more entries; raise `limit`, lower `depth`, or list a subfolder."
        ));
    }
    text
}

/// The error of a folder (as the agent wrote it) with no visible note.
pub(super) fn no_folder(folder: &str, missing: &NoFolder) -> ToolError {
    let e = ToolError::new(format!("There is no folder or note `{folder}`."));
    if missing.close.is_empty() {
        e.hint("list_notes without `folder` shows the top-level folders.")
    } else {
        let names: Vec<String> = missing.close.iter().map(|f| format!("`{f}`")).collect();
        e.hint(format!("Did you mean: {}?", names.join(", ")))
    }
}
