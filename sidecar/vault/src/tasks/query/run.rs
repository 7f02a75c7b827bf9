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
use super::order::{DEFAULT_SORTS, GroupRank, Row, compare, groups, urgency};
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
            for task in note.tasks.iter().filter(|t| settings.counts(t)) {
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
    let mut rows: Vec<(Hit, f64)> = found
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
            task: &note.tasks[hit.task as usize],
            urgency: *urgency,
        }
    };
    let sorts: Vec<_> = query
        .sorts
        .iter()
        .chain(DEFAULT_SORTS.iter())
        .copied()
        .collect();
    let order = |a: &(Hit, f64), b: &(Hit, f64)| -> Ordering {
        let (a, b) = (row(a), row(b));
        sorts
            .iter()
            .map(|s| compare(*s, settings, today, &a, &b))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| (&*a.note.path, a.task.line).cmp(&(&*b.note.path, b.task.line)))
    };
    let matched = rows.len();
    if let Some(limit) = query.limit
        && limit < rows.len()
    {
        if limit > 0 {
            rows.select_nth_unstable_by(limit - 1, order);
        }
        rows.truncate(limit);
    }
    rows.sort_by(order);

    // Groups: each task under every heading path its groups give, in the
    // plugin's order of groups, the tasks' order kept inside each.
    let mut grouped: Vec<(Vec<(GroupRank, String)>, Hit)> = Vec::new();
    for r in &rows {
        let mut paths: Vec<Vec<(GroupRank, String)>> = vec![Vec::new()];
        for g in &query.groups {
            let names = groups(g.key, settings, &row(r));
            paths = paths
                .into_iter()
                .flat_map(|p| {
                    names.iter().map(move |n| {
                        let mut p = p.clone();
                        p.push(n.clone());
                        p
                    })
                })
                .collect();
        }
        grouped.extend(paths.into_iter().map(|p| (p, r.0)));
    }
    let reverse: Vec<bool> = query.groups.iter().map(|g| g.reverse).collect();
    // Stable: the tasks' order holds inside a group.
    grouped.sort_by(|(a, _), (b, _)| {
        a.iter()
            .zip(b)
            .zip(&reverse)
            .map(|((x, y), rev)| {
                let o = x.0.cmp(&y.0);
                if *rev { o.reverse() } else { o }
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    let mut out: Vec<Group> = Vec::new();
    for (path, hit) in grouped {
        let headings: Vec<String> = path.into_iter().map(|(_, h)| h).collect();
        match out.last_mut() {
            Some(g) if g.headings == headings => g.hits.push(hit),
            _ => out.push(Group {
                headings,
                hits: vec![hit],
            }),
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

/// The task a hit names.
pub fn task_of(index: &VaultIndex, hit: Hit) -> &Task {
    &index.note(hit.note).tasks[hit.task as usize]
}
