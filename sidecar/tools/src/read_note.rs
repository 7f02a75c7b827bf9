//! `read_note`: one note or several, as full text, body, metadata (with
//! backlinks in context), outline (the sections an edit can address) or
//! one section; paged by characters; always with the note's SHA-256.
//!
//! An adapter: arguments in, `vault` and the disk text through the state,
//! Markdown and structured content out.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::common::{NoteRef, find_note, link_contexts, tags_of, tags_text, time_text};
use super::format::{Reply, ToolError, ToolResult, escape, plural};
use super::state::ToolState;
use super::versions::{
    VersionOut, for_agent, hidden_version, history, history_error, history_note, id_text,
    noting_loss, shown,
};
use weft_search::index::{body_start, sha256_hex};
use weft_vault::headings::{heading_path, heading_paths, resolve_section, section_parts};
use weft_vault::lines::line_of;
use weft_vault::parse::parse_note;
use weft_vault::{Note, NoteId, VaultIndex};

choice! {
    /// What part of a note to read.
    pub enum View {
        Full = "full" | "all",
        Body = "body" | "content" | "text",
        Metadata = "metadata" | "meta" | "metadata_only" | "frontmatter",
        Outline = "outline" | "headings" | "toc" | "structure",
        Section = "section",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadNoteArgs {
    /// Path (.md optional), title or alias.
    #[serde(default, alias = "note", alias = "name", alias = "file")]
    pub path: Option<String>,
    /// Several notes.
    #[serde(default, alias = "notes", deserialize_with = "lenient::strings")]
    pub paths: Option<Vec<String>>,
    #[serde(default)]
    pub view: Option<View>,
    /// Heading or Parent::Child.
    #[serde(default, alias = "heading")]
    pub section: Option<String>,
    /// A note_history version id.
    #[serde(default)]
    pub version: Option<String>,
    /// Start character.
    #[serde(
        default,
        alias = "start_index",
        alias = "start",
        deserialize_with = "lenient::usize"
    )]
    pub offset: Option<usize>,
    /// Default 20000.
    #[serde(
        default,
        alias = "max_length",
        alias = "limit",
        deserialize_with = "lenient::usize"
    )]
    pub max_chars: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadNoteOut {
    pub notes: Vec<NoteOut>,
    /// Names in `paths` that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ReadError>,
    /// Set once the note history was found deleted or damaged and started
    /// anew: when, and why; the versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_lost: Option<weft_workspace::history::Lost>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadError {
    pub input: String,
    pub error: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NoteOut {
    /// Vault path without `.md`.
    pub path: String,
    pub title: String,
    /// The file, relative to the vault root.
    pub file: String,
    /// SHA-256 of the file as read now; pass it as `expected_sha256` when editing.
    pub sha256: String,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    pub view: View,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub links_out: usize,
    pub links_in: usize,
    /// The section read, as a `Parent::Child` path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// First and last line (1-based) of the section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Character offset of `content` in the view's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_chars: Option<usize>,
    /// Where the next page starts, when `content` was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlinks: Option<Vec<Backlink>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headings: Option<Vec<HeadingOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockOut>>,
    /// Frontmatter keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// Problems found while parsing (invalid UTF-8, malformed YAML …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
    /// Read from history: the version (then `sha256`, `bytes` and the
    /// metadata are the note's as it was in that version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<VersionOut>,
    /// The note is open in the editor with changes not saved yet: this is
    /// the editor's text (sha256 included), and writes to it are refused
    /// until the user saves.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsaved: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Backlink {
    pub from: NoteRef,
    /// 1-based line of the link in `from`.
    pub line: u32,
    pub context: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HeadingOut {
    pub level: u8,
    pub text: String,
    /// 1-based.
    pub line: u32,
    /// What `section` takes to address it.
    pub section: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct BlockOut {
    pub id: String,
    pub line: u32,
}

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
    let view = match (args.view, &args.section) {
        (None, Some(_)) | (Some(View::Section), _) => View::Section,
        (Some(v), _) => v,
        (None, None) => View::Full,
    };
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
    let links_in = index.backlinks(id).len();
    let (modified, _) = state.times(&indexed.path);
    let mut out = NoteOut {
        path: note.id().to_string(),
        title: note.title.to_string(),
        file: note.path.to_string(),
        sha256: sha256_hex(&bytes),
        bytes: bytes.len() as u64,
        modified: time_text(modified),
        view,
        aliases: note.aliases.iter().map(|a| a.to_string()).collect(),
        tags: tags_of(&note),
        links_out: note.links.len(),
        links_in,
        section: None,
        lines: None,
        content: None,
        offset: None,
        total_chars: None,
        next_offset: None,
        frontmatter: None,
        backlinks: None,
        headings: None,
        blocks: None,
        keys: None,
        diagnostics: note
            .diagnostics
            .iter()
            .map(|d| format!("L{}: {}", d.line + 1, d.message))
            .collect(),
        version: None,
        unsaved: state.unsaved(&indexed.path),
    };
    match view {
        View::Full | View::Body => {
            let start = if view == View::Body {
                body_start(&text)
            } else {
                0
            };
            page(&mut out, &text[start..], offset, max_chars);
        }
        View::Section => {
            let wanted = section.unwrap_or_default();
            let (index_of, path) = find_section(&note, wanted)?;
            let span = note.section_span(index_of);
            let body = &text[span.start as usize..(span.end as usize).min(text.len())];
            let last = note.headings[index_of].line + line_of(body, body.trim_end().len()) as u32;
            out.section = Some(path);
            out.lines = Some([note.headings[index_of].line + 1, last + 1]);
            page(&mut out, body, offset, max_chars);
        }
        View::Metadata => {
            out.frontmatter = Some(note.frontmatter.as_deref().cloned().unwrap_or_default());
            let refs = index.backlinks(id);
            let visible: Vec<_> = refs
                .into_iter()
                .filter(|r| policy.visible(&index.note(r.source).path))
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

/// A fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn render(note: &NoteOut) -> String {
    let mut out = format!("**{}** — `{}`", escape(&note.title), note.path);
    if let Some(v) = &note.version {
        out.push_str(&format!(
            " as of version `{}` ({}, {}: {})",
            id_text(v),
            v.time.get(..16).unwrap_or(&v.time).replace('T', " "),
            v.author,
            v.message.lines().next().unwrap_or("")
        ));
    }
    out.push_str(&format!(
        "\nsha256 `{}` · {} bytes",
        note.sha256, note.bytes
    ));
    if let Some(m) = &note.modified {
        out.push_str(&format!(" · modified {m}"));
    }
    if note.unsaved {
        out.push_str(" · **unsaved changes in the editor** (this is the editor's text; writes wait until it is saved)");
    }
    out.push_str(&format!(
        " · links: {} out, {} in",
        note.links_out, note.links_in
    ));
    let mut facts = Vec::new();
    if !note.aliases.is_empty() {
        facts.push(format!("Aliases: {}", note.aliases.join(", ")));
    }
    if !note.tags.is_empty() {
        facts.push(format!("Tags: {}", tags_text(&note.tags)));
    }
    if !facts.is_empty() {
        out.push('\n');
        out.push_str(&facts.join(" · "));
    }
    if let (Some(section), Some([from, to])) = (&note.section, note.lines) {
        out.push_str(&format!("\nSection `{section}` (lines {from}–{to})"));
    }
    for d in &note.diagnostics {
        out.push_str(&format!("\n⚠ {d}"));
    }
    if let Some(content) = &note.content {
        let fence = fence(content);
        out.push_str(&format!("\n\n{fence}markdown\n{content}\n{fence}"));
        if let (Some(offset), Some(total)) = (note.offset, note.total_chars) {
            if let Some(next) = note.next_offset {
                out.push_str(&format!(
                    "\n_Characters {}–{next} of {total}; continue with `offset: {next}`._",
                    offset
                ));
            } else if offset > 0 {
                out.push_str(&format!(
                    "\n_Characters {offset}–{total} of {total} (end)._"
                ));
            }
        }
    }
    if let Some(frontmatter) = &note.frontmatter {
        if frontmatter.is_empty() {
            out.push_str("\n\nNo frontmatter.");
        } else {
            out.push_str("\n\nFrontmatter:");
            for (k, v) in frontmatter {
                let value = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.push_str(&format!("\n- {k}: {value}"));
            }
        }
    }
    if let Some(backlinks) = &note.backlinks {
        if backlinks.is_empty() {
            out.push_str("\n\nNo backlinks.");
        } else {
            let shown = backlinks.len();
            out.push_str(&format!(
                "\n\nBacklinks ({}{}):",
                plural(note.links_in, "link"),
                if shown < note.links_in {
                    format!(", first {shown} shown; get_links pages them")
                } else {
                    String::new()
                }
            ));
            let mut last = "";
            let mut i = 0;
            while i < backlinks.len() {
                let b = &backlinks[i];
                if b.from.path != last {
                    out.push_str(&format!(
                        "\n- **{}** (`{}`)",
                        escape(&b.from.title),
                        b.from.path
                    ));
                    last = &b.from.path;
                }
                // Several links on one line: the line once.
                let same = backlinks[i..]
                    .iter()
                    .take_while(|x| x.from.path == b.from.path && x.line == b.line)
                    .count();
                let times = if same > 1 {
                    format!(" ({same} links)")
                } else {
                    String::new()
                };
                out.push_str(&format!("\n  - L{}{times}: {}", b.line, b.context));
                i += same;
            }
        }
    }
    if let Some(headings) = &note.headings {
        if headings.is_empty() {
            out.push_str("\n\nNo headings.");
        } else {
            out.push_str("\n\nSections (pass as `section`):");
            for h in headings {
                let indent = "  ".repeat(h.level.saturating_sub(1) as usize);
                out.push_str(&format!("\n{indent}- L{} `{}`", h.line, h.section));
            }
        }
    }
    if let Some(blocks) = &note.blocks
        && !blocks.is_empty()
    {
        let list: Vec<String> = blocks
            .iter()
            .map(|b| format!("^{} (L{})", b.id, b.line))
            .collect();
        out.push_str(&format!("\nBlock ids: {}", list.join(", ")));
    }
    if let Some(keys) = &note.keys
        && !keys.is_empty()
    {
        out.push_str(&format!("\nFrontmatter keys: {}", keys.join(", ")));
    }
    out
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
    if !policy.visible(&old.path) {
        return Err(hidden_version(&shown(&note_ref.path), version));
    }
    old.version = for_agent(&policy, old.version)
        .ok_or_else(|| hidden_version(&shown(&note_ref.path), version))?;
    let note = old.note();
    let view = match (args.view, &args.section) {
        (None, Some(_)) | (Some(View::Section), _) => View::Section,
        (Some(v), _) => v,
        (None, None) => View::Full,
    };
    let version_out = VersionOut::of(&old.version);
    let mut out = NoteOut {
        path: note.id().to_string(),
        title: note.title.to_string(),
        file: note.path.to_string(),
        sha256: sha256_hex(&old.bytes),
        bytes: old.bytes.len() as u64,
        modified: Some(version_out.time.clone()),
        view,
        aliases: note.aliases.iter().map(|a| a.to_string()).collect(),
        tags: tags_of(&note),
        links_out: note.links.len(),
        links_in: 0,
        section: None,
        lines: None,
        content: None,
        offset: None,
        total_chars: None,
        next_offset: None,
        frontmatter: None,
        backlinks: None,
        headings: None,
        blocks: None,
        keys: None,
        diagnostics: note
            .diagnostics
            .iter()
            .map(|d| format!("L{}: {}", d.line + 1, d.message))
            .collect(),
        version: Some(version_out),
        unsaved: false,
    };
    let offset = args.offset.unwrap_or(0);
    let max_chars = args
        .max_chars
        .unwrap_or(DEFAULT_CHARS)
        .clamp(200, MAX_CHARS);
    let text = &old.text;
    match view {
        View::Full | View::Body => {
            let start = if view == View::Body {
                body_start(text)
            } else {
                0
            };
            page(&mut out, &text[start..], offset, max_chars);
        }
        View::Section => {
            let wanted = args.section.as_deref().unwrap_or_default();
            let (index_of, path) = find_section(&note, wanted)?;
            let span = note.section_span(index_of);
            let body = &text[span.start as usize..(span.end as usize).min(text.len())];
            let last = note.headings[index_of].line + line_of(body, body.trim_end().len()) as u32;
            out.section = Some(path);
            out.lines = Some([note.headings[index_of].line + 1, last + 1]);
            page(&mut out, body, offset, max_chars);
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
