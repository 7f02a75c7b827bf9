//! Symbols of a vault: the heading tree of a note, a fuzzy search over
//! note names, headings, aliases and tags, and every use of a tag.
//!
//! Pure domain over the index; it must not know any protocol (no symbol
//! kinds or locations of an editor) nor read note texts.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::index::{NoteId, VaultIndex};
use super::matcher::Matcher;
use super::note::Note;
use super::scan;
use super::tags::matches as tag_matches;

/// A heading with the headings nested under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingNode {
    /// Index into the note's `headings`.
    pub heading: usize,
    pub children: Vec<HeadingNode>,
}

/// The headings of `note` as a tree: each heading holds the deeper
/// headings that follow it up to the next one of its level or higher.
pub fn heading_tree(note: &Note) -> Vec<HeadingNode> {
    fn build(note: &Note, range: std::ops::Range<usize>) -> Vec<HeadingNode> {
        let mut out = Vec::new();
        let mut i = range.start;
        while i < range.end {
            let level = note.headings[i].level;
            let end = note.headings[i + 1..range.end]
                .iter()
                .position(|h| h.level <= level)
                .map_or(range.end, |p| i + 1 + p);
            out.push(HeadingNode {
                heading: i,
                children: build(note, i + 1..end),
            });
            i = end;
        }
        out
    }
    build(note, 0..note.headings.len())
}

/// What a symbol found by [`search`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SymbolKind {
    Note,
    Heading,
    Alias,
    Tag,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub kind: SymbolKind,
    pub name: String,
    /// The note it is in (for a tag: one note that uses it).
    pub note: Option<NoteId>,
    /// For a heading: its index in the note's `headings`.
    pub heading: Option<usize>,
    pub score: u32,
}

#[derive(PartialEq, Eq)]
struct Hit {
    score: u32,
    kind: SymbolKind,
    note: NoteId,
    /// Heading or alias index.
    item: usize,
}

impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed, so the heap's top is the worst hit kept.
        other
            .score
            .cmp(&self.score)
            .then_with(|| self.kind.cmp(&other.kind))
            .then_with(|| self.note.cmp(&other.note))
            .then_with(|| self.item.cmp(&other.item))
    }
}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Notes (by stem or title), headings, aliases and tags matching `query`
/// fuzzily, best first, at most `limit`. The flag tells whether more
/// matched.
pub fn search(index: &VaultIndex, query: &str, limit: usize) -> (Vec<Symbol>, bool) {
    let matcher = Matcher::new(query);
    let scan = |notes: &mut dyn Iterator<Item = (NoteId, &Note)>| -> (BinaryHeap<Hit>, usize) {
        let mut heap: BinaryHeap<Hit> = BinaryHeap::with_capacity(limit + 1);
        let mut matched = 0usize;
        let push_headings = |id: NoteId, note: &Note, push: &mut dyn FnMut(Hit)| {
            if matcher.is_empty() {
                return;
            }
            for (i, heading) in note.headings.iter().enumerate() {
                if !matcher.may_match(heading.mask) {
                    continue;
                }
                if let Some(score) = matcher.score(&heading.text) {
                    push(Hit {
                        score,
                        kind: SymbolKind::Heading,
                        note: id,
                        item: i,
                    });
                }
            }
        };
        let mut push = |hit: Hit| {
            matched += 1;
            if heap.len() < limit {
                heap.push(hit);
            } else if heap.peek().is_some_and(|worst| hit.score > worst.score) {
                heap.pop();
                heap.push(hit);
            }
        };
        for (id, note) in notes {
            if !matcher.may_match(note.name_mask) {
                // None of its names can match: only its headings may.
                push_headings(id, note, &mut push);
                continue;
            }
            let stem = note.stem();
            // A title that is the stem (most notes') cannot score more.
            let title_score = (*note.title != *stem)
                .then(|| matcher.score(&note.title).map(|s| s.saturating_sub(1)))
                .flatten();
            let name_score = matcher.score(stem).max(title_score);
            if let Some(score) = name_score {
                push(Hit {
                    score: score + 2,
                    kind: SymbolKind::Note,
                    note: id,
                    item: 0,
                });
            }
            for (i, alias) in note.aliases.iter().enumerate() {
                if let Some(score) = matcher.score(alias) {
                    push(Hit {
                        score: score + 1,
                        kind: SymbolKind::Alias,
                        note: id,
                        item: i,
                    });
                }
            }
            push_headings(id, note, &mut push);
        }
        (heap, matched)
    };
    let (heap, mut matched) = scan::notes(
        index,
        scan,
        || (BinaryHeap::new(), 0),
        |(mut a, n), (b, m)| {
            for hit in b {
                if a.len() < limit {
                    a.push(hit);
                } else if a.peek().is_some_and(|worst| hit.score > worst.score) {
                    a.pop();
                    a.push(hit);
                }
            }
            (a, n + m)
        },
    );
    let mut hits = heap.into_vec();
    hits.sort();
    let mut out: Vec<Symbol> = hits
        .into_iter()
        .map(|hit| {
            let note = index.note(hit.note);
            let (name, heading) = match hit.kind {
                SymbolKind::Note => (note.stem().to_string(), None),
                SymbolKind::Alias => (note.aliases[hit.item].to_string(), None),
                _ => (note.headings[hit.item].text.to_string(), Some(hit.item)),
            };
            Symbol {
                kind: hit.kind,
                name,
                note: Some(hit.note),
                heading,
                score: hit.score,
            }
        })
        .collect();
    // Tags: few, and matched by name.
    let mut tags: Vec<(u32, &str)> = index
        .tags()
        .values()
        .filter_map(|stat| {
            let name = stat.display();
            Some((matcher.score(name)?, name))
        })
        .collect();
    matched += tags.len();
    tags.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    tags.truncate(limit.div_ceil(4));
    let names: Vec<&str> = tags.iter().map(|t| t.1).collect();
    let firsts = first_uses(index, &names);
    for ((score, name), first) in tags.into_iter().zip(firsts) {
        out.push(Symbol {
            kind: SymbolKind::Tag,
            name: format!("#{name}"),
            note: first,
            heading: None,
            score,
        });
    }
    out.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.kind.cmp(&b.kind))
            .then_with(|| a.name.cmp(&b.name))
    });
    let truncated = matched > limit;
    out.truncate(limit);
    (out, truncated)
}

/// Every use of `tag` and its sub-tags: (note, index in its `tags`),
/// sorted by note path.
pub fn tag_uses(index: &VaultIndex, tag: &str) -> Vec<(NoteId, usize)> {
    let mut out: Vec<(NoteId, usize)> = Vec::new();
    for (id, note) in index.notes() {
        for (i, t) in note.tags.iter().enumerate() {
            if tag_matches(tag, &t.name) {
                out.push((id, i));
            }
        }
    }
    out.sort_by(|a, b| {
        index
            .note(a.0)
            .path
            .cmp(&index.note(b.0).path)
            .then(a.1.cmp(&b.1))
    });
    out
}

/// For each tag, the first note (by path) that uses exactly it, in one
/// pass over the notes.
fn first_uses(index: &VaultIndex, tags: &[&str]) -> Vec<Option<NoteId>> {
    let mut firsts: Vec<Option<NoteId>> = vec![None; tags.len()];
    if tags.is_empty() {
        return firsts;
    }
    for (id, note) in index.notes() {
        for used in &note.tags {
            for (i, tag) in tags.iter().enumerate() {
                if used.name.len() == tag.len()
                    && tag_matches(tag, &used.name)
                    && firsts[i].is_none_or(|f| index.note(f).path > note.path)
                {
                    firsts[i] = Some(id);
                }
            }
        }
    }
    firsts
}

/// What stands at a byte offset of a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// Index into the note's `links`.
    Link(usize),
    /// Index into `headings` (the cursor is on the heading line, not on a
    /// link in it).
    Heading(usize),
    /// Index into `blocks` (on the `^id` marker).
    Block(usize),
    /// Index into `tags`.
    Tag(usize),
}

/// The link, block id, tag or heading at byte `offset` of `note`, in that
/// order of precedence. The end of a span counts as inside it, so a cursor
/// just after `]]` is still on the link.
pub fn at(note: &Note, offset: u32) -> Option<At> {
    let inside = |span: &std::ops::Range<u32>| span.start <= offset && offset <= span.end;
    let link_at = note.links.partition_point(|l| l.span.start <= offset);
    if let Some(i) = link_at.checked_sub(1)
        && inside(&note.links[i].span)
    {
        return Some(At::Link(i));
    }
    if let Some(i) = note.blocks.iter().position(|b| inside(&b.span)) {
        return Some(At::Block(i));
    }
    if let Some(i) = note
        .tags
        .iter()
        .position(|t| t.span.as_ref().is_some_and(inside))
    {
        return Some(At::Tag(i));
    }
    note.headings
        .iter()
        .position(|h| h.span.start <= offset && offset < h.span.end.max(h.span.start + 1))
        .map(At::Heading)
}

/// Which name of a note a [`NameTable`] entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Stem,
    Title,
    /// Index into the note's `aliases`.
    Alias(u32),
}

#[derive(Debug, Clone, Copy)]
struct TableNote {
    id: NoteId,
    /// The note's path (with `.md`) in `text`.
    path: (u32, u32),
    /// Its names in `names`.
    names: (u32, u32),
}

#[derive(Debug, Clone, Copy)]
struct TableName {
    kind: NameKind,
    start: u32,
    len: u32,
}

/// Every note's path, stem, title and aliases copied into one buffer, so a
/// fuzzy scan over 100k notes reads contiguous memory instead of chasing a
/// few heap pointers per note. Built in the background from an index; it
/// may lag the index, so callers check the notes it finds still exist
/// ([`NameTable::is_current`]).
#[derive(Debug, Default)]
pub struct NameTable {
    /// The index generation it was built from.
    pub generation: u64,
    text: String,
    notes: Vec<TableNote>,
    names: Vec<TableName>,
}

impl NameTable {
    pub fn build(index: &VaultIndex) -> NameTable {
        let mut table = NameTable {
            generation: index.generation(),
            ..NameTable::default()
        };
        for (id, note) in index.notes() {
            let push = |table: &mut NameTable, s: &str| -> (u32, u32) {
                let start = table.text.len() as u32;
                table.text.push_str(s);
                (start, s.len() as u32)
            };
            let path = push(&mut table, &note.path);
            let first = table.names.len() as u32;
            let stem = note.stem();
            // The stem is a slice of the path just copied.
            let stem_start = path.0 + (note.id().len() - stem.len()) as u32;
            table.names.push(TableName {
                kind: NameKind::Stem,
                start: stem_start,
                len: stem.len() as u32,
            });
            if !note.title.eq_ignore_ascii_case(stem) {
                let (start, len) = push(&mut table, &note.title);
                table.names.push(TableName {
                    kind: NameKind::Title,
                    start,
                    len,
                });
            }
            for (i, alias) in note.aliases.iter().enumerate() {
                let (start, len) = push(&mut table, alias);
                table.names.push(TableName {
                    kind: NameKind::Alias(i as u32),
                    start,
                    len,
                });
            }
            table.notes.push(TableNote {
                id,
                path,
                names: (first, table.names.len() as u32),
            });
        }
        table
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    fn slice(&self, (start, len): (u32, u32)) -> &str {
        &self.text[start as usize..(start + len) as usize]
    }

    /// Calls `found(position, id, score, kind)` for each note at `range` of
    /// the table whose best name (or, with `with_path`, its path without
    /// `.md`: kind `None`) matches.
    pub fn scan(
        &self,
        range: std::ops::Range<usize>,
        matcher: &Matcher,
        with_path: bool,
        found: &mut dyn FnMut(usize, NoteId, u32, Option<NameKind>),
    ) {
        for (offset, note) in self.notes[range.clone()].iter().enumerate() {
            let mut best: Option<(u32, Option<NameKind>)> = None;
            for name in &self.names[note.names.0 as usize..note.names.1 as usize] {
                let Some(score) = matcher.score(self.slice((name.start, name.len))) else {
                    continue;
                };
                // An alias must beat the stem clearly to be offered instead.
                let score = match name.kind {
                    NameKind::Alias(_) => score.saturating_sub(2),
                    _ => score,
                };
                if best.is_none_or(|(b, _)| score > b) {
                    best = Some((score, Some(name.kind)));
                }
            }
            if with_path {
                let id = super::note::strip_md(self.slice(note.path));
                if let Some(score) = matcher.score(id).map(|s| s.saturating_sub(10))
                    && best.is_none_or(|(b, _)| score > b)
                {
                    best = Some((score, None));
                }
            }
            if let Some((score, kind)) = best {
                found(range.start + offset, note.id, score, kind);
            }
        }
    }

    /// Whether the note at `position` of the table is still note `id` of
    /// `index` (the table may lag the index).
    pub(crate) fn still_there(&self, index: &VaultIndex, position: usize, id: NoteId) -> bool {
        self.notes
            .get(position)
            .is_some_and(|n| n.id == id && index.id_of(self.slice(n.path)) == Some(id))
    }
}
