//! `textDocument/documentSymbol` (the heading tree of a note) and
//! `workspace/symbol` (notes, headings, aliases and tags matching a query
//! fuzzily, capped).
//!
//! The tree and the search are the domain's (`vault::symbols`); this
//! module converts them into symbols with locations.

use tower_lsp_server::ls_types::*;

use super::convert::{Encoding, LineIndex};
use super::world::World;
use weft_vault::Note;
use weft_vault::symbols::{HeadingNode, SymbolKind as Kind, heading_tree, search, search_in};

/// At most this many workspace symbols.
pub(super) const WORKSPACE_LIMIT: usize = 128;

pub(super) fn document_symbols(
    world: &World,
    params: DocumentSymbolParams,
) -> Option<DocumentSymbolResponse> {
    let here = world.here(&params.text_document.uri, Position::default())?;
    let encoding = world.encoding();
    let index = here.vault.read();
    let note = index.note(index.id_of(&here.rel)?);
    let symbols = heading_tree(note)
        .iter()
        .map(|node| heading_symbol(note, node, &here.lines, encoding))
        .collect();
    Some(DocumentSymbolResponse::Nested(symbols))
}

#[allow(deprecated)] // `deprecated` is a required field of the struct.
fn heading_symbol(
    note: &Note,
    node: &HeadingNode,
    lines: &LineIndex,
    encoding: Encoding,
) -> DocumentSymbol {
    let heading = &note.headings[node.heading];
    let children: Vec<DocumentSymbol> = node
        .children
        .iter()
        .map(|child| heading_symbol(note, child, lines, encoding))
        .collect();
    DocumentSymbol {
        name: if heading.text.is_empty() {
            "(empty heading)".into()
        } else {
            heading.text.to_string()
        },
        detail: Some("#".repeat(heading.level as usize)),
        kind: SymbolKind::STRING,
        tags: None,
        deprecated: None,
        range: lines.span(&note.section_span(node.heading), encoding),
        selection_range: lines.span(&heading.span, encoding),
        children: (!children.is_empty()).then_some(children),
    }
}

#[allow(deprecated)] // `deprecated` is a required field of the struct.
pub(super) fn workspace_symbols(
    world: &World,
    params: WorkspaceSymbolParams,
) -> Option<WorkspaceSymbolResponse> {
    let mut out: Vec<SymbolInformation> = Vec::new();
    for vault in world.vaults() {
        // (name, kind, container, note path, span, hash)
        let found: Vec<(String, SymbolKind, String, std::ops::Range<u32>, u64)> = {
            let table = vault.symbol_table();
            let index = vault.read();
            let (symbols, _) = match table.as_deref() {
                Some(table) => search_in(&index, &params.query, WORKSPACE_LIMIT, table),
                None => search(&index, &params.query, WORKSPACE_LIMIT),
            };
            symbols
                .into_iter()
                .filter_map(|s| {
                    let note = index.note(s.note?);
                    let (kind, span) = match s.kind {
                        Kind::Note => (SymbolKind::FILE, 0..0),
                        Kind::Alias => (SymbolKind::CONSTANT, 0..0),
                        Kind::Heading => {
                            (SymbolKind::STRING, note.headings[s.heading?].span.clone())
                        }
                        Kind::Tag => {
                            let tag = s.name.trim_start_matches('#');
                            let span = note
                                .tags
                                .iter()
                                .find(|t| {
                                    weft_vault::tags::key(&t.name) == weft_vault::tags::key(tag)
                                })
                                .and_then(|t| t.span.clone())
                                .unwrap_or(0..0);
                            (SymbolKind::KEY, span)
                        }
                    };
                    Some((s.name, kind, note.path.to_string(), span, note.content_hash))
                })
                .collect()
        };
        let spans: Vec<(String, std::ops::Range<u32>, u64)> = found
            .iter()
            .map(|(_, _, path, span, hash)| (path.clone(), span.clone(), *hash))
            .collect();
        let locations = world.locations(&vault, &spans);
        // One per symbol, in order: a note that cannot be read is skipped.
        for ((name, kind, path, _, _), location) in found.into_iter().zip(locations) {
            let Some(location) = location else {
                continue;
            };
            out.push(SymbolInformation {
                name,
                kind,
                tags: None,
                deprecated: None,
                location,
                container_name: Some(path),
            });
        }
    }
    out.truncate(WORKSPACE_LIMIT);
    Some(WorkspaceSymbolResponse::Flat(out))
}
