//! Diagnostics of open notes: unresolved links, ambiguous links (with the
//! candidates as related information), fragments naming no heading or
//! block, heading paths several headings fit (with the `ambiguous`
//! severity: like an ambiguous link, the link leads to a pick), and what
//! the parser reported (duplicate block ids, bad YAML). Severities come
//! from `[diagnostics]` in the configuration.
//!
//! Computed from the domain's `outgoing` resolution of one note; this
//! module must not decide what is broken, only how to show it.

use std::hash::{Hash, Hasher};

use serde_json::json;
use tower_lsp_server::ls_types::*;

use super::world::{Doc, World};
use weft_vault::headings::heading_path;
use weft_vault::query::outgoing;
use weft_vault::{FragmentTarget, Resolution};
use weft_workspace::config::Severity;

/// Diagnostic codes, also read by code actions.
pub(super) const UNRESOLVED: &str = "unresolved-link";
pub(super) const AMBIGUOUS: &str = "ambiguous-link";
pub(super) const BROKEN_FRAGMENT: &str = "broken-fragment";
pub(super) const AMBIGUOUS_FRAGMENT: &str = "ambiguous-fragment";
pub(super) const PARSE: &str = "note";

fn severity(severity: Severity) -> Option<DiagnosticSeverity> {
    match severity {
        Severity::Error => Some(DiagnosticSeverity::ERROR),
        Severity::Warning => Some(DiagnosticSeverity::WARNING),
        Severity::Information => Some(DiagnosticSeverity::INFORMATION),
        Severity::Hint => Some(DiagnosticSeverity::HINT),
        Severity::Off => None,
    }
}

/// The diagnostics of an open note; `None` while the index holds another
/// version of it (an edit on its way will ask again).
pub(super) fn compute(world: &World, doc: &Doc) -> Option<Vec<Diagnostic>> {
    let encoding = world.encoding();
    let config = doc.vault.config().diagnostics;
    let index = doc.vault.read();
    let id = index.id_of(&doc.rel)?;
    let note = index.note(id);
    if note.content_hash != super::world::text_hash(&doc.text) {
        return None;
    }
    let lines = &doc.lines;
    let mut out = Vec::new();
    for d in &note.diagnostics {
        out.push(Diagnostic {
            range: lines.span(&d.span, encoding),
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String(PARSE.into())),
            source: Some("weft".into()),
            message: d.message.to_string(),
            ..Default::default()
        });
    }
    let mut related_wanted: Vec<(usize, Vec<String>)> = Vec::new();
    for out_link in outgoing(&index, id) {
        let link = &note.links[out_link.link as usize];
        let range = lines.span(&link.span, encoding);
        let shown = if link.is_self_link() {
            "this note".to_string()
        } else {
            format!("`{}`", link.target())
        };
        match &out_link.resolution {
            Resolution::Unresolved => {
                if let Some(severity) = severity(config.unresolved) {
                    out.push(Diagnostic {
                        range,
                        severity: Some(severity),
                        code: Some(NumberOrString::String(UNRESOLVED.into())),
                        source: Some("weft".into()),
                        message: format!("unresolved link: no note or file named {shown}"),
                        data: Some(json!({ "link": out_link.link })),
                        ..Default::default()
                    });
                }
            }
            Resolution::Ambiguous { chosen, candidates } => {
                if let Some(severity) = severity(config.ambiguous) {
                    let paths: Vec<String> = candidates
                        .iter()
                        .map(|c| index.note(*c).path.to_string())
                        .collect();
                    out.push(Diagnostic {
                        range,
                        severity: Some(severity),
                        code: Some(NumberOrString::String(AMBIGUOUS.into())),
                        source: Some("weft".into()),
                        message: format!(
                            "ambiguous link: {shown} matches {} notes ({}); it leads to {}",
                            candidates.len(),
                            paths.join(", "),
                            index.note(*chosen).path
                        ),
                        data: Some(json!({ "link": out_link.link, "candidates": paths })),
                        ..Default::default()
                    });
                    if world.caps().related_information {
                        related_wanted.push((out.len() - 1, paths));
                    }
                }
            }
            Resolution::Note(_) | Resolution::Attachment(_) => {}
        }
        if let (Some(FragmentTarget::Missing), Some(target)) =
            (out_link.fragment, out_link.resolution.note())
            && let Some(severity) = severity(config.broken_fragment)
        {
            let fragment = link.fragment().unwrap_or_default();
            let target = &index.note(target).path;
            let message = match fragment.strip_prefix('^') {
                Some(block) => format!("no block ^{block} in {target}"),
                None => format!("no heading `{fragment}` in {target}"),
            };
            out.push(Diagnostic {
                range,
                severity: Some(severity),
                code: Some(NumberOrString::String(BROKEN_FRAGMENT.into())),
                source: Some("weft".into()),
                message,
                data: Some(json!({ "link": out_link.link })),
                ..Default::default()
            });
        }
        // A heading path several headings fit: reported like an ambiguous
        // link (the same severity), since it too leads to a pick.
        if !out_link.fragment_candidates.is_empty()
            && let Some(target) = out_link.resolution.note()
            && let Some(severity) = severity(config.ambiguous)
        {
            let fragment = link.fragment().unwrap_or_default();
            let target = index.note(target);
            let paths: Vec<String> = out_link
                .fragment_candidates
                .iter()
                .map(|&h| format!("#{}", heading_path(target, h, "#")))
                .collect();
            let places: Vec<String> = out_link
                .fragment_candidates
                .iter()
                .zip(&paths)
                .map(|(&h, p)| format!("`{p}` (line {})", target.headings[h].line + 1))
                .collect();
            out.push(Diagnostic {
                range,
                severity: Some(severity),
                code: Some(NumberOrString::String(AMBIGUOUS_FRAGMENT.into())),
                source: Some("weft".into()),
                message: format!(
                    "ambiguous heading: `#{fragment}` fits {} headings in {}: {}; it leads to the first. Write the full path",
                    paths.len(),
                    target.path,
                    places.join(", ")
                ),
                data: Some(json!({ "link": out_link.link, "candidates": paths })),
                ..Default::default()
            });
        }
    }
    drop(index);
    // The candidates of ambiguous links, as places to go.
    for (i, paths) in related_wanted {
        let related = paths
            .iter()
            .filter_map(|path| {
                Some(DiagnosticRelatedInformation {
                    location: Location::new(world.doc_uri(&doc.vault, path)?, Range::default()),
                    message: format!("candidate: {path}"),
                })
            })
            .collect();
        out[i].related_information = Some(related);
    }
    Some(out)
}

/// Publishes the diagnostics of every open note whose diagnostics changed.
pub(super) async fn publish_all(world: &World) {
    let docs: Vec<Doc> = world.docs.iter().map(|d| d.value().clone()).collect();
    for doc in docs {
        let Some(diagnostics) = compute(world, &doc) else {
            continue;
        };
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        format!("{diagnostics:?}").hash(&mut hasher);
        let hash = hasher.finish();
        let abs = doc.vault.abs(&doc.rel);
        if world.published.get(&abs).is_some_and(|h| *h == hash) {
            continue;
        }
        world.published.insert(abs, hash);
        world
            .client
            .publish_diagnostics(doc.uri.clone(), diagnostics, Some(doc.version))
            .await;
    }
}
