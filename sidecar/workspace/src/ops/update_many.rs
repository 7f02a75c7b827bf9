//! Many notes changed in one call: a frontmatter change made to every note
//! of a list ([`Ops::update_many`]) or keys renamed across the vault (notes,
//! `types.json`, bases: planned by `weft_bases::rename`), and tags renamed wherever they are
//! written, inline and in frontmatter, nested tags included
//! ([`Ops::rename_tags`]). Every note is read, changed and checked (the
//! write policy, the tag policy) before anything is written; the writes
//! then go together as one operation, one history entry. No protocol.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::error::OpError;
use super::move_note::DiskTexts;
use super::update_frontmatter::{FrontmatterChange, check_change};
use super::warning::Warning;
use super::{Change, Ops, Step, change, lock_writes};
use crate::config::OBSIDIAN_TYPES;
use crate::io::pool;
use weft_vault::note::is_note_path;
use weft_vault::query::TextSource;
use weft_vault::rewrite::{self, FileEdits};
use weft_vault::tags;

/// At most this many notes change in one call: every text is held, before
/// and after, until the writes are done.
pub const BATCH_LIMIT: usize = 10_000;

/// One frontmatter change, made to every note of a list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpdateMany {
    /// The notes: vault paths (`.md` optional), titles or aliases.
    pub notes: Vec<String>,
    pub change: FrontmatterChange,
    /// What history calls the batch (`update_frontmatter: {label}`).
    pub label: String,
    /// A rename across the vault: the change only renames keys, and they
    /// are renamed in every note, `.base` file and ```` ```base ```` block
    /// the agent sees, and in `types.json` (the declared type follows its
    /// key); `notes` is not read then.
    pub declared_too: bool,
    pub dry_run: bool,
}

/// Tags renamed in every note that uses them, or in those of `within`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenameTags {
    /// Tag → new tag (without `#`); a tag's nested tags follow it.
    pub renames: Vec<(String, String)>,
    /// Only these notes (vault paths, titles or aliases); `None`: every
    /// note.
    pub within: Option<Vec<String>>,
    pub dry_run: bool,
}

/// What a change to many notes did, or in a dry run would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManyReport {
    pub dry_run: bool,
    /// Every note that changes, in path order.
    pub changes: Vec<Change>,
    /// The notes that were already as asked.
    pub unchanged: Vec<String>,
    /// What each note's change noticed, by note.
    pub warnings: Vec<(String, Warning)>,
}

/// A note read, and its text after the change.
struct Planned {
    path: String,
    bytes: Vec<u8>,
    before: String,
    after: String,
}

impl Ops<'_> {
    /// Makes `request.change` to every note it names, all or nothing.
    pub fn update_many(&self, request: &UpdateMany) -> Result<ManyReport, OpError> {
        self.policy.check_writable()?;
        check_change(&request.change)?;
        if request.declared_too {
            return self.rename_keys(request);
        }
        check_count(request.notes.len())?;
        let _writes = lock_writes();
        let mut paths: Vec<String> = Vec::with_capacity(request.notes.len());
        for note in &request.notes {
            let rel = self.find_note(note)?;
            self.policy.check_path(&rel, false)?;
            paths.push(rel);
        }
        paths.sort();
        paths.dedup();
        let read = pool::map(&paths, |rel| self.read_existing(rel));
        let mut planned = Vec::with_capacity(paths.len());
        let mut warnings = Vec::new();
        for (path, current) in paths.into_iter().zip(read) {
            let current = current?;
            let (after, noticed) =
                self.changed_frontmatter(&path, &current.text, &request.change)?;
            warnings.extend(noticed.into_iter().map(|w| (path.clone(), w)));
            planned.push(Planned {
                path,
                bytes: current.bytes,
                before: current.text,
                after,
            });
        }
        self.carry_out(planned, warnings, &request.label, request.dry_run)
    }

    /// Keys renamed across the vault, one after the other, as the editor's
    /// rename plans them (`weft_bases::rename::plan_key_rename`): every
    /// note that has one, `types.json`, every `.base` file and
    /// ```` ```base ```` block that names one. Files the agent may not
    /// access are left as they are. All or nothing.
    fn rename_keys(&self, request: &UpdateMany) -> Result<ManyReport, OpError> {
        let change = &request.change;
        let only_renames = FrontmatterChange {
            rename: Vec::new(),
            ..change.clone()
        } == FrontmatterChange::default();
        if change.rename.is_empty() || !only_renames {
            return Err(OpError::Invalid(
                "a rename across the vault renames keys and changes nothing else".into(),
            ));
        }
        let _writes = lock_writes();
        let disk = DiskTexts::new(&self.vault.root);
        // Each file as read first, and as the renames so far left it.
        let mut before: BTreeMap<String, String> = BTreeMap::new();
        let mut after: HashMap<String, String> = HashMap::new();
        {
            let index = self.index();
            for (old, new) in &change.rename {
                let plan = {
                    let texts = |path: &str| after.get(path).cloned().or_else(|| disk.text(path));
                    let types = texts(OBSIDIAN_TYPES);
                    let types = types.as_deref().map(|t| (OBSIDIAN_TYPES, t));
                    weft_bases::rename::plan_key_rename(&index, old, new, &texts, types)
                        .map_err(|e| OpError::Invalid(e.0))?
                };
                for file in plan.edits {
                    let text = file.apply();
                    before.entry(file.path.clone()).or_insert(file.text);
                    after.insert(file.path, text);
                }
            }
        }
        // `types.json` is the vault's configuration, not a note one may not see.
        before.retain(|path, _| path == OBSIDIAN_TYPES || self.policy.access.sees(path));
        check_count(before.len())?;
        let mut planned = Vec::with_capacity(before.len());
        for (path, text) in before {
            self.policy.check_path(&path, false)?;
            let new_text = after.remove(&path).unwrap_or_else(|| text.clone());
            if is_note_path(&path) {
                self.check_tags(Some((&path, &text)), &path, &new_text)?;
            }
            planned.push(Planned {
                bytes: text.as_bytes().to_vec(),
                before: text,
                path,
                after: new_text,
            });
        }
        self.carry_out(planned, Vec::new(), &request.label, request.dry_run)
    }

    /// Renames tags in every note that writes them (or in `within`), all
    /// or nothing. Notes the agent may not access keep their tags; the
    /// report counts them.
    pub fn rename_tags(&self, request: &RenameTags) -> Result<ManyReport, OpError> {
        self.policy.check_writable()?;
        let renames = checked_renames(&request.renames)?;
        let _writes = lock_writes();
        let within = match &request.within {
            Some(notes) => Some(
                notes
                    .iter()
                    .map(|n| self.find_note(n))
                    .collect::<Result<BTreeSet<String>, _>>()?,
            ),
            None => None,
        };
        let texts = DiskTexts::new(&self.vault.root);
        let mut edits: BTreeMap<String, FileEdits> = BTreeMap::new();
        let mut skipped = Vec::new();
        {
            let index = self.index();
            for (old, new) in &renames {
                let plan = rewrite::rename_tag(&index, old, new, &texts)
                    .map_err(|e| OpError::Invalid(e.0))?;
                for file in plan.edits {
                    merge_edits(&mut edits, file)?;
                }
                skipped.extend(plan.skipped);
            }
        }
        let mut warnings: Vec<(String, Warning)> = skipped
            .into_iter()
            .filter(|(path, _)| self.policy.access.sees(path))
            .map(|(path, what)| (path.clone(), Warning::TagNotRenamed { path, what }))
            .collect();
        let unseen = edits.keys().filter(|p| !self.policy.access.sees(p)).count();
        edits.retain(|path, _| self.policy.access.sees(path));
        if let Some(within) = &within {
            edits.retain(|path, _| within.contains(path));
        } else if unseen > 0 {
            warnings.push((String::new(), Warning::UnseenTagsKept { count: unseen }));
        }
        check_count(edits.len())?;
        let mut planned = Vec::with_capacity(edits.len());
        for (path, file) in edits {
            self.policy.check_path(&path, false)?;
            let after = file.apply();
            self.check_tags(Some((&path, &file.text)), &path, &after)?;
            planned.push(Planned {
                bytes: file.text.as_bytes().to_vec(),
                before: file.text,
                path,
                after,
            });
        }
        let label = renames
            .iter()
            .map(|(old, new)| format!("#{old} → #{new}"))
            .collect::<Vec<_>>()
            .join(", ");
        self.carry_out(planned, warnings, &label, request.dry_run)
    }

    /// Writes every planned text that changes, as one operation (or, in a
    /// dry run, only says what would change).
    fn carry_out(
        &self,
        planned: Vec<Planned>,
        warnings: Vec<(String, Warning)>,
        label: &str,
        dry_run: bool,
    ) -> Result<ManyReport, OpError> {
        let mut changes = Vec::new();
        let mut unchanged = Vec::new();
        let mut steps = Vec::new();
        for note in planned {
            if note.after == note.before {
                unchanged.push(note.path);
                continue;
            }
            changes.push(change(
                &note.path,
                None,
                Some(&note.before),
                Some(&note.after),
                dry_run,
            ));
            steps.push(Step::Write {
                path: note.path,
                before: Some(note.bytes),
                after: note.after,
            });
        }
        if !steps.is_empty() {
            self.perform(dry_run, "update_frontmatter", label, &steps)?;
        }
        Ok(ManyReport {
            dry_run,
            changes,
            unchanged,
            warnings,
        })
    }
}

/// Refuses a batch larger than [`BATCH_LIMIT`].
fn check_count(count: usize) -> Result<(), OpError> {
    if count > BATCH_LIMIT {
        return Err(OpError::TooMany {
            count,
            limit: BATCH_LIMIT,
        });
    }
    Ok(())
}

/// The renames as tag names, checked: each old tag named once, none nested
/// in another (their uses would overlap), each new name a tag.
fn checked_renames(renames: &[(String, String)]) -> Result<Vec<(String, String)>, OpError> {
    if renames.is_empty() {
        return Err(OpError::NothingToUpdate);
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for (old, new) in renames {
        let old = tags::checked(old).map_err(OpError::Invalid)?;
        let new = tags::checked(new).map_err(OpError::Invalid)?;
        if let Some((other, _)) = out
            .iter()
            .find(|(o, _)| tags::matches(o, old) || tags::matches(old, o))
        {
            return Err(OpError::Invalid(format!(
                "`{old}` and `{other}` are the same tag or one is nested in the other; \
                 rename the outer one (its nested tags follow it)"
            )));
        }
        if old == new {
            return Err(OpError::Invalid(format!(
                "renaming `#{old}` to itself changes nothing"
            )));
        }
        out.push((old.to_string(), new.to_string()));
    }
    Ok(out)
}

/// Adds one rename's edits of a note to those of the others: the same
/// text (the note did not change between two reads), edits in order.
fn merge_edits(all: &mut BTreeMap<String, FileEdits>, file: FileEdits) -> Result<(), OpError> {
    match all.get_mut(&file.path) {
        None => {
            all.insert(file.path.clone(), file);
        }
        Some(have) if have.text == file.text => {
            have.edits.extend(file.edits);
            have.edits.sort_by_key(|e| e.range.start);
        }
        Some(_) => {
            return Err(OpError::Invalid(format!(
                "`{}` changed while the rename was planned; nothing was written. Try again",
                file.path
            )));
        }
    }
    Ok(())
}
