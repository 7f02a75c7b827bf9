//! `textDocument/references`: on a link, every link to the same target (to
//! the same heading or block when it has a fragment; for an unresolved
//! target, every link to that name); on a heading or block id, the links
//! to it; on a tag, every use of it and its sub-tags; anywhere else, the
//! note's backlinks.
//!
//! The backlinks and resolution are the domain's; this module picks which
//! question the cursor asks and turns link spans into locations.

use std::ops::Range;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use super::positions::{Known, Place};
use super::world::World;
use weft_vault::symbols::{At, at, tag_uses};
use weft_vault::{FragmentTarget, LinkRef, NoteId, Resolution, VaultIndex, resolve_fragment};

/// Places in notes, as `World::place_locations` takes them.
type Spans = Vec<Place<Arc<str>>>;

pub(super) fn references(world: &World, params: ReferenceParams) -> Option<Vec<Location>> {
    let position = params.text_document_position;
    let here = world.here(&position.text_document.uri, position.position)?;
    let with_declaration = params.context.include_declaration;
    let spans = {
        let index = here.vault.read();
        let id = index.id_of(&here.rel)?;
        let note = index.note(id);
        match at(note, here.offset as u32) {
            Some(At::Link(i)) => link_references(&index, id, i, with_declaration),
            Some(At::Heading(h)) => {
                let mut spans = fragment_references(&index, id, FragmentTarget::Heading(h));
                if with_declaration {
                    spans.insert(0, span_in(&index, id, note.headings[h].span.clone()));
                }
                spans
            }
            Some(At::Block(b)) => {
                let mut spans = fragment_references(&index, id, FragmentTarget::Block(b));
                if with_declaration {
                    spans.insert(0, span_in(&index, id, note.blocks[b].span.clone()));
                }
                spans
            }
            Some(At::Tag(t)) => tag_references(&index, &note.tags[t].name),
            None => {
                let mut spans = refs_to_spans(&index, &index.backlinks(id));
                if with_declaration {
                    spans.insert(0, span_in(&index, id, 0..0));
                }
                spans
            }
        }
    };
    Some(world.place_locations(&here.vault, &spans))
}

fn span_in(index: &VaultIndex, id: NoteId, span: Range<u32>) -> Place<Arc<str>> {
    let note = index.note(id);
    Place {
        path: Arc::from(&*note.path),
        span,
        hash: note.content_hash,
        known: None,
    }
}

/// The spans of links; refs from one note (adjacent, as the domain sorts
/// them) share one path.
fn refs_to_spans(index: &VaultIndex, refs: &[LinkRef]) -> Spans {
    let mut out: Spans = Vec::with_capacity(refs.len());
    let mut last: Option<(NoteId, Arc<str>)> = None;
    for r in refs {
        let note = index.note(r.source);
        let path = match &last {
            Some((id, path)) if *id == r.source => Arc::clone(path),
            _ => {
                let path: Arc<str> = Arc::from(&*note.path);
                last = Some((r.source, Arc::clone(&path)));
                path
            }
        };
        let link = &note.links[r.link as usize];
        out.push(Place {
            path,
            span: link.span.clone(),
            hash: note.content_hash,
            known: Known::of_link(link),
        });
    }
    out
}

fn link_references(
    index: &VaultIndex,
    source: NoteId,
    link: usize,
    with_declaration: bool,
) -> Spans {
    let note = index.note(source);
    let link = &note.links[link];
    match index.resolve_link(source, link) {
        Resolution::Note(target) | Resolution::Ambiguous { chosen: target, .. } => {
            let fragment = link
                .fragment()
                .map(|f| resolve_fragment(index.note(target), f));
            match fragment {
                Some(found @ (FragmentTarget::Heading(_) | FragmentTarget::Block(_))) => {
                    let mut spans = fragment_references(index, target, found);
                    if with_declaration {
                        let target_note = index.note(target);
                        let span = match found {
                            FragmentTarget::Heading(h) => target_note.headings[h].span.clone(),
                            FragmentTarget::Block(b) => target_note.blocks[b].span.clone(),
                            FragmentTarget::Missing => 0..0,
                        };
                        spans.insert(0, span_in(index, target, span));
                    }
                    spans
                }
                _ => {
                    let mut spans = refs_to_spans(index, &index.backlinks(target));
                    if with_declaration {
                        spans.insert(0, span_in(index, target, 0..0));
                    }
                    spans
                }
            }
        }
        Resolution::Unresolved => refs_to_spans(index, &index.unresolved_links_to(link.target())),
        Resolution::Attachment(path) => refs_to_spans(index, &index.attachment_backlinks(&path)),
    }
}

/// Links into `target` whose fragment names the same heading or block,
/// from other notes and from the note itself.
fn fragment_references(index: &VaultIndex, target: NoteId, wanted: FragmentTarget) -> Spans {
    let target_note = index.note(target);
    let mut refs: Vec<LinkRef> = index.backlinks(target);
    for (i, link) in target_note.links.iter().enumerate() {
        let to_self =
            link.is_self_link() || index.resolve_link(target, link).note() == Some(target);
        if to_self {
            refs.push(LinkRef {
                source: target,
                link: i as u32,
            });
        }
    }
    refs.sort();
    refs.dedup();
    refs.retain(|r| {
        index
            .link(*r)
            .fragment()
            .is_some_and(|f| resolve_fragment(target_note, f) == wanted)
    });
    let mut spans = refs_to_spans(index, &refs);
    spans.sort_by(|a, b| a.path.cmp(&b.path).then(a.span.start.cmp(&b.span.start)));
    spans
}

fn tag_references(index: &VaultIndex, tag: &str) -> Spans {
    tag_uses(index, tag)
        .into_iter()
        .filter_map(|(id, t)| {
            let tag = &index.note(id).tags[t];
            let mut place = span_in(index, id, tag.span.clone()?);
            place.known = Known::of_tag(tag);
            Some(place)
        })
        .collect()
}
