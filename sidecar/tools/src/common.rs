//! What several tools share: turning a name into a note (with "did you
//! mean" and the policy applied), limits, cursors, times, and the small
//! structured types every answer reuses.
//!
//! Must not know any single tool's parameters.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::format::{ToolError, note_label};
use super::state::ToolState;
use weft_search::dates::{Zone, format_time};
use weft_search::find::{cursor_for, fingerprint, offset_of};
use weft_search::index::tag_key;
use weft_vault::index::TagStat;
use weft_vault::note::{is_note_path, strip_md};
use weft_vault::query::{Lookup, Stats, lookup, stats_of};
use weft_vault::{LinkRef, Note, NoteId, VaultIndex};
use weft_workspace::access::Access;

/// The vault's tags as the agent may see them: the index's own counts when
/// the policy hides nothing, else counted over the visible notes alone (a
/// tag only hidden notes carry does not exist for the agent).
pub fn visible_tags<'a>(
    access: &Access,
    index: &'a VaultIndex,
) -> std::borrow::Cow<'a, HashMap<Box<str>, TagStat>> {
    if !access.restricts() {
        return std::borrow::Cow::Borrowed(index.tags());
    }
    std::borrow::Cow::Owned(index.tags_of(&|n| access.sees(&n.path)))
}

/// Vault counts as the agent may see them (see [`stats_of`]).
pub fn visible_stats(policy: &super::policy::Policy, index: &VaultIndex) -> Stats {
    match policy.access.restricts() {
        false => stats_of(index, None),
        true => stats_of(index, Some(&|path: &str| policy.access.sees(path))),
    }
}

/// A note as answers list it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NoteRef {
    /// Vault path without `.md`.
    pub path: String,
    pub title: String,
}

impl NoteRef {
    pub fn of(note: &Note) -> NoteRef {
        NoteRef {
            path: note.id().to_string(),
            title: note.title.to_string(),
        }
    }
}

/// Rejects names that cannot be notes before looking them up.
pub(crate) fn check_name(input: &str, what: &str) -> Result<String, ToolError> {
    let name = input.trim();
    if name.is_empty() {
        return Err(ToolError::new(format!("`{what}` is empty.")).hint(
            "Pass a vault path (with or without .md), a title or an alias; resolve_note finds candidates by partial name.",
        ));
    }
    if name.contains('\0') {
        return Err(ToolError::new(format!(
            "`{what}` contains a NUL character."
        )));
    }
    if name.replace('\\', "/").split('/').any(|p| p == "..") {
        return Err(escape_error(name));
    }
    Ok(name.to_string())
}

fn escape_error(name: &str) -> ToolError {
    ToolError::new(format!("`{name}` leaves the vault."))
        .hint("Paths are relative to the vault root, without `..` (e.g. projects/weft/ideas).")
}

/// A name as the agent passed it, as the vault model takes it: trimmed, an
/// absolute path into the vault (as editors show files) made vault-relative,
/// and a leading `./` dropped. The one normalization every tool applies
/// before a lookup or a write.
pub fn vault_input(state: &ToolState, input: &str) -> String {
    let trimmed = input.trim();
    let path = std::path::Path::new(trimmed);
    let name = match path.strip_prefix(state.root()) {
        Ok(inside) if path.is_absolute() => inside.to_string_lossy().replace('\\', "/"),
        _ => trimmed.to_string(),
    };
    let mut rest = name.as_str();
    while let Some(r) = rest.strip_prefix("./") {
        rest = r;
    }
    rest.to_string()
}

/// A vault path as answers show it: notes without `.md`.
pub fn shown(path: &str) -> String {
    if is_note_path(path) {
        strip_md(path).to_string()
    } else {
        path.to_string()
    }
}

/// What a name may turn out to be.
pub enum Target {
    Note(NoteId),
    /// No note, but links point at this name.
    Missing {
        target: String,
        links: Vec<LinkRef>,
    },
}

/// Finds the note a name means; fails with candidates, "did you mean" or
/// the policy's reason.
pub fn find_note(
    state: &ToolState,
    index: &VaultIndex,
    input: &str,
    what: &str,
) -> Result<NoteId, ToolError> {
    match find_target(state, index, input, what)? {
        Target::Note(id) => Ok(id),
        Target::Missing { target, links } => Err(ToolError::new(format!(
            "No note `{target}` exists yet; {} link to it.",
            super::format::plural(links.len(), "link")
        ))
        .hint("get_links with direction `in` lists them; create the note to resolve them.")),
    }
}

/// Like [`find_note`], but a name that only links use is an answer too.
pub(crate) fn find_target(
    state: &ToolState,
    index: &VaultIndex,
    input: &str,
    what: &str,
) -> Result<Target, ToolError> {
    let policy = state.policy();
    let name = vault_input(state, &check_name(input, what)?);
    match lookup(index, &name) {
        Lookup::Found(id) => {
            let note = index.note(id);
            if !policy.access.sees(&note.path) {
                return Err(ToolError::new(policy.hidden_message(&note.path, &name)));
            }
            Ok(Target::Note(id))
        }
        Lookup::Ambiguous(ids) => {
            let visible: Vec<NoteId> = ids
                .into_iter()
                .filter(|id| policy.access.sees(&index.note(*id).path))
                .collect();
            if visible.len() == 1 {
                return Ok(Target::Note(visible[0]));
            }
            let list: Vec<String> = visible
                .iter()
                .map(|id| note_label(index.note(*id)))
                .collect();
            Err(ToolError::new(format!(
                "`{name}` names {} notes: {}.",
                visible.len(),
                list.join(", ")
            ))
            .hint("Pass the path of the one you mean."))
        }
        Lookup::Unresolved { target, links } => {
            let links: Vec<LinkRef> = links
                .into_iter()
                .filter(|r| policy.access.sees(&index.note(r.source).path))
                .collect();
            if links.is_empty() {
                return Err(not_found(state, index, &name));
            }
            Ok(Target::Missing { target, links })
        }
        Lookup::NotFound { .. } => Err(not_found(state, index, &name)),
    }
}

fn not_found(state: &ToolState, index: &VaultIndex, name: &str) -> ToolError {
    let policy = state.policy();
    let suggestions: Vec<String> = weft_search::names::match_names(index, name, 12)
        .into_iter()
        .filter(|m| policy.access.sees(&index.note(m.note).path))
        .take(5)
        .map(|m| note_label(index.note(m.note)))
        .collect();
    let mut error = ToolError::new(format!("No note matches `{name}`."));
    if suggestions.is_empty() {
        error = error.hint("search_notes finds notes by their text; list_notes browses folders.");
    } else {
        error = error.hint(format!("Did you mean: {}?", suggestions.join(", ")));
    }
    error
}

/// A limit within bounds.
pub fn limit(given: Option<usize>, default: usize, max: usize) -> usize {
    given.unwrap_or(default).clamp(1, max)
}

/// The offset a cursor stands for, checked against the request.
pub(crate) fn cursor_offset(
    cursor: Option<&str>,
    request: &impl std::hash::Hash,
) -> Result<usize, ToolError> {
    match cursor.map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(0),
        Some(c) => offset_of(c, fingerprint(request))
            .map_err(|m| ToolError::new(format!("Bad `cursor`: {m}."))),
    }
}

/// The cursor of the next page, if there is one.
pub fn next_cursor(
    offset: usize,
    shown: usize,
    total: usize,
    request: &impl std::hash::Hash,
) -> Option<String> {
    (offset + shown < total).then(|| cursor_for(offset + shown, fingerprint(request)))
}

/// "Showing 1–10 of 47." plus how to continue.
pub(crate) fn page_line(offset: usize, shown: usize, total: usize, next: Option<&str>) -> String {
    if total == 0 {
        return String::new();
    }
    let mut line = if shown == total && offset == 0 {
        String::new()
    } else if shown == 0 {
        format!("No more results (total {total}).")
    } else {
        format!("Showing {}–{} of {total}.", offset + 1, offset + shown)
    };
    if let Some(next) = next {
        line.push_str(&format!(
            " Next page: same arguments with `cursor: \"{next}\"`."
        ));
    }
    line.trim().to_string()
}

/// Bytes read on each side of a link for its context line.
const CONTEXT_WINDOW: u32 = 320;

/// The line around each link (trimmed, about 160 characters), reading only
/// a window of the source file around the link, so a huge note costs no
/// more than a small one.
pub(crate) fn link_contexts(
    state: &ToolState,
    index: &VaultIndex,
    refs: &[LinkRef],
) -> Vec<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut out = vec![String::new(); refs.len()];
    let mut order: Vec<usize> = (0..refs.len()).collect();
    order.sort_by_key(|&i| refs[i].source);
    let mut open: Option<(weft_vault::NoteId, Option<std::fs::File>)> = None;
    for i in order {
        let r = refs[i];
        if open.as_ref().is_none_or(|(id, _)| *id != r.source) {
            let file = std::fs::File::open(state.root().join(&*index.note(r.source).path)).ok();
            open = Some((r.source, file));
        }
        let Some((_, Some(file))) = open.as_mut() else {
            continue;
        };
        let span = &index.link(r).span;
        let from = span.start.saturating_sub(CONTEXT_WINDOW);
        let len = (span.end - from + CONTEXT_WINDOW) as usize;
        let mut bytes = vec![0; len];
        let read = file
            .seek(SeekFrom::Start(from as u64))
            .and_then(|_| {
                let mut total = 0;
                while total < len {
                    match file.read(&mut bytes[total..])? {
                        0 => break,
                        n => total += n,
                    }
                }
                Ok(total)
            })
            .unwrap_or(0);
        bytes.truncate(read);
        // Whole characters only: skip a cut one at each end.
        let skip = bytes
            .iter()
            .take(3)
            .take_while(|b| (**b & 0xC0) == 0x80)
            .count();
        let text = match std::str::from_utf8(&bytes[skip..]) {
            Ok(t) => t.to_string(),
            Err(e) => String::from_utf8_lossy(&bytes[skip..skip + e.valid_up_to()]).into_owned(),
        };
        let start = (span.start - from) as usize - skip.min((span.start - from) as usize);
        let end = start + (span.end - span.start) as usize;
        let local = start.min(text.len()) as u32..end.min(text.len()) as u32;
        let mut context = weft_vault::query::line_context(&text, &local, 160);
        let cut_before = from > 0 && !text[..local.start as usize].contains('\n');
        if cut_before && !context.starts_with('…') {
            context.insert(0, '…');
        }
        let cut_after = read == len && !text[local.end as usize..].contains('\n');
        if cut_after && !context.ends_with('…') {
            context.push('…');
        }
        out[i] = context;
    }
    out
}

/// Unix seconds as the agent reads them: RFC 3339 with the offset of the
/// vault's zone (`2024-01-15T11:30:00+01:00`).
pub(crate) fn time_text(t: Option<i64>, zone: Zone) -> Option<String> {
    t.map(|t| format_time(t, zone))
}

/// A note's tags as written, without `#`, each once (a note of megabytes
/// may use thousands of tags: one key per use, a set of the keys).
pub fn tags_of(note: &Note) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    note.tags
        .iter()
        .filter(|tag| seen.insert(tag_key(&tag.name)))
        .map(|tag| tag.name.to_string())
        .collect()
}

/// `#a #b`.
pub(crate) fn tags_text(tags: &[String]) -> String {
    tags.iter()
        .map(|t| format!("#{t}"))
        .collect::<Vec<_>>()
        .join(" ")
}
