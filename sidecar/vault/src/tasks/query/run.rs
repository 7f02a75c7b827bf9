//! A query run over the index: the tasks of the notes the caller's note
//! filter passes (THE note filter: access rules, folders) that count
//! under the global filter and pass every filter; sorted (the user's
//! sorts, then the plugin's defaults), cut to `limit`, grouped (each
//! `group by` a level, groups in the plugin's order), each group cut to
//! `limit groups`. Reads the index only.

use std::cmp::Ordering;

use super::super::select::found;
use super::super::{Task, TaskSettings};
use super::TasksQuery;
use super::filter::{Deps, Env};
use super::filter::{TextOf, text_of};
use super::order::{
    DEFAULT_SORTS, GroupRank, Key, Row, SortKey, date_rank, groups, natural, sort_key, urgency,
};
use crate::date::Date;
use crate::filter::{FileMeta, Filter as NoteFilter};
use crate::{NoteId, VaultIndex};

/// One task found: its note and its index in the note's tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub note: NoteId,
    pub task: u32,
}

/// A group of tasks: its headings, one a `group by` (none when not
/// grouped).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub headings: Vec<String>,
    pub hits: Vec<Hit>,
}

/// What a query found.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Tasks passing the filters (before `limit`), and the notes holding
    /// them.
    pub matched: usize,
    pub notes: usize,
    pub groups: Vec<Group>,
}

impl Outcome {
    /// Tasks in the groups (a task in two tag groups counts twice).
    pub fn shown(&self) -> usize {
        self.groups.iter().map(|g| g.hits.len()).sum()
    }
}

/// Runs `query` over the tasks of the notes `notes` passes.
pub fn run(
    query: &TasksQuery,
    index: &VaultIndex,
    notes: &NoteFilter,
    settings: &TaskSettings,
    today: Date,
) -> Outcome {
    let visible = |id: NoteId| notes.matches(index, id, &FileMeta::default());
    let mut deps = Deps::default();
    if query.filters.iter().any(|f| f.uses_deps()) {
        for (id, note) in index.notes() {
            if note.tasks.is_empty() || !visible(id) {
                continue;
            }
            for task in note.tasks.iter().filter(|t| settings.counts(*t)) {
                if settings.statuses.kind(task.symbol).is_done() {
                    continue;
                }
                if let Some(own) = task.id().filter(|i| !i.is_empty()) {
                    deps.open_ids.insert(own.into());
                }
                deps.needed.extend(task.depends_on().iter().cloned());
            }
        }
    }
    let env = Env {
        settings,
        today,
        deps: &deps,
    };
    let (found, note_count) = found(index, notes, |note, task| {
        settings.counts(task) && query.filters.iter().all(|f| f.matches(&env, note, task))
    });
    let rows: Vec<(Hit, f64)> = found
        .into_iter()
        .map(|(note, task)| {
            let hit = Hit { note, task };
            (hit, urgency(task_of(index, hit), today))
        })
        .collect();
    let row = |(hit, urgency): &(Hit, f64)| {
        let note = index.note(hit.note);
        Row {
            note,
            task: note.tasks.at(hit.task),
            urgency: *urgency,
        }
    };
    let sorts: Vec<_> = query
        .sorts
        .iter()
        .chain(DEFAULT_SORTS.iter())
        .copied()
        .collect();
    // Texts a note's tasks share (its path, file name, folder, root) as
    // the note's place among the notes found, the texts compared once a
    // note rather than at each of a sort's many comparisons.
    let places: Vec<Option<Vec<u32>>> = sorts
        .iter()
        .map(|s| note_text(s.key).map(|of| note_places(index, &rows, of, settings)))
        .collect();
    // Each task's keys once; then the tasks ordered by them, the path and
    // line last (no two tasks tie: the sort need not be stable).
    let mut keyed: Vec<((Hit, f64), Vec<SortKey>)> = rows
        .into_iter()
        .map(|r| {
            let at = row(&r);
            let keys = sorts
                .iter()
                .zip(&places)
                .map(|(s, places)| match places {
                    Some(places) => SortKey::Num(i64::from(places[r.0.note.index()])),
                    None => sort_key(s.key, settings, today, &at),
                })
                .chain([SortKey::Num(i64::from(at.task.line))])
                .collect();
            (r, keys)
        })
        .collect();
    let reverse: Vec<bool> = sorts.iter().map(|s| s.reverse).chain([false]).collect();
    let order = |a: &((Hit, f64), Vec<SortKey>), b: &((Hit, f64), Vec<SortKey>)| -> Ordering {
        a.1.iter()
            .zip(&b.1)
            .zip(&reverse)
            .map(|((x, y), rev)| {
                let o = x.order(y);
                if *rev { o.reverse() } else { o }
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let matched = keyed.len();
    if let Some(limit) = query.limit
        && limit < keyed.len()
    {
        if limit > 0 {
            keyed.select_nth_unstable_by(limit - 1, order);
        }
        keyed.truncate(limit);
    }
    keyed.sort_unstable_by(order);
    let rows: Vec<(Hit, f64)> = keyed.into_iter().map(|(r, _)| r).collect();

    // Groups: each task under every heading path its groups give, in the
    // plugin's order of groups, the tasks' order kept inside each. Each
    // level's distinct groups are ordered once; tasks then sort by their
    // groups' places (numbers), stably. Tasks alike in what a group reads
    // (one day, one note…) share their groups, worked out once.
    let levels = query.groups.len();
    let mut names: Vec<Vec<(GroupRank, String)>> = vec![Vec::new(); levels];
    let mut seen: Vec<std::collections::HashMap<String, u32>> = vec![Default::default(); levels];
    let mut known: Vec<std::collections::HashMap<u64, Vec<u32>>> = vec![Default::default(); levels];
    let mut grouped: Vec<(Vec<u32>, Hit)> = Vec::new();
    for r in &rows {
        let mut paths: Vec<Vec<u32>> = vec![Vec::with_capacity(levels)];
        for (level, g) in query.groups.iter().enumerate() {
            let at = row(r);
            let alike = group_alike(g.key, r.0.note, &at);
            let cached = alike.and_then(|k| known[level].get(&k));
            let ids: Vec<u32> = match cached {
                Some(ids) => ids.clone(),
                None => {
                    let ids: Vec<u32> = groups(g.key, settings, &at)
                        .into_iter()
                        .map(|(rank, heading)| {
                            *seen[level].entry(heading.clone()).or_insert_with(|| {
                                names[level].push((rank, heading));
                                names[level].len() as u32 - 1
                            })
                        })
                        .collect();
                    if let Some(k) = alike {
                        known[level].insert(k, ids.clone());
                    }
                    ids
                }
            };
            paths = if let [one] = ids[..] {
                paths
                    .into_iter()
                    .map(|mut p| {
                        p.push(one);
                        p
                    })
                    .collect()
            } else {
                paths
                    .into_iter()
                    .flat_map(|p| {
                        ids.iter().map(move |id| {
                            let mut p = p.clone();
                            p.push(*id);
                            p
                        })
                    })
                    .collect()
            };
        }
        grouped.extend(paths.into_iter().map(|p| (p, r.0)));
    }
    // Each level's groups in order: a group's place by its id.
    let places: Vec<Vec<u32>> = names
        .iter()
        .zip(&query.groups)
        .map(|(level, g)| {
            let mut order: Vec<u32> = (0..level.len() as u32).collect();
            order.sort_by(|a, b| {
                let o = level[*a as usize].0.cmp(&level[*b as usize].0);
                if g.reverse { o.reverse() } else { o }
            });
            let mut place = vec![0; level.len()];
            for (at, id) in order.into_iter().enumerate() {
                place[id as usize] = at as u32;
            }
            place
        })
        .collect();
    for (path, _) in &mut grouped {
        for (level, id) in path.iter_mut().enumerate() {
            *id = places[level][*id as usize];
        }
    }
    // Stable: the tasks' order holds inside a group.
    grouped.sort_by(|(a, _), (b, _)| a.cmp(b));
    // Back from places to headings.
    let headings_at: Vec<Vec<&str>> = names
        .iter()
        .zip(&places)
        .map(|(level, place)| {
            let mut by_place = vec![""; level.len()];
            for (id, (_, heading)) in level.iter().enumerate() {
                by_place[place[id] as usize] = heading.as_str();
            }
            by_place
        })
        .collect();
    let mut out: Vec<Group> = Vec::new();
    let mut last: Option<Vec<u32>> = None;
    for (path, hit) in grouped {
        match out.last_mut() {
            Some(g) if last.as_ref() == Some(&path) => g.hits.push(hit),
            _ => {
                out.push(Group {
                    headings: path
                        .iter()
                        .enumerate()
                        .map(|(level, at)| headings_at[level][*at as usize].to_string())
                        .collect(),
                    hits: vec![hit],
                });
                last = Some(path);
            }
        }
    }
    if let Some(n) = query.group_limit {
        for g in &mut out {
            g.hits.truncate(n);
        }
    }
    Outcome {
        matched,
        notes: note_count,
        groups: out,
    }
}

/// The text a sort reads that is its note's, not its task's.
fn note_text(key: Key) -> Option<TextOf> {
    match key {
        Key::Path => Some(TextOf::Path),
        Key::Filename => Some(TextOf::Filename),
        Key::Folder => Some(TextOf::Folder),
        Key::Root => Some(TextOf::Root),
        _ => None,
    }
}

/// Each note's place (by note index) among the notes of `rows` under
/// their `of` texts, as the plugin compares texts; notes with equal texts
/// share a place.
fn note_places(
    index: &VaultIndex,
    rows: &[(Hit, f64)],
    of: TextOf,
    settings: &TaskSettings,
) -> Vec<u32> {
    let mut notes: Vec<NoteId> = rows.iter().map(|(h, _)| h.note).collect();
    notes.sort_unstable();
    notes.dedup();
    let texts: Vec<(NoteId, std::borrow::Cow<str>)> = notes
        .iter()
        .map(|id| {
            let note = index.note(*id);
            // Every note here holds a task found: its first stands for all.
            (*id, text_of(of, settings, note, note.tasks.at(0)))
        })
        .collect();
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_unstable_by(|a, b| natural(&texts[*a].1, &texts[*b].1));
    let size = notes.last().map_or(0, |id| id.index() + 1);
    let mut places = vec![0; size];
    let mut place = 0;
    for (at, i) in order.iter().enumerate() {
        if at > 0 && natural(&texts[order[at - 1]].1, &texts[*i].1).is_ne() {
            place += 1;
        }
        places[texts[*i].0.index()] = place;
    }
    places
}

/// What a `group by` reads of a task, as a number, where tasks with the
/// same number are in the same groups (`None`: worked out each time).
fn group_alike(key: Key, note: NoteId, row: &Row) -> Option<u64> {
    let task = row.task;
    Some(match key {
        Key::Path | Key::Filename | Key::Folder | Key::Root => note.index() as u64,
        Key::StatusType | Key::Status | Key::StatusName => u64::from(task.symbol),
        Key::Priority => task.priority as u64,
        Key::Recurring => u64::from(task.recurrence().is_some()),
        Key::Date(of) => {
            let (rank, day) = date_rank(of, task);
            u64::from(rank) << 40 | (day + (1 << 39)) as u64
        }
        _ => return None,
    })
}

/// The task a hit names.
pub fn task_of(index: &VaultIndex, hit: Hit) -> Task<'_> {
    index.note(hit.note).tasks.at(hit.task)
}
