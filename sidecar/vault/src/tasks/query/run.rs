//! A query run over the index: the tasks of the notes the caller's note
//! filter passes (THE note filter: access rules, folders) that count
//! under the global filter and pass every filter; sorted (the user's
//! sorts, then the plugin's defaults), cut to `limit`, grouped (each
//! `group by` a level, groups in the plugin's order), each group cut to
//! `limit groups`. Reads the index only.

use std::collections::HashMap;

/// Tables a query fills: hashed with foldhash, as the index's.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::super::select::gather;
use super::super::{Task, TaskSettings};
use super::TasksQuery;
use super::filter::{Deps, Env};
use super::filter::{TextOf, text_of};
use super::order::{
    DEFAULT_SORTS, GroupRank, Key, Order, Row, SortKey, date_rank, groups, natural_places,
    ordered_bytes, sort_key, urgency,
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
    let sorts: Vec<_> = query
        .sorts
        .iter()
        .chain(DEFAULT_SORTS.iter())
        .copied()
        .collect();
    // Each task's keys worked out once, as numbers (a sort compares each
    // task many times): one a sort, the line last; the tasks ordered by
    // them (no two tasks tie: the sort need not be stable).
    let (Found { rows, mut keys }, note_count) = rows(query, index, notes, settings, today, &sorts);
    let row = |(hit, urgency): &(Hit, f64)| {
        let note = index.note(hit.note);
        Row {
            note,
            task: note.tasks.at(hit.task),
            urgency: *urgency,
        }
    };
    let matched = rows.len();
    let width = sorts.len() + 1;
    finish_keys(&mut keys, &sorts, &rows, &row, index, settings, today);
    let key = |at: u32| &keys[at as usize * width..][..width];
    let mut order: Vec<u32> = (0..rows.len() as u32).collect();
    let compare = |a: &u32, b: &u32| key(*a).cmp(key(*b));
    if let Some(limit) = query.limit
        && limit < order.len()
    {
        if limit > 0 {
            order.select_nth_unstable_by(limit - 1, compare);
        }
        order.truncate(limit);
    }
    order.sort_unstable_by(compare);
    let rows: Vec<(Hit, f64)> = order.into_iter().map(|at| rows[at as usize]).collect();
    let groups = grouped(query, &rows, &row, settings);
    Outcome {
        matched,
        notes: note_count,
        groups,
    }
}

/// How many tasks a query finds, in how many notes, and how many it lists
/// (after `limit` and `limit groups`; a task in two tag groups counts
/// twice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub matched: usize,
    pub notes: usize,
    pub shown: usize,
}

/// [`run`]'s counts, without ordering or grouping the tasks where the
/// counts do not depend on it (no `limit groups`, no group by tags): what
/// a code lens shows.
pub fn count(
    query: &TasksQuery,
    index: &VaultIndex,
    notes: &NoteFilter,
    settings: &TaskSettings,
    today: Date,
) -> Count {
    let by_tags = query.groups.iter().any(|g| matches!(g.key, Key::Tag(_)));
    if query.group_limit.is_some() || by_tags {
        let outcome = run(query, index, notes, settings, today);
        return Count {
            matched: outcome.matched,
            notes: outcome.notes,
            shown: outcome.shown(),
        };
    }
    let (Found { rows, .. }, note_count) = rows(query, index, notes, settings, today, &[]);
    Count {
        matched: rows.len(),
        notes: note_count,
        shown: query.limit.map_or(rows.len(), |l| l.min(rows.len())),
    }
}

/// The tasks found, each with its urgency, and its sort keys back to back
/// (see [`rows`]).
struct Found {
    rows: Vec<(Hit, f64)>,
    keys: Vec<u64>,
}

/// The tasks of the notes `notes` passes that count under the global
/// filter and pass every filter, each with its urgency and its keys under
/// `sorts` (then its line) where a key is a number — on the worker
/// threads, while the task is at hand; [`finish_keys`] puts in the rest.
/// And the notes holding them.
fn rows(
    query: &TasksQuery,
    index: &VaultIndex,
    notes: &NoteFilter,
    settings: &TaskSettings,
    today: Date,
    sorts: &[Order],
) -> (Found, usize) {
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
    let keyed = !sorts.is_empty();
    gather(
        index,
        notes,
        |note, task| {
            (settings.counts(task) && query.filters.iter().all(|f| f.matches(&env, note, task)))
                .then_some((note, task))
        },
        || Found {
            rows: Vec::new(),
            keys: Vec::new(),
        },
        |found, id, i, (note, task)| {
            let urgency = urgency(task, today);
            found.rows.push((Hit { note: id, task: i }, urgency));
            if !keyed {
                return;
            }
            let row = Row {
                note,
                task,
                urgency,
            };
            for sort in sorts {
                found.keys.push(match is_text(sort.key) {
                    // Placed by `finish_keys`.
                    true => 0,
                    false => match sort_key(sort.key, settings, today, &row) {
                        // Order kept: the sign bit flipped.
                        SortKey::Num(n) => (n as u64) ^ (1 << 63),
                        SortKey::Real(x) => u64::from_be_bytes(ordered_bytes(x)),
                        SortKey::Text(..) => 0,
                    },
                });
            }
            found.keys.push(u64::from(task.line));
        },
        |mut a, b| {
            a.rows.extend(b.rows);
            a.keys.extend(b.keys);
            a
        },
    )
}

/// The tasks in groups: each task under every heading path its groups
/// give (a task with two tags is in two groups), groups in the plugin's
/// order, the tasks' order kept inside each; each group cut to `limit
/// groups`. Each level's distinct groups are ordered once, and tasks
/// alike in what a group reads (one day, one note…) share their groups,
/// worked out once.
fn grouped<'a>(
    query: &TasksQuery,
    rows: &[(Hit, f64)],
    row: &dyn Fn(&(Hit, f64)) -> Row<'a>,
    settings: &TaskSettings,
) -> Vec<Group> {
    let levels = query.groups.len();
    if rows.is_empty() {
        return Vec::new();
    }
    if levels == 0 {
        let mut hits: Vec<Hit> = rows.iter().map(|r| r.0).collect();
        if let Some(n) = query.group_limit {
            hits.truncate(n);
        }
        return vec![Group {
            headings: Vec::new(),
            hits,
        }];
    }
    let mut names: Vec<Vec<(GroupRank, String)>> = vec![Vec::new(); levels];
    let mut seen: Vec<Map<String, u32>> = vec![Map::default(); levels];
    let mut known: Vec<Map<u64, (u32, u32)>> = vec![Map::default(); levels];
    // A note's groups, for groups a note's tasks share: by note index.
    let size = rows.iter().map(|r| r.0.note.index() + 1).max().unwrap_or(0);
    let mut by_note: Vec<Vec<Option<(u32, u32)>>> = query
        .groups
        .iter()
        .map(|g| {
            if note_text(g.key).is_some() {
                vec![None; size]
            } else {
                Vec::new()
            }
        })
        .collect();
    // Each task's group ids a level (most tasks: one), as a run of `pool`.
    let mut pool: Vec<u32> = Vec::new();
    let mut ids: Vec<(u32, u32)> = Vec::with_capacity(rows.len() * levels);
    for r in rows {
        let mut at: Option<Row> = None;
        for (level, g) in query.groups.iter().enumerate() {
            let note_wide = !by_note[level].is_empty();
            if note_wide && let Some(cached) = by_note[level][r.0.note.index()] {
                ids.push(cached);
                continue;
            }
            let at = at.get_or_insert_with(|| row(r));
            let alike = (!note_wide)
                .then(|| group_alike(g.key, r.0.note, at))
                .flatten();
            if let Some(cached) = alike.and_then(|k| known[level].get(&k)) {
                ids.push(*cached);
                continue;
            }
            let start = pool.len() as u32;
            for (rank, heading) in groups(g.key, settings, at) {
                let id = match seen[level].get(&heading) {
                    Some(id) => *id,
                    None => {
                        let id = names[level].len() as u32;
                        seen[level].insert(heading.clone(), id);
                        names[level].push((rank, heading));
                        id
                    }
                };
                pool.push(id);
            }
            let run = (start, pool.len() as u32 - start);
            if note_wide {
                by_note[level][r.0.note.index()] = Some(run);
            } else if let Some(k) = alike {
                known[level].insert(k, run);
            }
            ids.push(run);
        }
    }
    // Each level's groups in order: a group's place by its id.
    let places: Vec<Vec<u32>> = names
        .iter()
        .zip(&query.groups)
        .map(|(level, g)| {
            let ranks: Vec<[u8; 8]> = level.iter().map(|(r, _)| ordered_bytes(r.0)).collect();
            let place = natural_places(
                level
                    .iter()
                    .zip(&ranks)
                    .map(|((r, _), rank)| (&rank[..], r.1.as_str())),
            );
            let last = place.iter().copied().max().unwrap_or(0);
            if g.reverse {
                place.into_iter().map(|p| last - p).collect()
            } else {
                place
            }
        })
        .collect();
    // Each (task, heading path) as the path's places back to back, then
    // the task's place in the order.
    let mut paths: Vec<u32> = Vec::with_capacity(rows.len() * (levels + 1));
    for (at, runs) in ids.chunks(levels).enumerate() {
        let level_ids = |level: usize| {
            let (start, len) = runs[level];
            &pool[start as usize..(start + len) as usize]
        };
        if runs.iter().all(|(_, len)| *len == 1) {
            for (level, place) in places.iter().enumerate() {
                paths.push(place[level_ids(level)[0] as usize]);
            }
            paths.push(at as u32);
            continue;
        }
        let mut combos: Vec<Vec<u32>> = vec![Vec::with_capacity(levels + 1)];
        for (level, place) in places.iter().enumerate() {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    level_ids(level).iter().map(move |id| {
                        let mut c = c.clone();
                        c.push(place[*id as usize]);
                        c
                    })
                })
                .collect();
        }
        for mut c in combos {
            c.push(at as u32);
            paths.extend(c);
        }
    }
    let mut entries: Vec<&[u32]> = paths.chunks(levels + 1).collect();
    entries.sort_unstable();
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
    let mut last: Option<&[u32]> = None;
    for entry in entries {
        let (path, at) = entry.split_at(levels);
        let hit = rows[at[0] as usize].0;
        match out.last_mut() {
            Some(g) if last == Some(path) => g.hits.push(hit),
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
    out
}

/// Puts into `keys` (see [`rows`]) what takes every task found: a
/// note's texts (path, file name, folder, root) as the note's place among
/// the notes found, other texts as their places among the tasks' texts —
/// compared as the plugin compares texts —; then `reverse`.
fn finish_keys<'a>(
    keys: &mut [u64],
    sorts: &[Order],
    rows: &[(Hit, f64)],
    row: &dyn Fn(&(Hit, f64)) -> Row<'a>,
    index: &'a VaultIndex,
    settings: &TaskSettings,
    today: Date,
) {
    let width = sorts.len() + 1;
    for (column, sort) in sorts.iter().enumerate() {
        if let Some(of) = note_text(sort.key) {
            let places = note_places(index, rows, of, settings);
            for (at, (hit, _)) in rows.iter().enumerate() {
                keys[at * width + column] = u64::from(places[hit.note.index()]);
            }
            continue;
        }
        let texts: Vec<SortKey> = rows
            .iter()
            .map(|r| sort_key(sort.key, settings, today, &row(r)))
            .take_while(|k| matches!(k, SortKey::Text(..)))
            .collect();
        // A sort gives one kind of key: texts for every task, or none.
        if texts.is_empty() {
            continue;
        }
        let ranks: Vec<[u8; 1]> = texts
            .iter()
            .map(|v| match v {
                SortKey::Text(rank, _) => [*rank],
                _ => [0],
            })
            .collect();
        let places = natural_places(texts.iter().zip(&ranks).map(|(v, rank)| match v {
            SortKey::Text(_, text) => (&rank[..], &**text),
            _ => (&rank[..], ""),
        }));
        for (at, place) in places.into_iter().enumerate() {
            keys[at * width + column] = u64::from(place);
        }
    }
    for (column, sort) in sorts.iter().enumerate() {
        if sort.reverse {
            for at in 0..rows.len() {
                keys[at * width + column] = !keys[at * width + column];
            }
        }
    }
}

/// Whether a sort reads a text (then [`finish_keys`] places it).
fn is_text(key: Key) -> bool {
    !matches!(
        key,
        Key::Status
            | Key::StatusType
            | Key::Urgency
            | Key::Date(_)
            | Key::Priority
            | Key::Recurring
            | Key::Random
    )
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
    let order = natural_places(texts.iter().map(|(_, t)| (&[][..], &**t)));
    let size = notes.last().map_or(0, |id| id.index() + 1);
    let mut places = vec![0; size];
    for ((id, _), place) in texts.iter().zip(order) {
        places[id.index()] = place;
    }
    places
}

/// What a `group by` reads of a task, as a number, where tasks with the
/// same number are in the same groups (`None`: worked out each time).
fn group_alike(key: Key, note: NoteId, row: &Row) -> Option<u64> {
    let task = row.task;
    Some(match key {
        // Kept by note index instead.
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
