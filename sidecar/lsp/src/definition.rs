//! `textDocument/definition`: from any link form (wikilink, embed, Markdown
//! link, frontmatter property) to the note, heading or block it names;
//! every candidate of an ambiguous link or of an ambiguous heading path.
//!
//! Resolution is the domain's; this module only picks the span to show.

use tower_lsp_server::ls_types::*;

use super::world::World;
use weft_vault::symbols::{At, at};
use weft_vault::{
    FragmentLookup, FragmentTarget, Link, NoteId, Resolution, VaultIndex, lookup_fragment,
};

/// Where a link leads: a span in a note, or a file that is not a note.
pub(super) enum Target {
    Note {
        path: String,
        span: std::ops::Range<u32>,
        hash: u64,
    },
    File(String),
}

/// The places `link` (in note `source`) leads to: one, or every candidate
/// of an ambiguous link or heading path; none when unresolved.
pub(super) fn link_targets(index: &VaultIndex, source: NoteId, link: &Link) -> Vec<Target> {
    let notes = match index.resolve_link(source, link) {
        Resolution::Note(id) => vec![id],
        Resolution::Ambiguous { candidates, .. } => candidates,
        Resolution::Attachment(path) => return vec![Target::File(path.to_string())],
        Resolution::Unresolved => return Vec::new(),
    };
    let mut out = Vec::new();
    for id in notes {
        let note = index.note(id);
        let mut place = |span| {
            out.push(Target::Note {
                path: note.path.to_string(),
                span,
                hash: note.content_hash,
            })
        };
        match link.fragment().map(|f| lookup_fragment(note, f)) {
            // Every heading an ambiguous heading path fits.
            Some(FragmentLookup { ambiguous, .. }) if !ambiguous.is_empty() => {
                for h in ambiguous {
                    place(note.headings[h].span.clone());
                }
            }
            Some(FragmentLookup {
                target: FragmentTarget::Heading(h),
                ..
            }) => place(note.headings[h].span.clone()),
            Some(FragmentLookup {
                target: FragmentTarget::Block(b),
                ..
            }) => place(note.blocks[b].block_span.clone()),
            _ => place(0..0),
        }
    }
    out
}

pub(super) fn goto_definition(
    world: &World,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let position = params.text_document_position_params;
    let here = world.here(&position.text_document.uri, position.position)?;
    let targets = {
        let index = here.vault.read();
        let id = index.id_of(&here.rel)?;
        let note = index.note(id);
        let Some(At::Link(i)) = at(note, here.offset as u32) else {
            return None;
        };
        link_targets(&index, id, &note.links[i])
    };
    let mut locations = Vec::new();
    let mut spans = Vec::new();
    for target in targets {
        match target {
            Target::Note {
                path, span, hash, ..
            } => spans.push((path, span, hash)),
            Target::File(path) => {
                locations.push(Location::new(here.vault.uri(&path)?, Range::default()))
            }
        }
    }
    locations.splice(
        0..0,
        world.locations(&here.vault, &spans).into_iter().flatten(),
    );
    match locations.len() {
        0 => None,
        1 => locations.pop().map(GotoDefinitionResponse::Scalar),
        _ => Some(GotoDefinitionResponse::Array(locations)),
    }
}
