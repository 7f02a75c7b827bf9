//! Building a commit's tree from the previous commit's tree: only the trees
//! along the changed paths are read and rewritten, so a commit costs the
//! same in a vault of 100 notes or of 100,000.
//!
//! Trees only: this module must not know commits, branches or messages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use git2::build::TreeUpdateBuilder;
use git2::{FileMode, ObjectType, Oid, Repository, Tree};

use crate::history::error::HistoryError;

/// Whether `tree` already holds exactly what `updates` asks for: every
/// path at its blob (or absent, for `None`) and, with `replace_all`, no
/// other file. Reads only; checked before anything is written, because
/// libgit2 "freshens" (touches) every known object it is asked to write
/// again, so an unchanged snapshot would still rewrite trees' times.
pub(super) fn already_holds(
    tree: &Tree<'_>,
    updates: &BTreeMap<String, Option<Oid>>,
    replace_all: bool,
) -> bool {
    let each_as_wanted = updates.iter().all(|(path, target)| {
        let found = tree.get_path(Path::new(path)).ok();
        match (target, found) {
            (Some(id), Some(entry)) => entry.id() == *id && entry.kind() == Some(ObjectType::Blob),
            (None, None) => true,
            _ => false,
        }
    });
    if !each_as_wanted || !replace_all {
        return each_as_wanted;
    }
    let wanted = updates.values().filter(|target| target.is_some()).count();
    let mut files = 0usize;
    let walked = tree.walk(git2::TreeWalkMode::PreOrder, |_, entry| {
        if entry.kind() == Some(ObjectType::Blob) {
            files += 1;
            if files > wanted {
                return git2::TreeWalkResult::Abort;
            }
        }
        git2::TreeWalkResult::Ok
    });
    walked.is_ok() && files == wanted
}

/// Applies `updates` (path → new blob, or `None` to remove) to `base` and
/// writes the new tree. Only the trees along changed paths are read and
/// rewritten; an unchanged file gives back `base`'s id.
pub(super) fn apply_updates(
    repo: &Repository,
    base: &Tree<'_>,
    updates: &BTreeMap<String, Option<Oid>>,
) -> Result<Oid, HistoryError> {
    // The common case in one pass, without looking anything up first:
    // upserts need no lookup, removals only an existence check.
    let mut builder = TreeUpdateBuilder::new();
    let mut count = 0;
    for (path, target) in updates {
        match target {
            Some(id) => {
                builder.upsert(path.as_str(), *id, FileMode::Blob);
            }
            None if base.get_path(Path::new(path)).is_ok() => {
                builder.remove(path.as_str());
            }
            None => continue,
        }
        count += 1;
    }
    if count == 0 {
        return Ok(base.id());
    }
    if let Ok(id) = builder.create_updated(repo, base) {
        return Ok(id);
    }
    // A file where a folder must go (or the reverse): libgit2 refuses both
    // in one update, so what is in the way is removed in a pass of its own.
    let mut in_the_way = BTreeSet::new();
    for (path, target) in updates {
        if target.is_none() {
            continue;
        }
        if let Ok(entry) = base.get_path(Path::new(path))
            && entry.kind() == Some(ObjectType::Tree)
        {
            in_the_way.insert(path.clone());
        }
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let prefix = &path[..end];
            if let Ok(entry) = base.get_path(Path::new(prefix))
                && entry.kind() != Some(ObjectType::Tree)
            {
                in_the_way.insert(prefix.to_string());
            }
            end += 1;
        }
    }
    let removals: BTreeMap<String, Option<Oid>> =
        in_the_way.into_iter().map(|p| (p, None)).collect();
    let cleared = update_tree(repo, base, &removals)?;
    let cleared = repo
        .find_tree(cleared)
        .map_err(HistoryError::git("reading a tree"))?;
    update_tree(repo, &cleared, updates)
}

/// One `git_tree_create_updated` pass; paths already as wanted are skipped
/// (libgit2 fails on removing what is not there).
fn update_tree(
    repo: &Repository,
    base: &Tree<'_>,
    updates: &BTreeMap<String, Option<Oid>>,
) -> Result<Oid, HistoryError> {
    let mut builder = TreeUpdateBuilder::new();
    let mut count = 0;
    for (path, target) in updates {
        let current = base.get_path(Path::new(path)).ok();
        match (target, current) {
            (None, Some(_)) => {
                builder.remove(path.as_str());
            }
            (None, None) => continue,
            (Some(id), Some(entry))
                if entry.id() == *id && entry.filemode() == i32::from(FileMode::Blob) =>
            {
                continue;
            }
            (Some(id), _) => {
                builder.upsert(path.as_str(), *id, FileMode::Blob);
            }
        }
        count += 1;
    }
    if count == 0 {
        return Ok(base.id());
    }
    builder
        .create_updated(repo, base)
        .map_err(HistoryError::git("writing the new tree"))
}
