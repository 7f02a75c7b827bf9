//! How note candidates are scored and the best few kept: a name's fuzzy
//! score (through [`crate::matcher`]), bonuses for notes many others link to
//! and for recent ones, and a bounded heap that keeps the `k` best while
//! scanning every note (on every core in large vaults) or a name table.
//!
//! It must not know what a candidate becomes (labels, insert text, link
//! syntax), so that one set of ranking rules serves wikilinks and Markdown
//! paths alike.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::model::{Request, Signals};
use crate::index::{NoteId, VaultIndex};
use crate::matcher::Matcher;
use crate::note::Note;
use crate::scan;
use crate::symbols::{NameKind, NameTable};

/// A scored candidate in the top-k heap (a min-heap on score).
#[derive(PartialEq, Eq)]
pub(super) struct Scored {
    pub(super) score: u32,
    pub(super) id: NoteId,
    /// Which name matched: `usize::MAX` the stem, `MAX - 1` the title,
    /// `MAX - 2` the path, else an alias index.
    pub(super) name: usize,
    /// Its position in the name table it was found in, if any.
    pub(super) at: usize,
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

pub(super) const NAME_STEM: usize = usize::MAX;
pub(super) const NAME_TITLE: usize = usize::MAX - 1;
pub(super) const NAME_PATH: usize = usize::MAX - 2;

/// A bonus for notes many others link to: about 12 points per doubling.
pub(super) fn link_bonus(backlinks: u32) -> u32 {
    (17.0 * f64::from(backlinks).ln_1p()) as u32
}

/// A bonus for notes changed recently: up to 30, halving every 2 weeks.
pub(super) fn recency_bonus(age_days: Option<f64>) -> u32 {
    age_days.map_or(0, |days| {
        (30.0 * (-days.max(0.0) / 20.0).exp()).round() as u32
    })
}

/// Keeps the `k` best-scored entries seen.
pub(super) struct TopK {
    heap: BinaryHeap<Scored>,
    k: usize,
    /// How many entries were offered.
    pub(super) seen: usize,
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
    pub(super) fn into_sorted(self) -> Vec<Scored> {
        let mut v = self.heap.into_vec();
        v.sort();
        v
    }
}

/// The `k` best candidates `score` finds among all notes.
pub(super) fn scan_notes<F>(index: &VaultIndex, k: usize, score: F) -> TopK
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
    scan::notes(index, scan, || TopK::new(k), TopK::merge)
}

/// [`scan_notes`] over a name table: the best candidates that are still in
/// the index, their names read from the index (the table may lag it).
pub(super) fn scan_table(
    index: &VaultIndex,
    table: &NameTable,
    k: usize,
    matcher: &Matcher,
    with_path: bool,
    request: &Request<'_>,
    signals: &dyn Signals,
) -> TopK {
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
    let top = scan::rows(table.len(), scan, || TopK::new(k), TopK::merge);
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
pub(super) fn best_name(matcher: &Matcher, note: &Note, with_path: bool) -> Option<(u32, usize)> {
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
