//! Moving or renaming notes and attachments (alone or with their folder):
//! the new paths, and every link that must change, both links to what moves
//! and the relative links inside moved notes. Links keep their style
//! (wikilink or Markdown, bare name, vault path or relative path, `.md` or
//! not, angle brackets or percent-encoding).
//!
//! It must not know fragments or tags: a move changes only the path part of
//! a link, so headings, block ids and tags are other files' business.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::plan::{Check, Collector, Edit, Plan, RewriteError, error};
use crate::index::{LinkRef, NoteId, VaultIndex};
use crate::key::{encode_path, name_key, path_key, relative_path};
use crate::note::{Link, LinkKind, folder_of, is_note_path, strip_md};
use crate::query::TextSource;
use crate::resolve::Resolution;

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
    // A link's target is read trimmed, and a bare name is the stem:
    // `[[x ]]` names `x`, never `x .md`.
    let stem = name.rsplit('/').next().unwrap_or(name);
    if stem != stem.trim() {
        return error(format!(
            "the name `{stem}` starts or ends with a space: links could not name it"
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
    // the moved notes (their relative links), and those linking to a moved
    // attachment.
    let (mut sources, to_moved) = moving_and_linking(index, note_moves.keys().copied());
    for (old, _) in moves.iter().filter(|(old, _)| !is_note_path(old)) {
        sources.extend(
            index
                .attachment_backlinks(old)
                .into_iter()
                .map(|r| r.source),
        );
    }
    let mut sources: Vec<NoteId> = sources.into_iter().collect();
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));

    let mut collector = Collector::new(texts);
    let paths: Vec<&str> = sources.iter().map(|&id| &*index.note(id).path).collect();
    collector.prefetch(&paths);
    for source in sources {
        let path = index.note(source).path.to_string();
        let Some((text, links)) = collector.read_links(index, &path) else {
            continue;
        };
        let new_folder = note_moves.get(&source).map_or_else(
            || folder_of(&path).to_string(),
            |p| folder_of(p).to_string(),
        );
        // The index's own links (of this very text), in a note that stays,
        // when only notes move: only those leading to a moved note change,
        // and the index knows which they are.
        let only_to_moved = matches!(links, Cow::Borrowed(_))
            && attachment_moves.is_empty()
            && !note_moves.contains_key(&source);
        for (i, link) in links.iter().enumerate() {
            if only_to_moved
                && !to_moved.contains(&LinkRef {
                    source,
                    link: i as u32,
                })
            {
                continue;
            }
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
    collector.finish(moves.to_vec(), Vec::new(), Check::LinkTargets)
}

/// The moving notes with the notes linking to them, and the links that lead
/// to a moving note as the index resolves them (what a move may rewrite).
pub(super) fn moving_and_linking(
    index: &VaultIndex,
    moving: impl Iterator<Item = NoteId>,
) -> (HashSet<NoteId>, HashSet<LinkRef>) {
    let mut sources: HashSet<NoteId> = HashSet::new();
    let mut to_moved: HashSet<LinkRef> = HashSet::new();
    for id in moving {
        sources.insert(id);
        let refs = index.backlinks(id);
        sources.extend(refs.iter().map(|r| r.source));
        to_moved.extend(refs);
    }
    (sources, to_moved)
}

/// The wikilink path from `folder` to `path`, written as relative
/// (`./x`, `../x`).
fn relative_to(folder: &str, path: &str) -> String {
    let rel = relative_path(folder, path);
    if rel.starts_with("../") {
        rel
    } else {
        format!("./{rel}")
    }
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
            match self.index.resolve(folder, link.target(), link.kind) {
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
        let target = link.target().trim();
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
                let new_text = if target.starts_with("./") || target.starts_with("../") {
                    shown(&relative_to(new_folder, &new_path))
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
                        if !self.namesakes(Some(id), stem).is_empty() {
                            shown(&new_path)
                        } else if keep_md {
                            format!("{stem}.md")
                        } else {
                            stem.to_string()
                        }
                    } else {
                        // An attachment by file name.
                        new_path.rsplit('/').next().unwrap_or(&new_path).to_string()
                    }
                };
                // A bare name (a path at the root is one) that would lead
                // elsewhere from the link's folder: a relative path.
                if new_text.trim_start_matches('/').contains('/')
                    || self.bare_name_leads(target_note, &new_text, new_folder)
                {
                    new_text
                } else {
                    shown(&relative_to(new_folder, &new_path))
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

    /// The folders of the notes other than `id` whose stem is `stem` once
    /// the moves are done.
    fn namesakes(&self, id: Option<NoteId>, stem: &str) -> Vec<&str> {
        let key = name_key(stem);
        let stay = self
            .index
            .by_stem
            .get(key.as_str())
            .into_iter()
            .flatten()
            .filter(|&&other| Some(other) != id && !self.note_moves.contains_key(&other))
            .map(|&other| self.index.note(other).folder());
        let arrive = self
            .note_moves
            .iter()
            .filter(|&(&other, new)| {
                Some(other) != id
                    && name_key(new.rsplit('/').next().map(strip_md).unwrap_or_default()) == key
            })
            .map(|(_, new)| folder_of(new));
        stay.chain(arrive).collect()
    }

    /// Whether the bare name `name`, written in a note in `folder` once the
    /// moves are done, leads to the moved note `note` (`None`: to the moved
    /// attachment of that name), by the resolver's order: notes by stem
    /// (of several, the one in `folder`, else the shortest path, which a
    /// note at the root has), notes by title or alias, attachments by name.
    fn bare_name_leads(&self, note: Option<NoteId>, name: &str, folder: &str) -> bool {
        let name = name.trim_start_matches('/');
        let in_folder = |f: &&str| path_key(f) == path_key(folder);
        match note {
            Some(id) => !self
                .namesakes(Some(id), strip_md(name))
                .iter()
                .any(in_folder),
            None => {
                let key = name_key(name);
                let named = |p: &str| name_key(p.rsplit('/').next().unwrap_or(p)) == key;
                let staying = self
                    .index
                    .attachments_by_name
                    .get(key.as_str())
                    .into_iter()
                    .flatten()
                    .filter(|p| !self.attachment_moves.contains_key(&***p))
                    .count();
                let arriving = self.attachment_moves.values().filter(|p| named(p)).count();
                self.namesakes(None, name).is_empty()
                    && !self.index.by_name.contains_key(key.as_str())
                    && staying + arriving <= 1
            }
        }
    }
}
