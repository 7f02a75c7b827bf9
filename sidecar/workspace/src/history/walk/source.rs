//! One repository to read versions from (Weft's store or the vault's own
//! git): its commits newest first, the parents that count, the vault paths a
//! commit changed (renames paired), how a commit changed one note, and a
//! commit as a listing entry.
//!
//! Knows one repository at a time: merging both into one listing and
//! resolving ids across them is `listing`'s and `lookup`'s business.

use chrono::{DateTime, FixedOffset};
use git2::{Commit, ErrorCode, Oid, Repository, Revwalk, Sort, Tree};

use crate::history::changes::{blob_entry, changes, same_at, subtree};
use crate::history::error::HistoryError;
use crate::history::model::{ChangeKind, PathChange, Version, VersionSource};
use crate::history::store::{Store, head_id, parse_trailers, short_id};

/// Which repository a version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Weft,
    VaultGit,
}

/// One repository to read versions from.
pub(super) struct Src<'r> {
    pub(super) repo: &'r Repository,
    pub(super) kind: Kind,
    /// The vault's folder inside the repository: `""` or `"notes/"`.
    pub(super) prefix: &'r str,
}

/// The repositories to read: Weft's store, then the vault's own when it
/// has one.
pub(super) fn sources(store: &Store) -> Vec<Src<'_>> {
    let mut sources = vec![Src {
        repo: &store.repo,
        kind: Kind::Weft,
        prefix: "",
    }];
    if let Some(git) = &store.vault_git {
        sources.push(Src {
            repo: &git.repo,
            kind: Kind::VaultGit,
            prefix: &git.prefix,
        });
    }
    sources
}

/// The commits of one repository, newest first.
pub(super) enum Commits<'r> {
    /// Weft's linear history, parent by parent.
    Chain {
        repo: &'r Repository,
        next: Option<Oid>,
    },
    /// The vault repository's commits reachable from HEAD, by commit time.
    Walk {
        repo: &'r Repository,
        walk: Box<Revwalk<'r>>,
    },
}

impl<'r> Iterator for Commits<'r> {
    type Item = Result<Commit<'r>, HistoryError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Commits::Chain { repo, next } => {
                let id = next.take()?;
                let commit = match repo.find_commit(id) {
                    Ok(c) => c,
                    Err(e) => return Some(Err(HistoryError::git("reading a history commit")(e))),
                };
                *next = commit.parent_id(0).ok();
                Some(Ok(commit))
            }
            Commits::Walk { repo, walk } => {
                let id = match walk.next()? {
                    Ok(id) => id,
                    Err(e) => {
                        return Some(Err(HistoryError::git("walking the vault's git log")(e)));
                    }
                };
                Some(
                    repo.find_commit(id)
                        .map_err(HistoryError::git("reading a vault git commit")),
                )
            }
        }
    }
}

impl<'r> Src<'r> {
    pub(super) fn head(&self) -> Result<Option<Oid>, HistoryError> {
        match self.kind {
            Kind::Weft => head_id(self.repo),
            Kind::VaultGit => match self.repo.head() {
                Ok(head) => Ok(head.peel_to_commit().ok().map(|c| c.id())),
                Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                    Ok(None)
                }
                Err(e) => Err(HistoryError::git("reading the vault's git HEAD")(e)),
            },
        }
    }

    pub(super) fn commits(&self) -> Result<Commits<'r>, HistoryError> {
        let head = self.head()?;
        match self.kind {
            Kind::Weft => Ok(Commits::Chain {
                repo: self.repo,
                next: head,
            }),
            Kind::VaultGit => {
                let error = HistoryError::git("walking the vault's git log");
                let mut walk = self.repo.revwalk().map_err(error)?;
                walk.set_sorting(Sort::TIME).map_err(error)?;
                if let Some(head) = head {
                    walk.push(head).map_err(error)?;
                }
                Ok(Commits::Walk {
                    repo: self.repo,
                    walk: Box::new(walk),
                })
            }
        }
    }

    /// The parents that count: Weft's history is linear (first parent).
    pub(super) fn parents(&self, commit: &Commit<'r>) -> Result<Vec<Commit<'r>>, HistoryError> {
        let count = match self.kind {
            Kind::Weft => commit.parent_count().min(1),
            Kind::VaultGit => commit.parent_count(),
        };
        (0..count)
            .map(|i| {
                commit
                    .parent(i)
                    .map_err(HistoryError::git("reading a parent commit"))
            })
            .collect()
    }

    pub(super) fn qualifier(&self) -> &'static str {
        match self.kind {
            Kind::Weft => "weft",
            Kind::VaultGit => "git",
        }
    }

    pub(super) fn repo_path(&self, vault_path: &str) -> String {
        format!("{}{vault_path}", self.prefix)
    }

    /// A listing entry for `commit`.
    pub(super) fn version(
        &self,
        commit: &Commit<'_>,
        path_at_version: Option<String>,
        changes: Vec<PathChange>,
        changes_total: usize,
    ) -> Version {
        let raw = String::from_utf8_lossy(commit.message_bytes());
        let (message, source) = match self.kind {
            Kind::Weft => {
                let trailers = parse_trailers(&raw);
                let source = match trailers.source.as_deref() {
                    Some("external" | "baseline") => VersionSource::External,
                    _ => VersionSource::Weft,
                };
                (trailers.summary, source)
            }
            Kind::VaultGit => (raw.trim_end().to_string(), VersionSource::VaultGit),
        };
        let author = commit.author();
        Version {
            id: commit.id().to_string(),
            short_id: short_id(self.repo, commit.id()),
            time: time_of(author.when()),
            author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
            message,
            source,
            path_at_version,
            changes,
            changes_total,
        }
    }

    /// The vault's folder in `tree` (the tree itself without a prefix).
    pub(super) fn vault_tree(&self, tree: &Tree<'r>) -> Result<Option<Tree<'r>>, HistoryError> {
        subtree(self.repo, tree, self.prefix)
    }

    /// Every vault path `commit` changed (against its first parent), with
    /// renames paired.
    pub(super) fn changes_of(&self, commit: &Commit<'r>) -> Result<Vec<PathChange>, HistoryError> {
        let tree = commit
            .tree()
            .map_err(HistoryError::git("reading a version's tree"))?;
        let parent = match commit.parent_count() {
            0 => None,
            _ => Some(
                commit
                    .parent(0)
                    .and_then(|p| p.tree())
                    .map_err(HistoryError::git("reading a parent's tree"))?,
            ),
        };
        self.changes_between(commit, parent.as_ref(), &tree)
    }

    pub(super) fn changes_between(
        &self,
        commit: &Commit<'r>,
        parent: Option<&Tree<'r>>,
        tree: &Tree<'r>,
    ) -> Result<Vec<PathChange>, HistoryError> {
        let old = match parent {
            Some(parent) => self.vault_tree(parent)?,
            None => None,
        };
        let new = self.vault_tree(tree)?;
        let moves = match self.kind {
            Kind::Weft => parse_trailers(&String::from_utf8_lossy(commit.message_bytes())).moves,
            Kind::VaultGit => Vec::new(),
        };
        changes(self.repo, old.as_ref(), new.as_ref(), &moves)
    }

    /// How `commit` changed the note at vault path `name`, `None` when it
    /// did not. `tree` is the commit's tree, `parents` its parents' trees.
    pub(super) fn examine(
        &self,
        commit: &Commit<'r>,
        tree: &Tree<'r>,
        parents: &[Tree<'r>],
        name: &str,
    ) -> Result<Option<PathChange>, HistoryError> {
        let repo_path = self.repo_path(name);
        let touched = match parents {
            [] => blob_entry(tree, &repo_path).is_some(),
            // A merge shows only when it differs from every side.
            many => {
                let mut differs = true;
                for parent in many {
                    if same_at(self.repo, parent, tree, &repo_path)? {
                        differs = false;
                        break;
                    }
                }
                differs
            }
        };
        if !touched {
            return Ok(None);
        }
        let here = blob_entry(tree, &repo_path);
        let before = parents.first().and_then(|p| blob_entry(p, &repo_path));
        let plain = |kind| {
            Ok(Some(PathChange {
                kind,
                path: name.to_string(),
                from: None,
            }))
        };
        match (before, here) {
            (Some(_), Some(_)) | (None, None) => plain(ChangeKind::Modified),
            (Some(_), None) => plain(ChangeKind::Deleted),
            (None, Some(_)) if parents.len() == 1 => {
                // Added, or renamed: Weft's record first, else the pairing
                // of the commit's changes.
                if self.kind == Kind::Weft {
                    let trailers = parse_trailers(&String::from_utf8_lossy(commit.message_bytes()));
                    if let Some((from, _)) = trailers.moves.into_iter().find(|(_, to)| to == name) {
                        return Ok(Some(PathChange {
                            kind: ChangeKind::Renamed,
                            path: name.to_string(),
                            from: Some(from),
                        }));
                    }
                }
                let changes = self.changes_between(commit, parents.first(), tree)?;
                match changes.into_iter().find(|c| c.path == name) {
                    Some(change) if change.kind == ChangeKind::Renamed => Ok(Some(change)),
                    _ => plain(ChangeKind::Added),
                }
            }
            (None, Some(_)) => plain(ChangeKind::Added),
        }
    }
}

pub(super) fn time_of(when: git2::Time) -> DateTime<FixedOffset> {
    let offset = FixedOffset::east_opt(when.offset_minutes() * 60)
        .unwrap_or_else(|| FixedOffset::east_opt(0).expect("UTC is a valid offset"));
    DateTime::from_timestamp(when.seconds(), 0)
        .unwrap_or_default()
        .with_timezone(&offset)
}
