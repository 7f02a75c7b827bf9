//! Rewriting links when something they name changes: a note or attachment
//! moves or is renamed (alone or with its folder), a heading's text, a block
//! id or a tag is renamed. The result is a [`Plan`]: byte edits per note plus
//! the file moves, for a face to apply (the editor through a workspace edit,
//! the agent by writing files).
//!
//! Each affected note is re-parsed from the text the caller supplies, so
//! edits always fit that text (an unsaved buffer included). Links keep their
//! style: wikilink or Markdown, bare name, vault path or relative path,
//! `.md` or not, `|alias`, `#fragment` and embeds. This module must not
//! know any protocol, nor do IO: texts come through [`TextSource`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::ops::Range;

use super::headings::{find_heading, fragment_parts, heading_steps};
use super::index::{NoteId, VaultIndex};
use super::key::{encode_path, relative_path};
use super::key::{heading_key, name_key, path_key, slug};
use super::note::{Link, LinkKind, Note, folder_of, is_note_path, strip_md};
use super::parse::parse_text;
use super::query::TextSource;
use super::resolve::Resolution;

/// Replace the bytes `range` of a note's text by `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// The edits to one note, against `text` (the text they were computed on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    /// The note's vault path before any move of the plan.
    pub path: String,
    pub text: String,
    /// Sorted by start, never overlapping.
    pub edits: Vec<Edit>,
}

impl FileEdits {
    /// The text with the edits applied.
    pub fn apply(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for edit in &self.edits {
            out.push_str(&self.text[at..edit.range.start]);
            out.push_str(&edit.new_text);
            at = edit.range.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// What a rename changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Text edits, by note path. Apply them before the moves.
    pub edits: Vec<FileEdits>,
    /// Files to move: (old vault path, new vault path).
    pub moves: Vec<(String, String)>,
    /// Uses that could not be rewritten (a frontmatter tag the parser could
    /// not place), as (note path, what).
    pub skipped: Vec<(String, String)>,
}

impl Plan {
    /// How many links or uses the plan rewrites.
    pub fn edit_count(&self) -> usize {
        self.edits.iter().map(|f| f.edits.len()).sum()
    }
}

/// Why a rename cannot be done. The message says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteError(pub String);

impl fmt::Display for RewriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RewriteError {}

fn error<T>(message: impl Into<String>) -> Result<T, RewriteError> {
    Err(RewriteError(message.into()))
}

/// Collects edits per note, reading and parsing each note once.
struct Collector<'a> {
    texts: &'a dyn TextSource,
    files: BTreeMap<String, (String, Vec<Edit>)>,
}

impl<'a> Collector<'a> {
    fn new(texts: &'a dyn TextSource) -> Self {
        Collector {
            texts,
            files: BTreeMap::new(),
        }
    }

    /// The note's text and a fresh parse of it.
    fn read(&self, path: &str) -> Option<(String, Note)> {
        let text = self.texts.text(path)?;
        let note = parse_text(path, &text);
        Some((text, note))
    }

    fn push(&mut self, path: &str, text: &str, edit: Edit) {
        if text.get(edit.range.clone()) == Some(edit.new_text.as_str()) {
            return;
        }
        let entry = self
            .files
            .entry(path.to_string())
            .or_insert_with(|| (text.to_string(), Vec::new()));
        entry.1.push(edit);
    }

    fn finish(self, moves: Vec<(String, String)>, skipped: Vec<(String, String)>) -> Plan {
        let edits = self
            .files
            .into_iter()
            .filter(|(_, (_, edits))| !edits.is_empty())
            .map(|(path, (text, mut edits))| {
                edits.sort_by_key(|e| (e.range.start, e.range.end));
                edits.dedup_by(|b, a| a.range.end > b.range.start);
                FileEdits { path, text, edits }
            })
            .collect();
        Plan {
            edits,
            moves,
            skipped,
        }
    }
}

// ---------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------

/// Checks a new name for a note: a vault path or a bare name, with or
/// without `.md`. Returns the vault path (with `.md`) in `folder`.
pub fn note_path_for(folder: &str, new_name: &str) -> Result<String, RewriteError> {
    let name = new_name.trim().trim_start_matches('/');
    let name = strip_md(name).trim_end_matches('/');
    if name.is_empty() {
        return error("the new name is empty");
    }
    if let Some(bad) = name
        .chars()
        .find(|c| matches!(c, '[' | ']' | '|' | '#' | '^' | '\\' | '\0') || c.is_control())
    {
        return error(format!(
            "a note name cannot contain `{}`: links could not name it",
            bad.escape_default()
        ));
    }
    if name
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == ".." || part.starts_with('.'))
    {
        return error(format!(
            "`{name}` is not a usable vault path (empty, `.`/`..` or hidden parts)"
        ));
    }
    let path = if name.contains('/') || folder.is_empty() {
        format!("{name}.md")
    } else {
        format!("{folder}/{name}.md")
    };
    Ok(path)
}

/// The notes and attachments under `folder`, each with its new path under
/// `new_folder`.
pub fn folder_moves(index: &VaultIndex, folder: &str, new_folder: &str) -> Vec<(String, String)> {
    let folder = folder.trim_matches('/');
    let new_folder = new_folder.trim_matches('/');
    let prefix = format!("{}/", name_key(folder));
    let moved = |path: &str| -> Option<(String, String)> {
        if !name_key(path).starts_with(&prefix) {
            return None;
        }
        let rest = &path[folder.len() + 1..];
        let new = if new_folder.is_empty() {
            rest.to_string()
        } else {
            format!("{new_folder}/{rest}")
        };
        Some((path.to_string(), new))
    };
    let mut out: Vec<(String, String)> = index
        .notes()
        .filter_map(|(_, n)| moved(&n.path))
        .chain(index.attachments().filter_map(moved))
        .collect();
    out.sort();
    out
}

/// Moves notes and attachments (old vault path → new vault path) and
/// rewrites every link to them, and the relative links inside moved notes.
pub fn move_files(
    index: &VaultIndex,
    moves: &[(String, String)],
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let mut note_moves: HashMap<NoteId, String> = HashMap::new();
    let mut attachment_moves: HashMap<String, String> = HashMap::new();
    let mut targets: HashSet<String> = HashSet::new();
    for (old, new) in moves {
        let new_key = path_key(new);
        if !targets.insert(new_key.clone()) {
            return error(format!("two files would move to `{new}`"));
        }
        if is_note_path(old) {
            let Some(id) = index.id_of(old) else {
                return error(format!("`{old}` is not a note of the vault"));
            };
            if !is_note_path(new) {
                return error(format!("`{new}` must end with `.md` to stay a note"));
            }
            if let Some(other) = index.id_of(new)
                && other != id
                && !moves.iter().any(|(o, _)| index.id_of(o) == Some(other))
            {
                return error(format!(
                    "a note already exists at `{}`; choose another name",
                    index.note(other).path
                ));
            }
            note_moves.insert(id, new.clone());
        } else {
            attachment_moves.insert(path_key(old), new.clone());
        }
    }
    let mover = Mover {
        index,
        note_moves: &note_moves,
        attachment_moves: &attachment_moves,
    };

    // Notes that may hold links to rewrite: those linking to a moved note,
    // the moved notes (their relative links), and for attachments the notes
    // with a link naming the file.
    let mut sources: HashSet<NoteId> = note_moves.keys().copied().collect();
    for &id in note_moves.keys() {
        sources.extend(index.backlinks(id).into_iter().map(|r| r.source));
    }
    if !attachment_moves.is_empty() {
        let names: HashSet<String> = attachment_moves
            .keys()
            .map(|k| k.rsplit('/').next().unwrap_or(k).to_string())
            .collect();
        for (id, note) in index.notes() {
            if note.links.iter().any(|l| {
                let key = path_key(&l.target);
                names.contains(key.rsplit('/').next().unwrap_or(&key))
            }) {
                sources.insert(id);
            }
        }
    }
    let mut sources: Vec<NoteId> = sources.into_iter().collect();
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));

    let mut collector = Collector::new(texts);
    for source in sources {
        let path = index.note(source).path.to_string();
        let Some((text, fresh)) = collector.read(&path) else {
            continue;
        };
        let new_folder = note_moves.get(&source).map_or_else(
            || folder_of(&path).to_string(),
            |p| folder_of(p).to_string(),
        );
        for link in &fresh.links {
            if let Some(new_target) = mover.rewrite(source, &path, &new_folder, link, &text) {
                let range = link.target_span.start as usize..link.target_span.end as usize;
                collector.push(
                    &path,
                    &text,
                    Edit {
                        range,
                        new_text: new_target,
                    },
                );
            }
        }
    }
    Ok(collector.finish(moves.to_vec(), Vec::new()))
}

struct Mover<'a> {
    index: &'a VaultIndex,
    note_moves: &'a HashMap<NoteId, String>,
    attachment_moves: &'a HashMap<String, String>,
}

impl Mover<'_> {
    /// The new target text of `link` (in the note `source` at `path`, moving
    /// to `new_folder`), or `None` when it stays as written.
    fn rewrite(
        &self,
        source: NoteId,
        path: &str,
        new_folder: &str,
        link: &Link,
        text: &str,
    ) -> Option<String> {
        if link.is_self_link() {
            return None;
        }
        let written = text.get(link.target_span.start as usize..link.target_span.end as usize)?;
        let folder = folder_of(path);
        // What the link names now, and where that is after the moves.
        let (new_path, target_note, target_moved) =
            match self.index.resolve(folder, &link.target, link.kind) {
                Resolution::Note(id) | Resolution::Ambiguous { chosen: id, .. } => {
                    match self.note_moves.get(&id) {
                        Some(new) => (new.clone(), Some(id), true),
                        None => (self.index.note(id).path.to_string(), Some(id), false),
                    }
                }
                Resolution::Attachment(p) => match self.attachment_moves.get(&path_key(&p)) {
                    Some(new) => (new.clone(), None, true),
                    None => (p.to_string(), None, false),
                },
                Resolution::Unresolved => return None,
            };
        let source_moved = self.note_moves.contains_key(&source);
        if !target_moved && !source_moved {
            return None;
        }
        let target = link.target.trim();
        let keep_md = target.len() != strip_md(target).len() || !is_note_path(&new_path);
        let shown = |p: &str| -> String {
            if keep_md {
                p.to_string()
            } else {
                strip_md(p).to_string()
            }
        };
        let new_text = match link.kind {
            LinkKind::Wiki => {
                if target.starts_with("./") || target.starts_with("../") {
                    let rel = relative_path(new_folder, &new_path);
                    let rel = if rel.starts_with("../") {
                        rel
                    } else {
                        format!("./{rel}")
                    };
                    shown(&rel)
                } else if target.contains('/') {
                    let lead = if target.starts_with('/') { "/" } else { "" };
                    format!("{lead}{}", shown(&new_path))
                } else {
                    if !target_moved {
                        return None;
                    }
                    // A bare name: the stem, unless it was an alias or a
                    // title (those move with the note).
                    if let Some(id) = target_note {
                        let note = self.index.note(id);
                        let key = path_key(target);
                        if key != name_key(note.stem()) {
                            return None;
                        }
                        let stem = new_path
                            .rsplit('/')
                            .next()
                            .map(strip_md)
                            .unwrap_or_default();
                        if self.stem_is_unique(id, stem) {
                            if keep_md {
                                format!("{stem}.md")
                            } else {
                                stem.to_string()
                            }
                        } else {
                            shown(&new_path)
                        }
                    } else {
                        // An attachment by file name.
                        new_path.rsplit('/').next().unwrap_or(&new_path).to_string()
                    }
                }
            }
            LinkKind::Markdown => {
                let angle = text[..link.target_span.start as usize].ends_with('<');
                let encode = |p: &str| {
                    if angle { p.to_string() } else { encode_path(p) }
                };
                if target.starts_with('/') {
                    format!("/{}", encode(&shown(&new_path)))
                } else {
                    encode(&shown(&relative_path(new_folder, &new_path)))
                }
            }
        };
        let same = match link.kind {
            LinkKind::Wiki => path_key(&new_text) == path_key(written),
            LinkKind::Markdown => new_text == written,
        };
        (!same).then_some(new_text)
    }

    /// Whether `stem` names only `id` once the moves are done.
    fn stem_is_unique(&self, id: NoteId, stem: &str) -> bool {
        let key = name_key(stem);
        let stays = self
            .index
            .by_stem
            .get(key.as_str())
            .into_iter()
            .flatten()
            .any(|&other| other != id && !self.note_moves.contains_key(&other));
        let arrives = self.note_moves.iter().any(|(&other, new)| {
            other != id && name_key(new.rsplit('/').next().map(strip_md).unwrap_or_default()) == key
        });
        !stays && !arrives
    }
}

// ---------------------------------------------------------------------------
// Fragments: headings and blocks
// ---------------------------------------------------------------------------

/// The byte range of a link's fragment (after the first `#`) in `text`.
fn fragment_range(link: &Link, text: &str) -> Option<Range<usize>> {
    let span = link.span.start as usize..link.span.end as usize;
    let raw = text.get(span.clone())?;
    let from = match link.kind {
        LinkKind::Wiki => link.target_span.end as usize - span.start,
        LinkKind::Markdown => raw.rfind("](").map(|i| i + 2)?,
    };
    let hash = from + raw[from..].find('#')?;
    let end = match link.kind {
        LinkKind::Wiki => raw[hash..].find(['|', ']']).map_or(raw.len(), |i| hash + i),
        LinkKind::Markdown => raw[hash..]
            .find([')', '>', ' ', '"'])
            .map_or(raw.len(), |i| hash + i),
    };
    Some(span.start + hash + 1..span.start + end)
}

/// The notes that may link into `target`: its backlinks and itself.
fn fragment_sources(index: &VaultIndex, target: NoteId) -> Vec<NoteId> {
    let mut sources: Vec<NoteId> = index
        .backlinks(target)
        .into_iter()
        .map(|r| r.source)
        .collect();
    sources.push(target);
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
    sources.dedup();
    sources
}

/// Whether `link` (in `source`, fresh from `text`) leads to note `target`.
fn leads_to(index: &VaultIndex, source: NoteId, link: &Link, target: NoteId) -> bool {
    if link.is_self_link() {
        return source == target;
    }
    index
        .resolve(folder_of(&index.note(source).path), &link.target, link.kind)
        .note()
        == Some(target)
}

/// Renames heading `heading` of note `note` to `new_text`, and every link
/// to it.
pub fn rename_heading(
    index: &VaultIndex,
    note: NoteId,
    heading: usize,
    new_text: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let new_text = new_text.trim();
    if new_text.is_empty() || new_text.contains(['\n', '#', '|', '[', ']', '^']) {
        return error(
            "a heading linked to cannot be empty or contain a line break, `#`, `|`, `[`, `]` or `^`",
        );
    }
    let target = index.note(note);
    let Some(old) = target.headings.get(heading) else {
        return error("no such heading");
    };
    let old_text = old.text.to_string();
    let mut collector = Collector::new(texts);
    for source in fragment_sources(index, note) {
        let path = index.note(source).path.to_string();
        let Some((text, fresh)) = collector.read(&path) else {
            continue;
        };
        if source == note {
            // The heading line itself, found again in the fresh parse.
            if let Some(h) = fresh.headings.get(heading).filter(|h| *h.text == *old_text)
                && let Some(range) =
                    heading_text_range(&text, h.span.start as usize..h.span.end as usize)
            {
                collector.push(
                    &path,
                    &text,
                    Edit {
                        range,
                        new_text: new_text.to_string(),
                    },
                );
            }
        }
        for link in &fresh.links {
            let Some(fragment) = link.fragment.as_deref() else {
                continue;
            };
            if fragment.starts_with('^') || !leads_to(index, source, link, note) {
                continue;
            }
            let target_note = index.note(note);
            let Some(part) = fragment_part_naming(target_note, fragment, heading) else {
                continue;
            };
            let Some(range) = fragment_range(link, &text) else {
                continue;
            };
            let Some(part_range) = nth_part(&text, range, part) else {
                continue;
            };
            let written = &text[part_range.clone()];
            let new_part = match link.kind {
                LinkKind::Wiki => {
                    if heading_key(written) == heading_key(&old_text) {
                        new_text.to_string()
                    } else {
                        slug(new_text)
                    }
                }
                LinkKind::Markdown => {
                    let decoded = percent_encoding::percent_decode_str(written).decode_utf8_lossy();
                    if heading_key(&decoded) == heading_key(&old_text) && decoded != slug(&old_text)
                    {
                        encode_path(new_text)
                    } else {
                        slug(new_text)
                    }
                }
            };
            collector.push(
                &path,
                &text,
                Edit {
                    range: part_range,
                    new_text: new_part,
                },
            );
        }
    }
    Ok(collector.finish(Vec::new(), Vec::new()))
}

/// Which `#`-separated part of `fragment` (counting empty parts, as
/// [`nth_part`] does) names heading `heading` of `note` on the way to the
/// heading the fragment leads to, by the heading-path rules every link
/// resolves with. `None` when the fragment does not lead through it.
fn fragment_part_naming(note: &Note, fragment: &str, heading: usize) -> Option<usize> {
    let parts = fragment_parts(fragment);
    let target = find_heading(note, &parts).first()?;
    let steps = heading_steps(note, &parts, target)?;
    let step = steps.iter().position(|&s| s == heading)?;
    fragment
        .split('#')
        .enumerate()
        .filter(|(_, part)| !part.trim().is_empty())
        .nth(step)
        .map(|(i, _)| i)
}

/// The byte range of the `n`th `#`-separated part of `range`, trimmed.
fn nth_part(text: &str, range: Range<usize>, n: usize) -> Option<Range<usize>> {
    let fragment = text.get(range.clone())?;
    let mut start = 0;
    for (i, part) in fragment.split('#').enumerate() {
        if i == n {
            let lead = part.len() - part.trim_start().len();
            let s = range.start + start + lead;
            return Some(s..s + part.trim().len());
        }
        start += part.len() + 1;
    }
    None
}

/// The range of a heading's text on its line: after the `#` markers,
/// before closing `#`s; for a Setext heading, its first line.
pub fn heading_text_range(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let raw = text.get(span.clone())?;
    let first_line = raw.split('\n').next().unwrap_or(raw).trim_end_matches('\r');
    let indent = first_line.len() - first_line.trim_start().len();
    let line = &first_line[indent..];
    if line.starts_with('#') {
        let hashes = line.len() - line.trim_start_matches('#').len();
        let content = &line[hashes..];
        let lead = content.len() - content.trim_start().len();
        let mut body = content.trim();
        // Closing sequence: ` ##` at the end.
        let stripped = body.trim_end_matches('#');
        if stripped.len() != body.len() && (stripped.is_empty() || stripped.ends_with(' ')) {
            body = stripped.trim_end();
        }
        let start = span.start + indent + hashes + lead;
        Some(start..start + body.len())
    } else {
        let body = line.trim_end();
        Some(span.start + indent..span.start + indent + body.len())
    }
}

/// Renames block `block` of `note` to `new_id`, and every link to it.
pub fn rename_block(
    index: &VaultIndex,
    note: NoteId,
    block: usize,
    new_id: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let new_id = new_id.trim().trim_start_matches('^');
    if new_id.is_empty()
        || !new_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return error("a block id is made of letters, digits and `-` (like `idea-2`)");
    }
    let target = index.note(note);
    let Some(old) = target.blocks.get(block) else {
        return error("no such block");
    };
    let old_id = old.id.to_string();
    if target
        .blocks
        .iter()
        .enumerate()
        .any(|(i, b)| i != block && b.id.eq_ignore_ascii_case(new_id))
    {
        return error(format!("the note already has a block ^{new_id}"));
    }
    let mut collector = Collector::new(texts);
    for source in fragment_sources(index, note) {
        let path = index.note(source).path.to_string();
        let Some((text, fresh)) = collector.read(&path) else {
            continue;
        };
        if source == note
            && let Some(b) = fresh
                .blocks
                .iter()
                .find(|b| b.id.eq_ignore_ascii_case(&old_id))
        {
            collector.push(
                &path,
                &text,
                Edit {
                    range: b.span.start as usize + 1..b.span.end as usize,
                    new_text: new_id.to_string(),
                },
            );
        }
        for link in &fresh.links {
            let Some(fragment) = link.fragment.as_deref() else {
                continue;
            };
            let Some(id) = fragment.strip_prefix('^') else {
                continue;
            };
            if !id.trim().eq_ignore_ascii_case(&old_id) || !leads_to(index, source, link, note) {
                continue;
            }
            let Some(range) = fragment_range(link, &text) else {
                continue;
            };
            let written = &text[range.clone()];
            let Some(caret) = written.find('^') else {
                continue;
            };
            let id_start = range.start + caret + 1;
            let id_len = written[caret + 1..].trim_end().len();
            collector.push(
                &path,
                &text,
                Edit {
                    range: id_start..id_start + id_len,
                    new_text: new_id.to_string(),
                },
            );
        }
    }
    Ok(collector.finish(Vec::new(), Vec::new()))
}

// ---------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------

/// Renames tag `old` to `new` in every note, sub-tags included
/// (`#project/weft` becomes `#work/weft` when `project` becomes `work`).
pub fn rename_tag(
    index: &VaultIndex,
    old: &str,
    new: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let old = old.trim().trim_start_matches('#');
    let new = match super::tags::checked(new) {
        Ok(new) => new,
        Err(why) => return error(&why),
    };
    let mut notes: Vec<(NoteId, &str)> = index
        .notes()
        .filter(|(_, n)| n.tags.iter().any(|t| super::tags::matches(old, &t.name)))
        .map(|(id, n)| (id, &*n.path))
        .collect();
    notes.sort_by(|a, b| a.1.cmp(b.1));
    let mut collector = Collector::new(texts);
    let prefix_chars = old.chars().count();
    for (_, path) in notes {
        let Some((text, fresh)) = collector.read(path) else {
            continue;
        };
        // Where each tag is written, as the parser found it: inline ones
        // after their `#`, frontmatter ones inside their YAML value.
        let names: Vec<std::ops::Range<usize>> = fresh
            .tags
            .iter()
            .filter_map(|t| {
                let span = t.span.as_ref()?;
                let start = span.start as usize + usize::from(!t.in_frontmatter);
                Some(start..span.end as usize)
            })
            .collect();
        for range in names {
            let written = &text[range.clone()];
            if !super::tags::matches(old, written) {
                continue;
            }
            // The old prefix as written (its byte length may differ from
            // `old` when only the case differs).
            let prefix_len = written
                .char_indices()
                .nth(prefix_chars)
                .map_or(written.len(), |(i, _)| i);
            collector.push(
                path,
                &text,
                Edit {
                    range: range.start..range.start + prefix_len,
                    new_text: new.to_string(),
                },
            );
        }
    }
    Ok(collector.finish(Vec::new(), Vec::new()))
}
