//! The table a call asks for: the base read (a `.base` file, or a note's
//! block, within the agent's reach) or made from the query, run on the
//! index for the notes and files the agent sees, one page of it.

use std::sync::Arc;

use weft_bases::eval::value::Row;
use weft_bases::{Base, Context, Files, Request, RowMeta, Table, blocks, run};
use weft_vault::VaultIndex;

use crate::common::shown;
use crate::format::ToolError;
use crate::state::ToolState;

/// Where the table comes from.
#[derive(Debug, Clone, Hash)]
pub enum Source {
    /// A base by its path, a block of a note (from 1), a view.
    Base {
        path: String,
        block: Option<usize>,
        view: Option<String>,
    },
    /// A query written out.
    Query {
        filter: Option<String>,
        columns: Vec<String>,
        sort: Vec<String>,
        group_by: Option<String>,
    },
}

/// A page of the table, rendered while the index was held (links and
/// files render through it), and what it was run from.
pub struct Asked {
    /// The table without its rows' values: view, columns, counts, errors.
    pub table: Table,
    /// The page as the engine's JSON (`weft_bases::render::json`, paths in).
    pub json: serde_json::Value,
    /// The page as a Markdown table.
    pub markdown: String,
    /// The page as CSV.
    pub csv: String,
    /// The base's vault path (and block), when one was run.
    pub base: Option<String>,
    /// The views of that base, by name.
    pub views: Vec<String>,
    /// Rows in this page.
    pub shown: usize,
}

/// The file times and sizes the engine asks for, as the tools read them.
struct Disk<'a>(&'a ToolState);

impl Files for Disk<'_> {
    fn meta(&self, path: &str) -> RowMeta {
        RowMeta {
            modified: self.modified(path),
            created: self.created(path),
            size: self.size(path),
        }
    }

    // One fact at a time: a creation time or a size is a `stat` each, a
    // modification time mostly the index's stamp.
    fn modified(&self, path: &str) -> Option<i64> {
        self.0.modified(path)
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.0.created(path)
    }

    fn size(&self, path: &str) -> Option<u64> {
        std::fs::metadata(self.0.root().join(path))
            .ok()
            .map(|m| m.len())
    }
}

pub fn compute(
    state: &ToolState,
    source: &Source,
    offset: usize,
    page: usize,
) -> Result<Asked, ToolError> {
    let guard = state.index();
    let index: &VaultIndex = &guard;
    let policy = state.policy();
    let access = &policy.access;
    let (base, this, view, label) = match source {
        Source::Base { path, block, view } => {
            let (base, this, label) = read_base(state, index, path, *block)?;
            (base, Some(this), view.clone(), Some(label))
        }
        Source::Query {
            filter,
            columns,
            sort,
            group_by,
        } => {
            let base = Base::of_query(filter.as_deref(), columns, sort, group_by.as_deref(), None)
                .map_err(|e| ToolError::new(format!("`{}`", e)).hint(EXPRESSION_HINT))?;
            (base, None, None, None)
        }
    };
    let zone = state.zone();
    let local = move |t: i64| zone.local(t);
    let sees = |row: &Row| access.sees(row.path(index));
    let files = Disk(state);
    let cx = Context {
        index,
        files: &files,
        now: zone.local(state.now().unix),
        local: &local,
        this,
        sees: &sees,
    };
    let table = run(
        &base,
        &cx,
        &Request {
            view: view.as_deref(),
            offset,
            page: Some(page),
        },
    )
    .map_err(|e| {
        let error = ToolError::new(e.to_string());
        match &label {
            Some(l) if e.message.contains("no view named") => error.hint(format!(
                "query_notes with base `{l}` and one of those views."
            )),
            _ => error.hint(EXPRESSION_HINT),
        }
    })?;
    let views = base.views.iter().map(|v| v.name.clone()).collect();
    let json = weft_bases::render::json(&table, index, true);
    let markdown = weft_bases::render::markdown(&table, index);
    let csv = weft_bases::render::csv(&table, index);
    let shown = match &table.groups {
        None => table.rows.len(),
        Some(groups) => groups.iter().map(|g| g.rows.len()).sum(),
    };
    drop(guard);
    Ok(Asked {
        table,
        json,
        markdown,
        csv,
        base: label,
        views,
        shown,
    })
}

const EXPRESSION_HINT: &str = "Bases expressions: status == \"active\", file.hasTag(\"x\"), \
     file.inFolder(\"Projects\"), due < today() + \"7d\", list(tags).contains(\"a\"), &&, ||, !.";

/// The base at `path`: a `.base` file, or the `block`-th ```base block of
/// a note (the first by default); `this` and a label for answers.
fn read_base(
    state: &ToolState,
    index: &VaultIndex,
    path: &str,
    block: Option<usize>,
) -> Result<(Base, Row, String), ToolError> {
    let policy = state.policy();
    let written = crate::common::vault_input(state, path);
    let written = written.trim_start_matches('/');
    if let Some(refusal) = policy.access.refusal(written, false) {
        return Err(ToolError::new(
            policy.access.hidden_message(written, &refusal),
        ));
    }
    if weft_bases::is_base_path(written) {
        let found = index.attachment_at(written).map(str::to_string);
        let Some(found) = found else {
            return Err(ToolError::new(format!("No base `{}` in the vault.", shown(written)))
                .hint("list_notes lists a folder's files; a base is a `.base` file or a note with a ```base block."));
        };
        let text = state
            .read_text(&found)
            .ok_or_else(|| ToolError::new(format!("`{found}` could not be read.")))?;
        let base = Base::parse(&text).map_err(|e| ToolError::new(format!("`{found}`: {e}")))?;
        return Ok((base, Row::File(Arc::from(found.as_str())), found));
    }
    let id = crate::common::find_note(state, index, written, "base")?;
    let note_path = index.note(id).path.to_string();
    if !policy.access.sees(&note_path) {
        return Err(ToolError::new(format!("No note `{}`.", shown(written))));
    }
    let text = state
        .read_text(&note_path)
        .ok_or_else(|| ToolError::new(format!("`{note_path}` could not be read.")))?;
    let found = blocks(&text);
    let n = block.unwrap_or(1);
    let Some(range) = n.checked_sub(1).and_then(|i| found.get(i)) else {
        return Err(ToolError::new(match found.len() {
            0 => format!("`{}` has no ```base block.", shown(&note_path)),
            k => format!(
                "`{}` has {k} ```base block{}; `block` is 1 to {k}.",
                shown(&note_path),
                if k == 1 { "" } else { "s" }
            ),
        }));
    };
    let base = Base::parse(&text[range.clone()])
        .map_err(|e| ToolError::new(format!("`{}` block {n}: {e}", shown(&note_path))))?;
    let label = if found.len() > 1 {
        format!("{} (block {n})", shown(&note_path))
    } else {
        shown(&note_path)
    };
    Ok((base, Row::Note(id), label))
}
