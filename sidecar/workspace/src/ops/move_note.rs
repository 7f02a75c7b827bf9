//! `move_note`: move or rename a note, an attachment or a folder. With
//! `update_links`, every link to what moves (and every relative link inside
//! it) is rewritten through `vault::rewrite`, which keeps `|alias`,
//! `#heading`, `#^block`, embeds and the link style; without it, the report
//! lists the links that now point to the old place. Link edits are written
//! first, then files move. No protocol.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use serde::Serialize;

use super::error::OpError;
use super::move_target::Source;
use super::warning::{Place, Warning};
use super::{
    Change, ChangeKind, LinkEdit, LinksIn, Ops, Step, WriteOptions, change, describe_edits,
    line_at, links_of, lock_writes,
};
use crate::io::pool;
use crate::sync::lock;
use weft_vault::note::is_note_path;
use weft_vault::query::TextSource;
use weft_vault::rewrite::{self, FileEdits, Pin, Plan, add_pins, captured_links};

/// What to move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// A note (vault path with or without `.md`, title or alias), an
    /// attachment's vault path, or a folder (`folder/`).
    pub path: String,
    /// The new vault path, from the vault root. For a note, `.md` is
    /// optional; an existing folder (or a path ending in `/`) moves the note
    /// into it under its own name.
    pub new_path: String,
    /// Rewrite every link to what moves.
    pub update_links: bool,
    /// Only for a note: its sha256 as read.
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveReport {
    /// `note`, `folder` or `attachment`.
    pub kind: &'static str,
    pub path: String,
    pub new_path: String,
    pub dry_run: bool,
    /// Every file that moves or changes.
    pub changes: Vec<Change>,
    /// Links rewritten (`update_links`), or that would be.
    pub link_edits: Vec<LinkEdit>,
    /// Without `update_links`: notes whose links still name the old place.
    pub stale: Vec<LinksIn>,
    pub warnings: Vec<Warning>,
}

/// Note texts read from disk for the rewrite; notes that cannot be read as
/// UTF-8 are remembered, since their links cannot be rewritten.
pub(crate) struct DiskTexts<'a> {
    root: &'a Path,
    pub(crate) skipped: Mutex<Vec<String>>,
}

impl<'a> DiskTexts<'a> {
    pub(crate) fn new(root: &'a Path) -> Self {
        DiskTexts {
            root,
            skipped: Mutex::new(Vec::new()),
        }
    }
}

impl TextSource for DiskTexts<'_> {
    fn text(&self, path: &str) -> Option<String> {
        match std::fs::read(self.root.join(path)).map(String::from_utf8) {
            Ok(Ok(text)) => Some(text),
            _ => {
                lock(&self.skipped).push(path.to_string());
                None
            }
        }
    }
}

/// What a move moves.
struct Moves {
    /// `note`, `folder` or `attachment`.
    kind: &'static str,
    from: String,
    to: String,
    /// Each file's old and new path.
    files: Vec<(String, String)>,
    /// A folder that moves whole, by one rename.
    whole_folder: bool,
}

impl Moves {
    /// Each moving file's new path, by its old one.
    fn new_path_of(&self) -> BTreeMap<&str, &str> {
        self.files
            .iter()
            .map(|(o, n)| (o.as_str(), n.as_str()))
            .collect()
    }
}

/// The plan's edits, by file.
fn edited(plan: &Plan) -> BTreeMap<&str, &FileEdits> {
    plan.edits.iter().map(|f| (f.path.as_str(), f)).collect()
}

impl Ops<'_> {
    /// Moves or renames a note, an attachment or a folder.
    pub fn move_note(&self, request: &MoveNote) -> Result<MoveReport, OpError> {
        self.policy.check_writable()?;
        let _writes = lock_writes();
        let source = self.move_source(&request.path)?;
        let moves = self.moves_of(&source, request)?;
        self.check_move(&source, &moves, request)?;

        // The rewrite, planned on the texts as they are on disk now.
        let texts = DiskTexts::new(&self.vault.root);
        let (mut plan, pins): (Plan, Vec<Pin>) = {
            let index = self.index();
            let plan = rewrite::move_files(&index, &moves.files, &texts)
                .map_err(|e| OpError::Rewrite(e.0))?;
            let pins = captured_links(&index, &moves.files, &plan, &texts);
            (plan, pins)
        };
        let mut warnings = self.unread_warnings(&texts);
        warnings.extend(self.pin_warnings(&pins, request.update_links));
        if request.update_links {
            self.pin_links(&mut plan, &pins, &moves.from)?;
        }
        self.check_moved_tags(&moves.files, &plan)?;

        let dry_run = request.options.dry_run;
        let (link_edits, stale) = match request.update_links {
            true => (self.link_edits(&plan), Vec::new()),
            false => (Vec::new(), stale_links(&plan, &moves.new_path_of())),
        };
        let (steps, changes) = self.move_steps(&moves, &plan, request.update_links, dry_run);
        self.perform(dry_run, "move_note", &moves.from, &steps)?;
        if !dry_run && moves.kind == "folder" && !moves.whole_folder {
            remove_empty_folders(&self.abs(&moves.from));
            if self.abs(&moves.from).exists() {
                warnings.push(Warning::FilesLeftBehind {
                    folder: moves.from.clone(),
                });
            }
        }
        Ok(MoveReport {
            kind: moves.kind,
            path: moves.from,
            new_path: moves.to,
            dry_run,
            changes,
            link_edits,
            stale,
            warnings,
        })
    }

    /// What moving `source` to the request's new path moves.
    fn moves_of(&self, source: &Source, request: &MoveNote) -> Result<Moves, OpError> {
        let one = |kind, rel: &String, to: String| Moves {
            kind,
            from: rel.clone(),
            to: to.clone(),
            files: vec![(rel.clone(), to)],
            whole_folder: false,
        };
        Ok(match source {
            Source::Note(rel) => one("note", rel, self.note_destination(rel, &request.new_path)?),
            Source::Attachment(rel) => one(
                "attachment",
                rel,
                self.file_destination(rel, &request.new_path)?,
            ),
            Source::Folder(rel) => {
                if request.options.expected_sha256.is_some() {
                    return Err(OpError::FolderSha256);
                }
                let (to, files, whole_folder) = self.folder_destination(rel, &request.new_path)?;
                Moves {
                    kind: "folder",
                    from: rel.clone(),
                    to,
                    files,
                    whole_folder,
                }
            }
        })
    }

    /// Refuses a move the agent may not make, or of a note changed since
    /// it was read.
    fn check_move(
        &self,
        source: &Source,
        moves: &Moves,
        request: &MoveNote,
    ) -> Result<(), OpError> {
        if moves.kind == "folder" {
            self.policy.check_path(&moves.from, true)?;
            self.policy.check_path(&moves.to, true)?;
        }
        // A folder holding notes the agent may not access is not its to
        // move (and they are never named to it).
        let unseen = moves
            .files
            .iter()
            .filter(|(old, _)| !self.policy.access.sees(old))
            .count();
        if moves.kind == "folder" && unseen > 0 {
            return Err(OpError::Invalid(format!(
                "`{}` holds {unseen} file(s) this agent may not access (`agent.allow`/`agent.deny` \
                 in .weft.toml); nothing was written. Ask the user to move the folder",
                moves.from
            )));
        }
        for (old, new) in &moves.files {
            self.policy.check_path(old, false)?;
            self.policy.check_path(new, false)?;
        }
        if let Source::Note(rel) = source {
            let current = self.read_existing(rel)?;
            self.check_expected(rel, Some(&current.bytes), &request.options)?;
        }
        Ok(())
    }

    /// The notes that could not be read as UTF-8, whose links were not
    /// looked at (those the agent may not access are never named).
    fn unread_warnings(&self, texts: &DiskTexts) -> Vec<Warning> {
        let mut skipped: Vec<String> = lock(&texts.skipped).clone();
        skipped.retain(|p| self.policy.access.sees(p));
        skipped.sort();
        skipped.dedup();
        skipped
            .into_iter()
            .map(|path| Warning::UnreadLinks { path })
            .collect()
    }

    /// Links to notes that stay, which the move would send elsewhere: those
    /// left so, and those no pin could be verified for.
    fn pin_warnings(&self, pins: &[Pin], update_links: bool) -> Vec<Warning> {
        let mut warnings = Vec::new();
        let hidden_pins = pins
            .iter()
            .filter(|p| !self.policy.access.sees(&p.path))
            .count();
        if hidden_pins > 0 && (!update_links || pins.iter().any(|p| !p.verified)) {
            warnings.push(Warning::UnseenLinksCaptured { count: hidden_pins });
        }
        for pin in pins.iter().filter(|p| self.policy.access.sees(&p.path)) {
            let line = line_at(&pin.text, pin.edit.range.start);
            let link = pin.text[pin.edit.range.clone()].to_string();
            // Notes the agent may not see are never named.
            let place = |p: &str| match self.policy.access.sees(p) {
                true => Place::Note(p.to_string()),
                false => Place::Unseen,
            };
            let after = pin.captured_by.as_deref().map_or(Place::Nowhere, place);
            let target = place(&pin.target);
            let path = pin.path.clone();
            if !update_links {
                if pin.to_moved {
                    continue; // Listed in `stale` already.
                }
                warnings.push(Warning::LinkCaptured {
                    link,
                    line,
                    path,
                    target,
                    after,
                });
            } else if !pin.verified {
                warnings.push(Warning::LinkNotPinned {
                    link,
                    line,
                    path,
                    target,
                    after,
                });
            }
        }
        warnings
    }

    /// Adds the verified pins to the plan; refuses when the plan would
    /// edit notes the agent may not write (rather than leave some links
    /// rewritten and others not).
    fn pin_links(&self, plan: &mut Plan, pins: &[Pin], from: &str) -> Result<(), OpError> {
        add_pins(plan, pins.iter().filter(|p| p.verified));
        let refused = plan
            .edits
            .iter()
            .filter(|file| self.policy.check_path(&file.path, false).is_err())
            .count();
        if refused > 0 {
            return Err(OpError::HiddenLinks {
                target: from.to_string(),
                notes: refused,
            });
        }
        Ok(())
    }

    /// Tag rules that name files (`name_prefix`) apply to moved notes.
    fn check_moved_tags(&self, files: &[(String, String)], plan: &Plan) -> Result<(), OpError> {
        if self.config().tags.rules.is_empty() {
            return Ok(());
        }
        let edited = edited(plan);
        let notes: Vec<&(String, String)> =
            files.iter().filter(|(old, _)| is_note_path(old)).collect();
        let currents = pool::map(&notes, |(old, _)| self.read_existing(old));
        for ((old, new), current) in notes.into_iter().zip(currents) {
            let current = current?;
            let after = edited.get(old.as_str()).map(|f| f.apply());
            let after = after.as_deref().unwrap_or(&current.text);
            self.check_tags(Some((old, &current.text)), new, after)?;
        }
        Ok(())
    }

    /// The links the plan rewrites, described.
    fn link_edits(&self, plan: &Plan) -> Vec<LinkEdit> {
        let mut link_edits = Vec::new();
        for file in &plan.edits {
            let index = self.index();
            let links = links_of(&index, &file.path, &file.text);
            link_edits.extend(describe_edits(file, &links));
        }
        link_edits
    }

    /// The steps of a move, link edits first (at the paths before the
    /// move), then the moves, with the changes they make.
    fn move_steps(
        &self,
        moves: &Moves,
        plan: &Plan,
        update_links: bool,
        dry_run: bool,
    ) -> (Vec<Step>, Vec<Change>) {
        let new_path_of = moves.new_path_of();
        let edited = edited(plan);
        let mut steps: Vec<Step> = Vec::new();
        let mut changes: Vec<Change> = Vec::new();
        if update_links {
            for file in &plan.edits {
                let after = file.apply();
                changes.push(change(
                    &file.path,
                    new_path_of.get(file.path.as_str()).copied(),
                    Some(&file.text),
                    Some(&after),
                    dry_run,
                ));
                steps.push(Step::Write {
                    path: file.path.clone(),
                    before: Some(file.text.clone().into_bytes()),
                    after,
                });
            }
        }
        // Files moved without edits (those with edits are reported above).
        let unedited: Vec<&(String, String)> = moves
            .files
            .iter()
            .filter(|(old, _)| !(update_links && edited.contains_key(old.as_str())))
            .collect();
        changes.extend(pool::map(&unedited, |(old, new)| {
            self.moved_change(old, new, dry_run)
        }));
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        if moves.whole_folder {
            steps.push(Step::Move {
                from: moves.from.clone(),
                to: moves.to.clone(),
            });
        } else {
            for (old, new) in &moves.files {
                steps.push(Step::Move {
                    from: old.clone(),
                    to: new.clone(),
                });
            }
        }
        (steps, changes)
    }

    /// The change for a file that moves without edits.
    fn moved_change(&self, old: &str, new: &str, dry_run: bool) -> Change {
        if is_note_path(old)
            && let Ok(Some(current)) = self.read_current(old)
        {
            return change(
                old,
                Some(new),
                Some(&current.text),
                Some(&current.text),
                dry_run,
            );
        }
        let size = std::fs::metadata(self.abs(old)).ok().map(|m| m.len());
        Change {
            kind: ChangeKind::Moved,
            path: old.to_string(),
            new_path: Some(new.to_string()),
            bytes_before: size,
            bytes_after: size,
            sha256: None,
            diff: dry_run.then(String::new),
        }
    }
}

/// Without `update_links`: the notes whose links the plan would rewrite
/// (at their paths after the move), with those links' lines.
fn stale_links(plan: &Plan, new_path_of: &BTreeMap<&str, &str>) -> Vec<LinksIn> {
    let mut stale: Vec<LinksIn> = plan
        .edits
        .iter()
        .map(|file| LinksIn {
            path: new_path_of
                .get(file.path.as_str())
                .map_or_else(|| file.path.clone(), |p| p.to_string()),
            count: file.edits.len(),
            lines: file
                .edits
                .iter()
                .map(|e| line_at(&file.text, e.range.start))
                .collect(),
        })
        .collect();
    stale.sort_by(|a, b| a.path.cmp(&b.path));
    stale
}

/// Removes `dir` and the folders under it that are empty; best effort.
fn remove_empty_folders(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_folders(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}
