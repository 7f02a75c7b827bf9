//! Following one note back through history: each commit newest first with
//! the note's name at that commit, which changes when a rename is crossed.
//!
//! Knows one repository (`source`) and one note; what to list or read from
//! the walk is the caller's business.

use git2::{Commit, Oid, Tree};

use super::source::{Commits, Src};
use crate::history::error::HistoryError;
use crate::history::model::PathChange;

/// One commit of a note's walk back through history.
pub(super) struct Step<'r> {
    pub(super) commit: Commit<'r>,
    /// The note's vault path in this commit.
    pub(super) name: String,
    /// How this commit changed the note, `None` when it did not.
    pub(super) change: Option<PathChange>,
}

/// Walks a repository's commits newest first, keeping track of the note's
/// name across renames.
pub(super) struct NoteWalk<'s, 'r> {
    pub(super) src: &'s Src<'r>,
    pub(super) commits: Commits<'r>,
    /// The note's vault path at the commit about to be examined.
    pub(super) name: String,
    /// The last parent's tree: the next commit's own tree, in Weft's chain
    /// (large trees are not kept in libgit2's cache).
    pub(super) cached: Option<(Oid, Tree<'r>)>,
}

impl<'s, 'r> NoteWalk<'s, 'r> {
    pub(super) fn new(src: &'s Src<'r>, vault_path: &str) -> Result<Self, HistoryError> {
        Ok(NoteWalk {
            src,
            commits: src.commits()?,
            name: vault_path.to_string(),
            cached: None,
        })
    }

    pub(super) fn step(&mut self, commit: Commit<'r>) -> Result<Step<'r>, HistoryError> {
        let tree = match self.cached.take() {
            Some((id, tree)) if id == commit.id() => tree,
            _ => commit
                .tree()
                .map_err(HistoryError::git("reading a version's tree"))?,
        };
        let parents = self.src.parents(&commit)?;
        let mut parent_trees = Vec::with_capacity(parents.len());
        for parent in &parents {
            parent_trees.push(
                parent
                    .tree()
                    .map_err(HistoryError::git("reading a parent's tree"))?,
            );
        }
        let change = self
            .src
            .examine(&commit, &tree, &parent_trees, &self.name)?;
        let name = self.name.clone();
        if let Some(from) = change.as_ref().and_then(|c| c.from.clone()) {
            self.name = from; // Older commits know the note by its old name.
        }
        if let (Some(parent), Some(parent_tree)) =
            (parents.first(), parent_trees.into_iter().next())
        {
            self.cached = Some((parent.id(), parent_tree));
        }
        Ok(Step {
            commit,
            name,
            change,
        })
    }
}

impl<'r> Iterator for NoteWalk<'_, 'r> {
    type Item = Result<Step<'r>, HistoryError>;

    fn next(&mut self) -> Option<Self::Item> {
        let commit = match self.commits.next()? {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        Some(self.step(commit))
    }
}
