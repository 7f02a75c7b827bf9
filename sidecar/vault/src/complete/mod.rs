//! Completion in a note: what is being typed at a byte offset (a wikilink
//! target, a heading or block fragment, a tag, a Markdown link path, a
//! property's name or value in the frontmatter, a task's date), the
//! ranked candidates for it (ranked with [`crate::matcher`]), and daily-note
//! names (with [`crate::daily`]).
//!
//! Pure domain: byte offsets in, owned candidates out. No part of it may
//! know LSP (no positions, no completion items), the clock, the disk or the
//! configuration file: callers pass today's date, the daily-note settings
//! and ranking signals (backlink counts, recency) in, so that every face
//! completes alike.
//!
//! The parts: `context` reads what is typed from the text alone; `rank`
//! scores names and keeps the best; `notes`, `fragments`, `tags`,
//! `paths`, `props` and `dates` make the items, one file per kind of thing typed; `model` holds
//! what they share. This file only dispatches.

mod context;
mod dates;
mod fragments;
mod model;
mod notes;
mod paths;
mod props;
mod rank;
mod tags;

pub use context::{Context, LinkSlot, context};
pub use fragments::bounded;
#[cfg(test)]
pub(crate) use model::NoSignals;
pub use model::{Completions, DailySettings, Item, ItemKind, Request, Signals};

use crate::index::VaultIndex;
use crate::query::TextSource;

/// The candidates for `context`, ranked and capped.
pub fn complete(
    index: &VaultIndex,
    context: &Context,
    request: &Request<'_>,
    signals: &dyn Signals,
    texts: &dyn TextSource,
) -> Completions {
    match context {
        Context::Note { typed, link } => notes::notes(index, typed, link, request, signals),
        Context::Heading {
            target,
            scope,
            typed,
            link,
        } => fragments::headings(index, target, scope, typed, link, request),
        Context::Block {
            target,
            typed,
            link,
        } => fragments::blocks(index, target, typed, link, request, texts),
        Context::Tag { typed, replace } => tags::tags(index, typed, replace.clone(), request),
        Context::PropertyKey {
            typed,
            replace,
            colon,
        } => props::keys(index, typed, replace.clone(), *colon, request),
        Context::PropertyValue {
            key,
            typed,
            replace,
        } => props::values(index, key, typed, replace.clone(), request),
        Context::MarkdownPath {
            typed,
            replace,
            closed,
            angle,
            fragment_of,
        } => match fragment_of {
            Some(path) => {
                paths::markdown_headings(index, path, typed, replace.clone(), *closed, request)
            }
            None => paths::markdown_paths(
                index,
                typed,
                replace.clone(),
                *closed,
                *angle,
                request,
                signals,
            ),
        },
        Context::TaskDate {
            typed,
            replace,
            description,
            ..
        } => dates::task_dates(typed, replace.clone(), description, request),
    }
}
