//! `textDocument/documentLink`: every link of a note that leads somewhere
//! (a note or a file), as a clickable range with its target's URI.
//!
//! Resolution is the domain's; this module only names targets.

use tower_lsp_server::ls_types::*;

use super::definition::{Target, link_targets};
use super::world::World;

pub(super) fn document_links(
    world: &World,
    params: DocumentLinkParams,
) -> Option<Vec<DocumentLink>> {
    let here = world.here(&params.text_document.uri, Position::default())?;
    let encoding = world.encoding();
    let found: Vec<(std::ops::Range<u32>, String, Option<String>)> = {
        let index = here.vault.read();
        let id = index.id_of(&here.rel)?;
        let note = index.note(id);
        note.links
            .iter()
            .filter_map(|link| {
                let path = match link_targets(&index, id, link).into_iter().next()? {
                    Target::Note { path, .. } => path,
                    Target::File(path) => path,
                };
                Some((link.span.clone(), path, link.fragment().map(str::to_string)))
            })
            .collect()
    };
    Some(
        found
            .into_iter()
            .filter_map(|(span, path, fragment)| {
                Some(DocumentLink {
                    range: here.lines.span(&span, encoding),
                    target: Some(here.vault.uri(&path)?),
                    tooltip: Some(match fragment {
                        Some(f) => format!("{path}#{f}"),
                        None => path,
                    }),
                    data: None,
                })
            })
            .collect(),
    )
}
