//! `read_note`: one note or several, as full text, body, metadata (with
//! backlinks in context), outline (the sections an edit can address) or
//! one section; paged by characters; always with the note's SHA-256.
//!
//! An adapter: arguments in, `vault` and the disk text through the state,
//! Markdown and structured content out. The arguments and the structured
//! answer are `out`, what is computed of the note and its text without IO
//! `compute`, the Markdown `render`.

mod compute;
mod out;
mod render;
#[cfg(test)]
mod tests;

pub use compute::find_section;
pub use out::*;

use super::common::{NoteRef, find_note, link_contexts, time_text};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use super::versions::{
    VersionOut, for_agent, hidden_version, history, history_error, history_note, noting_loss, shown,
};
use compute::{fill_text, set_outline, visible_backlinks};
use render::render;
use weft_vault::parse::parse_note;
use weft_vault::{NoteId, VaultIndex};

const DEFAULT_CHARS: usize = 20_000;
const MAX_CHARS: usize = 100_000;
const MAX_PATHS: usize = 10;
const MAX_BACKLINKS: usize = 50;

pub fn run(state: &ToolState, args: ReadNoteArgs) -> ToolResult {
    if let Some(version) = args
        .version
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty() && *v != "current")
    {
        return noting_loss(state, read_version(state, &args, version));
    }
    let mut inputs: Vec<String> = args.paths.clone().unwrap_or_default();
    if let Some(path) = &args.path {
        inputs.insert(0, path.clone());
    }
    inputs.retain(|p| !p.trim().is_empty());
    if inputs.is_empty() {
        return Err(
            ToolError::new("Pass `path` (one note) or `paths` (several).")
                .hint("A note is named by its vault path (.md optional), its title or an alias."),
        );
    }
    if inputs.len() > MAX_PATHS {
        return Err(ToolError::new(format!(
            "{} notes asked for at once; the limit is {MAX_PATHS}.",
            inputs.len()
        ))
        .hint("Read them in several calls, or use search_notes / get_context for an overview."));
    }
    let view = view_of(&args);
    if view == View::Section && args.section.as_deref().is_none_or(|s| s.trim().is_empty()) {
        return Err(ToolError::new(
            "view `section` needs `section`: a heading, or `Parent::Child`.",
        )
        .hint("view `outline` lists the sections of a note."));
    }
    let budget = args
        .max_chars
        .unwrap_or(DEFAULT_CHARS)
        .clamp(200, MAX_CHARS);
    let per_note = if inputs.len() > 1 {
        (budget / inputs.len()).max(2_000)
    } else {
        budget
    };
    let index = state.index();
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    for input in &inputs {
        let read = find_note(state, &index, input, "path").and_then(|id| {
            read_one(
                state,
                &index,
                id,
                view,
                args.section.as_deref(),
                args.offset.unwrap_or(0),
                per_note,
            )
        });
        match read {
            Ok(note) => notes.push(note),
            Err(e) if inputs.len() > 1 => errors.push(ReadError {
                input: input.clone(),
                error: e.text().trim_start_matches("Error: ").to_string(),
            }),
            Err(e) => return Err(e),
        }
    }
    drop(index);
    if notes.is_empty() {
        let all: Vec<String> = errors
            .iter()
            .map(|e| format!("- `{}`: {}", e.input, e.error))
            .collect();
        return Err(ToolError::new(format!(
            "None of the notes could be read:\n{}",
            all.join("\n")
        )));
    }
    let mut text: Vec<String> = notes.iter().map(render).collect();
    for e in &errors {
        text.push(format!("Could not read `{}`: {}", e.input, e.error));
    }
    let out = ReadNoteOut {
        notes,
        errors,
        history_lost: None,
    };
    Ok(Reply::new(text.join("\n\n---\n\n"), &out))
}

fn read_one(
    state: &ToolState,
    index: &VaultIndex,
    id: NoteId,
    view: View,
    section: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Result<NoteOut, ToolError> {
    let policy = state.policy();
    let indexed = index.note(id);
    let Some(bytes) = state.read_bytes(&indexed.path) else {
        return Err(ToolError::new(format!(
            "`{}` is indexed but its file cannot be read now (moved or deleted a moment ago?).",
            indexed.id()
        ))
        .hint("Try again; the index follows the disk within a second."));
    };
    // The text as it is now, parsed now: headings and spans match it.
    let note = parse_note(&indexed.path, &bytes);
    let text = String::from_utf8_lossy(&bytes);
    // Links from notes the agent may not see are not counted either.
    let (links_in, visible) = visible_backlinks(index, &policy.access, id, MAX_BACKLINKS);
    let modified = state.modified(&indexed.path);
    let mut out = NoteOut::of(&note, &bytes, time_text(modified, state.zone()), view);
    out.links_in = links_in;
    out.unsaved = state.unsaved(&indexed.path);
    match view {
        View::Full | View::Body | View::Section => {
            fill_text(&mut out, &note, &text, section, offset, max_chars)?;
        }
        View::Metadata => {
            out.frontmatter = Some(note.frontmatter.as_deref().cloned().unwrap_or_default());
            out.backlinks = Some(
                link_contexts(state, index, &visible)
                    .into_iter()
                    .zip(&visible)
                    .map(|(context, r)| Backlink {
                        from: NoteRef::of(index.note(r.source)),
                        line: index.link(*r).line + 1,
                        context,
                    })
                    .collect(),
            );
        }
        View::Outline => {
            set_outline(&mut out, &note);
            out.keys = Some(
                note.frontmatter
                    .as_ref()
                    .map(|f| f.keys().cloned().collect())
                    .unwrap_or_default(),
            );
        }
    }
    Ok(out)
}

/// The view asked for: `section` alone means the section view.
fn view_of(args: &ReadNoteArgs) -> View {
    match (args.view, &args.section) {
        (None, Some(_)) | (Some(View::Section), _) => View::Section,
        (Some(v), _) => v,
        (None, None) => View::Full,
    }
}

/// `read_note` with `version`: the note as it was in that version, with its
/// metadata then (backlinks are today's business: get_links).
fn read_version(state: &ToolState, args: &ReadNoteArgs, version: &str) -> ToolResult {
    let history = history(state)?;
    if args.paths.as_ref().is_some_and(|p| !p.is_empty()) {
        return Err(ToolError::new(
            "`version` reads one note: pass `path`, not `paths`.",
        ));
    }
    let Some(input) = args.path.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Err(ToolError::new("Pass `path` with `version`.")
            .hint("note_history lists a note's versions."));
    };
    let note_ref = history_note(state, input, "path")?;
    let mut old = history
        .read(&note_ref.path, version)
        .map_err(history_error)?;
    let policy = state.policy();
    if !policy.access.sees(&old.path) {
        return Err(hidden_version(&shown(&note_ref.path), version));
    }
    old.version = for_agent(&policy, old.version)
        .ok_or_else(|| hidden_version(&shown(&note_ref.path), version))?;
    let note = old.note();
    let view = view_of(args);
    let version_out = VersionOut::of(&old.version, state.zone());
    let mut out = NoteOut::of(&note, &old.bytes, Some(version_out.time.clone()), view);
    out.version = Some(version_out);
    let offset = args.offset.unwrap_or(0);
    let max_chars = args
        .max_chars
        .unwrap_or(DEFAULT_CHARS)
        .clamp(200, MAX_CHARS);
    match view {
        View::Full | View::Body | View::Section => {
            fill_text(
                &mut out,
                &note,
                &old.text,
                args.section.as_deref(),
                offset,
                max_chars,
            )?;
        }
        View::Metadata | View::Outline => {
            out.frontmatter = Some(note.frontmatter.as_deref().cloned().unwrap_or_default());
            set_outline(&mut out, &note);
        }
    }
    let text = render(&out);
    let result = ReadNoteOut {
        notes: vec![out],
        errors: Vec::new(),
        history_lost: None,
    };
    Ok(Reply::new(text, &result))
}
