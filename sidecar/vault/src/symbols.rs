//! Symbols of a vault: the heading tree of a note, a fuzzy search over
//! note names, headings, aliases and tags, and every use of a tag.
//!
//! Pure domain over the index; it must not know any protocol (no symbol
//! kinds or locations of an editor) nor read note texts.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasher;

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

/// Keeps `hit` if it is among the best `limit`: ties are broken by the
/// order of [`Hit`], so the same hits are kept whatever order they come in.
fn offer(heap: &mut BinaryHeap<Hit>, limit: usize, hit: Hit) {
    if heap.len() < limit {
        heap.push(hit);
    } else if heap.peek().is_some_and(|worst| hit < *worst) {
        heap.pop();
        heap.push(hit);
    }
}

/// Notes (by stem or title), headings, aliases and tags matching `query`
/// fuzzily, best first, at most `limit`. The flag tells whether more
/// matched.
pub fn search(index: &VaultIndex, query: &str, limit: usize) -> (Vec<Symbol>, bool) {
    let matcher = Matcher::new(query);
    let best = scan::notes(
        index,
        |notes| note_search(&matcher, limit, notes),
        || Best::new(limit),
        Best::merge,
    );
    let firsts = |tags: &[&str]| first_uses(index, &mut index.notes(), tags);
    answer(index, &matcher, limit, best, firsts)
}

/// [`search`], reading the names and headings of the notes that have not
/// changed since `table` was built from the table (contiguous memory), and
/// those of every other note from the index: the answer is the same as
/// without it.
pub fn search_in(
    index: &VaultIndex,
    query: &str,
    limit: usize,
    table: &SymbolTable,
) -> (Vec<Symbol>, bool) {
    let matcher = Matcher::new(query);
    // The notes the table lags behind on, found once for names, headings
    // and tags alike, are read from the index (few, unless much changed
    // at once).
    let changed: Vec<(NoteId, &Note)> = changed_since(index, table.generation).collect();
    let best = note_search(&matcher, limit, &mut changed.iter().copied())
        .merge(table.name_search(index, &matcher, limit))
        .merge(table.heading_search(index, &matcher, limit));
    let firsts = |tags: &[&str]| table.first_uses(index, &changed, tags);
    answer(index, &matcher, limit, best, firsts)
}

/// The best hits kept so far, and how many matched in all.
struct Best {
    heap: BinaryHeap<Hit>,
    matched: usize,
    limit: usize,
}

impl Best {
    fn new(limit: usize) -> Best {
        Best {
            heap: BinaryHeap::with_capacity(limit + 1),
            matched: 0,
            limit,
        }
    }

    /// Counts `hit` and keeps it if it is among the best.
    fn push(&mut self, hit: Hit) {
        self.matched += 1;
        offer(&mut self.heap, self.limit, hit);
    }

    fn merge(mut self, other: Best) -> Best {
        for hit in other.heap {
            offer(&mut self.heap, self.limit, hit);
        }
        self.matched += other.matched;
        self
    }
}

/// The names and headings of `notes` that match, read from the notes.
fn note_search(
    matcher: &Matcher,
    limit: usize,
    notes: &mut dyn Iterator<Item = (NoteId, &Note)>,
) -> Best {
    let mut best = Best::new(limit);
    for (id, note) in notes {
        note_hits(matcher, id, note, &mut |hit| best.push(hit));
    }
    best
}

/// The search's answer from the best names and headings: they as symbols,
/// with the tags that match (the first uses of each found by `firsts`),
/// best first, and whether more matched than `limit`.
fn answer(
    index: &VaultIndex,
    matcher: &Matcher,
    limit: usize,
    best: Best,
    firsts: impl FnOnce(&[&str]) -> Vec<Option<NoteId>>,
) -> (Vec<Symbol>, bool) {
    let mut matched = best.matched;
    let mut hits = best.heap.into_vec();
    hits.sort();
    let mut out: Vec<Symbol> = hits
        .into_iter()
        .filter_map(|hit| hit_symbol(index, hit))
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
    for ((score, name), first) in tags.into_iter().zip(firsts(&names)) {
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

/// A name or heading hit as the symbol it names.
fn hit_symbol(index: &VaultIndex, hit: Hit) -> Option<Symbol> {
    let note = index.note(hit.note);
    let (name, heading) = match hit.kind {
        SymbolKind::Note => (note.stem().to_string(), None),
        SymbolKind::Alias => (note.aliases.get(hit.item)?.to_string(), None),
        _ => (
            note.headings.get(hit.item)?.text.to_string(),
            Some(hit.item),
        ),
    };
    Some(Symbol {
        kind: hit.kind,
        name,
        note: Some(hit.note),
        heading,
        score: hit.score,
    })
}

/// Offers the names and headings of `note` that match.
fn note_hits(matcher: &Matcher, id: NoteId, note: &Note, push: &mut dyn FnMut(Hit)) {
    if matcher.may_match(note.name_mask) {
        let stem = note.stem();
        // A title that is the stem (most notes') cannot score more.
        let title = (*note.title != *stem).then_some(&*note.title);
        name_hits(
            matcher,
            id,
            stem,
            title,
            note.aliases.iter().map(|a| &**a),
            push,
        );
    }
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
}

/// Offers a note (by stem, or title scoring one less) and each of its
/// aliases that match.
fn name_hits<'a>(
    matcher: &Matcher,
    id: NoteId,
    stem: &str,
    title: Option<&str>,
    aliases: impl Iterator<Item = &'a str>,
    push: &mut dyn FnMut(Hit),
) {
    let title_score = title
        .and_then(|title| matcher.score(title))
        .map(|s| s.saturating_sub(1));
    if let Some(score) = matcher.score(stem).max(title_score) {
        push(Hit {
            score: score + 2,
            kind: SymbolKind::Note,
            note: id,
            item: 0,
        });
    }
    for (i, alias) in aliases.enumerate() {
        if let Some(score) = matcher.score(alias) {
            push(Hit {
                score: score + 1,
                kind: SymbolKind::Alias,
                note: id,
                item: i,
            });
        }
    }
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

/// The notes filed in slots stamped after `generation`.
fn changed_since(index: &VaultIndex, generation: u64) -> impl Iterator<Item = (NoteId, &Note)> {
    index
        .stamps()
        .iter()
        .enumerate()
        .filter(move |(_, stamp)| **stamp > generation)
        .filter_map(|(slot, _)| {
            let id = NoteId(slot as u32);
            index.get(id).map(|note| (id, note))
        })
}

/// Whether the tag `used` (as a note writes it) is exactly `tag`.
fn is_exactly(tag: &str, used: &str) -> bool {
    used.len() == tag.len() && tag_matches(tag, used)
}

/// For each tag, the first note (by path) of `notes` that uses exactly
/// it, in one pass over them.
fn first_uses(
    index: &VaultIndex,
    notes: &mut dyn Iterator<Item = (NoteId, &Note)>,
    tags: &[&str],
) -> Vec<Option<NoteId>> {
    let mut firsts: Vec<Option<NoteId>> = vec![None; tags.len()];
    if tags.is_empty() {
        return firsts;
    }
    for (id, note) in notes {
        for used in &note.tags {
            for (i, tag) in tags.iter().enumerate() {
                if is_exactly(tag, &used.name)
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

/// One heading of one note, in a [`SymbolTable`].
#[derive(Debug, Clone, Copy)]
struct HeadingUse {
    note: NoteId,
    /// Index into the note's `headings`.
    heading: u32,
}

/// One note's names, in a [`SymbolTable`]: (start, len) in its text.
#[derive(Debug, Clone, Copy)]
struct NameRow {
    note: NoteId,
    stem: (u32, u32),
    /// Only when it is not the stem.
    title: Option<(u32, u32)>,
    /// Its aliases are `aliases[first..end]`.
    aliases: (u32, u32),
}

/// Every note's names, and every distinct heading text of the vault with
/// where it is used, in one buffer with their masks in arrays, so
/// [`search_in`] reads contiguous memory instead of following a few heap
/// pointers per note and one per heading, and scores "Summary" once
/// however many notes have it. Built in the background from an index, it
/// may lag it: a note slot counts only while the index's stamp for it is
/// not newer than the table ([`VaultIndex::stamps`]).
#[derive(Debug, Default)]
pub struct SymbolTable {
    /// The index generation it was built from.
    pub generation: u64,
    text: String,
    names: Vec<NameRow>,
    /// `name_mask` of each note in `names`.
    name_masks: Vec<u32>,
    aliases: Vec<(u32, u32)>,
    /// Each distinct heading text: where it is in `text`.
    headings: Vec<(u32, u32)>,
    /// [`char_mask`](super::matcher::char_mask) of each distinct text.
    heading_masks: Vec<u32>,
    /// The uses of distinct text `t` are `uses[firsts[t]..firsts[t + 1]]`.
    firsts: Vec<u32>,
    uses: Vec<HeadingUse>,
    /// Every tag a note writes: (spelling in `text`, note), grouped by the
    /// tag's key and by note path within a group.
    tag_uses: Vec<((u32, u32), NoteId)>,
    /// Tag key → its group in `tag_uses`.
    tag_keys: HashMap<Box<str>, (u32, u32)>,
}

/// The text of a table is addressed by `u32`: past this, a table stops
/// taking notes (see [`SymbolTable::build`]).
const TABLE_TEXT_MAX: usize = u32::MAX as usize;

impl SymbolTable {
    /// A table of `index`. Should its text pass 4 GiB, the notes left out
    /// are stamped as changed, so searches read them from the index.
    pub fn build(index: &VaultIndex) -> SymbolTable {
        let mut table = SymbolTable {
            generation: index.generation(),
            ..SymbolTable::default()
        };
        let hasher = foldhash::fast::FixedState::default();
        let mut ids: hashbrown::HashTable<u32> = hashbrown::HashTable::new();
        // (distinct text, use), in note order.
        let mut found: Vec<(u32, HeadingUse)> = Vec::new();
        let mut complete = true;
        for (id, note) in index.notes() {
            let size = note.path.len()
                + note.title.len()
                + note.aliases.iter().map(|a| a.len()).sum::<usize>()
                + note.tags.iter().map(|t| t.name.len()).sum::<usize>()
                + note.headings.iter().map(|h| h.text.len()).sum::<usize>();
            if table.text.len() + size > TABLE_TEXT_MAX
                || found.len() + note.headings.len() > u32::MAX as usize
            {
                complete = false;
                break;
            }
            table.add_names(id, note);
            for (i, heading) in note.headings.iter().enumerate() {
                let text: &str = &heading.text;
                let hash = hasher.hash_one(text);
                let (spans, all) = (&table.headings, &table.text);
                let t = match ids.find(hash, |&t| slice(all, spans[t as usize]) == text) {
                    Some(&t) => t,
                    None => {
                        let t = table.headings.len() as u32;
                        let span = table.push(text);
                        table.headings.push(span);
                        table.heading_masks.push(heading.mask);
                        let (spans, all) = (&table.headings, &table.text);
                        ids.insert_unique(hash, t, |&t| {
                            hasher.hash_one(slice(all, spans[t as usize]))
                        });
                        t
                    }
                };
                found.push((
                    t,
                    HeadingUse {
                        note: id,
                        heading: i as u32,
                    },
                ));
            }
        }
        if complete {
            table.add_tags(index);
        } else {
            // Pretend the table is older than every note it lacks: those
            // were filed after generation 0, so they read as changed.
            table.generation = 0;
            table.names.clear();
            table.name_masks.clear();
            found.clear();
            table.headings.clear();
            table.heading_masks.clear();
        }
        // Group the uses by text (a counting sort keeps note order).
        let mut firsts = vec![0u32; table.headings.len() + 1];
        for (t, _) in &found {
            firsts[*t as usize + 1] += 1;
        }
        for t in 0..table.headings.len() {
            firsts[t + 1] += firsts[t];
        }
        let mut next = firsts.clone();
        let mut uses = vec![
            HeadingUse {
                note: NoteId(0),
                heading: 0
            };
            found.len()
        ];
        for (t, found) in found {
            uses[next[t as usize] as usize] = found;
            next[t as usize] += 1;
        }
        table.firsts = firsts;
        table.uses = uses;
        table
    }

    /// Files every note's tags by key, each group in path order.
    fn add_tags(&mut self, index: &VaultIndex) {
        let mut all: Vec<(String, &str, NoteId, &str)> = Vec::new();
        for (id, note) in index.notes() {
            for tag in &note.tags {
                all.push((super::tags::key(&tag.name), &note.path, id, &tag.name));
            }
        }
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        // Each spelling is kept once.
        let mut spelled: HashMap<&str, (u32, u32)> = HashMap::new();
        for (key, _, id, name) in all {
            let span = match spelled.get(name) {
                Some(span) => *span,
                None => {
                    let span = self.push(name);
                    spelled.insert(name, span);
                    span
                }
            };
            let at = self.tag_uses.len() as u32;
            self.tag_uses.push((span, id));
            let group = self
                .tag_keys
                .entry(key.into_boxed_str())
                .or_insert((at, at));
            group.1 = at + 1;
        }
    }

    /// Whether the table still holds slot `id` as the index has it: not
    /// filed or emptied since the table was built.
    fn holds(&self, index: &VaultIndex, id: NoteId) -> bool {
        index
            .stamps()
            .get(id.0 as usize)
            .is_some_and(|stamp| *stamp <= self.generation)
    }

    /// [`first_uses`] from the table, and from the index for `changed`,
    /// the notes changed since.
    fn first_uses(
        &self,
        index: &VaultIndex,
        changed: &[(NoteId, &Note)],
        tags: &[&str],
    ) -> Vec<Option<NoteId>> {
        let changed = first_uses(index, &mut changed.iter().copied(), tags);
        tags.iter()
            .zip(changed)
            .map(|(tag, changed)| {
                let kept =
                    self.tag_keys
                        .get(super::tags::key(tag).as_str())
                        .and_then(|&(start, end)| {
                            self.tag_uses[start as usize..end as usize]
                                .iter()
                                .find(|(span, id)| {
                                    is_exactly(tag, slice(&self.text, *span))
                                        && self.holds(index, *id)
                                })
                                .map(|(_, id)| *id)
                        });
                match (kept, changed) {
                    (Some(a), Some(b)) => Some(if index.note(b).path < index.note(a).path {
                        b
                    } else {
                        a
                    }),
                    (a, b) => a.or(b),
                }
            })
            .collect()
    }

    /// The names of the notes the table holds that match (those of the
    /// notes changed since it was built are left out).
    fn name_search(&self, index: &VaultIndex, matcher: &Matcher, limit: usize) -> Best {
        let names = |range: std::ops::Range<usize>| {
            let mut best = Best::new(limit);
            for (mask, row) in self.name_masks[range.clone()]
                .iter()
                .zip(&self.names[range])
            {
                if matcher.may_match(*mask) && self.holds(index, row.note) {
                    self.name_hits(matcher, row, &mut |hit| best.push(hit));
                }
            }
            best
        };
        scan::rows(self.names.len(), names, || Best::new(limit), Best::merge)
    }

    /// The headings that match, in the notes the table holds (those of the
    /// notes changed since it was built are left out).
    fn heading_search(&self, index: &VaultIndex, matcher: &Matcher, limit: usize) -> Best {
        let headings = |range: std::ops::Range<usize>| {
            let mut best = Best::new(limit);
            if matcher.is_empty() {
                return best;
            }
            for (t, mask) in self.heading_masks[range.clone()].iter().enumerate() {
                let t = range.start + t;
                if !matcher.may_match(*mask) {
                    continue;
                }
                let Some(score) = matcher.score(self.heading_text(t)) else {
                    continue;
                };
                for used in self.uses(t) {
                    if self.holds(index, used.note) {
                        best.push(Hit {
                            score,
                            kind: SymbolKind::Heading,
                            note: used.note,
                            item: used.heading as usize,
                        });
                    }
                }
            }
            best
        };
        scan::rows(
            self.heading_masks.len(),
            headings,
            || Best::new(limit),
            Best::merge,
        )
    }

    fn push(&mut self, s: &str) -> (u32, u32) {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        (start, s.len() as u32)
    }

    fn add_names(&mut self, id: NoteId, note: &Note) {
        let stem = note.stem();
        let stem = self.push(stem);
        let title = (*note.title != *note.stem()).then(|| self.push(&note.title));
        let first = self.aliases.len() as u32;
        for alias in &note.aliases {
            let span = self.push(alias);
            self.aliases.push(span);
        }
        self.names.push(NameRow {
            note: id,
            stem,
            title,
            aliases: (first, self.aliases.len() as u32),
        });
        self.name_masks.push(note.name_mask);
    }

    fn name_hits(&self, matcher: &Matcher, row: &NameRow, push: &mut dyn FnMut(Hit)) {
        let aliases = &self.aliases[row.aliases.0 as usize..row.aliases.1 as usize];
        name_hits(
            matcher,
            row.note,
            slice(&self.text, row.stem),
            row.title.map(|t| slice(&self.text, t)),
            aliases.iter().map(|a| slice(&self.text, *a)),
            push,
        );
    }

    /// Heading uses in the table.
    pub fn len(&self) -> usize {
        self.uses.len()
    }

    pub fn is_empty(&self) -> bool {
        self.uses.is_empty() && self.names.is_empty()
    }

    /// Distinct heading texts in the table.
    pub fn distinct(&self) -> usize {
        self.headings.len()
    }

    fn heading_text(&self, t: usize) -> &str {
        slice(&self.text, self.headings[t])
    }

    fn uses(&self, t: usize) -> &[HeadingUse] {
        &self.uses[self.firsts[t] as usize..self.firsts[t + 1] as usize]
    }
}

fn slice(text: &str, (start, len): (u32, u32)) -> &str {
    &text[start as usize..(start + len) as usize]
}
