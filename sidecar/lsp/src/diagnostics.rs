//! Diagnostics of open notes: unresolved links, ambiguous links (with the
//! candidates as related information), fragments naming no heading or
//! block, heading paths several headings fit (with the `ambiguous`
//! severity: like an ambiguous link, the link leads to a pick), and what
//! the parser reported (duplicate block ids, bad YAML), property values
//! that do not fit their type (`vault::props::mismatches`, warnings), and
//! on the lines that count as tasks, dates that are no calendar day and
//! recurrence rules that do not read (`vault::tasks::check`, warnings),
//! and the lines of ```` ```tasks ```` queries that do not read (errors).
//! Severities come from `[diagnostics]` in the configuration.
//!
//! Computed from the domain's problems of one note (`problems_of`), in the
//! one wording of every face (`vault::report`); this
//! module must not decide what is broken, only how to show it.

use std::hash::{Hash, Hasher};

use serde_json::json;
use tower_lsp_server::ls_types::*;

use super::world::{Doc, World};
use weft_vault::VaultIndex;
use weft_vault::headings::heading_path;
use weft_vault::props::mismatches;
use weft_vault::query::{Problem, problems_of};
use weft_vault::report::{message, mismatch};
use weft_vault::tasks::check::{self, ProblemKind};
use weft_vault::tasks::{DateKind, Tasks};
use weft_workspace::config::{Config, DiagnosticsConfig, Severity};

/// Diagnostic codes, also read by code actions.
pub(super) const UNRESOLVED: &str = "unresolved-link";
pub(super) const AMBIGUOUS: &str = "ambiguous-link";
pub(super) const BROKEN_FRAGMENT: &str = "broken-fragment";
pub(super) const AMBIGUOUS_FRAGMENT: &str = "ambiguous-fragment";
pub(super) const PARSE: &str = "note";
pub(super) const PROPERTY_TYPE: &str = "property-type";
pub(super) const TASK_DATE: &str = "task-date";
pub(super) const TASK_RECURRENCE: &str = "task-recurrence";

fn severity_of(severity: Severity) -> Option<DiagnosticSeverity> {
    match severity {
        Severity::Error => Some(DiagnosticSeverity::ERROR),
        Severity::Warning => Some(DiagnosticSeverity::WARNING),
        Severity::Information => Some(DiagnosticSeverity::INFORMATION),
        Severity::Hint => Some(DiagnosticSeverity::HINT),
        Severity::Off => None,
    }
}

/// The diagnostics of an open note; `None` while the index holds another
/// version of it (an edit on its way will ask again). The problems are the
/// domain's (`problems_of`), told in the one wording of every face
/// (`vault::report`).
pub(super) fn compute(world: &World, doc: &Doc) -> Option<Vec<Diagnostic>> {
    let vault_config = doc.vault.config();
    let config = &vault_config.diagnostics;
    let index = doc.vault.read();
    let id = index.id_of(&doc.rel)?;
    if index.note(id).content_hash != super::world::text_hash(&doc.text) {
        return None;
    }
    let mut out = Vec::new();
    let mut related_wanted: Vec<(usize, Vec<String>)> = Vec::new();
    for problem in problems_of(&index, id) {
        let Some(shown) = shown(&index, &problem, config) else {
            continue;
        };
        let range = match &problem {
            // Told below with the value's own span (`props::mismatches`).
            Problem::PropertyType { .. } => continue,
            Problem::Parse { note, index: i } => &index.note(*note).diagnostics[*i].span,
            Problem::UnresolvedLink { link }
            | Problem::AmbiguousLink { link, .. }
            | Problem::BrokenFragment { link, .. }
            | Problem::AmbiguousFragment { link, .. } => &index.link(*link).span,
        };
        if let (Problem::AmbiguousLink { .. }, Some(candidates)) = (&problem, &shown.candidates)
            && world.caps().related_information
        {
            related_wanted.push((out.len(), candidates.clone()));
        }
        let data = match &problem {
            Problem::Parse { .. } | Problem::PropertyType { .. } => None,
            Problem::UnresolvedLink { link } | Problem::BrokenFragment { link, .. } => {
                Some(json!({ "link": link.link }))
            }
            Problem::AmbiguousLink { link, .. } | Problem::AmbiguousFragment { link, .. } => {
                Some(json!({ "link": link.link, "candidates": shown.candidates }))
            }
        };
        out.push(Diagnostic {
            range: doc.lines.span(range, world.encoding()),
            severity: Some(shown.severity),
            code: Some(NumberOrString::String(shown.code.into())),
            source: Some("weft".into()),
            message: message(&index, &problem, &|_| true),
            data,
            ..Default::default()
        });
    }
    // Property values that do not fit their type.
    let types = &vault_config.types;
    let values = index.note(id).frontmatter.as_deref();
    let found = values.map(|v| mismatches(&doc.text, v, index.props(), types));
    for m in found.unwrap_or_default() {
        out.push(Diagnostic {
            range: doc.lines.range(m.span.clone(), world.encoding()),
            severity: Some(DiagnosticSeverity::WARNING),
            code: Some(NumberOrString::String(PROPERTY_TYPE.into())),
            source: Some("weft".into()),
            message: mismatch(&m),
            ..Default::default()
        });
    }
    task_problems(world, doc, &index.note(id).tasks, &vault_config, &mut out);
    out.extend(super::task_query::problems(
        &index,
        &doc.rel,
        &doc.text,
        &doc.lines,
        world.encoding(),
        &vault_config,
    ));
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

/// The problems of the tasks that count (the global filter): each field
/// that does not read, with the domain's wording.
fn task_problems(
    world: &World,
    doc: &Doc,
    tasks: &Tasks,
    config: &Config,
    out: &mut Vec<Diagnostic>,
) {
    let settings = config.task_settings();
    for task in tasks.iter() {
        let suspect = task.recurrence().is_some()
            || DateKind::ALL.iter().any(|&k| {
                let date = task.date(k);
                date.is_set() && !date.is_valid()
            });
        if !suspect || !settings.counts(task) {
            continue;
        }
        let start = task.span.start as usize;
        let Some(line) = doc.text.get(start..task.span.end as usize) else {
            continue;
        };
        for problem in check::problems(line) {
            let code = match problem.kind {
                ProblemKind::InvalidDate { .. } => TASK_DATE,
                ProblemKind::BadRule(_) => TASK_RECURRENCE,
            };
            let span = start + problem.span.start..start + problem.span.end;
            out.push(Diagnostic {
                range: doc.lines.range(span, world.encoding()),
                severity: Some(DiagnosticSeverity::WARNING),
                code: Some(NumberOrString::String(code.into())),
                source: Some("weft".into()),
                message: problem.to_string(),
                ..Default::default()
            });
        }
    }
}

/// How a problem is shown: its code, its configured severity (`None`
/// when that is `off`), and for an ambiguous link or heading path the
/// candidates code actions offer.
struct Shown {
    code: &'static str,
    severity: DiagnosticSeverity,
    candidates: Option<Vec<String>>,
}

fn shown(index: &VaultIndex, problem: &Problem, config: &DiagnosticsConfig) -> Option<Shown> {
    let (code, severity, candidates) = match problem {
        Problem::Parse { .. } => (PARSE, Severity::Warning, None),
        Problem::PropertyType { .. } => (PROPERTY_TYPE, Severity::Warning, None),
        Problem::UnresolvedLink { .. } => (UNRESOLVED, config.unresolved, None),
        Problem::AmbiguousLink { candidates, .. } => {
            let paths = candidates.iter().map(|c| index.note(*c).path.to_string());
            (AMBIGUOUS, config.ambiguous, Some(paths.collect()))
        }
        Problem::BrokenFragment { .. } => (BROKEN_FRAGMENT, config.broken_fragment, None),
        // A heading path several headings fit: reported like an ambiguous
        // link (the same severity), since it too leads to a pick.
        Problem::AmbiguousFragment {
            target, candidates, ..
        } => {
            let target = index.note(*target);
            let paths = candidates
                .iter()
                .map(|&h| format!("#{}", heading_path(target, h, "#")));
            (AMBIGUOUS_FRAGMENT, config.ambiguous, Some(paths.collect()))
        }
    };
    Some(Shown {
        code,
        severity: severity_of(severity)?,
        candidates,
    })
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
