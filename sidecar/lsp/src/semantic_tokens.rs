//! `textDocument/semanticTokens/full`: wikilinks and other links (resolved
//! or not), tags and block ids, so links are highlighted even though Zed's
//! Markdown grammar does not know wikilinks.
//!
//! The legend uses standard token types, so themes color them without
//! configuration: a resolved link is a `function`, an unresolved one a
//! `comment` (dimmed, as Obsidian shows them), a tag a `type`, a block id a
//! `property` (with the `declaration` modifier). This module must not
//! resolve anything itself.

use tower_lsp_server::ls_types::*;

use super::world::World;
use weft_vault::Resolution;

const RESOLVED_LINK: u32 = 0;
const UNRESOLVED_LINK: u32 = 1;
const TAG: u32 = 2;
const BLOCK_ID: u32 = 3;

pub(super) fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: vec![
            SemanticTokenType::FUNCTION,
            SemanticTokenType::COMMENT,
            SemanticTokenType::TYPE,
            SemanticTokenType::PROPERTY,
        ],
        token_modifiers: vec![SemanticTokenModifier::DECLARATION],
    }
}

pub(super) fn full(world: &World, params: SemanticTokensParams) -> Option<SemanticTokensResult> {
    let here = world.here(&params.text_document.uri, Position::default())?;
    let encoding = world.encoding();
    // (start, end, type, modifiers) in bytes.
    let mut spans: Vec<(u32, u32, u32, u32)> = {
        let index = here.vault.read();
        let id = index.id_of(&here.rel)?;
        let note = index.note(id);
        let mut spans = Vec::with_capacity(note.links.len() + note.tags.len());
        for link in &note.links {
            let kind = match index.resolve_link(id, link) {
                Resolution::Unresolved => UNRESOLVED_LINK,
                _ => RESOLVED_LINK,
            };
            spans.push((link.span.start, link.span.end, kind, 0));
        }
        for tag in &note.tags {
            if let Some(span) = &tag.span {
                spans.push((span.start, span.end, TAG, 0));
            }
        }
        for block in &note.blocks {
            spans.push((block.span.start, block.span.end, BLOCK_ID, 1));
        }
        spans
    };
    spans.sort_unstable();
    let mut data: Vec<SemanticToken> = Vec::with_capacity(spans.len());
    let (mut last_line, mut last_start) = (0u32, 0u32);
    let mut covered = 0u32;
    for (start, end, token_type, modifiers) in spans {
        if start < covered {
            continue; // Tokens may not overlap.
        }
        let from = here.lines.position(start as usize, encoding);
        let to = here.lines.position(end as usize, encoding);
        // A token spanning lines is cut at the end of its first line.
        let length = if to.line == from.line {
            to.character - from.character
        } else {
            let line_end = here.lines.line_start(from.line + 1).saturating_sub(1);
            here.lines.position(line_end, encoding).character - from.character
        };
        if length == 0 {
            continue;
        }
        let delta_line = from.line - last_line;
        let delta_start = if delta_line == 0 {
            from.character - last_start
        } else {
            from.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length,
            token_type,
            token_modifiers_bitset: modifiers,
        });
        last_line = from.line;
        last_start = from.character;
        covered = end;
    }
    Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data,
    }))
}
