//! `restore_note`: write an old version's text back as the note's content,
//! as a new change (history is never rewritten). The note is rewritten where
//! it is now; a note that no longer exists (deleted, or never indexed) is
//! created again at the path given. No protocol, and no history either: the
//! caller reads the old text from history and hands it over; the log (when
//! there is one) records the write like any other.

use serde::Serialize;

use super::error::OpError;
use super::{Change, Ops, Step, WriteOptions, change, lock_writes};

/// What to restore.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreNote {
    /// The note: a vault path (`.md` optional), a title or an alias of a
    /// note that exists; for one that does not, the vault path to create.
    pub path: String,
    /// The text to write back, exactly (line endings included).
    pub content: String,
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RestoreReport {
    pub change: Change,
    /// The note did not exist and was (or would be) created.
    pub recreated: bool,
    /// The note already holds this text: nothing was (or would be) written.
    pub unchanged: bool,
    pub dry_run: bool,
}

impl Ops<'_> {
    /// Writes `content` as the note's text, atomically, guarded by
    /// `expected_sha256`, and brings the index up to date.
    pub fn restore_note(&self, request: &RestoreNote) -> Result<RestoreReport, OpError> {
        self.policy.check_writable()?;
        let _writes = lock_writes();
        let rel = match self.lookup_note(&request.path)? {
            Some(existing) => existing,
            None => self.note_target(&request.path)?.0,
        };
        self.policy.check_path(&rel, false)?;
        if self.abs(&rel).is_dir() {
            return Err(OpError::Exists { path: rel });
        }
        let before: Option<Vec<u8>> = self.read_bytes(&rel)?;
        self.check_expected(&rel, before.as_deref(), &request.options)?;
        let dry_run = request.options.dry_run;
        let unchanged = before.as_deref() == Some(request.content.as_bytes());
        let old_text = before.as_ref().map(|b| String::from_utf8_lossy(b));
        let report_change = change(
            &rel,
            None,
            old_text.as_deref(),
            Some(&request.content),
            dry_run,
        );
        if !unchanged {
            self.perform(
                dry_run,
                "restore_note",
                &rel,
                &[Step::Write {
                    path: rel.clone(),
                    before: before.clone(),
                    after: request.content.clone(),
                }],
            )?;
        }
        Ok(RestoreReport {
            change: report_change,
            recreated: before.is_none(),
            unchanged,
            dry_run,
        })
    }
}
