//! Where a move goes: what the caller named (a note by path, title or
//! alias, an attachment, a folder) and its new vault path (into an existing
//! folder under its own name, `.md` added for a note), refusing a place that
//! is taken, the same place, or a folder moved into itself.
//!
//! Reads the index and looks at the disk, writes nothing: planning the
//! rewrite and carrying out the move are `move_note`'s business.

use super::Ops;
use super::error::OpError;
use crate::io::checked_path;
use weft_vault::key::path_key;
use weft_vault::note::is_note_path;
use weft_vault::rewrite;

/// What a move moves.
pub(super) enum Source {
    Note(String),
    Attachment(String),
    Folder(String),
}

impl Ops<'_> {
    /// What `input` names: a folder (`x/`, or an existing folder that is no
    /// note), an attachment, or a note.
    pub(super) fn move_source(&self, input: &str) -> Result<Source, OpError> {
        let trimmed = input.trim();
        let path_error = |error| OpError::Path {
            input: trimmed.to_string(),
            error,
        };
        if trimmed.ends_with('/') || trimmed.ends_with('\\') {
            let (rel, abs) = checked_path(&self.vault.root, trimmed).map_err(path_error)?;
            if !abs.is_dir() {
                return Err(OpError::NotFound {
                    input: trimmed.to_string(),
                    suggestions: Vec::new(),
                    linked_from: 0,
                });
            }
            return Ok(Source::Folder(rel));
        }
        if let Some(path) = {
            let index = self.index();
            index
                .id_of(trimmed)
                .map(|id| index.note(id).path.to_string())
        } {
            return Ok(Source::Note(path));
        }
        if let Ok((rel, abs)) = checked_path(&self.vault.root, trimmed) {
            if abs.is_dir() {
                return Ok(Source::Folder(rel));
            }
            let key = path_key(&rel);
            let index = self.index();
            if !is_note_path(&rel)
                && let Some(found) = index.attachments().find(|a| path_key(a) == key)
            {
                return Ok(Source::Attachment(found.to_string()));
            }
        }
        Ok(Source::Note(self.find_note(trimmed)?))
    }

    /// The new vault path of note `rel`.
    pub(super) fn note_destination(&self, rel: &str, new_path: &str) -> Result<String, OpError> {
        let into_folder = new_path.trim().ends_with(['/', '\\'])
            || checked_path(&self.vault.root, new_path).is_ok_and(|(_, abs)| abs.is_dir());
        let target = if into_folder {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            format!("{}/{name}", new_path.trim().trim_end_matches(['/', '\\']))
        } else {
            new_path.to_string()
        };
        let (to, abs) = self.note_target(&target)?;
        if to == rel {
            return Err(OpError::Invalid(format!(
                "`{rel}` is already at `{to}`: moving it there changes nothing"
            )));
        }
        let index = self.index();
        let same_note = index.id_of(&to).is_some() && index.id_of(&to) == index.id_of(rel);
        let other = index
            .id_of(&to)
            .filter(|_| !same_note)
            .map(|id| index.note(id).path.to_string());
        drop(index);
        if let Some(other) = other {
            return Err(OpError::Exists { path: other });
        }
        if !same_note && abs.symlink_metadata().is_ok() {
            return Err(OpError::Exists { path: to });
        }
        Ok(to)
    }

    /// The new vault path of attachment `rel`.
    pub(super) fn file_destination(&self, rel: &str, new_path: &str) -> Result<String, OpError> {
        let path_error = |error| OpError::Path {
            input: new_path.trim().to_string(),
            error,
        };
        let (mut to, mut abs) = checked_path(&self.vault.root, new_path).map_err(path_error)?;
        if new_path.trim().ends_with(['/', '\\']) || abs.is_dir() {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            (to, abs) =
                checked_path(&self.vault.root, &format!("{to}/{name}")).map_err(path_error)?;
        }
        if is_note_path(&to) {
            return Err(OpError::Invalid(format!(
                "`{rel}` is not a note; it cannot become `{to}`. Keep its extension"
            )));
        }
        if to == rel {
            return Err(OpError::Invalid(format!("`{rel}` is already there")));
        }
        if abs.symlink_metadata().is_ok() {
            return Err(OpError::Exists { path: to });
        }
        Ok(to)
    }

    /// The new folder path, the file moves, and whether the folder can move
    /// whole (its new place does not exist yet).
    #[allow(clippy::type_complexity)]
    pub(super) fn folder_destination(
        &self,
        rel: &str,
        new_path: &str,
    ) -> Result<(String, Vec<(String, String)>, bool), OpError> {
        let (to, abs) =
            checked_path(&self.vault.root, new_path).map_err(|error| OpError::Path {
                input: new_path.trim().to_string(),
                error,
            })?;
        if to == rel {
            return Err(OpError::Invalid(format!(
                "`{rel}` is already at `{to}`: moving it there changes nothing"
            )));
        }
        if to.starts_with(&format!("{rel}/")) {
            return Err(OpError::Invalid(format!(
                "cannot move the folder `{rel}` into itself (`{to}`)"
            )));
        }
        let moves = {
            let index = self.index();
            rewrite::folder_moves(&index, rel, &to)
        };
        let whole = abs.symlink_metadata().is_err();
        if !whole {
            if !abs.is_dir() {
                return Err(OpError::Exists { path: to });
            }
            for (_, new) in &moves {
                if self.abs(new).symlink_metadata().is_ok() {
                    return Err(OpError::Exists { path: new.clone() });
                }
                let index = self.index();
                if let Some(id) = index.id_of(new) {
                    return Err(OpError::Exists {
                        path: index.note(id).path.to_string(),
                    });
                }
            }
        }
        Ok((to, moves, whole))
    }
}
