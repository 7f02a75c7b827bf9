//! `edit_note`: an ordered list of text operations (append, replace_text,
//! sections, line ranges…) applied all or nothing to one note, guarded by
//! `expected_sha256`. The operations themselves live in `vault::edit`; this
//! is the IO around them. No protocol.

use serde::Serialize;

use super::error::OpError;
use super::warning::Warning;
use super::{Change, Ops, Step, WriteOptions, change, lost_links};
use weft_vault::edit::{EditOp, apply_ops};

/// What to edit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditNote {
    /// The note: a vault path (`.md` optional), a title or an alias.
    pub path: String,
    pub ops: Vec<EditOp>,
    pub options: WriteOptions,
}

/// What one operation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpCount {
    pub op: &'static str,
    /// Replacements made (`replace_text`), else 1.
    pub count: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditReport {
    pub change: Change,
    pub changed: bool,
    pub dry_run: bool,
    pub ops: Vec<OpCount>,
    /// Links into the note that the edit breaks (a removed heading…).
    pub warnings: Vec<Warning>,
}

impl Ops<'_> {
    /// Applies `request.ops` in order to one note, all or nothing.
    pub fn edit_note(&self, request: &EditNote) -> Result<EditReport, OpError> {
        self.policy.check_writable()?;
        if request.ops.is_empty() {
            return Err(OpError::Invalid(
                "`ops` is empty; give at least one operation, e.g. {\"op\": \"append\", \"content\": \"…\"}"
                    .into(),
            ));
        }
        let (_writes, rel, current) = self.open_existing(&request.path, &request.options)?;
        let outcome =
            apply_ops(&current.text, &request.ops).map_err(|(op, error)| OpError::Edit {
                path: rel.clone(),
                op,
                name: request.ops[op].name(),
                error,
            })?;
        self.check_tags(Some((&rel, &current.text)), &rel, &outcome.text)?;
        let changed = outcome.text != current.text;
        let warnings = if changed {
            lost_links(
                &self.index(),
                &|p| self.policy.access.sees(p),
                &rel,
                &current.text,
                &outcome.text,
            )
        } else {
            Vec::new()
        };
        let dry_run = request.options.dry_run;
        if changed {
            self.perform(
                dry_run,
                "edit_note",
                &rel,
                &[Step::Write {
                    path: rel.clone(),
                    before: Some(current.bytes.clone()),
                    after: outcome.text.clone(),
                }],
            )?;
        }
        Ok(EditReport {
            change: change(
                &rel,
                None,
                Some(&current.text),
                Some(&outcome.text),
                dry_run,
            ),
            changed,
            dry_run,
            ops: request
                .ops
                .iter()
                .zip(outcome.counts)
                .map(|(op, count)| OpCount {
                    op: op.name(),
                    count,
                })
                .collect(),
            warnings,
        })
    }
}
