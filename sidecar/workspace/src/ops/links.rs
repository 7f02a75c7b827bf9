//! Links as operations see and report them: the links of a text about to
//! be written (resolved against the index), the links into a note that a
//! change would break, the link edits of a move or a deletion as whole
//! links before and after, and the lines they are on.
//!
//! Reads the index, never the disk; every resolution goes through the one
//! resolver (`VaultIndex`).

use std::collections::HashSet;

use serde::Serialize;

use super::warning::{LostBy, Warning};
use weft_vault::key::path_key;
use weft_vault::note::folder_of;
use weft_vault::parse::parse_text;
pub(crate) use weft_vault::query::links_of;
use weft_vault::rewrite::FileEdits;
use weft_vault::{FragmentTarget, Link, Note, VaultIndex, resolve_fragment};

/// One link of a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteLink {
    /// The link as written: `[[target#frag|alias]]`, `[text](x.md)`.
    pub link: String,
    /// Its target text (no fragment or alias).
    pub target: String,
    /// 1-based.
    pub line: u32,
    /// The note or attachment it leads to; `None`: unresolved.
    pub resolved: Option<String>,
}

/// The folder of a vault path, for messages and resolution.
pub(crate) fn folder(path: &str) -> &str {
    folder_of(path)
}

/// 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    weft_vault::lines::line_of(text, offset) + 1
}

/// Links into the note at `path` that reach it with its text `old` and
/// would not with `new`: by an alias or title the change removes, or to a
/// heading or block id it removes. One warning each, at most ten.
pub(crate) fn lost_links(
    index: &VaultIndex,
    visible: &dyn Fn(&str) -> bool,
    path: &str,
    old: &str,
    new: &str,
) -> Vec<Warning> {
    let Some(id) = index.id_of(path) else {
        return Vec::new();
    };
    let (old_note, new_note) = (parse_text(path, old), parse_text(path, new));
    let names = |note: &Note| -> HashSet<String> {
        let mut keys: HashSet<String> = note.aliases.iter().map(|a| path_key(a)).collect();
        keys.insert(path_key(&note.title));
        keys
    };
    let path_keys = path_key(path);
    let stem = path_keys.rsplit('/').next().unwrap_or_default();
    let new_names = names(&new_note);
    let removed: HashSet<String> = names(&old_note)
        .into_iter()
        .filter(|k| k != stem && !new_names.contains(k))
        .collect();
    let mut out = Vec::new();
    let mut more = 0;
    let mut hidden = 0;
    for r in index.backlinks(id) {
        if r.source == id {
            continue; // The note's own links are its own text's business.
        }
        let source_visible = visible(&index.note(r.source).path);
        let link = index.link(r);
        let by_name = removed.contains(&path_key(link.target().trim()));
        let fragment = link.fragment().filter(|f| {
            resolve_fragment(&old_note, f) != FragmentTarget::Missing
                && resolve_fragment(&new_note, f) == FragmentTarget::Missing
        });
        if !by_name && fragment.is_none() {
            continue;
        }
        if !source_visible {
            hidden += 1;
            continue;
        }
        if out.len() == 10 {
            more += 1;
            continue;
        }
        let by = if by_name {
            LostBy::Name(link.target().to_string())
        } else {
            LostBy::Fragment(fragment.unwrap_or_default().to_string())
        };
        out.push(Warning::LinkLost {
            source: index.note(r.source).path.to_string(),
            line: link.line as usize + 1,
            by,
        });
    }
    if more > 0 {
        out.push(Warning::MoreLinksLost { count: more });
    }
    if hidden > 0 {
        out.push(Warning::UnseenLinksLost { count: hidden });
    }
    out
}

/// Links of a text as a note at `path` would have them, resolved against
/// the index.
pub(crate) fn resolved_links(
    index: &VaultIndex,
    visible: &dyn Fn(&str) -> bool,
    path: &str,
    text: &str,
) -> Vec<NoteLink> {
    let note = parse_text(path, text);
    note.links
        .iter()
        .map(|link| {
            let resolved = if link.is_self_link() {
                Some(path.to_string())
            } else {
                match index.resolve(folder(path), link.target(), link.kind) {
                    // A note the agent may not see is no answer to show.
                    weft_vault::Resolution::Note(id)
                    | weft_vault::Resolution::Ambiguous { chosen: id, .. } => {
                        Some(index.note(id).path.to_string()).filter(|p| visible(p))
                    }
                    weft_vault::Resolution::Attachment(p) => {
                        Some(p.to_string()).filter(|p| visible(p))
                    }
                    weft_vault::Resolution::Unresolved => None,
                }
            };
            let written = text
                .get(link.span.start as usize..link.span.end as usize)
                .unwrap_or_default()
                .to_string();
            NoteLink {
                link: written,
                target: link.target().to_string(),
                line: link.line + 1,
                resolved,
            }
        })
        .collect()
}

/// A link that is (or would be) rewritten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkEdit {
    /// The note holding the link, at its path before the move.
    pub path: String,
    /// 1-based.
    pub line: usize,
    pub old: String,
    pub new: String,
}

/// Links in one note: those that point to the old place of a moved note
/// (moves without `update_links`), or to a deleted note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinksIn {
    /// The note holding the links (after a move, at its new path).
    pub path: String,
    pub count: usize,
    /// 1-based.
    pub lines: Vec<usize>,
}

/// Each edit of a file as the whole link before and after.
/// `links` are the links of `file.text`.
pub(crate) fn describe_edits(file: &FileEdits, links: &[Link]) -> Vec<LinkEdit> {
    file.edits
        .iter()
        .map(|edit| {
            let link = links.iter().find(|l| {
                (l.span.start as usize) <= edit.range.start && edit.range.end <= l.span.end as usize
            });
            let (old, new) = match link {
                Some(l) => {
                    let span = l.span.start as usize..l.span.end as usize;
                    let old = file.text[span.clone()].to_string();
                    let new = format!(
                        "{}{}{}",
                        &file.text[span.start..edit.range.start],
                        edit.new_text,
                        &file.text[edit.range.end..span.end]
                    );
                    (old, new)
                }
                None => (
                    file.text[edit.range.clone()].to_string(),
                    edit.new_text.clone(),
                ),
            };
            LinkEdit {
                path: file.path.clone(),
                line: line_at(&file.text, edit.range.start),
                old,
                new,
            }
        })
        .collect()
}
