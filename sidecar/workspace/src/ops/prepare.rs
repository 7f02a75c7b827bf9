//! What every operation does before it writes: find the note the caller
//! named (a path, a title, an alias; never one the agent may not see),
//! check a path for a new note, read a note's current content, and check
//! the caller's `expected_sha256` and the tag rules.
//!
//! Reads only: nothing here writes, so a refusal found here changes
//! nothing. Carrying out the writes is `execute`'s business.

use std::path::PathBuf;

use super::error::OpError;
use super::{Ops, WriteOptions, policy, sha256_hex};
use crate::io::checked_path;
use weft_vault::NoteId;
use weft_vault::note::is_note_path;
use weft_vault::query::{Lookup, lookup};
use weft_vault::rewrite::note_path_for;

/// A note's current content on disk.
pub(crate) struct Current {
    pub(crate) bytes: Vec<u8>,
    pub(crate) text: String,
}

impl Ops<'_> {
    /// The vault path of the note a caller named: a path with or without
    /// `.md`, a wikilink target, a title or an alias.
    pub(crate) fn find_note(&self, input: &str) -> Result<String, OpError> {
        if let Some(path) = self.lookup_note(input)? {
            return Ok(path);
        }
        // Not indexed yet (created a moment ago, the watcher has not told
        // the index): look at the disk once.
        if let Ok((rel, abs)) = checked_path(&self.vault.root, input) {
            let rel = if is_note_path(&rel) {
                rel
            } else {
                format!("{rel}.md")
            };
            let abs = if abs.extension().is_some_and(|e| e == "md") {
                abs
            } else {
                self.abs(&rel)
            };
            if abs.is_file() {
                self.vault.apply_paths([abs]);
                if let Some(path) = self.lookup_note(input)? {
                    return Ok(path);
                }
            }
        }
        let index = self.index();
        Err(match lookup(&index, input) {
            Lookup::Unresolved { target, links } => OpError::NotFound {
                input: target,
                suggestions: Vec::new(),
                linked_from: links.len(),
            },
            Lookup::NotFound { suggestions } => OpError::NotFound {
                input: input.trim().to_string(),
                suggestions: suggestions
                    .into_iter()
                    .map(|id| index.note(id).path.to_string())
                    .filter(|path| self.policy.access.sees(path))
                    .collect(),
                linked_from: 0,
            },
            _ => OpError::NotFound {
                input: input.trim().to_string(),
                suggestions: Vec::new(),
                linked_from: 0,
            },
        })
    }

    pub(super) fn lookup_note(&self, input: &str) -> Result<Option<String>, OpError> {
        if input.trim().is_empty() {
            return Err(OpError::Invalid(
                "`path` is empty; give a vault path (with or without .md), a title or an alias"
                    .into(),
            ));
        }
        let index = self.index();
        // A note the agent may not see is named to it by nothing but what
        // it typed.
        let unseen_error =
            |id: NoteId| self.policy.unseen_error(&index.note(id).path, input.trim());
        match lookup(&index, input) {
            Lookup::Found(id) => match unseen_error(id) {
                Some(error) => Err(error),
                None => Ok(Some(index.note(id).path.to_string())),
            },
            Lookup::Ambiguous(ids) => {
                let visible: Vec<NoteId> = ids
                    .iter()
                    .copied()
                    .filter(|&id| unseen_error(id).is_none())
                    .collect();
                match visible.as_slice() {
                    [] => Err(unseen_error(ids[0]).unwrap_or(OpError::NotFound {
                        input: input.trim().to_string(),
                        suggestions: Vec::new(),
                        linked_from: 0,
                    })),
                    [one] => Ok(Some(index.note(*one).path.to_string())),
                    many => Err(OpError::Ambiguous {
                        input: input.trim().to_string(),
                        candidates: many
                            .iter()
                            .map(|id| index.note(*id).path.to_string())
                            .collect(),
                    }),
                }
            }
            _ => Ok(None),
        }
    }

    /// Checks a path for a new or moved note and returns its vault path
    /// (`.md` added when missing) and absolute path.
    pub(crate) fn note_target(&self, input: &str) -> Result<(String, PathBuf), OpError> {
        let path_error = |error| OpError::Path {
            input: input.trim().to_string(),
            error,
        };
        let (rel, _) = checked_path(&self.vault.root, input).map_err(path_error)?;
        let rel = note_path_for("", &rel).map_err(|e| OpError::InvalidName {
            input: input.trim().to_string(),
            message: e.0,
        })?;
        let (rel, abs) = checked_path(&self.vault.root, &rel).map_err(path_error)?;
        Ok((rel, abs))
    }

    /// The bytes of the file at `rel`; `None` when there is no file.
    pub(crate) fn read_bytes(&self, rel: &str) -> Result<Option<Vec<u8>>, OpError> {
        match std::fs::read(self.abs(rel)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(OpError::io(rel, "read", &e)),
        }
    }

    /// Reads a note's bytes and text; `None` when there is no file.
    pub(crate) fn read_current(&self, rel: &str) -> Result<Option<Current>, OpError> {
        let Some(bytes) = self.read_bytes(rel)? else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes.clone()).map_err(|e| OpError::NotUtf8 {
            path: rel.to_string(),
            at: e.utf8_error().valid_up_to(),
        })?;
        Ok(Some(Current { bytes, text }))
    }

    /// The note `path` names, ready to change: the write lock taken (held
    /// while the guard lives), the path allowed, the note's text as it is,
    /// the caller's `expected_sha256` checked.
    pub(crate) fn open_existing(
        &self,
        path: &str,
        options: &WriteOptions,
    ) -> Result<(std::sync::MutexGuard<'static, ()>, String, Current), OpError> {
        let writes = super::execute::lock_writes();
        let rel = self.find_note(path)?;
        self.policy.check_path(&rel, false)?;
        let current = self.read_existing(&rel)?;
        self.check_expected(&rel, Some(&current.bytes), options)?;
        Ok((writes, rel, current))
    }

    /// [`Ops::read_current`] for a note that must exist.
    pub(crate) fn read_existing(&self, rel: &str) -> Result<Current, OpError> {
        self.read_current(rel)?.ok_or_else(|| OpError::NotFound {
            input: rel.to_string(),
            suggestions: Vec::new(),
            linked_from: 0,
        })
    }

    /// Fails when the caller's `expected_sha256` does not match `current`.
    pub(crate) fn check_expected(
        &self,
        rel: &str,
        current: Option<&[u8]>,
        options: &WriteOptions,
    ) -> Result<(), OpError> {
        let Some(expected) = options.expected_sha256.as_deref() else {
            return Ok(());
        };
        let expected = expected.trim().to_ascii_lowercase();
        let current = current.map(sha256_hex);
        if current.as_deref() == Some(expected.as_str()) {
            return Ok(());
        }
        Err(OpError::Conflict {
            path: rel.to_string(),
            expected,
            current,
        })
    }

    /// Checks tags (policy and rules) for a new text.
    pub(crate) fn check_tags(
        &self,
        old: Option<(&str, &str)>,
        new_path: &str,
        new: &str,
    ) -> Result<(), OpError> {
        let index = self.index();
        let sees = |path: &str| self.policy.access.sees(path);
        let sees: Option<&dyn Fn(&str) -> bool> = self.policy.access.restricts().then_some(&sees);
        policy::check_tags(&index, &self.config().tags, sees, old, new_path, new)
    }
}
