//! THE note filter: which notes a folder, tag, property, link, date, name
//! or size selects, and and/or/not of those — answered here once, on the
//! index alone, for every tool, mode and face (the full-text engine
//! compiles the same expression; what it cannot answer it asks here).
//!
//! Layout: `folder` (a folder as written → its key and boundary), `value`
//! (a property's value typed, and how values compare: the one place
//! typing lives); this file the expression and its evaluation.
//!
//! No IO, no protocol: what the index does not hold of a note's file (its
//! times) the caller passes in a [`FileMeta`].

mod folder;
mod value;

use std::cmp::Ordering;
use std::collections::BTreeSet;

pub use folder::{Folder, FolderError};
pub use value::{Place, Value, compare, contains, equals};

use crate::key::name_key;
use crate::note::{Note, folder_of};
use crate::{NoteId, VaultIndex};

/// How deep a filter may nest (and within or not); a deeper one is refused
/// when it is checked ([`Filter::check`]), so evaluating never recurses
/// without bound.
pub const MAX_DEPTH: usize = 64;

/// Which notes qualify.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Every note.
    All,
    /// Every one of these.
    And(Vec<Filter>),
    /// At least one of these.
    Or(Vec<Filter>),
    Not(Box<Filter>),
    /// In this folder, at any depth (or the note it names).
    Folder(Folder),
    /// Tagged with this tag or one nested under it (`project` takes
    /// `project/weft`), in the body or the frontmatter.
    Tag(Box<str>),
    /// A test of the property with this key (keys compare as names do).
    Property(Box<str>, Test),
    /// Has a link that leads to this note.
    LinksTo(NoteId),
    /// This note has a link that leads here.
    LinkedFrom(NoteId),
    /// Its file was modified in this range.
    Modified(TimeRange),
    /// Its file was created in this range.
    Created(TimeRange),
    /// Its file name, without the extension, is this (as names compare).
    Name(Box<str>),
    /// Its text is this many bytes long, within the range.
    Size(SizeRange),
    /// Exactly these notes (vault paths as indexed; `within` a set the
    /// caller computed, such as another query's answer).
    Paths(BTreeSet<Box<str>>),
}

/// A property test.
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// The note has the property (with or without a value).
    Exists,
    /// Its value, or one of its list's items, equals this.
    Equals(Value),
    /// Its value, or one of its list's items, orders so against this
    /// (values of another kind never qualify).
    Compare(Cmp, Value),
    /// Its list has this item, or its text has this inside.
    Contains(Value),
}

/// A comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Cmp {
    fn holds(self, order: Ordering) -> bool {
        match self {
            Cmp::Less => order.is_lt(),
            Cmp::LessOrEqual => order.is_le(),
            Cmp::Greater => order.is_gt(),
            Cmp::GreaterOrEqual => order.is_ge(),
        }
    }
}

/// Unix seconds: at or after `from`, before `to`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub from: Option<i64>,
    pub to: Option<i64>,
}

impl TimeRange {
    fn holds(&self, at: i64) -> bool {
        self.from.is_none_or(|from| at >= from) && self.to.is_none_or(|to| at < to)
    }
}

/// Bytes: at least `min`, at most `max`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SizeRange {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// What the index does not hold of a note's file: its times (Unix
/// seconds), when known. A time filter passes over a note whose time is
/// not known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileMeta {
    pub modified: Option<i64>,
    pub created: Option<i64>,
}

/// Which of a file's times a filter asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimesRead {
    pub modified: bool,
    pub created: bool,
}

/// Why a filter cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterError {
    /// It nests deeper than [`MAX_DEPTH`].
    TooDeep,
    Folder(FolderError),
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterError::TooDeep => write!(
                f,
                "the filter nests more than {MAX_DEPTH} levels of and/or/not; write it flatter"
            ),
            FilterError::Folder(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FilterError {}

impl From<FolderError> for FilterError {
    fn from(e: FolderError) -> Self {
        FilterError::Folder(e)
    }
}

impl Filter {
    /// Every one of `filters` (`All` for none, the one itself for one).
    pub fn all_of(mut filters: Vec<Filter>) -> Filter {
        filters.retain(|f| *f != Filter::All);
        match filters.len() {
            0 => Filter::All,
            1 => filters.pop().expect("one filter"),
            _ => Filter::And(filters),
        }
    }

    /// At least one of `filters` (a filter nothing passes for none).
    pub fn any_of(mut filters: Vec<Filter>) -> Filter {
        match filters.len() {
            0 => Filter::Not(Box::new(Filter::All)),
            1 => filters.pop().expect("one filter"),
            _ => Filter::Or(filters),
        }
    }

    /// The filter of a property `key` equal to any of `values`, or present
    /// when there are none (how tools take `{"status": ["draft", "idea"]}`).
    pub fn property_in(key: &str, values: &[Value]) -> Filter {
        if values.is_empty() {
            return Filter::Property(key.into(), Test::Exists);
        }
        Filter::any_of(
            values
                .iter()
                .map(|v| Filter::Property(key.into(), Test::Equals(v.clone())))
                .collect(),
        )
    }

    /// Refuses a filter nested deeper than [`MAX_DEPTH`].
    pub fn check(&self) -> Result<(), FilterError> {
        let mut stack = vec![(self, 0usize)];
        while let Some((filter, depth)) = stack.pop() {
            if depth > MAX_DEPTH {
                return Err(FilterError::TooDeep);
            }
            match filter {
                Filter::And(all) | Filter::Or(all) => {
                    stack.extend(all.iter().map(|f| (f, depth + 1)));
                }
                Filter::Not(inner) => stack.push((inner, depth + 1)),
                _ => {}
            }
        }
        Ok(())
    }

    /// Which of a file's times it asks for (the caller's [`FileMeta`]):
    /// a caller reads only those (a creation time may cost a `stat`).
    pub fn reads_file_times(&self) -> TimesRead {
        let mut read = TimesRead::default();
        let mut stack = vec![self];
        while let Some(filter) = stack.pop() {
            match filter {
                Filter::Modified(_) => read.modified = true,
                Filter::Created(_) => read.created = true,
                Filter::And(all) | Filter::Or(all) => stack.extend(all),
                Filter::Not(inner) => stack.push(inner),
                _ => {}
            }
        }
        read
    }

    /// Whether it passes every note (nothing to check).
    pub fn is_all(&self) -> bool {
        match self {
            Filter::All => true,
            Filter::And(all) => all.iter().all(Filter::is_all),
            Filter::Folder(folder) => folder.is_root(),
            _ => false,
        }
    }

    /// Whether the note `id` of `index` qualifies; `file` is what the caller
    /// knows of its file. Nesting is bounded by [`Filter::check`] (a filter
    /// deeper than [`MAX_DEPTH`] is not evaluated past it: it fails).
    pub fn matches(&self, index: &VaultIndex, id: NoteId, file: &FileMeta) -> bool {
        self.matches_at(index, id, index.note(id), file, 0)
    }

    fn matches_at(
        &self,
        index: &VaultIndex,
        id: NoteId,
        note: &Note,
        file: &FileMeta,
        depth: usize,
    ) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let inner = |f: &Filter| f.matches_at(index, id, note, file, depth + 1);
        match self {
            Filter::All => true,
            Filter::And(all) => all.iter().all(inner),
            Filter::Or(any) => any.iter().any(inner),
            Filter::Not(one) => !inner(one),
            Filter::Folder(folder) => folder.contains(&note.path),
            Filter::Tag(tag) => note.tags.iter().any(|t| crate::tags::matches(tag, &t.name)),
            Filter::Property(key, test) => property_passes(index, note, key, test),
            Filter::LinksTo(target) => note
                .links
                .iter()
                .any(|link| index.resolve_link(id, link).note() == Some(*target)),
            Filter::LinkedFrom(source) => index.get(*source).is_some_and(|from| {
                from.links
                    .iter()
                    .any(|link| index.resolve_link(*source, link).note() == Some(id))
            }),
            Filter::Modified(range) => file.modified.is_some_and(|t| range.holds(t)),
            Filter::Created(range) => file.created.is_some_and(|t| range.holds(t)),
            Filter::Name(name) => name_key(note.stem()) == name_key(name),
            Filter::Size(range) => {
                let len = u64::from(note.len);
                range.min.is_none_or(|min| len >= min) && range.max.is_none_or(|max| len <= max)
            }
            Filter::Paths(paths) => paths.contains(&*note.path),
        }
    }
}

/// Whether `note`'s property `key` passes `test`.
fn property_passes(index: &VaultIndex, note: &Note, key: &str, test: &Test) -> bool {
    let Some(found) = note.frontmatter.as_ref().and_then(|properties| {
        properties
            .iter()
            .find(|(k, _)| crate::key::same_name(k, key))
            .map(|(_, v)| v)
    }) else {
        return false;
    };
    if *test == Test::Exists {
        return true;
    }
    // Typed as the vault declares the key (the caller typed `test`'s
    // value so: `Value::of_text_as`).
    let have = Value::of_json_as(found, index.types().fixed(key));
    let place = Place {
        index,
        folder: folder_of(&note.path),
    };
    match test {
        Test::Exists => true, // answered above, without typing the value
        Test::Equals(want) => have.items().iter().any(|item| equals(item, want, place)),
        Test::Compare(cmp, want) => have
            .items()
            .iter()
            .any(|item| compare(item, want).is_some_and(|order| cmp.holds(order))),
        Test::Contains(want) => contains(&have, want, place),
    }
}

/// The notes of `index` that pass `filter`, in path order; `file` tells
/// each note's file times.
pub fn select(
    index: &VaultIndex,
    filter: &Filter,
    file: impl Fn(&Note) -> FileMeta,
) -> Vec<NoteId> {
    let mut out: Vec<NoteId> = index
        .notes()
        .filter(|(id, note)| filter.matches(index, *id, &file(note)))
        .map(|(id, _)| id)
        .collect();
    out.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
    out
}
