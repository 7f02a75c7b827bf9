//! `read_note`: one note or several, as full text, body, metadata (with
//! backlinks in context), outline (the sections an edit can address) or
//! one section; paged by characters; always with the note's SHA-256.
//!
//! An adapter: arguments in, `vault` and the disk text through the state,
//! Markdown and structured content out. The arguments and the structured
//! answer are `out`, the Markdown `render`.

mod out;
mod render;

pub use out::*;

use super::common::{NoteRef, find_note, link_contexts, time_text};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use super::versions::{
    VersionOut, for_agent, hidden_version, history, history_error, history_note, noting_loss, shown,
};
use render::render;
use weft_search::index::body_start;
use weft_vault::headings::{heading_path, heading_paths, resolve_section, section_parts};
use weft_vault::lines::line_of;
use weft_vault::parse::parse_note;
use weft_vault::{Note, NoteId, VaultIndex};

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
    let links_in = index
        .backlinks(id)
        .iter()
        .filter(|r| policy.access.sees(&index.note(r.source).path))
        .count();
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
            let refs = index.backlinks(id);
            let visible: Vec<_> = refs
                .into_iter()
                .filter(|r| policy.access.sees(&index.note(r.source).path))
                .take(MAX_BACKLINKS)
                .collect();
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

/// The text views (full, body, section) of `note`, whose text is `text`:
/// one page of it into `out`.
fn fill_text(
    out: &mut NoteOut,
    note: &Note,
    text: &str,
    section: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Result<(), ToolError> {
    match out.view {
        View::Section => {
            let wanted = section.unwrap_or_default();
            let (index_of, path) = find_section(note, wanted)?;
            let span = note.section_span(index_of);
            let body = &text[span.start as usize..(span.end as usize).min(text.len())];
            let last = note.headings[index_of].line + line_of(body, body.trim_end().len()) as u32;
            out.section = Some(path);
            out.lines = Some([note.headings[index_of].line + 1, last + 1]);
            page(out, body, offset, max_chars);
        }
        View::Body => page(out, &text[body_start(text)..], offset, max_chars),
        _ => page(out, text, offset, max_chars),
    }
    Ok(())
}

/// Puts one page of `text` into `out`.
fn page(out: &mut NoteOut, text: &str, offset: usize, max_chars: usize) {
    let total = text.chars().count();
    let offset = offset.min(total);
    let start = text
        .char_indices()
        .nth(offset)
        .map_or(text.len(), |(i, _)| i);
    let end = text[start..]
        .char_indices()
        .nth(max_chars)
        .map_or(text.len(), |(i, _)| start + i);
    out.content = Some(text[start..end].to_string());
    out.offset = Some(offset);
    out.total_chars = Some(total);
    let shown = text[start..end].chars().count();
    out.next_offset = (offset + shown < total).then_some(offset + shown);
}

/// The note's headings (with their section paths) and block ids.
fn set_outline(out: &mut NoteOut, note: &Note) {
    let paths = heading_paths(note, "::");
    out.headings = Some(
        note.headings
            .iter()
            .zip(paths)
            .map(|(h, section)| HeadingOut {
                level: h.level,
                text: h.text.to_string(),
                line: h.line + 1,
                section,
            })
            .collect(),
    );
    out.blocks = Some(
        note.blocks
            .iter()
            .map(|b| BlockOut {
                id: b.id.to_string(),
                line: b.line + 1,
            })
            .collect(),
    );
}

/// Finds a section by `Heading` or `Parent::Child` through the domain's
/// heading paths (the rules `edit_note` and links use); a missing or
/// ambiguous heading is an error listing the choices.
pub fn find_section(note: &Note, wanted: &str) -> Result<(usize, String), ToolError> {
    if section_parts(wanted).is_empty() {
        return Err(ToolError::new("`section` is empty.")
            .hint("Name a heading, or `Parent::Child`; view `outline` lists the sections."));
    }
    match resolve_section(note, wanted) {
        Ok(i) => Ok((i, heading_path(note, i, "::"))),
        Err(e) => Err(ToolError::new(format!("In `{}`: {e}.", note.id()))
            .hint("view `outline` lists every section with the path to pass as `section`.")),
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
