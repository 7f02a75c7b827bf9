//! Turns the domain's rewrite plans (byte edits per note, file moves) and
//! single byte edits into LSP workspace edits, in the shape the client said
//! it accepts.
//!
//! It must not decide what to edit; it only converts positions and names.

use std::collections::HashMap;

use tower_lsp_server::ls_types::*;

use super::convert::LineIndex;
use super::vault::Vault;
use super::world::World;
use weft_vault::rewrite::Plan;

/// Why a plan cannot be sent to this client.
pub(super) fn unsupported(plan: &Plan, world: &World) -> Option<&'static str> {
    let caps = world.caps();
    if !plan.moves.is_empty() && (!caps.document_changes || !caps.rename_files) {
        return Some("this editor cannot rename files through the language server");
    }
    None
}

/// The workspace edit of `plan`: text edits first (on the files as they
/// are), then the moves. Open buffers are named by their URI and version.
pub(super) fn workspace_edit(world: &World, vault: &Vault, plan: &Plan) -> WorkspaceEdit {
    let encoding = world.encoding();
    let caps = world.caps();
    let mut document_edits: Vec<TextDocumentEdit> = Vec::new();
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for file in &plan.edits {
        let Some(uri) = world.doc_uri(vault, &file.path) else {
            continue;
        };
        let lines = LineIndex::new(&file.text);
        let edits: Vec<TextEdit> = file
            .edits
            .iter()
            .map(|e| TextEdit::new(lines.range(e.range.clone(), encoding), e.new_text.clone()))
            .collect();
        let version = world
            .docs
            .get(&vault.abs(&file.path))
            .filter(|d| *d.text == file.text)
            .map(|d| d.version);
        if caps.document_changes {
            document_edits.push(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                edits: edits.into_iter().map(OneOf::Left).collect(),
            });
        } else {
            changes.insert(uri, edits);
        }
    }
    if !caps.document_changes {
        return WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        };
    }
    let mut operations: Vec<DocumentChangeOperation> = document_edits
        .into_iter()
        .map(DocumentChangeOperation::Edit)
        .collect();
    for (old, new) in &plan.moves {
        let (Some(old_uri), Some(new_uri)) = (world.doc_uri(vault, old), vault.uri(new)) else {
            continue;
        };
        operations.push(DocumentChangeOperation::Op(ResourceOp::Rename(
            RenameFile {
                old_uri,
                new_uri,
                options: Some(RenameFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(false),
                }),
                annotation_id: None,
            },
        )));
    }
    WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(operations)),
        ..Default::default()
    }
}

/// The workspace edit of `edits` to one note (`uri`), its open buffer
/// named by its version.
pub(super) fn text_edit(
    world: &World,
    vault: &Vault,
    path: &str,
    uri: Uri,
    edits: Vec<TextEdit>,
) -> WorkspaceEdit {
    if !world.caps().document_changes {
        return WorkspaceEdit {
            changes: Some([(uri, edits)].into_iter().collect()),
            ..Default::default()
        };
    }
    let version = world.docs.get(&vault.abs(path)).map(|d| d.version);
    WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
            edits: edits.into_iter().map(OneOf::Left).collect(),
        }])),
        ..Default::default()
    }
}

/// `with` over `range` of `text`, less what they share at either end: the
/// smallest replacement that makes the same text, on character boundaries
/// (so an editor's cursors and marks outside the change stay put).
pub(super) fn narrowed(
    text: &str,
    range: std::ops::Range<usize>,
    with: &str,
) -> (std::ops::Range<usize>, String) {
    let Some(old) = text.get(range.clone()) else {
        return (range, with.to_string());
    };
    let prefix: usize = old
        .chars()
        .zip(with.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let (old_rest, new_rest) = (&old[prefix..], &with[prefix..]);
    let suffix: usize = old_rest
        .chars()
        .rev()
        .zip(new_rest.chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    (
        range.start + prefix..range.end - suffix,
        new_rest[..new_rest.len() - suffix].to_string(),
    )
}
