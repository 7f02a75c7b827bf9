//! Keeping a loaded vault's index equal to the disk: the paths someone says
//! changed (a note read and parsed again, a folder walked, a missing path
//! removed with everything under it), a full rescan when events were lost
//! or the ignore rules or `exclude` changed, and changes made in place for
//! text that is not on disk (an editor's buffer).
//!
//! Files are read and parsed outside the index lock; the write lock is held
//! only to mutate, and one update at a time, so a slow reader can never
//! overwrite a newer state. Must not know where paths come from (the
//! watcher, an editor, a tool's own write).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::LiveVault;
use crate::config::{CONFIG_FILE, OBSIDIAN_DAILY_NOTES, OBSIDIAN_TYPES};
use crate::io::filter::{PathFilter, relative_path};
use crate::io::load::{
    exclude_problems, is_ignore_file, read_error_message, read_note, read_notes, walk,
};
use crate::io::snapshot::Stamp;
use crate::io::write::remove_stale_temp;
use crate::sync::{lock, read, write};
use weft_vault::note::{folder_of, is_note_path};
use weft_vault::{Note, VaultIndex};

/// What one update found on disk, before it touches the index.
#[derive(Default)]
struct Batch {
    /// Vault paths that no longer exist, sorted.
    missing: Vec<String>,
    /// Vault paths that are folders now: a file indexed there is gone.
    replaced: Vec<String>,
    /// Notes read, with the stamps of their files.
    notes: Vec<(Note, Stamp)>,
    attachments: Vec<String>,
    /// Paths read now (errors for them are cleared).
    read: Vec<String>,
    errors: Vec<(String, String)>,
}

impl LiveVault {
    /// Reads the configuration files again when they changed (two `stat`s
    /// when they did not) and applies a changed `exclude`: the vault is
    /// rescanned with the new filter. Returns the vault paths whose index
    /// entries changed.
    pub fn refresh_config(&self) -> Vec<String> {
        self.config.refresh();
        let _update = lock(&self.update);
        self.follow_types_locked();
        match self.follow_excludes_locked() {
            true => self.rescan_locked(),
            false => Vec::new(),
        }
    }

    /// Hands the index the property types the configuration declares now
    /// (`.obsidian/types.json`), when they changed. Under the update lock.
    fn follow_types_locked(&self) {
        let config = self.config.current();
        if read(&self.index).types() != &config.types {
            write(&self.index).set_types(&config.types);
        }
    }

    /// Rebuilds the filter when the configuration's `exclude` is no longer
    /// the one it was built from; whether it did. Under the update lock.
    fn follow_excludes_locked(&self) -> bool {
        let config = self.config.current();
        if self.filter().exclude_globs() == config.exclude.as_slice() {
            return false;
        }
        tracing::info!("`exclude` changed: filtering the vault again");
        *write(&self.filter) = PathFilter::new(&self.root, &config);
        true
    }

    /// Makes the index agree with the disk for `paths` (absolute paths in the
    /// vault; others are ignored): an existing note is read and parsed, and
    /// replaces the indexed one unless its content is the same; an existing
    /// folder is walked; a missing path is removed, with everything under it.
    /// A changed `.gitignore` or `.ignore` triggers [`LiveVault::rescan`].
    /// Returns the vault paths whose entries changed, sorted.
    pub fn apply_paths(&self, paths: impl IntoIterator<Item = PathBuf>) -> Vec<String> {
        let _update = lock(&self.update);
        let filter = self.filter();
        let mut rels = BTreeSet::new();
        let mut rules_changed = false;
        let mut config_changed = false;
        for path in paths {
            let Some(rel) = self.vault_path(&path) else {
                continue;
            };
            if rel.is_empty() {
                continue; // The root itself: its children have their own events.
            }
            if rel == CONFIG_FILE || rel == OBSIDIAN_DAILY_NOTES || rel == OBSIDIAN_TYPES {
                config_changed = true;
                continue;
            }
            if is_ignore_file(&rel) {
                rules_changed |= !filter.is_excluded_as(folder_of(&rel), true);
                continue;
            }
            if rel.split('/').any(|part| part.starts_with('.')) {
                // `.git/…` and friends, cheaply, before any stat; but a
                // temporary file of a write that died goes.
                remove_stale_temp(&path);
                continue;
            }
            rels.insert(rel);
        }
        if config_changed {
            self.config.refresh();
            self.follow_types_locked();
            rules_changed |= self.follow_excludes_locked();
        }
        if rules_changed {
            return self.rescan_locked();
        }
        if rels.is_empty() {
            return Vec::new();
        }
        let batch = self.read_paths(rels);
        self.commit(batch)
    }

    /// Changes the index for `note`, an editor's text (not on disk, such
    /// as an unsaved buffer), serialised with every other update (the
    /// disk's and the editors'); its file's stamp goes, so it is read again
    /// on the next start. Unless the index holds that very note already (a
    /// note opened as it was saved): then nothing changes — the stamp
    /// stays, the index keeps its generation, so there is no snapshot to
    /// save — and `None` is returned.
    pub(crate) fn index_unsaved<T>(
        &self,
        note: Note,
        change: impl FnOnce(&mut VaultIndex, Note) -> T,
    ) -> Option<T> {
        let _update = lock(&self.update);
        {
            let index = read(&self.index);
            if index
                .id_of(&note.path)
                .is_some_and(|id| *index.note(id) == note)
            {
                return None;
            }
        }
        lock(&self.stamps).remove(&*note.path);
        Some(change(&mut write(&self.index), note))
    }

    /// Makes the whole index agree with the disk: rereads the ignore files,
    /// scans the vault, upserts what changed and removes what is gone. For
    /// lost events only; single changes go through [`LiveVault::apply_paths`].
    pub(crate) fn rescan(&self) -> Vec<String> {
        let _update = lock(&self.update);
        self.rescans
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.rescan_locked()
    }

    fn rescan_locked(&self) -> Vec<String> {
        let filter = self.filter();
        filter.clear_cache();
        let found = walk(&filter, filter.root());
        for temp in &found.temps {
            remove_stale_temp(temp);
        }
        let mut errors = found.errors;
        errors.extend(exclude_problems(&filter));
        let on_disk: HashSet<String> = found
            .notes
            .iter()
            .map(|(rel, _)| rel.clone())
            .chain(found.attachments.iter().cloned())
            .collect();
        // Only files whose stamp changed since they were read are read again.
        let stale: Vec<(String, PathBuf)> = {
            let stamps = lock(&self.stamps);
            found
                .notes
                .into_iter()
                .filter(|(rel, path)| !unchanged(stamps.get(rel.as_str()), path))
                .collect()
        };
        let read_now = read_notes(stale);
        errors.extend(read_now.errors);
        let missing: Vec<String> = {
            let index = read(&self.index);
            index
                .notes()
                .map(|(_, n)| &*n.path)
                .chain(index.attachments())
                .filter(|p| !on_disk.contains(*p))
                .map(str::to_string)
                .collect()
        };
        drop(on_disk);
        lock(&self.errors).clear();
        self.commit(Batch {
            missing,
            replaced: Vec::new(),
            notes: read_now.notes,
            attachments: found.attachments,
            read: Vec::new(),
            errors,
        })
    }

    /// The vault path of an absolute path, or `None` when it is outside the
    /// vault. A path through a symlinked parent is resolved first.
    fn vault_path(&self, path: &Path) -> Option<String> {
        if let Some(rel) = relative_path(&self.root, path) {
            return Some(rel);
        }
        let parent = path.parent()?.canonicalize().ok()?;
        relative_path(&self.root, &parent.join(path.file_name()?))
    }

    /// Looks at each path on disk (no lock held): reads and parses notes,
    /// walks folders.
    fn read_paths(&self, rels: BTreeSet<String>) -> Batch {
        let filter = self.filter();
        let mut batch = Batch::default();
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        for rel in rels {
            let abs = self.root.join(&rel);
            let metadata = match std::fs::symlink_metadata(&abs) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    // A path in a skipped folder was never indexed.
                    if !filter.is_excluded_as(&rel, false) || lock(&self.errors).contains_key(&rel)
                    {
                        batch.missing.push(rel);
                    }
                    continue;
                }
                Err(e) => {
                    batch.errors.push((rel, read_error_message(&e)));
                    continue;
                }
            };
            let kind = metadata.file_type();
            if filter.is_excluded_as(&rel, kind.is_dir()) {
                continue;
            }
            if kind.is_dir() {
                tracing::debug!("{rel}: a folder changed; reading it whole");
                batch.replaced.push(rel);
                let found = walk(&filter, &abs);
                for temp in &found.temps {
                    remove_stale_temp(temp);
                }
                batch.errors.extend(found.errors);
                batch.read.extend(found.notes.iter().map(|n| n.0.clone()));
                files.extend(found.notes);
                batch.attachments.extend(found.attachments);
                continue;
            }
            let read_from = if kind.is_file() {
                abs
            } else if kind.is_symlink() {
                match filter.symlink_file_in_vault(&abs) {
                    Some(target) => target,
                    None => {
                        batch.missing.push(rel); // Not (or no longer) a file here.
                        continue;
                    }
                }
            } else {
                continue;
            };
            if is_note_path(&rel) {
                files.push((rel, read_from));
            } else {
                batch.attachments.push(rel);
            }
        }
        if files.len() > 1 {
            let scan = read_notes(files.clone());
            let parsed: HashSet<&str> = scan.notes.iter().map(|(n, _)| &*n.path).collect();
            let failed: HashSet<&str> = scan.errors.iter().map(|e| e.0.as_str()).collect();
            // Files that vanished between the walk and the read.
            for (rel, _) in &files {
                if !parsed.contains(rel.as_str()) && !failed.contains(rel.as_str()) {
                    batch.missing.push(rel.clone());
                }
            }
            batch
                .read
                .extend(scan.notes.iter().map(|(n, _)| n.path.to_string()));
            batch.notes = scan.notes;
            batch.errors.extend(scan.errors);
        } else {
            for (rel, path) in files {
                match read_note(&rel, &path) {
                    Ok((note, stamp)) => {
                        batch.read.push(rel);
                        batch.notes.push((note, stamp));
                    }
                    Err(None) => batch.missing.push(rel),
                    Err(Some(error)) => batch.errors.push(error),
                }
            }
        }
        batch.missing.sort();
        batch.missing.dedup();
        batch
    }

    /// Applies a batch to the index under the write lock: removals first (so
    /// a case-only rename ends with the new name), then upserts.
    fn commit(&self, batch: Batch) -> Vec<String> {
        let Batch {
            missing,
            replaced,
            notes,
            attachments,
            read: read_now,
            errors,
        } = batch;
        {
            let mut known = lock(&self.errors);
            for rel in &missing {
                known.remove(rel);
                let prefix = format!("{rel}/");
                known.retain(|p, _| !p.starts_with(&prefix));
            }
            for rel in &read_now {
                known.remove(rel);
            }
            for (rel, message) in errors {
                tracing::warn!("{rel}: {message}");
                known.insert(rel, message);
            }
        }
        // Every note read has its file's stamp now, changed or not.
        let stamps: Vec<(Box<str>, Stamp)> = notes
            .iter()
            .map(|(note, stamp)| (note.path.clone(), *stamp))
            .collect();
        // Unchanged notes are skipped before taking the write lock.
        let notes: Vec<Note> = {
            let index = read(&self.index);
            notes
                .into_par_iter()
                .map(|(note, _)| note)
                .filter(|note| {
                    index.id_of(&note.path).is_none_or(|id| {
                        let old = index.note(id);
                        old.content_hash != note.content_hash || old.path != note.path
                    })
                })
                .collect()
        };
        let mut changed: Vec<String> = notes.iter().map(|n| n.path.to_string()).collect();
        // What the notes file in the tables is worked out before the lock.
        let prepared = VaultIndex::prepare(notes);
        let mut index = write(&self.index);
        for rel in &replaced {
            if remove_file_entry(&mut index, rel) {
                changed.push(rel.clone());
            }
        }
        let mut removed_folders: Vec<String> = Vec::new();
        for rel in &missing {
            if removed_folders.iter().any(|f| rel.starts_with(f.as_str())) {
                continue; // Under a folder removed just now.
            }
            if remove_file_entry(&mut index, rel) {
                changed.push(rel.clone());
                continue;
            }
            // A folder: remove everything under it, by exact (case-sensitive)
            // path prefix, in one pass over the index.
            let under = |path: &str| {
                path.len() > rel.len()
                    && path.as_bytes()[rel.len()] == b'/'
                    && path.starts_with(rel.as_str())
            };
            let notes_under: Vec<Box<str>> = index
                .notes()
                .filter(|(_, n)| under(&n.path))
                .map(|(_, n)| n.path.clone())
                .collect();
            let attachments_under: Vec<String> = index
                .attachments()
                .filter(|p| under(p))
                .map(str::to_string)
                .collect();
            for path in notes_under {
                index.remove(&path);
                changed.push(path.into());
            }
            for path in attachments_under {
                index.remove_attachment(&path);
                changed.push(path);
            }
            removed_folders.push(format!("{rel}/"));
        }
        index.extend(prepared);
        for attachment in attachments {
            let generation = index.generation();
            index.add_attachment(&attachment);
            if index.generation() != generation {
                changed.push(attachment);
            }
        }
        // A stamp goes with its note: none for a path the index no longer
        // holds a note at.
        let mut kept = lock(&self.stamps);
        for path in &changed {
            if index
                .id_of(path)
                .is_none_or(|id| *index.note(id).path != **path)
            {
                kept.remove(path.as_str());
            }
        }
        kept.extend(stamps);
        drop(kept);
        drop(index);
        changed.sort();
        changed.dedup();
        changed
    }
}

/// Removes the note or attachment at exactly `rel`; whether there was one.
/// Only the note at exactly this path: another file may share its
/// case-insensitive key.
fn remove_file_entry(index: &mut VaultIndex, rel: &str) -> bool {
    if is_note_path(rel) {
        match index.id_of(rel) {
            Some(id) if *index.note(id).path == *rel => index.remove(rel).is_some(),
            _ => false,
        }
    } else {
        index.remove_attachment(rel)
    }
}

/// Whether the file at `path` still has `stamp` (a note read before whose
/// file is unchanged): same size and time, and not racy.
fn unchanged(stamp: Option<&Stamp>, path: &Path) -> bool {
    stamp.is_some_and(|stamp| {
        !stamp.racy && std::fs::metadata(path).is_ok_and(|now| stamp.matches(&now))
    })
}
