//! `list_notes`: browse a folder — the note at the folder's own path (a
//! path can be a note and a folder at once), its subfolders with note
//! counts, and its notes (or all notes below, to a depth), filtered by
//! tags and modification time, sorted, paged; or the same as a tree.
//!
//! An adapter over the vault index and file times.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::common::{cursor_offset, limit, next_cursor, page_line, tags_of, tags_text, time_text};
use super::format::{Reply, ToolError, ToolResult, escape, plural};
use super::scope::{modified_since_filter, passes, sees_note, tag};
use super::state::ToolState;
use weft_vault::NoteId;
use weft_vault::filter::{Filter, Folder};
use weft_vault::key::path_key;

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

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListNotesArgs {
    #[serde(
        default,
        alias = "path",
        alias = "path_prefix",
        alias = "prefix",
        alias = "dir"
    )]
    pub folder: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub recursive: Option<bool>,
    /// Levels below; implies recursive.
    #[serde(default, alias = "max_depth", deserialize_with = "lenient::u32")]
    pub depth: Option<u32>,
    #[serde(default, alias = "order_by", alias = "sort_by")]
    pub sort: Option<ListSort>,
    /// Date or 7d; implies recursive.
    #[serde(default, alias = "since")]
    pub modified_since: Option<String>,
    /// All of these.
    #[serde(default, alias = "tag", deserialize_with = "lenient::strings")]
    pub tags: Option<Vec<String>>,
    #[serde(default)]
    pub format: Option<ListFormat>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
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

struct Entry {
    id: NoteId,
    key: String,
    /// The file as indexed (`a/b.md`).
    file: String,
    path: String,
    title: String,
    /// Folders below the listed folder.
    depth: u32,
    modified: Option<i64>,
    created: Option<i64>,
    tags: Vec<String>,
}

pub fn run(state: &ToolState, args: ListNotesArgs) -> ToolResult {
    let folder = Folder::new(args.folder.as_deref().unwrap_or(""))
        .map_err(|e| ToolError::new(format!("`folder`: {e}.")))?;
    let since = modified_since_filter(state, args.modified_since.as_deref())?;
    let max_depth = match (args.depth, args.recursive) {
        (Some(d), _) => d,
        (None, Some(true)) => u32::MAX,
        (None, Some(false)) => 0,
        (None, None) if since.is_some() => u32::MAX,
        (None, None) => 0,
    };
    let format = args.format.unwrap_or(ListFormat::List);
    let sort = args.sort.unwrap_or(if since.is_some() {
        ListSort::Modified
    } else {
        ListSort::Alpha
    });
    // Which notes qualify: THE note filter of the tags and the time asked
    // (the folder and the agent's sight pick the notes browsed below).
    let mut wanted: Vec<Filter> = args.tags.iter().flatten().filter_map(|t| tag(t)).collect();
    wanted.extend(since.clone());
    let wanted = Filter::all_of(wanted);
    let limit = limit(args.limit, 50, 500);
    let offset = cursor_offset(args.cursor.as_deref(), &args_fingerprint(&args))?;

    let index = state.index();
    let sees = sees_note(state, &index);
    let folder_key = folder.key();
    let prefix = if folder.is_root() {
        String::new()
    } else {
        format!("{folder_key}/")
    };
    let mut here_note = None;
    let mut below: Vec<Entry> = Vec::new();
    let mut all_folders: Vec<String> = Vec::new();
    for (id, note) in index.notes() {
        if !sees(id) {
            continue;
        }
        let key = path_key(&note.path);
        if let Some(i) = key.rfind('/') {
            all_folders.push(key[..i].to_string());
        }
        if !folder.contains_key(&key) {
            continue;
        }
        if key == folder_key {
            here_note = Some(note);
            continue;
        }
        let rest = &key[prefix.len()..];
        below.push(Entry {
            id,
            depth: rest.matches('/').count() as u32,
            key: key.clone(),
            file: note.path.to_string(),
            path: note.id().to_string(),
            title: note.title.to_string(),
            modified: None,
            created: None,
            tags: tags_of(note),
        });
    }
    let folder = folder.shown().to_string();
    if below.is_empty() && here_note.is_none() && !folder_key.is_empty() {
        all_folders.sort();
        all_folders.dedup();
        let mut close: Vec<(f64, &String)> = all_folders
            .iter()
            .map(|f| {
                (
                    strsim::jaro_winkler(folder_key, f).max(
                        if f.ends_with(&format!("/{folder_key}")) {
                            0.95
                        } else {
                            0.0
                        },
                    ),
                    f,
                )
            })
            .filter(|(s, _)| *s >= 0.8)
            .collect();
        close.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut e = ToolError::new(format!("There is no folder or note `{folder}`."));
        if close.is_empty() {
            e = e.hint("list_notes without `folder` shows the top-level folders.");
        } else {
            let names: Vec<String> = close
                .iter()
                .take(5)
                .map(|(_, f)| format!("`{f}`"))
                .collect();
            e = e.hint(format!("Did you mean: {}?", names.join(", ")));
        }
        return Err(e);
    }
    // Subfolders at this level, with the notes in and below each.
    let mut folders: BTreeMap<String, usize> = BTreeMap::new();
    for entry in &below {
        if entry.depth > 0 {
            let rest = &entry.key[prefix.len()..];
            let child = rest.split('/').next().unwrap_or(rest);
            // Display the folder as written on disk.
            let written = entry.path[..prefix.len() + child.len()].to_string();
            *folders.entry(written).or_default() += 1;
        }
    }
    let here = here_note.map(|note| {
        let modified = state.modified(&note.path);
        NoteItem {
            path: note.id().to_string(),
            title: note.title.to_string(),
            modified: time_text(modified, state.zone()),
            tags: tags_of(note),
        }
    });
    let mut entries: Vec<Entry> = below
        .into_iter()
        .filter(|e| e.depth <= max_depth || format == ListFormat::Tree)
        .filter(|e| passes(state, &index, e.id, &wanted))
        .collect();
    drop(sees);
    drop(index);

    let timed = since.is_some() || sort != ListSort::Alpha;
    if timed {
        for e in &mut entries {
            e.modified = state.modified(&e.file);
            if sort == ListSort::Created {
                e.created = state.created(&e.file);
            }
        }
    }
    match sort {
        ListSort::Alpha => entries.sort_by(|a, b| a.key.cmp(&b.key)),
        ListSort::Modified => {
            entries.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.key.cmp(&b.key)))
        }
        ListSort::Created => {
            entries.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.key.cmp(&b.key)))
        }
    }

    if format == ListFormat::Tree {
        return tree(
            folder,
            here,
            entries,
            args.depth
                .unwrap_or(if max_depth == 0 { 2 } else { max_depth }),
            limit,
        );
    }

    let total = entries.len();
    let zone = state.zone();
    let page: Vec<NoteItem> = entries
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|e| NoteItem {
            modified: time_text(
                if timed {
                    e.modified
                } else {
                    state.modified(&e.file)
                },
                zone,
            ),
            path: e.path,
            title: e.title,
            tags: e.tags,
        })
        .collect();
    let next = next_cursor(offset, page.len(), total, &args_fingerprint(&args));
    let out = ListNotesOut {
        folder: folder.clone(),
        note: here,
        folders: folders
            .into_iter()
            .map(|(path, notes)| FolderItem { path, notes })
            .collect(),
        notes: page,
        total,
        next_cursor: next,
        tree: None,
    };
    Ok(Reply::new(render(&out, offset, max_depth > 0), &out))
}

/// The request without its cursor, for cursors.
fn args_fingerprint(args: &ListNotesArgs) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        args.folder,
        args.recursive,
        args.depth,
        args.sort,
        args.modified_since,
        args.tags,
        args.format
    )
}

fn render(out: &ListNotesOut, offset: usize, recursive: bool) -> String {
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
    if out.notes.is_empty() {
        if out.folders.is_empty() && out.note.is_none() {
            text.push_str("\n\nNo notes here.");
        } else if out.total == 0 {
            text.push_str(&format!(
                "\n\nNo notes {}match.",
                if recursive {
                    "below that "
                } else {
                    "at this level "
                }
            ));
        }
    } else {
        text.push_str(&format!(
            "\n\n{} ({}):",
            if recursive {
                "Notes here and below"
            } else {
                "Notes at this level"
            },
            out.total
        ));
        for n in &out.notes {
            let mut line = format!("\n- **{}** (`{}`)", escape(&n.title), n.path);
            if let Some(m) = &n.modified {
                line.push_str(&format!(" — {m}"));
            }
            if !n.tags.is_empty() {
                line.push_str(&format!(" {}", tags_text(&n.tags)));
            }
            text.push_str(&line);
        }
    }
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

fn tree(
    folder: String,
    here: Option<NoteItem>,
    entries: Vec<Entry>,
    depth: u32,
    limit: usize,
) -> ToolResult {
    // Folder counts at every level.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let base = if folder.is_empty() {
        0
    } else {
        folder.len() + 1
    };
    for e in &entries {
        let rest = &e.path[base.min(e.path.len())..];
        let mut at = base;
        for part in rest.split('/').take(rest.matches('/').count()) {
            at += part.len();
            *counts.entry(e.path[..at].to_string()).or_default() += 1;
            at += 1;
        }
    }
    let mut rows: Vec<(String, TreeEntry)> = Vec::new();
    for (path, notes) in &counts {
        let d = path[base.min(path.len())..].matches('/').count() as u32;
        if d < depth {
            rows.push((
                format!("{}/", path_key(path)),
                TreeEntry {
                    path: path.clone(),
                    kind: "folder".into(),
                    depth: d,
                    notes: Some(*notes),
                    title: None,
                },
            ));
        }
    }
    for e in &entries {
        if e.depth < depth {
            rows.push((
                e.key.clone(),
                TreeEntry {
                    path: e.path.clone(),
                    kind: "note".into(),
                    depth: e.depth,
                    notes: None,
                    title: Some(e.title.clone()),
                },
            ));
        }
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let total = rows.len();
    let rows: Vec<TreeEntry> = rows.into_iter().take(limit).map(|(_, r)| r).collect();
    let mut text = format!(
        "Tree of {} ({} levels):",
        if folder.is_empty() {
            "the vault".to_string()
        } else {
            format!("`{folder}/`")
        },
        depth
    );
    for r in &rows {
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
    if total > rows.len() {
        text.push_str(&format!(
            "\n… {} more entries; raise `limit`, lower `depth`, or list a subfolder.",
            total - rows.len()
        ));
    }
    let out = ListNotesOut {
        folder,
        note: here,
        folders: Vec::new(),
        notes: Vec::new(),
        total: entries.len(),
        next_cursor: None,
        tree: Some(rows),
    };
    Ok(Reply::new(text, &out))
}
