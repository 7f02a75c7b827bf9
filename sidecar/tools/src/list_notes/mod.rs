//! `list_notes`: browse a folder — the note at the folder's own path (a
//! path can be a note and a folder at once), its subfolders with note
//! counts, and its notes (or all notes below, to a depth), filtered by
//! tags and modification time, sorted, paged; or the same as a tree.
//!
//! Arguments here, the notes as data in `compute` (over the index, the
//! agent's access and a source of file times, so a fixture can give the
//! times), their words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{FolderItem, ListFormat, ListNotesOut, ListSort, NoteItem, TreeEntry};
pub use compute::{Item, Listing, NoFolder, Query, Row, Shape, View, compute};

use super::args::lenient;
use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::scope::{modified_since_filter, tag};
use super::state::ToolState;
use weft_vault::filter::{Filter, Folder};

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

pub fn run(state: &ToolState, args: ListNotesArgs) -> ToolResult {
    let query = query(state, &args)?;
    let policy = state.policy();
    let index = state.index();
    let shown = query.folder.shown();
    let listing = compute(&index, &policy.access, state, &query)
        .map_err(|missing| render::no_folder(shown, &missing))?;
    let (next, more) = match &listing.view {
        View::List { page, total, .. } => {
            let fingerprint = args_fingerprint(&args);
            let next = next_cursor(query.offset, page.len(), *total, &fingerprint);
            (next, 0)
        }
        View::Tree { more, .. } => (None, *more),
    };
    let out = render::out(&index, state.zone(), shown, listing, next);
    drop(index);
    let text = match query.shape {
        Shape::List { depth } => render::markdown(&out, query.offset, depth > 0),
        Shape::Tree { depth } => render::tree_markdown(&out, depth, more),
    };
    Ok(Reply::new(text, &out))
}

/// The query of the arguments: the folder, the tags and time that qualify
/// a note, how deep, in which order and shape, which page.
fn query(state: &ToolState, args: &ListNotesArgs) -> Result<Query, ToolError> {
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
    let shape = match args.format.unwrap_or(ListFormat::List) {
        ListFormat::List => Shape::List { depth: max_depth },
        ListFormat::Tree => Shape::Tree {
            depth: args
                .depth
                .unwrap_or(if max_depth == 0 { 2 } else { max_depth }),
        },
    };
    let sort = args.sort.unwrap_or(if since.is_some() {
        ListSort::Modified
    } else {
        ListSort::Alpha
    });
    let mut wanted: Vec<Filter> = args.tags.iter().flatten().filter_map(|t| tag(t)).collect();
    wanted.extend(since);
    Ok(Query {
        folder,
        wanted: Filter::all_of(wanted),
        sort,
        shape,
        offset: cursor_offset(args.cursor.as_deref(), &args_fingerprint(args))?,
        limit: limit(args.limit, 50, 500),
    })
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
