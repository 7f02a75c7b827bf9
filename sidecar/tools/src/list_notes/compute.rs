//! What `list_notes` finds, as data: the visible notes of a folder (the
//! note at its own path, its subfolders with their counts, the notes at
//! and below it that pass the tags and time asked), sorted and paged, or
//! laid out as a tree; the folders closest to one that does not exist. No
//! words: `render` tells them. A note's file times come from a
//! [`Times`] source (the served vault in `run`, the fixture in tests), asked only
//! for the times a step needs.

use std::collections::BTreeMap;

use super::answer::ListSort;
use crate::scope::{Times, passes, sees_note};
use weft_vault::filter::{Filter, Folder};
use weft_vault::key::path_key;
use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;

/// How the notes are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A page of the notes at most `depth` folders below (0: this level).
    List { depth: u32 },
    /// The folders and notes fewer than `depth` levels below, as a tree.
    Tree { depth: u32 },
}

/// A `list_notes` request, read and checked.
#[derive(Debug, Clone)]
pub struct Query {
    pub folder: Folder,
    /// Which notes qualify: THE note filter of the tags and time asked
    /// (the folder and the agent's sight pick the notes browsed).
    pub wanted: Filter,
    pub sort: ListSort,
    pub shape: Shape,
    pub offset: usize,
    pub limit: usize,
}

/// A note listed, with its modified time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub note: NoteId,
    pub modified: Option<i64>,
}

/// A line of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// A folder (as written on disk) with the notes in and below it.
    Folder {
        path: String,
        depth: u32,
        notes: usize,
    },
    Note {
        note: NoteId,
        depth: u32,
    },
}

/// The notes, as a page or a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum View {
    List {
        /// The subfolders at this level (as written on disk), with the
        /// notes in and below each, whatever the filters.
        folders: Vec<(String, usize)>,
        /// The notes that qualify, before paging.
        total: usize,
        page: Vec<Item>,
    },
    Tree {
        /// The notes that qualify.
        total: usize,
        rows: Vec<Row>,
        /// Rows past the limit.
        more: usize,
    },
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The note whose path is the folder's path.
    pub here: Option<Item>,
    pub view: View,
}

/// No visible note is at or below the folder: the folders (keys) whose
/// names are closest, best first, at most five.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoFolder {
    pub close: Vec<String>,
}

/// A visible note below the folder.
struct Entry {
    id: NoteId,
    key: String,
    /// Folders below the listed folder.
    depth: u32,
    modified: Option<i64>,
    created: Option<i64>,
}

/// The visible notes of `query.folder`, as asked.
pub fn compute(
    index: &VaultIndex,
    access: &Access,
    times: &dyn Times,
    query: &Query,
) -> Result<Listing, NoFolder> {
    let Browsed { here, below } = browse(index, access, &query.folder)?;
    let folders = subfolders(index, &query.folder, &below);
    let modified = |id: NoteId| times.modified(&index.note(id).path);
    let here = here.map(|note| Item {
        note,
        modified: modified(note),
    });
    let mut entries: Vec<Entry> = below
        .into_iter()
        .filter(|e| match query.shape {
            Shape::List { depth } => e.depth <= depth,
            Shape::Tree { .. } => true,
        })
        // THE note filter, with those of the file's times it asks for.
        .filter(|e| passes(times, index, e.id, &query.wanted))
        .collect();
    sort(index, &mut entries, query.sort, times);
    let view = match query.shape {
        Shape::Tree { depth } => tree(index, query.folder.shown(), &entries, depth, query.limit),
        Shape::List { .. } => {
            let total = entries.len();
            let page = entries
                .into_iter()
                .skip(query.offset)
                .take(query.limit)
                .map(|e| Item {
                    note: e.id,
                    modified: match query.sort {
                        ListSort::Alpha => modified(e.id),
                        _ => e.modified,
                    },
                })
                .collect();
            View::List {
                folders,
                total,
                page,
            }
        }
    };
    Ok(Listing { here, view })
}

/// The visible notes at and below a folder.
struct Browsed {
    here: Option<NoteId>,
    below: Vec<Entry>,
}

/// The folder's visible notes, or the folders closest to it when it has
/// none (and is not the root).
fn browse(index: &VaultIndex, access: &Access, folder: &Folder) -> Result<Browsed, NoFolder> {
    let sees = sees_note(access, index);
    let folder_key = folder.key();
    let prefix = if folder.is_root() {
        0
    } else {
        folder_key.len() + 1
    };
    let mut here = None;
    let mut below = Vec::new();
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
            here = Some(id);
            continue;
        }
        below.push(Entry {
            id,
            depth: key[prefix..].matches('/').count() as u32,
            key,
            modified: None,
            created: None,
        });
    }
    if below.is_empty() && here.is_none() && !folder.is_root() {
        return Err(NoFolder {
            close: close(folder_key, all_folders),
        });
    }
    Ok(Browsed { here, below })
}

/// The folders whose names are like `key` (or end in it), best first.
fn close(key: &str, mut folders: Vec<String>) -> Vec<String> {
    folders.sort();
    folders.dedup();
    let mut close: Vec<(f64, String)> = folders
        .into_iter()
        .map(|f| {
            let tail = if f.ends_with(&format!("/{key}")) {
                0.95
            } else {
                0.0
            };
            (strsim::jaro_winkler(key, &f).max(tail), f)
        })
        .filter(|(s, _)| *s >= 0.8)
        .collect();
    close.sort_by(|a, b| b.0.total_cmp(&a.0));
    close.into_iter().take(5).map(|(_, f)| f).collect()
}

/// Subfolders at this level, as written on disk, with the notes in and
/// below each.
fn subfolders(index: &VaultIndex, folder: &Folder, below: &[Entry]) -> Vec<(String, usize)> {
    let prefix = if folder.is_root() {
        0
    } else {
        folder.key().len() + 1
    };
    let mut folders: BTreeMap<String, usize> = BTreeMap::new();
    for entry in below.iter().filter(|e| e.depth > 0) {
        let rest = &entry.key[prefix..];
        let child = rest.split('/').next().unwrap_or(rest);
        let written = &index.note(entry.id).id()[..prefix + child.len()];
        *folders.entry(written.to_string()).or_default() += 1;
    }
    folders.into_iter().collect()
}

/// By path, or newest first (then by path), reading the times it sorts by.
fn sort(index: &VaultIndex, entries: &mut [Entry], sort: ListSort, times: &dyn Times) {
    if sort != ListSort::Alpha {
        for e in entries.iter_mut() {
            let path = &index.note(e.id).path;
            e.modified = times.modified(path);
            if sort == ListSort::Created {
                e.created = times.created(path);
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
}

/// The folders and notes fewer than `depth` levels below `shown` (the
/// folder as written), in path order, at most `limit` rows.
fn tree(index: &VaultIndex, shown: &str, entries: &[Entry], depth: u32, limit: usize) -> View {
    // Folder counts at every level.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let base = if shown.is_empty() { 0 } else { shown.len() + 1 };
    for e in entries {
        let path = index.note(e.id).id();
        let rest = &path[base.min(path.len())..];
        let mut at = base;
        for part in rest.split('/').take(rest.matches('/').count()) {
            at += part.len();
            *counts.entry(path[..at].to_string()).or_default() += 1;
            at += 1;
        }
    }
    let mut rows: Vec<(String, Row)> = Vec::new();
    for (path, notes) in counts {
        let d = path[base.min(path.len())..].matches('/').count() as u32;
        if d < depth {
            let key = format!("{}/", path_key(&path));
            let row = Row::Folder {
                path,
                depth: d,
                notes,
            };
            rows.push((key, row));
        }
    }
    for e in entries.iter().filter(|e| e.depth < depth) {
        let row = Row::Note {
            note: e.id,
            depth: e.depth,
        };
        rows.push((e.key.clone(), row));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let more = rows.len().saturating_sub(limit);
    View::Tree {
        total: entries.len(),
        rows: rows.into_iter().take(limit).map(|(_, r)| r).collect(),
        more,
    }
}
