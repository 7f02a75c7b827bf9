//! `delete_note`: move a note to the trash (restorable), listing the notes
//! whose links to it are now broken; with `link_policy: mark_deleted` those
//! links become `[[name (deleted)]]` (keeping their display text). Link
//! edits are written first, then the note moves. No protocol.

use std::collections::BTreeMap;

use serde::Serialize;

use super::error::OpError;
use super::warning::{Place, Warning};
use super::{
    Change, ChangeKind, LinkEdit, LinksIn, Ops, Step, TRASH_FOLDER, WriteOptions, change,
    describe_edits, folder, lock_writes, sha256_hex,
};
use crate::io::{MAX_NAME_BYTES, pool};
use weft_vault::note::strip_md;
use weft_vault::parse::parse_text;
use weft_vault::resolve::Resolution;
use weft_vault::rewrite::{Edit, FileEdits};
use weft_vault::{Link, LinkKind};

/// What happens to links to the deleted note.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkPolicy {
    /// Leave them (they become unresolved) and list them.
    #[default]
    Keep,
    /// Rewrite them to `[[name (deleted)]]`.
    MarkDeleted,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteNote {
    /// The note: a vault path (`.md` optional), a title or an alias.
    pub path: String,
    pub link_policy: LinkPolicy,
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteReport {
    pub path: String,
    /// Where the note is (or would be) in the trash.
    pub trash_path: String,
    pub dry_run: bool,
    pub changes: Vec<Change>,
    /// Notes whose links to it are broken now (before any marking).
    pub broken: Vec<LinksIn>,
    /// Links rewritten by `mark_deleted`.
    pub link_edits: Vec<LinkEdit>,
    pub warnings: Vec<Warning>,
}

/// The link edits of `mark_deleted`, as steps to take and changes to report.
#[derive(Default)]
struct Marked {
    steps: Vec<Step>,
    changes: Vec<Change>,
    link_edits: Vec<LinkEdit>,
    warnings: Vec<Warning>,
}

impl Ops<'_> {
    /// Moves a note to the trash.
    pub fn delete_note(&self, request: &DeleteNote) -> Result<DeleteReport, OpError> {
        self.policy.check_writable()?;
        let _writes = lock_writes();
        let rel = self.find_note(&request.path)?;
        self.policy.check_path(&rel, false)?;
        let bytes = std::fs::read(self.abs(&rel)).map_err(|e| OpError::io(&rel, "read", &e))?;
        self.check_expected(&rel, Some(&bytes), &request.options)?;
        let trash_path = self.trash_path(&rel);
        let (broken, mut warnings) = self.links_to(&rel);

        let dry_run = request.options.dry_run;
        let Marked {
            mut steps,
            mut changes,
            link_edits,
            warnings: marking,
        } = match request.link_policy {
            LinkPolicy::MarkDeleted => self.mark_all_deleted(&rel, &broken, dry_run)?,
            LinkPolicy::Keep => Marked::default(),
        };
        warnings.extend(marking);
        changes.push(Change {
            kind: ChangeKind::Deleted,
            path: rel.clone(),
            new_path: Some(trash_path.clone()),
            bytes_before: Some(bytes.len() as u64),
            bytes_after: None,
            sha256: Some(sha256_hex(&bytes)),
            diff: dry_run.then(String::new),
        });
        steps.push(Step::Move {
            from: rel.clone(),
            to: trash_path.clone(),
        });
        self.perform(dry_run, "delete_note", &rel, &steps)?;
        Ok(DeleteReport {
            path: rel,
            trash_path,
            dry_run,
            changes,
            broken: broken
                .into_iter()
                .map(|(path, lines)| LinksIn {
                    path,
                    count: lines.len(),
                    lines,
                })
                .collect(),
            link_edits,
            warnings,
        })
    }

    /// Links to the note `rel`, by source (their lines, 1-based); an
    /// ambiguous one falls to another candidate once the note is gone, so
    /// it does not break: a warning says where it falls.
    fn links_to(&self, rel: &str) -> (BTreeMap<String, Vec<usize>>, Vec<Warning>) {
        let mut broken: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut warnings = Vec::new();
        let index = self.index();
        let Some(id) = index.id_of(rel) else {
            return (broken, warnings);
        };
        for r in index.backlinks(id) {
            if r.source == id {
                continue;
            }
            let source = index.note(r.source).path.to_string();
            match index.resolve_ref(r) {
                Resolution::Ambiguous { candidates, .. } if candidates.len() > 1 => {
                    // Notes the agent may not see are never named.
                    if !self.policy.access.sees(&source) {
                        continue;
                    }
                    let others: Vec<Place> = candidates
                        .iter()
                        .filter(|c| **c != id)
                        .map(|c| index.note(*c).path.to_string())
                        .map(|p| match self.policy.access.sees(&p) {
                            true => Place::Note(p),
                            false => Place::Unseen,
                        })
                        .collect();
                    warnings.push(Warning::LinkFallsToAnother {
                        source,
                        line: index.link(r).line as usize + 1,
                        others,
                    });
                }
                _ => broken
                    .entry(source)
                    .or_default()
                    .push(index.link(r).line as usize + 1),
            }
        }
        (broken, warnings)
    }

    /// Every broken link to `rel` marked as deleted, source by source;
    /// refused if that would write into notes the agent may not access.
    fn mark_all_deleted(
        &self,
        rel: &str,
        broken: &BTreeMap<String, Vec<usize>>,
        dry_run: bool,
    ) -> Result<Marked, OpError> {
        let refused = broken
            .keys()
            .filter(|source| self.policy.check_path(source, false).is_err())
            .count();
        if refused > 0 {
            return Err(OpError::HiddenLinks {
                target: rel.to_string(),
                notes: refused,
            });
        }
        // Every source read and marked on the IO pool; the results are
        // taken in order, as they were one by one.
        let sources: Vec<&String> = broken.keys().collect();
        let results = pool::map(&sources, |source| {
            let mut found = Vec::new();
            let marked = self.mark_deleted(source, rel, &mut found);
            (marked, found)
        });
        let mut out = Marked::default();
        for (source, (marked, found)) in sources.into_iter().zip(results) {
            out.warnings.extend(found);
            let Some((file, links)) = marked? else {
                continue;
            };
            let after = file.apply();
            out.link_edits.extend(describe_edits(&file, &links));
            out.changes.push(change(
                source,
                None,
                Some(&file.text),
                Some(&after),
                dry_run,
            ));
            out.steps.push(Step::Write {
                path: source.clone(),
                before: Some(file.text.into_bytes()),
                after,
            });
        }
        Ok(out)
    }

    /// `.trash/<path>`, with ` 1`, ` 2`… before the extension when taken
    /// (a name as long as file systems allow cut to make room).
    fn trash_path(&self, rel: &str) -> String {
        let first = format!("{TRASH_FOLDER}/{rel}");
        if self.abs(&first).symlink_metadata().is_err() {
            return first;
        }
        let stem = strip_md(rel);
        let ext = &rel[stem.len()..];
        // The folder (with its `/`) and the name.
        let (folder, name) = stem.split_at(stem.rfind('/').map_or(0, |i| i + 1));
        (1..)
            .map(|n| {
                // ` N` added, the name cut (at a character) to stay a name
                // the file system takes.
                let suffix = format!(" {n}{ext}");
                let mut keep = name.len().min(MAX_NAME_BYTES.saturating_sub(suffix.len()));
                while !name.is_char_boundary(keep) {
                    keep -= 1;
                }
                format!("{TRASH_FOLDER}/{folder}{}{suffix}", &name[..keep])
            })
            .find(|p| self.abs(p).symlink_metadata().is_err())
            .unwrap_or(first)
    }

    /// The edits marking `source`'s links to `deleted` as deleted, from a
    /// fresh read of `source`, with the links of that text.
    fn mark_deleted(
        &self,
        source: &str,
        deleted: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<Option<(FileEdits, Vec<Link>)>, OpError> {
        let text = match self.read_current(source) {
            Ok(Some(current)) => current.text,
            Ok(None) => return Ok(None),
            Err(OpError::NotUtf8 { .. }) => {
                warnings.push(Warning::LinksNotMarked {
                    path: source.to_string(),
                });
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        self.policy.check_path(source, false)?;
        let name = strip_md(deleted).rsplit('/').next().unwrap_or(deleted);
        let note = parse_text(source, &text);
        let index = self.index();
        let Some(target) = index.id_of(deleted) else {
            return Ok(None);
        };
        let mut edits = Vec::new();
        for link in &note.links {
            if link.is_self_link() {
                continue;
            }
            let leads_here = matches!(
                index.resolve(folder(source), link.target(), link.kind),
                Resolution::Note(id) if id == target
            );
            if !leads_here {
                continue;
            }
            let alias = link
                .alias()
                .map(str::trim)
                .filter(|a| !a.is_empty() && (link.kind == LinkKind::Wiki || *a != name))
                .map(|a| format!("|{a}"))
                .unwrap_or_default();
            let bang = if link.embed { "!" } else { "" };
            edits.push(Edit {
                range: link.span.start as usize..link.span.end as usize,
                new_text: format!("{bang}[[{name} (deleted){alias}]]"),
            });
        }
        if edits.is_empty() {
            return Ok(None);
        }
        let file = FileEdits {
            path: source.to_string(),
            text,
            edits,
        };
        Ok(Some((file, note.links)))
    }
}
