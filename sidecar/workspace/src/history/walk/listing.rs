//! Listing versions page by page, newest first: of one note (through its
//! renames) or of the whole vault, from Weft's store and the vault's own
//! repository merged by time, with a cursor that continues a page.
//!
//! Lists only: resolving a version id and reading old content are
//! `lookup`'s business.

use std::collections::VecDeque;

use chrono::{DateTime, FixedOffset, Utc};
use git2::{Commit, Oid};

use super::note_walk::NoteWalk;
use super::source::{Kind, Src, sources};
use crate::history::error::HistoryError;
use crate::history::model::{MAX_LISTED_CHANGES, Page, Version};
use crate::history::store::{Store, vault_path};

/// Where a listing stopped, per repository: the last version returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Cursor {
    pub(super) weft: Option<Oid>,
    pub(super) git: Option<Oid>,
    /// The path was given without `.md` and found with it.
    pub(super) md: bool,
}

impl Cursor {
    pub(super) fn encode(&self) -> String {
        let hex = |id: Option<Oid>| id.map(|id| id.to_string()).unwrap_or_default();
        let md = if self.md { ".md" } else { "" };
        format!("w{}.g{}{md}", hex(self.weft), hex(self.git))
    }

    pub(super) fn decode(text: &str) -> Result<Cursor, HistoryError> {
        let bad = || HistoryError::BadCursor(format!("`{text}` is not a cursor from a listing"));
        let trimmed = text.trim();
        let (trimmed, md) = match trimmed.strip_suffix(".md") {
            Some(rest) => (rest, true),
            None => (trimmed, false),
        };
        let (weft, git) = trimmed
            .strip_prefix('w')
            .and_then(|rest| rest.split_once(".g"))
            .ok_or_else(bad)?;
        let id = |hex: &str| -> Result<Option<Oid>, HistoryError> {
            if hex.is_empty() {
                Ok(None)
            } else {
                Oid::from_str(hex).map(Some).map_err(|_| bad())
            }
        };
        Ok(Cursor {
            weft: id(weft)?,
            git: id(git)?,
            md,
        })
    }

    pub(super) fn of(&self, kind: Kind) -> Option<Oid> {
        match kind {
            Kind::Weft => self.weft,
            Kind::VaultGit => self.git,
        }
    }

    pub(super) fn set(&mut self, kind: Kind, id: Oid) {
        match kind {
            Kind::Weft => self.weft = Some(id),
            Kind::VaultGit => self.git = Some(id),
        }
    }
}

/// What one repository contributes to a page.
pub(super) struct Stream {
    pub(super) kind: Kind,
    pub(super) items: Vec<Version>,
    /// More versions exist past `items`.
    pub(super) more: bool,
}

/// Limits a walk: versions older than `since`, and the cursor to skip to.
pub(super) struct Window {
    pub(super) since: Option<i64>,
    pub(super) after: Option<Oid>,
    pub(super) want: usize,
}

impl Window {
    /// Whether the walk can stop at `commit` (everything after is older).
    pub(super) fn ended(&self, kind: Kind, commit: &Commit<'_>) -> bool {
        let Some(since) = self.since else {
            return false;
        };
        match kind {
            // Weft's commits are made in order.
            Kind::Weft => commit.author().when().seconds() < since,
            // Sorted by commit time, which is never before the author time.
            Kind::VaultGit => commit.time().seconds() < since,
        }
    }

    pub(super) fn too_old(&self, commit: &Commit<'_>) -> bool {
        self.since
            .is_some_and(|since| commit.author().when().seconds() < since)
    }
}

/// A note's versions in one repository, after the cursor.
pub(super) fn note_versions(
    src: &Src<'_>,
    path: &str,
    window: &Window,
) -> Result<Stream, HistoryError> {
    let mut skipping = window.after;
    let mut items = Vec::new();
    let mut ended = false;
    for step in NoteWalk::new(src, path)? {
        let step = step?;
        if window.ended(src.kind, &step.commit) {
            ended = true;
            break;
        }
        let Some(change) = step.change else {
            continue;
        };
        if let Some(after) = skipping {
            if step.commit.id() == after {
                skipping = None;
            }
            continue;
        }
        if window.too_old(&step.commit) {
            continue;
        }
        if items.len() == window.want {
            return Ok(Stream {
                kind: src.kind,
                items,
                more: true,
            });
        }
        items.push(src.version(&step.commit, Some(step.name), vec![change], 1));
    }
    if skipping.is_some() && !ended {
        return Err(HistoryError::BadCursor(
            "it does not point into this note's history".into(),
        ));
    }
    Ok(Stream {
        kind: src.kind,
        items,
        more: false,
    })
}

/// The vault's versions in one repository, after the cursor.
pub(super) fn vault_versions(src: &Src<'_>, window: &Window) -> Result<Stream, HistoryError> {
    let mut skipping = window.after;
    let mut items = Vec::new();
    let mut ended = false;
    for commit in src.commits()? {
        let commit = commit?;
        if window.ended(src.kind, &commit) {
            ended = true;
            break;
        }
        if let Some(after) = skipping {
            if commit.id() == after {
                skipping = None;
            }
            continue;
        }
        if window.too_old(&commit) || (src.kind == Kind::VaultGit && commit.parent_count() > 1) {
            continue; // A merge's changes are listed with the commits merged.
        }
        let mut changes = src.changes_of(&commit)?;
        if changes.is_empty() {
            continue; // A commit of the vault repository outside the vault.
        }
        if items.len() == window.want {
            return Ok(Stream {
                kind: src.kind,
                items,
                more: true,
            });
        }
        let total = changes.len();
        changes.truncate(MAX_LISTED_CHANGES);
        items.push(src.version(&commit, None, changes, total));
    }
    if skipping.is_some() && !ended {
        return Err(HistoryError::BadCursor(
            "it does not point into the vault's history".into(),
        ));
    }
    Ok(Stream {
        kind: src.kind,
        items,
        more: false,
    })
}

/// Merges the repositories' streams newest first (Weft first on a tie).
pub(super) fn merge(streams: Vec<Stream>, limit: usize, mut cursor: Cursor) -> Page<Version> {
    let mut streams: Vec<(Kind, VecDeque<Version>, bool)> = streams
        .into_iter()
        .map(|s| (s.kind, s.items.into(), s.more))
        .collect();
    let mut items = Vec::new();
    while items.len() < limit {
        let next = streams
            .iter()
            .enumerate()
            .filter_map(|(i, (_, items, _))| items.front().map(|v| (i, v.time)))
            .fold(
                None::<(usize, DateTime<FixedOffset>)>,
                |best, (i, time)| match best {
                    Some((_, best_time)) if best_time >= time => best,
                    _ => Some((i, time)),
                },
            );
        let Some((i, _)) = next else {
            break;
        };
        let (kind, queue, _) = &mut streams[i];
        let version = queue.pop_front().expect("a stream with a front item");
        if let Ok(id) = Oid::from_str(&version.id) {
            cursor.set(*kind, id);
        }
        items.push(version);
    }
    let more = streams
        .iter()
        .any(|(_, queue, more)| *more || !queue.is_empty());
    Page {
        items,
        next_cursor: more.then(|| cursor.encode()),
    }
}

/// `History::log`.
pub(crate) fn log(
    store: &Store,
    path: Option<&str>,
    since: Option<DateTime<Utc>>,
    limit: usize,
    cursor: Option<&str>,
) -> Result<Page<Version>, HistoryError> {
    let cursor = cursor.map(Cursor::decode).transpose()?;
    let sources = sources(store);
    let list = |path: Option<&str>, md: bool| -> Result<Page<Version>, HistoryError> {
        let mut start = cursor.unwrap_or_default();
        start.md = md;
        let mut streams = Vec::new();
        for src in &sources {
            let window = Window {
                since: since.map(|t| t.timestamp()),
                after: start.of(src.kind),
                want: limit,
            };
            streams.push(match path {
                Some(path) => note_versions(src, path, &window)?,
                None => vault_versions(src, &window)?,
            });
        }
        Ok(merge(streams, limit, start))
    };
    let Some(path) = path else {
        return list(None, false);
    };
    let path = vault_path(path)?;
    // `note` names `note.md` when `note` itself has no history; the cursor
    // remembers which it was.
    let with_md = format!("{path}.md");
    if cursor.is_some_and(|c| c.md) {
        return list(Some(&with_md), true);
    }
    let page = list(Some(&path), false)?;
    if page.items.is_empty() && cursor.is_none() && !path.ends_with(".md") {
        return list(Some(&with_md), true);
    }
    Ok(page)
}
