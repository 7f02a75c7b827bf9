//! What completion takes and gives: the request (the note being edited,
//! the daily-note settings, a limit, a name table), the ranking signals the
//! caller supplies, and the candidates with the byte range they replace.
//!
//! Plain data shared by every part of completion. It must not know how
//! candidates are found or ranked, so that each part can use it without
//! importing another part's logic (and no part imports back).

use std::ops::Range;

use crate::daily::Date;
use crate::index::NoteId;
use crate::props::Types;
use crate::symbols::NameTable;
use crate::tasks::TaskSettings;

/// What a candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Note,
    /// A note reached through one of its aliases.
    Alias,
    Heading,
    Block,
    Tag,
    /// A target that notes link to but that does not exist yet.
    Unresolved,
    /// A daily note (today, yesterday, tomorrow).
    Daily,
    /// A note or attachment path in a Markdown link.
    Path,
    /// A property's name, in the frontmatter.
    Property,
    /// A property's value.
    Value,
    /// A task's date.
    Date,
}

/// One completion candidate, best first in [`Completions::items`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub label: String,
    pub kind: ItemKind,
    /// Replaces [`Completions::replace`].
    pub insert: String,
    /// What the typed text was matched against.
    pub filter: String,
    /// A short description (path, level, use count).
    pub detail: Option<String>,
    /// A longer preview (a block's text).
    pub documentation: Option<String>,
    pub note: Option<NoteId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completions {
    pub items: Vec<Item>,
    /// The byte range every item replaces.
    pub replace: Range<usize>,
    /// More candidates matched than were returned.
    pub incomplete: bool,
}

/// How linked and how recent notes are; supplied by the caller.
pub trait Signals: Sync {
    /// How many links resolve to the note (may be approximate).
    fn backlinks(&self, note: NoteId) -> u32;
    /// Days since the note last changed, when known. Called only for the
    /// best candidates, so it may do a little work.
    fn age_days(&self, note: NoteId, path: &str) -> Option<f64>;
    /// Targets that notes link to but that do not exist, with link counts.
    fn unresolved(&self) -> &[(String, u32)] {
        &[]
    }
}

/// No signals: rank by name only.
#[cfg(test)]
pub(crate) struct NoSignals;

#[cfg(test)]
impl Signals for NoSignals {
    fn backlinks(&self, _: NoteId) -> u32 {
        0
    }
    fn age_days(&self, _: NoteId, _: &str) -> Option<f64> {
        None
    }
}

/// Daily-note settings and today's date, for `[[today` (and the dates a
/// task's date field is offered).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailySettings {
    pub folder: String,
    pub format: String,
    pub today: Date,
}

/// Everything completion needs besides the index.
pub struct Request<'a> {
    /// The note being edited: its vault path, and its id once indexed.
    pub path: &'a str,
    pub note: Option<NoteId>,
    pub daily: Option<&'a DailySettings>,
    /// At most this many items.
    pub limit: usize,
    /// A name table of the index, maybe a little behind it: note names are
    /// scanned there (fast on large vaults) instead of in the index.
    pub names: Option<&'a NameTable>,
    /// The types `.obsidian/types.json` declares (none: inferred alone).
    pub types: Option<&'a Types>,
    /// How tasks are read (their global filter); none: every checklist
    /// line is a task.
    pub tasks: Option<&'a TaskSettings>,
}
