//! Completion in a note: what is being typed at a byte offset (a wikilink
//! target, a heading or block fragment, a tag, a Markdown link path), the
//! ranked candidates for it (ranked with [`super::matcher`]), and daily-note
//! names (with [`super::daily`]).
//!
//! Pure domain: byte offsets in, owned candidates out. This module must not
//! know LSP (no positions, no completion items), the clock, the disk or the
//! configuration file: callers pass today's date, the daily-note settings and
//! ranking signals (backlink counts, recency) in.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use super::daily::{Date, daily_note_path};
use super::index::{NoteId, VaultIndex};
use super::key::{encode_path, name_key, relative_path, slug};
use super::matcher::Matcher;
use super::note::{LinkKind, Note, folder_of, strip_md};
use super::query::TextSource;
use super::resolve::{FragmentTarget, Resolution, resolve_fragment};

// ---------------------------------------------------------------------------
// Completion context
// ---------------------------------------------------------------------------

/// What is being typed at the cursor. Ranges are byte ranges of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    /// `[[typed` or `![[typed`: a note name.
    Note { typed: String, link: LinkSlot },
    /// `[[target#H1#typed`: a heading of `target` (`""`: this note) under
    /// the headings already named in `scope`.
    Heading {
        target: String,
        scope: Vec<String>,
        typed: String,
        link: LinkSlot,
    },
    /// `[[target#^typed`: a block id of `target` (`""`: this note).
    Block {
        target: String,
        typed: String,
        link: LinkSlot,
    },
    /// `#typed`: a tag.
    Tag {
        typed: String,
        replace: Range<usize>,
    },
    /// `[text](typed`: a path from the note's folder, with `#typed` a
    /// heading slug of that note.
    MarkdownPath {
        typed: String,
        replace: Range<usize>,
        /// `)` follows already.
        closed: bool,
        /// The path is written `<like this>` (no percent-encoding).
        angle: bool,
        /// For `](path#typed`: the path before `#`, percent-decoded.
        fragment_of: Option<String>,
    },
}

/// Where a wikilink's completion goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSlot {
    /// The bytes the completion replaces.
    pub replace: Range<usize>,
    /// `]]` closes the link already (on the same line).
    pub closed: bool,
    /// A `#fragment` or `|alias` follows the replaced part.
    pub has_tail: bool,
    pub embed: bool,
}

/// Finds what is being typed at byte `offset` of `text` (on its line).
pub fn context(text: &str, offset: usize) -> Option<Context> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = super::lines::line_start_at(text, offset);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let before = &text[line_start..offset];
    let after = &text[offset..line_end];
    if in_code_span(before) {
        return None;
    }
    if let Some(open) = before.rfind("[[")
        && !before[open..].contains("]]")
    {
        let inner_start = line_start + open + 2;
        let embed = before[..open].ends_with('!');
        return wiki_context(text, inner_start, offset, after, embed);
    }
    if let Some(open) = before.rfind("](") {
        let dest = &before[open + 2..];
        let open_dest = match dest.strip_prefix('<') {
            Some(inner) => !inner.contains('>'),
            None => !dest.contains(')') && !dest.contains(char::is_whitespace),
        };
        if open_dest {
            return markdown_context(line_start + open + 2, offset, before, after);
        }
    }
    tag_context(text, line_start, offset)
}

/// An odd number of backticks before the cursor: inside a code span.
fn in_code_span(before: &str) -> bool {
    before.bytes().filter(|&b| b == b'`').count() % 2 == 1
}

fn wiki_context(
    text: &str,
    inner_start: usize,
    offset: usize,
    after: &str,
    embed: bool,
) -> Option<Context> {
    let typed_all = &text[inner_start..offset];
    if typed_all.contains('|') || typed_all.contains('[') {
        return None;
    }
    // The link is closed on this line when `]]` comes before any `[[`.
    let close_at = after
        .find("]]")
        .filter(|&c| after.find("[[").is_none_or(|o| o > c));
    let closed = close_at.is_some();
    // After the cursor, the part being replaced runs to the next `#`, `|`
    // or `]]`; a `#fragment` or `|alias` there is kept.
    let (extra, has_tail) = match close_at {
        Some(close) => match after[..close].find(['#', '|']) {
            Some(i) => (i, true),
            None => (close, false),
        },
        None => (0, false),
    };
    match typed_all.find('#') {
        None => Some(Context::Note {
            typed: typed_all.to_string(),
            link: LinkSlot {
                replace: inner_start..offset + extra,
                closed,
                has_tail,
                embed,
            },
        }),
        Some(hash) => {
            let target = typed_all[..hash].trim().to_string();
            let fragment = &typed_all[hash + 1..];
            let fragment_start = inner_start + hash + 1;
            if let Some(block) = fragment.strip_prefix('^') {
                return Some(Context::Block {
                    target,
                    typed: block.to_string(),
                    link: LinkSlot {
                        replace: fragment_start + 1..offset + extra,
                        closed,
                        has_tail,
                        embed,
                    },
                });
            }
            let (scope_text, typed, typed_start) = match fragment.rfind('#') {
                Some(last) => (
                    &fragment[..last],
                    &fragment[last + 1..],
                    fragment_start + last + 1,
                ),
                None => ("", fragment, fragment_start),
            };
            let scope = scope_text
                .split('#')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            Some(Context::Heading {
                target,
                scope,
                typed: typed.to_string(),
                link: LinkSlot {
                    replace: typed_start..offset + extra,
                    closed,
                    has_tail,
                    embed,
                },
            })
        }
    }
}

fn markdown_context(
    dest_start: usize,
    offset: usize,
    before: &str,
    after: &str,
) -> Option<Context> {
    let open = before.rfind("](")?;
    let mut typed = &before[open + 2..];
    let mut start = dest_start;
    let angle = typed.starts_with('<');
    if angle {
        typed = &typed[1..];
        start += 1;
    }
    let close_char = if angle { '>' } else { ')' };
    let end_in_after = after
        .find(|c: char| c == close_char || (!angle && c.is_whitespace()))
        .unwrap_or(0);
    let closed = after[end_in_after..].starts_with(close_char);
    let extra = if closed { end_in_after } else { 0 };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    if let Some(hash) = typed.find('#') {
        return Some(Context::MarkdownPath {
            typed: decode(&typed[hash + 1..]),
            replace: start + hash + 1..offset + extra,
            closed,
            angle,
            fragment_of: Some(decode(&typed[..hash])),
        });
    }
    Some(Context::MarkdownPath {
        typed: decode(typed),
        replace: start..offset + extra,
        closed,
        angle,
        fragment_of: None,
    })
}

fn tag_context(text: &str, line_start: usize, offset: usize) -> Option<Context> {
    let before = &text[line_start..offset];
    let hash = before.rfind('#')?;
    let typed = &before[hash + 1..];
    if !typed
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '/'))
    {
        return None;
    }
    let ok_before = before[..hash]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | ',' | ';'));
    // `#` at the start of a line with nothing typed is a heading in the
    // making, `##` is one for sure.
    if !ok_before || (hash == 0 && typed.is_empty()) || before[..hash].ends_with('#') {
        return None;
    }
    let after = &text[offset..];
    let rest = after
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '/')))
        .unwrap_or(after.len());
    let start = line_start + hash + 1;
    Some(Context::Tag {
        typed: typed.to_string(),
        replace: start..offset + rest,
    })
}

// ---------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------

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
pub struct NoSignals;

impl Signals for NoSignals {
    fn backlinks(&self, _: NoteId) -> u32 {
        0
    }
    fn age_days(&self, _: NoteId, _: &str) -> Option<f64> {
        None
    }
}

/// Daily-note settings and today's date, for `[[today`.
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
    pub names: Option<&'a super::symbols::NameTable>,
}

/// The candidates for `context`, ranked and capped.
pub fn complete(
    index: &VaultIndex,
    context: &Context,
    request: &Request<'_>,
    signals: &dyn Signals,
    texts: &dyn TextSource,
) -> Completions {
    match context {
        Context::Note { typed, link } => notes(index, typed, link, request, signals),
        Context::Heading {
            target,
            scope,
            typed,
            link,
        } => headings(index, target, scope, typed, link, request),
        Context::Block {
            target,
            typed,
            link,
        } => blocks(index, target, typed, link, request, texts),
        Context::Tag { typed, replace } => tags(index, typed, replace.clone(), request),
        Context::MarkdownPath {
            typed,
            replace,
            closed,
            angle,
            fragment_of,
        } => match fragment_of {
            Some(path) => markdown_headings(index, path, typed, replace.clone(), *closed, request),
            None => markdown_paths(
                index,
                typed,
                replace.clone(),
                *closed,
                *angle,
                request,
                signals,
            ),
        },
    }
}

/// A scored candidate in the top-k heap (a min-heap on score).
#[derive(PartialEq, Eq)]
struct Scored {
    score: u32,
    id: NoteId,
    /// Which name matched: `usize::MAX` the stem, `MAX - 1` the title,
    /// `MAX - 2` the path, else an alias index.
    name: usize,
    /// Its position in the name table it was found in, if any.
    at: usize,
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: the heap's top is the worst candidate kept.
        other
            .score
            .cmp(&self.score)
            .then_with(|| self.id.cmp(&other.id))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

const NAME_STEM: usize = usize::MAX;
const NAME_TITLE: usize = usize::MAX - 1;
const NAME_PATH: usize = usize::MAX - 2;

/// A bonus for notes many others link to: about 12 points per doubling.
fn link_bonus(backlinks: u32) -> u32 {
    (17.0 * f64::from(backlinks).ln_1p()) as u32
}

/// A bonus for notes changed recently: up to 30, halving every 2 weeks.
fn recency_bonus(age_days: Option<f64>) -> u32 {
    age_days.map_or(0, |days| {
        (30.0 * (-days.max(0.0) / 20.0).exp()).round() as u32
    })
}

/// Keeps the `k` best-scored entries seen.
struct TopK {
    heap: BinaryHeap<Scored>,
    k: usize,
    seen: usize,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            heap: BinaryHeap::with_capacity(k + 1),
            k,
            seen: 0,
        }
    }

    fn merge(mut self, other: TopK) -> TopK {
        let seen = self.seen + other.seen;
        for scored in other.heap {
            self.push(scored);
        }
        self.seen = seen;
        self
    }

    fn push(&mut self, scored: Scored) {
        self.seen += 1;
        if self.heap.len() < self.k {
            self.heap.push(scored);
        } else if self
            .heap
            .peek()
            .is_some_and(|worst| scored.score > worst.score)
        {
            self.heap.pop();
            self.heap.push(scored);
        }
    }

    /// Best first.
    fn into_sorted(self) -> Vec<Scored> {
        let mut v = self.heap.into_vec();
        v.sort();
        v
    }
}

/// Vaults larger than this are scanned on every core.
const PARALLEL_FROM: usize = 20_000;

/// The `k` best candidates `score` finds among all notes.
fn scan_notes<F>(index: &VaultIndex, k: usize, score: F) -> TopK
where
    F: Fn(NoteId, &Note) -> Option<Scored> + Sync,
{
    let scan = |notes: &mut dyn Iterator<Item = (NoteId, &Note)>| {
        let mut top = TopK::new(k);
        for (id, note) in notes {
            if let Some(scored) = score(id, note) {
                top.push(scored);
            }
        }
        top
    };
    if index.len() < PARALLEL_FROM {
        return scan(&mut index.notes());
    }
    use rayon::prelude::*;
    let notes: Vec<(NoteId, &Note)> = index.notes().collect();
    notes
        .par_chunks(4096)
        .map(|chunk| scan(&mut chunk.iter().copied()))
        .reduce(|| TopK::new(k), TopK::merge)
}

/// [`scan_notes`] over a name table: the best candidates that are still in
/// the index, their names read from the index (the table may lag it).
fn scan_table(
    index: &VaultIndex,
    table: &super::symbols::NameTable,
    k: usize,
    matcher: &Matcher,
    with_path: bool,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> TopK {
    use super::symbols::NameKind;
    let scan = |range: std::ops::Range<usize>| {
        let mut top = TopK::new(k);
        let mut found = |at: usize, id: NoteId, score: u32, kind: Option<NameKind>| {
            if Some(id) == request.note {
                return;
            }
            let name = match kind {
                Some(NameKind::Stem) => NAME_STEM,
                Some(NameKind::Title) => NAME_TITLE,
                Some(NameKind::Alias(i)) => i as usize,
                None => NAME_PATH,
            };
            top.push(Scored {
                score: score * 4 + link_bonus(signals.backlinks(id)),
                id,
                name,
                at,
            });
        };
        table.scan(range, matcher, with_path, &mut found);
        top
    };
    let top = if table.len() < PARALLEL_FROM {
        scan(0..table.len())
    } else {
        use rayon::prelude::*;
        let chunks: Vec<std::ops::Range<usize>> = (0..table.len())
            .step_by(4096)
            .map(|start| start..(start + 4096).min(table.len()))
            .collect();
        chunks
            .into_par_iter()
            .map(scan)
            .reduce(|| TopK::new(k), TopK::merge)
    };
    // Keep what is still in the index, with a name it still has.
    let seen = top.seen;
    let mut kept = TopK::new(k);
    for scored in top.heap {
        if !table.still_there(index, scored.at, scored.id) {
            continue;
        }
        let note = index.note(scored.id);
        let name = match scored.name {
            NAME_STEM | NAME_TITLE | NAME_PATH => scored.name,
            alias if alias < note.aliases.len() => alias,
            _ => NAME_STEM,
        };
        kept.push(Scored { name, ..scored });
    }
    kept.seen = seen;
    kept
}

/// The best name of `note` for the matcher: (score, which name).
fn best_name(matcher: &Matcher, note: &Note, with_path: bool) -> Option<(u32, usize)> {
    let id = note.id();
    let stem = id.rsplit('/').next().unwrap_or(id);
    let consider = |best: &mut Option<(u32, usize)>, score: Option<u32>, name: usize| {
        if let Some(s) = score
            && best.is_none_or(|(b, _)| s > b)
        {
            *best = Some((s, name));
        }
    };
    let mut best: Option<(u32, usize)> = None;
    consider(&mut best, matcher.score(stem), NAME_STEM);
    // A title that is the stem in other case scores the same: skip it.
    if !note.title.eq_ignore_ascii_case(stem) {
        consider(&mut best, matcher.score(&note.title), NAME_TITLE);
    }
    for (i, alias) in note.aliases.iter().enumerate() {
        // An alias must beat the stem clearly to be offered instead.
        consider(
            &mut best,
            matcher.score(alias).map(|s| s.saturating_sub(2)),
            i,
        );
    }
    // Paths are long and shared by many notes: matched only when the typed
    // text names folders.
    if with_path {
        let score = matcher.score(id).map(|s| s.saturating_sub(10));
        consider(&mut best, score, NAME_PATH);
    }
    best
}

/// How a link from the note at `from_path` should name `target`: its stem
/// when that resolves to it without ambiguity, else its path without `.md`.
pub fn link_target_for(index: &VaultIndex, from_path: &str, target: NoteId) -> String {
    let note = index.note(target);
    let stem = note.stem();
    match index.resolve(folder_of(from_path), stem, LinkKind::Wiki) {
        Resolution::Note(id) if id == target => stem.to_string(),
        _ => note.id().to_string(),
    }
}

fn notes(
    index: &VaultIndex,
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> Completions {
    let matcher = Matcher::new(typed.trim());
    let with_path = typed.contains('/');
    // Rank by name and links first, over every note; only the best few get
    // the costlier signals (recency) and the final order.
    let pool = (request.limit * 2).max(50);
    let top = match request.names {
        Some(table) => scan_table(index, table, pool, &matcher, with_path, request, signals),
        None => scan_notes(index, pool, |id, note| {
            if Some(id) == request.note {
                return None;
            }
            let (score, name) = best_name(&matcher, note, with_path)?;
            Some(Scored {
                score: score * 4 + link_bonus(signals.backlinks(id)),
                id,
                name,
                at: usize::MAX,
            })
        }),
    };
    let mut matched = top.seen;
    let mut ranked: Vec<Scored> = top
        .into_sorted()
        .into_iter()
        .map(|s| {
            let note = index.note(s.id);
            Scored {
                score: s.score + recency_bonus(signals.age_days(s.id, &note.path)),
                ..s
            }
        })
        .collect();
    ranked.sort();

    let close = |s: String| -> String {
        if link.closed || link.has_tail {
            s
        } else {
            format!("{s}]]")
        }
    };
    // (score, item): notes and unresolved targets compete on one scale.
    let mut scored: Vec<(u32, Item)> = Vec::new();
    for s in ranked.iter().take(request.limit) {
        let note = index.note(s.id);
        let target = link_target_for(index, request.path, s.id);
        let stem = note.stem();
        let detail = Some(if *note.title != *stem {
            format!("{} — {}", note.title, note.path)
        } else {
            note.path.to_string()
        });
        let (label, kind, insert) = match s.name {
            NAME_STEM => (stem.to_string(), ItemKind::Note, target),
            NAME_TITLE => (note.title.to_string(), ItemKind::Note, target),
            NAME_PATH => (note.id().to_string(), ItemKind::Note, target),
            alias => {
                let alias = &note.aliases[alias];
                let insert = if link.has_tail {
                    target
                } else {
                    format!("{target}|{alias}")
                };
                (alias.to_string(), ItemKind::Alias, insert)
            }
        };
        scored.push((
            s.score,
            Item {
                filter: label.clone(),
                label,
                kind,
                insert: close(insert),
                detail,
                documentation: None,
                note: Some(s.id),
            },
        ));
    }
    // Targets other notes link to that do not exist yet (not the link
    // being typed: a target only this note links to is left out).
    let only_here = |target: &str| {
        index
            .unresolved_links_to(target)
            .iter()
            .all(|r| Some(r.source) == request.note)
    };
    let typed_key = super::key::path_key(typed);
    for (target, count) in signals.unresolved() {
        let Some(score) = matcher.score(target) else {
            continue;
        };
        if super::key::path_key(target) == typed_key && only_here(target) {
            continue;
        }
        let count = *count;
        matched += 1;
        scored.push((
            score * 4 + link_bonus(count),
            Item {
                label: target.clone(),
                kind: ItemKind::Unresolved,
                insert: close(target.clone()),
                filter: target.clone(),
                detail: Some(format!(
                    "not created yet; {count} link{}",
                    if count == 1 { "" } else { "s" }
                )),
                documentation: None,
                note: None,
            },
        ));
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.label.cmp(&b.1.label)));
    let mut items: Vec<Item> = Vec::new();
    // Daily notes first when the typed word is one of their names.
    if let Some(daily) = request.daily {
        items.extend(daily_items(index, typed, request.path, daily, &close));
    }
    items.extend(scored.into_iter().map(|(_, item)| item));
    let incomplete = matched > items.len() || items.len() > request.limit;
    items.truncate(request.limit.max(1));
    Completions {
        items,
        replace: link.replace.clone(),
        incomplete,
    }
}

fn daily_items(
    index: &VaultIndex,
    typed: &str,
    from_path: &str,
    daily: &DailySettings,
    close: &dyn Fn(String) -> String,
) -> Vec<Item> {
    let typed = typed.trim().to_ascii_lowercase();
    if typed.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (word, days) in [("today", 0), ("yesterday", -1), ("tomorrow", 1)] {
        if !word.starts_with(&typed) {
            continue;
        }
        let date = daily.today.add_days(days);
        let path = daily_note_path(&daily.folder, &daily.format, date);
        let (target, exists) = match index.id_of(&path) {
            Some(id) => (link_target_for(index, from_path, id), true),
            None => {
                // Not created yet: name it so that creating it resolves the
                // link: its stem unless that is taken elsewhere.
                let id = strip_md(&path);
                let stem = id.rsplit('/').next().unwrap_or(id);
                let free = matches!(
                    index.resolve(folder_of(from_path), stem, LinkKind::Wiki),
                    Resolution::Unresolved
                );
                (if free { stem } else { id }.to_string(), false)
            }
        };
        out.push(Item {
            label: format!("{word}: {target}"),
            kind: ItemKind::Daily,
            insert: close(target),
            filter: word.to_string(),
            detail: Some(if exists {
                format!("daily note {path}")
            } else {
                format!("daily note {path} (not created yet)")
            }),
            documentation: None,
            note: index.id_of(&path),
        });
    }
    out
}

/// The note a fragment completion is about: `target` from `path`, or the
/// note itself for `""`.
fn fragment_note(index: &VaultIndex, target: &str, request: &Request<'_>) -> Option<NoteId> {
    if target.is_empty() {
        return request.note;
    }
    index
        .resolve(folder_of(request.path), target, LinkKind::Wiki)
        .note()
}

fn headings(
    index: &VaultIndex,
    target: &str,
    scope: &[String],
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
) -> Completions {
    let replace = link.replace.clone();
    let Some(id) = fragment_note(index, target, request) else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    // Under `#H1#`, only the headings inside H1's section.
    let range = if scope.is_empty() {
        0..note.headings.len()
    } else {
        match resolve_fragment(note, &scope.join("#")) {
            FragmentTarget::Heading(i) => {
                let level = note.headings[i].level;
                let end = note.headings[i + 1..]
                    .iter()
                    .position(|h| h.level <= level)
                    .map_or(note.headings.len(), |p| i + 1 + p);
                i + 1..end
            }
            _ => 0..0,
        }
    };
    let matcher = Matcher::new(typed);
    let mut scored: Vec<(u32, usize)> = range
        .filter_map(|i| Some((matcher.score(&note.headings[i].text)?, i)))
        .filter(|(_, i)| !note.headings[*i].text.is_empty())
        .collect();
    if !matcher.is_empty() {
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    let incomplete = scored.len() > request.limit;
    let items = scored
        .into_iter()
        .take(request.limit)
        .map(|(_, i)| {
            let heading = &note.headings[i];
            let insert = heading.text.to_string();
            Item {
                label: heading.text.to_string(),
                kind: ItemKind::Heading,
                insert: if link.closed || link.has_tail {
                    insert
                } else {
                    format!("{insert}]]")
                },
                filter: heading.text.to_string(),
                detail: Some(format!(
                    "{} {}",
                    "#".repeat(heading.level as usize),
                    note.path
                )),
                documentation: None,
                note: Some(id),
            }
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete,
    }
}

fn blocks(
    index: &VaultIndex,
    target: &str,
    typed: &str,
    link: &LinkSlot,
    request: &Request<'_>,
    texts: &dyn TextSource,
) -> Completions {
    let replace = link.replace.clone();
    let Some(id) = fragment_note(index, target, request) else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    let text = texts.text(&note.path);
    let matcher = Matcher::new(typed);
    let mut items: Vec<Item> = Vec::new();
    for block in &note.blocks {
        if matcher.score(&block.id).is_none() {
            continue;
        }
        let preview = text.as_deref().and_then(|t| {
            let span = block.block_span.start as usize..block.span.start as usize;
            t.get(span).map(|s| bounded(s.trim(), 200))
        });
        let insert = block.id.to_string();
        items.push(Item {
            label: format!("^{}", block.id),
            kind: ItemKind::Block,
            insert: if link.closed || link.has_tail {
                insert
            } else {
                format!("{insert}]]")
            },
            filter: block.id.to_string(),
            detail: preview.clone(),
            documentation: preview,
            note: Some(id),
        });
    }
    let incomplete = items.len() > request.limit;
    items.truncate(request.limit);
    Completions {
        items,
        replace,
        incomplete,
    }
}

fn tags(
    index: &VaultIndex,
    typed: &str,
    replace: Range<usize>,
    request: &Request<'_>,
) -> Completions {
    let limit = request.limit;
    let matcher = Matcher::new(typed);
    // The tag being typed is in the index already: leave it out when this
    // note is its only user.
    let typed_key = name_key(typed);
    let uses_here = request.note.map_or(0, |id| {
        index
            .note(id)
            .tags
            .iter()
            .filter(|t| name_key(&t.name) == typed_key)
            .count() as u32
    });
    let mut scored: Vec<(u32, &str, u32, u32)> = index
        .tags()
        .iter()
        .filter(|(key, stat)| !(***key == *typed_key && stat.uses <= uses_here))
        .map(|(_, stat)| stat)
        .filter_map(|stat| {
            let name = stat.display();
            let score = matcher.score(name)?;
            Some((
                score * 4 + link_bonus(stat.uses),
                name,
                stat.uses,
                stat.notes,
            ))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let incomplete = scored.len() > limit;
    let items = scored
        .into_iter()
        .take(limit)
        .map(|(_, name, uses, notes)| Item {
            label: format!("#{name}"),
            kind: ItemKind::Tag,
            insert: name.to_string(),
            filter: name.to_string(),
            detail: Some(format!(
                "{uses} use{} in {notes} note{}",
                if uses == 1 { "" } else { "s" },
                if notes == 1 { "" } else { "s" }
            )),
            documentation: None,
            note: None,
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete,
    }
}

fn markdown_paths(
    index: &VaultIndex,
    typed: &str,
    replace: Range<usize>,
    closed: bool,
    angle: bool,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> Completions {
    let from_folder = folder_of(request.path);
    let typed_path = typed.trim_start_matches("./");
    let matcher = Matcher::new(typed_path.rsplit("../").next().unwrap_or(typed_path));
    let pool = (request.limit * 2).max(32);
    let top = scan_notes(index, pool, |id, note| {
        if Some(id) == request.note {
            return None;
        }
        Some(Scored {
            score: matcher.score(&note.path)? * 4 + link_bonus(signals.backlinks(id)),
            id,
            name: NAME_PATH,
            at: usize::MAX,
        })
    });
    let matched = top.seen;
    let mut items: Vec<Item> = top
        .into_sorted()
        .into_iter()
        .take(request.limit)
        .map(|s| {
            let note = index.note(s.id);
            let rel = relative_path(from_folder, &note.path);
            let written = if angle {
                rel.clone()
            } else {
                encode_path(&rel)
            };
            Item {
                label: rel.clone(),
                kind: ItemKind::Path,
                insert: if closed {
                    written
                } else if angle {
                    format!("{written}>)")
                } else {
                    format!("{written})")
                },
                filter: rel,
                detail: Some(note.title.to_string()),
                documentation: None,
                note: Some(s.id),
            }
        })
        .collect();
    // Attachments, after notes.
    let room = request.limit.saturating_sub(items.len());
    if room > 0 {
        let mut found: Vec<(u32, &str)> = index
            .attachments()
            .filter_map(|p| Some((matcher.score(p)?, p)))
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (_, path) in found.into_iter().take(room) {
            let rel = relative_path(from_folder, path);
            let written = if angle {
                rel.clone()
            } else {
                encode_path(&rel)
            };
            items.push(Item {
                label: rel.clone(),
                kind: ItemKind::Path,
                insert: if closed {
                    written
                } else {
                    format!("{written})")
                },
                filter: rel,
                detail: Some("attachment".into()),
                documentation: None,
                note: None,
            });
        }
    }
    Completions {
        incomplete: matched > items.len(),
        items,
        replace,
    }
}

fn markdown_headings(
    index: &VaultIndex,
    path: &str,
    typed: &str,
    replace: Range<usize>,
    closed: bool,
    request: &Request<'_>,
) -> Completions {
    let note = if path.is_empty() {
        request.note
    } else {
        index
            .resolve(folder_of(request.path), path, LinkKind::Markdown)
            .note()
    };
    let Some(id) = note else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let note = index.note(id);
    let matcher = Matcher::new(typed);
    let mut items: Vec<Item> = note
        .headings
        .iter()
        .filter(|h| matcher.score(&h.text).is_some())
        .map(|h| {
            let s = slug(&h.text);
            Item {
                label: h.text.to_string(),
                kind: ItemKind::Heading,
                insert: if closed { s.clone() } else { format!("{s})") },
                filter: s,
                detail: Some(format!("{} {}", "#".repeat(h.level as usize), note.path)),
                documentation: None,
                note: Some(id),
            }
        })
        .collect();
    let incomplete = items.len() > request.limit;
    items.truncate(request.limit);
    Completions {
        items,
        replace,
        incomplete,
    }
}

/// Cuts `text` to about `max` characters, marking the cut with `…`.
pub fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", text[..cut].trim_end()),
    }
}
