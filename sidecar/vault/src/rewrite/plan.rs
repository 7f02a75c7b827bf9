//! What a rename changes, as data: byte edits per note and file moves (a
//! [`Plan`]), why a rename cannot be done, and the collector every rename
//! fills, which reads and parses each affected note once from the text the
//! caller supplies.
//!
//! It must not know which rename it serves (moves, headings, blocks, tags):
//! each lives in its own file and only adds edits here, so the rules that
//! make a plan safe to apply (edits sorted, never overlapping, no-ops
//! dropped, every link, tag and heading left standing) are written once.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;

use rayon::prelude::*;

use crate::frontmatter;
use crate::index::VaultIndex;
use crate::lines::line_of;
use crate::note::{Link, Note};
use crate::parse::{Body, parse_body, parse_text};
use crate::query::{TextSource, indexed_parse};

/// Replace the bytes `range` of a note's text by `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// The edits to one note, against `text` (the text they were computed on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    /// The note's vault path before any move of the plan.
    pub path: String,
    pub text: String,
    /// Sorted by start, never overlapping.
    pub edits: Vec<Edit>,
}

impl FileEdits {
    /// The text with the edits applied.
    pub fn apply(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for edit in &self.edits {
            out.push_str(&self.text[at..edit.range.start]);
            out.push_str(&edit.new_text);
            at = edit.range.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// What a rename changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Text edits, by note path. Apply them before the moves.
    pub edits: Vec<FileEdits>,
    /// Files to move: (old vault path, new vault path).
    pub moves: Vec<(String, String)>,
    /// Uses that could not be rewritten (a frontmatter tag the parser could
    /// not place), as (note path, what).
    pub skipped: Vec<(String, String)>,
}

/// Why a rename cannot be done. The message says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteError(pub String);

impl fmt::Display for RewriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RewriteError {}

pub(super) fn error<T>(message: impl Into<String>) -> Result<T, RewriteError> {
    Err(RewriteError(message.into()))
}

/// What an edit must leave standing in a note: how many links, tags and
/// headings it has, in all and in its body (after the frontmatter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    links: usize,
    tags: usize,
    headings: usize,
    body_links: usize,
    body_tags: usize,
}

impl Counts {
    pub(super) fn of(note: &Note) -> Counts {
        Counts {
            links: note.links.len(),
            tags: note.tags.len(),
            headings: note.headings.len(),
            // The frontmatter's links carry their property key.
            body_links: note.links.iter().filter(|l| l.rel().is_none()).count(),
            body_tags: note.tags.iter().filter(|t| !t.in_frontmatter).count(),
        }
    }

    /// Whether the body counts are those of `body`.
    fn body_is(&self, body: &Body) -> bool {
        (self.body_links, self.body_tags, self.headings)
            == (body.links.len(), body.tags, body.headings)
    }
}

/// What the edits of a plan are checked for before it is given out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// Every note keeps its links, tags and headings ([`verify`]).
    Standing,
    /// That, and every edit is a link target that reads back as written.
    LinkTargets,
}

/// Below this many notes, reading them ahead in parallel saves nothing.
const PREFETCH_FROM: usize = 64;

/// Collects edits per note, reading and parsing each note once (not at
/// all when the index's parse is of the very text read).
pub(super) struct Collector<'a> {
    texts: &'a dyn TextSource,
    /// Texts read ahead on every core ([`Collector::prefetch`]), taken
    /// once each (`None`: the source had none).
    prefetched: HashMap<String, Option<String>>,
    files: BTreeMap<String, (String, Vec<Edit>)>,
    /// The counts of the notes read, as read.
    counts: HashMap<String, Counts>,
}

impl<'a> Collector<'a> {
    pub(super) fn new(texts: &'a dyn TextSource) -> Self {
        Collector {
            texts,
            prefetched: HashMap::new(),
            files: BTreeMap::new(),
            counts: HashMap::new(),
        }
    }

    /// Reads the texts of `paths` ahead, in parallel: a hub's rename
    /// reads thousands of notes, and reading them one by one costs as
    /// much as the rest of the plan.
    pub(super) fn prefetch(&mut self, paths: &[&str]) {
        if paths.len() < PREFETCH_FROM {
            return;
        }
        let texts = self.texts;
        self.prefetched = paths
            .par_iter()
            .map(|path| (path.to_string(), texts.text(path)))
            .collect();
    }

    /// The note's current text: read ahead, or now.
    fn text(&mut self, path: &str) -> Option<String> {
        match self.prefetched.remove(path) {
            Some(text) => text,
            None => self.texts.text(path),
        }
    }

    /// The note's text and a fresh parse of it.
    pub(super) fn read(&mut self, path: &str) -> Option<(String, Note)> {
        let text = self.text(path)?;
        let note = parse_text(path, &text);
        self.counts.insert(path.to_string(), Counts::of(&note));
        Some((text, note))
    }

    /// The note's text and its links: the index's when it parsed this very
    /// text, else a fresh parse's.
    pub(super) fn read_links<'i>(
        &mut self,
        index: &'i VaultIndex,
        path: &str,
    ) -> Option<(String, Cow<'i, [Link]>)> {
        let text = self.text(path)?;
        let (counts, links) = match indexed_parse(index, path, &text) {
            Some(note) => (Counts::of(note), Cow::Borrowed(&*note.links)),
            None => {
                let note = parse_text(path, &text);
                (Counts::of(&note), Cow::Owned(note.links))
            }
        };
        self.counts.insert(path.to_string(), counts);
        Some((text, links))
    }

    pub(super) fn push(&mut self, path: &str, text: &str, edit: Edit) {
        if text.get(edit.range.clone()) == Some(edit.new_text.as_str()) {
            return;
        }
        let entry = self
            .files
            .entry(path.to_string())
            .or_insert_with(|| (text.to_string(), Vec::new()));
        entry.1.push(edit);
    }

    /// The plan, refused when its edits fail `check` ([`verify`]).
    pub(super) fn finish(
        self,
        moves: Vec<(String, String)>,
        skipped: Vec<(String, String)>,
        check: Check,
    ) -> Result<Plan, RewriteError> {
        let files: Vec<FileEdits> = self
            .files
            .into_iter()
            .filter(|(_, (_, edits))| !edits.is_empty())
            .map(|(path, (text, mut edits))| {
                edits.sort_by_key(|e| (e.range.start, e.range.end));
                edits.dedup_by(|b, a| a.range.end > b.range.start);
                FileEdits { path, text, edits }
            })
            .collect();
        // One parse per edited note, on every core (a hub's rename edits
        // thousands); the first failure in path order is the one reported.
        let counts = &self.counts;
        let verified: Vec<Result<(), RewriteError>> = files
            .par_iter()
            .map(|file| verify(file, counts.get(&file.path).copied(), check))
            .collect();
        verified.into_iter().collect::<Result<(), _>>()?;
        Ok(Plan {
            edits: files,
            moves,
            skipped,
        })
    }
}

/// Whether a note keeps as many links, tags and headings once edited
/// (`before`: its counts as read, else parsed from its text): a new
/// name's `` ` `` or `$` can close a code span or math the rest of the
/// line opens, and then a rewritten link would be lost, not renamed. With
/// [`Check::LinkTargets`], also whether every edit, each a link target
/// rewritten, reads back as exactly that link's target: a new target can
/// also lengthen its link (a backtick pairing with one after the link
/// swallows the `]]`), which the counts do not see. Such a rename is
/// refused (all or nothing) rather than carried out. One parse of the
/// edited text: of its body alone when every edit falls after an
/// unchanged frontmatter.
pub(super) fn verify(
    file: &FileEdits,
    before: Option<Counts>,
    check: Check,
) -> Result<(), RewriteError> {
    let before = before.unwrap_or_else(|| Counts::of(&parse_text(&file.path, &file.text)));
    let edited = file.apply();
    // Edits that all fall in the body, where the frontmatter block stands
    // as before: its YAML is the same bytes, so only the body is parsed.
    let block = |text: &str| frontmatter::block(text).map(|b| (b.yaml, b.body));
    let fence = block(&file.text);
    let body_start = fence.as_ref().map_or(0, |(_, body)| *body);
    let links: Vec<Link> =
        if file.edits.iter().all(|e| e.range.start >= body_start) && block(&edited) == fence {
            let body = parse_body(&file.path, &edited);
            if !before.body_is(&body) {
                return broken(file);
            }
            body.links
        } else {
            let after = parse_text(&file.path, &edited);
            if Counts::of(&after) != before {
                return broken(file);
            }
            after.links
        };
    if check == Check::LinkTargets {
        let mut shift: isize = 0;
        for edit in &file.edits {
            let start = edit.range.start.saturating_add_signed(shift);
            let end = start + edit.new_text.len();
            if !links
                .iter()
                .any(|l| l.target_span.start as usize == start && l.target_span.end as usize == end)
            {
                return broken(file);
            }
            shift += edit.new_text.len() as isize - edit.range.len() as isize;
        }
    }
    Ok(())
}

fn broken<T>(file: &FileEdits) -> Result<T, RewriteError> {
    let line = line_of(&file.text, file.edits[0].range.start) + 1;
    error(format!(
        "the new text would break a link, tag or heading in `{}` (near line {line}): written \
         there, it would end a code span, math or the link itself; choose another name, or \
         change that line first",
        file.path
    ))
}
