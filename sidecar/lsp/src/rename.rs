//! Renames: `textDocument/prepareRename` and `textDocument/rename` for a
//! note (from a link to it or from anywhere in it: the file moves and every
//! link follows), a heading, a block id, a tag or a property key (every
//! note that has it, `types.json`, every `.base` file and ```` ```base ````
//! block that names it: `weft_bases::rename`); and
//! `workspace/willRenameFiles`, which rewrites links when the editor moves
//! notes or folders.
//!
//! What to rewrite is decided by `vault::rewrite` (with the links a move
//! would send elsewhere pinned, as for the agent); this module finds what
//! the cursor is on and converts the plan into a workspace edit.

use std::ops::Range;
use std::sync::Arc;

use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::convert::uri_to_path;
use super::edit::{unsupported, workspace_edit};
use super::vault::Vault;
use super::world::{Here, World};
use weft_vault::note::{folder_of, is_note_path};
use weft_vault::props::key_at;
use weft_vault::query::TextSource;
use weft_vault::rewrite::{
    self, Plan, add_pins, captured_links, folder_moves, heading_text_range, move_files,
    note_path_for,
};
use weft_vault::symbols::{At, at};
use weft_vault::{FragmentTarget, NoteId, Resolution, VaultIndex, resolve_fragment};
use weft_workspace::config::OBSIDIAN_TYPES;

/// Files to move: (old vault path, new vault path).
type Moves = Vec<(String, String)>;

/// What a rename at the cursor renames.
enum Renamable {
    Note(NoteId),
    Heading(NoteId, usize),
    Block(NoteId, usize),
    Tag(String),
    Property(String),
}

/// The thing under the cursor, the text range the editor shows for it and
/// its current name.
fn renamable(index: &VaultIndex, here: &Here) -> Option<(Renamable, Range<usize>, String)> {
    let id = index.id_of(&here.rel)?;
    let note = index.note(id);
    let offset = here.offset;
    let text = &here.text;
    let range = |s: &Range<u32>| s.start as usize..s.end as usize;
    if let Some((key, span)) = key_at(text, offset) {
        return Some((Renamable::Property(key.clone()), span, key));
    }
    match at(note, offset as u32) {
        Some(At::Link(i)) => {
            let link = &note.links[i];
            let in_fragment = link.fragment().is_some()
                && (link.is_self_link() || offset > link.target_span.end as usize);
            let target = index.resolve_link(id, link).note()?;
            if in_fragment {
                let fragment = link.fragment()?;
                let target_note = index.note(target);
                let raw = text.get(range(&link.span))?;
                let hash_at = raw[link.target_span.end as usize - link.span.start as usize..]
                    .find('#')
                    .map(|h| h + link.target_span.end as usize)?;
                let end = raw[hash_at - link.span.start as usize..]
                    .find(['|', ']', ')'])
                    .map_or(link.span.end as usize, |e| hash_at + e);
                return match resolve_fragment(target_note, fragment) {
                    FragmentTarget::Heading(h) => {
                        // The last `#` part names the heading.
                        let part_start = text[hash_at..end]
                            .rfind('#')
                            .map_or(hash_at, |p| hash_at + p)
                            + 1;
                        Some((
                            Renamable::Heading(target, h),
                            part_start..end,
                            target_note.headings[h].text.to_string(),
                        ))
                    }
                    FragmentTarget::Block(b) => {
                        let caret = text[hash_at..end].find('^')? + hash_at;
                        Some((
                            Renamable::Block(target, b),
                            caret + 1..end,
                            target_note.blocks[b].id.to_string(),
                        ))
                    }
                    FragmentTarget::Missing => None,
                };
            }
            if !matches!(
                index.resolve_link(id, link),
                Resolution::Note(_) | Resolution::Ambiguous { .. }
            ) {
                return None;
            }
            Some((
                Renamable::Note(target),
                range(&link.target_span),
                index.note(target).stem().to_string(),
            ))
        }
        Some(At::Heading(h)) => {
            let heading = &note.headings[h];
            let text_range = heading_text_range(text, range(&heading.span))?;
            Some((
                Renamable::Heading(id, h),
                text_range,
                heading.text.to_string(),
            ))
        }
        Some(At::Block(b)) => {
            let block = &note.blocks[b];
            Some((
                Renamable::Block(id, b),
                block.span.start as usize + 1..block.span.end as usize,
                block.id.to_string(),
            ))
        }
        Some(At::Tag(t)) => {
            let tag = &note.tags[t];
            let span = tag.span.clone()?;
            let start = span.start as usize + usize::from(!tag.in_frontmatter);
            Some((
                Renamable::Tag(tag.name.to_string()),
                start..span.end as usize,
                tag.name.to_string(),
            ))
        }
        None => Some((Renamable::Note(id), offset..offset, note.stem().to_string())),
    }
}

pub(super) fn prepare_rename(
    world: &World,
    params: TextDocumentPositionParams,
) -> Option<PrepareRenameResponse> {
    let here = world.here(&params.text_document.uri, params.position)?;
    let (_, range, placeholder) = {
        let index = here.vault.read();
        renamable(&index, &here)?
    };
    Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: here.lines.range(range, world.encoding()),
        placeholder,
    })
}

/// The plan of `moves`, with the links it would send elsewhere pinned to
/// where they lead now, as the agent's `move_note` pins them.
fn keeping_links(
    index: &VaultIndex,
    moves: &[(String, String)],
    texts: &dyn TextSource,
) -> std::result::Result<Plan, rewrite::RewriteError> {
    let mut plan = move_files(index, moves, texts)?;
    let pins = captured_links(index, moves, &plan, texts);
    add_pins(&mut plan, pins.iter().filter(|p| p.verified));
    Ok(plan)
}

pub(super) fn rename(world: &World, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let position = params.text_document_position;
    let Some(here) = world.here(&position.text_document.uri, position.position) else {
        return Ok(None);
    };
    let texts = world.texts(&here.vault);
    let plan: std::result::Result<Plan, rewrite::RewriteError> = {
        let index = here.vault.read();
        let Some((what, _, _)) = renamable(&index, &here) else {
            return Err(Error::invalid_params("nothing to rename here"));
        };
        let new_name = params.new_name.as_str();
        match what {
            Renamable::Note(id) => {
                let old = index.note(id).path.to_string();
                note_path_for(folder_of(&old), new_name).and_then(|new| {
                    if new == old {
                        Ok(Plan::default())
                    } else {
                        keeping_links(&index, &[(old, new)], &texts)
                    }
                })
            }
            Renamable::Heading(id, h) => rewrite::rename_heading(&index, id, h, new_name, &texts),
            Renamable::Block(id, b) => rewrite::rename_block(&index, id, b, new_name, &texts),
            Renamable::Tag(tag) => rewrite::rename_tag(&index, &tag, new_name, &texts),
            Renamable::Property(key) => {
                let types = texts.text(OBSIDIAN_TYPES);
                let types = types.as_deref().map(|t| (OBSIDIAN_TYPES, t));
                weft_bases::rename::plan_key_rename(&index, &key, new_name, &texts, types)
            }
        }
    };
    let plan = plan.map_err(|e| Error::invalid_params(e.to_string()))?;
    if let Some(reason) = unsupported(&plan, world) {
        return Err(Error::invalid_params(reason));
    }
    Ok(Some(workspace_edit(world, &here.vault, &plan)))
}

/// Before the editor moves files or folders: the link edits that keep
/// every link to them working.
pub(super) fn will_rename_files(
    world: &World,
    params: RenameFilesParams,
) -> Result<Option<WorkspaceEdit>> {
    let mut per_vault: Vec<(Arc<Vault>, Moves)> = Vec::new();
    for file in &params.files {
        let (Ok(old), Ok(new)) = (file.old_uri.parse::<Uri>(), file.new_uri.parse::<Uri>()) else {
            continue;
        };
        let (Some(old), Some(new)) = (uri_to_path(&old), uri_to_path(&new)) else {
            continue;
        };
        let (Some(from), Some(to)) = (world.locate_path(&old), world.locate_path(&new)) else {
            continue;
        };
        if !Arc::ptr_eq(&from.vault, &to.vault) {
            continue;
        }
        let moves = {
            let index = from.vault.read();
            let is_note = is_note_path(&from.rel) && index.id_of(&from.rel).is_some();
            let is_attachment = index.attachments().any(|a| a == from.rel);
            if is_note || is_attachment {
                vec![(from.rel.clone(), to.rel.clone())]
            } else {
                folder_moves(&index, &from.rel, &to.rel)
            }
        };
        match per_vault
            .iter_mut()
            .find(|(v, _)| Arc::ptr_eq(v, &from.vault))
        {
            Some((_, all)) => all.extend(moves),
            None => per_vault.push((from.vault, moves)),
        }
    }
    let mut combined = WorkspaceEdit::default();
    for (vault, moves) in per_vault {
        if moves.is_empty() {
            continue;
        }
        let texts = world.texts(&vault);
        let plan = {
            let index = vault.read();
            keeping_links(&index, &moves, &texts)
        };
        let mut plan = match plan {
            Ok(plan) => plan,
            Err(error) => {
                tracing::warn!("links not rewritten for a move: {error}");
                continue;
            }
        };
        // The editor moves the files itself.
        plan.moves.clear();
        let edit = workspace_edit(world, &vault, &plan);
        merge(&mut combined, edit);
    }
    let empty = combined.changes.as_ref().is_none_or(|c| c.is_empty())
        && match &combined.document_changes {
            None => true,
            Some(DocumentChanges::Edits(e)) => e.is_empty(),
            Some(DocumentChanges::Operations(o)) => o.is_empty(),
        };
    Ok((!empty).then_some(combined))
}

fn merge(into: &mut WorkspaceEdit, edit: WorkspaceEdit) {
    if let Some(changes) = edit.changes {
        into.changes
            .get_or_insert_with(Default::default)
            .extend(changes);
    }
    if let Some(DocumentChanges::Operations(ops)) = edit.document_changes {
        match into
            .document_changes
            .get_or_insert(DocumentChanges::Operations(Vec::new()))
        {
            DocumentChanges::Operations(all) => all.extend(ops),
            DocumentChanges::Edits(_) => {}
        }
    }
}
