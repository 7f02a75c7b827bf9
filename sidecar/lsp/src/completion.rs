//! `textDocument/completion`: finds what is being typed (domain), asks the
//! domain for ranked candidates, and turns them into completion items whose
//! edit replaces exactly the typed text.
//!
//! Ranking, contexts and daily-note names live in `vault::complete`; this
//! module must not rank or parse anything itself.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use super::vault::VaultSignals;
use super::world::World;
use weft_vault::complete::{self, Completions, DailySettings, ItemKind, Request};

/// At most this many items; the list is marked incomplete when more match,
/// so the client asks again as the user types.
pub(super) const LIMIT: usize = 50;

pub(super) fn completion(world: &World, params: CompletionParams) -> Option<CompletionResponse> {
    let position = params.text_document_position;
    let here = world.here(&position.text_document.uri, position.position)?;
    let context = complete::context(&here.text, here.offset)?;
    let config = here.vault.config();
    let daily = DailySettings {
        folder: config.daily.folder.clone(),
        format: config.daily.format.clone(),
        today: config.now().today(),
    };
    let tasks = config.task_settings();
    let ranks = here.vault.ranks();
    let signals = VaultSignals {
        vault: &here.vault,
        ranks: &ranks,
        now: std::time::SystemTime::now(),
    };
    let texts = world.texts(&here.vault);
    let names = here.vault.names();
    let completions = {
        let index = here.vault.read();
        let request = Request {
            path: &here.rel,
            note: index.id_of(&here.rel),
            daily: Some(&daily),
            limit: LIMIT,
            names: names.as_deref(),
            types: Some(&config.types),
            tasks: Some(&tasks),
        };
        complete::complete(&index, &context, &request, &signals, &texts)
    };
    Some(to_list(world, &here.lines, completions))
}

fn to_list(
    world: &World,
    lines: &Arc<super::convert::LineIndex>,
    completions: Completions,
) -> CompletionResponse {
    let range = lines.range(completions.replace.clone(), world.encoding());
    let items = completions
        .items
        .into_iter()
        .enumerate()
        .map(|(i, item)| CompletionItem {
            label: item.label,
            kind: Some(kind(item.kind)),
            detail: item.detail,
            documentation: item.documentation.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            sort_text: Some(format!("{i:04}")),
            filter_text: Some(item.filter),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range,
                new_text: item.insert,
            })),
            ..Default::default()
        })
        .collect();
    CompletionResponse::List(CompletionList {
        is_incomplete: completions.incomplete,
        items,
    })
}

fn kind(kind: ItemKind) -> CompletionItemKind {
    match kind {
        ItemKind::Note | ItemKind::Path => CompletionItemKind::FILE,
        ItemKind::Alias => CompletionItemKind::REFERENCE,
        ItemKind::Heading => CompletionItemKind::MODULE,
        ItemKind::Block => CompletionItemKind::CONSTANT,
        ItemKind::Tag => CompletionItemKind::KEYWORD,
        ItemKind::Unresolved => CompletionItemKind::FOLDER,
        ItemKind::Daily => CompletionItemKind::EVENT,
        ItemKind::Property => CompletionItemKind::PROPERTY,
        ItemKind::Value | ItemKind::Date => CompletionItemKind::VALUE,
    }
}
