//! What the user is working on: the notes open in the vault's editors, the
//! most recently edited first, each with whether it has unsaved changes,
//! which sections those changes touch (the buffer against the file, line
//! by line) and where the last edit was. Read from the hub's buffers and
//! the files; knows no protocol and no access rule (the caller filters).

use std::path::Path;
use std::time::{Duration, SystemTime};

use similar::{DiffTag, TextDiff};

use super::buffers::Buffers;
use weft_vault::headings::heading_paths;
use weft_vault::lines::LineIndex;
use weft_vault::parse::parse_text;

/// A line of context is cut to this many characters.
const LINE_CHARS: usize = 160;

/// One note open in an editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenNote {
    /// Vault path.
    pub path: String,
    pub title: String,
    pub opened: SystemTime,
    /// When its text last changed in the editor.
    pub edited: Option<SystemTime>,
    /// Where it last changed.
    pub last_edit: Option<EditPlace>,
    /// The editor's text differs from the file.
    pub unsaved: bool,
    /// The sections the unsaved changes touch, in the note's order.
    pub changed: Vec<SectionChange>,
}

/// A place in a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPlace {
    /// 1-based.
    pub line: u32,
    /// The heading path (`A::B`) it is under; `None` above the first
    /// heading.
    pub section: Option<String>,
    /// The line's text (cut when long).
    pub text: String,
}

/// Unsaved changes in one section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionChange {
    /// The heading path; `None` above the first heading.
    pub section: Option<String>,
    /// Lines the editor has that the file does not, and the other way.
    pub added: usize,
    pub removed: usize,
}

impl Buffers {
    /// The open notes whose path `shown` accepts, most recently edited (or
    /// opened) first, at most `limit`.
    pub fn activity(
        &self,
        root: &Path,
        shown: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Vec<OpenNote> {
        let mut open: Vec<_> = self
            .each_newest(|rel, buffer| {
                shown(rel).then(|| {
                    (
                        rel.to_string(),
                        buffer.text.clone(),
                        buffer.stale,
                        buffer.opened,
                        buffer.edited,
                    )
                })
            })
            .into_iter()
            .flatten()
            .collect();
        let recency =
            |o: &(_, _, _, SystemTime, Option<(SystemTime, usize)>)| o.4.map_or(o.3, |(t, _)| t);
        open.sort_by(|a, b| recency(b).cmp(&recency(a)).then_with(|| a.0.cmp(&b.0)));
        open.truncate(limit);
        open.into_iter()
            .map(|(path, text, stale, opened, edited)| {
                let note = parse_text(&path, &text);
                let sections = Sections::of(&note, &text);
                let disk = std::fs::read(root.join(&path)).ok();
                let unsaved = !stale && disk.as_deref() != Some(text.as_bytes());
                let changed = match (&disk, unsaved) {
                    (Some(disk), true) => {
                        changed_sections(&String::from_utf8_lossy(disk), &text, &sections)
                    }
                    _ => Vec::new(),
                };
                OpenNote {
                    title: note.title.to_string(),
                    last_edit: edited.map(|(_, at)| sections.place(&text, at)),
                    edited: edited.map(|(t, _)| t),
                    path,
                    opened,
                    unsaved,
                    changed,
                }
            })
            .collect()
    }
}

/// A note's lines and the section each heading starts.
struct Sections {
    lines: LineIndex,
    /// (first line, heading path), in order.
    starts: Vec<(u32, String)>,
}

impl Sections {
    fn of(note: &weft_vault::Note, text: &str) -> Sections {
        let paths = heading_paths(note, "::");
        Sections {
            lines: LineIndex::new(text),
            starts: note.headings.iter().map(|h| h.line).zip(paths).collect(),
        }
    }

    /// The section line `line` (0-based) is in.
    fn at(&self, line: u32) -> Option<&str> {
        let i = self.starts.partition_point(|(start, _)| *start <= line);
        i.checked_sub(1).map(|i| self.starts[i].1.as_str())
    }

    fn place(&self, text: &str, offset: usize) -> EditPlace {
        let offset = offset.min(text.len());
        let line = self.lines.line(offset);
        let start = self.lines.line_start(line).unwrap_or(0);
        let end = self.lines.line_end(line).unwrap_or(text.len());
        let content = text.get(start..end).unwrap_or_default().trim_end();
        EditPlace {
            line: line + 1,
            section: self.at(line).map(str::to_string),
            text: content.chars().take(LINE_CHARS).collect(),
        }
    }
}

/// The unsaved changes of `buffer` over `disk`, per section of the buffer
/// (a removal counts where it would have stood).
fn changed_sections(disk: &str, buffer: &str, sections: &Sections) -> Vec<SectionChange> {
    // Bounded: past the deadline the diff is coarser, never slower.
    let diff = TextDiff::configure()
        .timeout(Duration::from_millis(200))
        .diff_lines(disk, buffer);
    let mut out: Vec<SectionChange> = Vec::new();
    let mut add = |section: Option<&str>, added: usize, removed: usize| match out
        .iter_mut()
        .find(|c| c.section.as_deref() == section)
    {
        Some(change) => {
            change.added += added;
            change.removed += removed;
        }
        None => out.push(SectionChange {
            section: section.map(str::to_string),
            added,
            removed,
        }),
    };
    for op in diff.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        let (added, removed) = (new.len(), old.len());
        if added == 0 {
            add(sections.at(new.start as u32), 0, removed);
            continue;
        }
        // Added lines count in the section each stands in; removed ones
        // with the first.
        let mut first = true;
        for line in new {
            let removed = if first { removed } else { 0 };
            first = false;
            add(sections.at(line as u32), 1, removed);
        }
    }
    out
}
