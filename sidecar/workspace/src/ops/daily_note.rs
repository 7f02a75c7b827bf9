//! `daily_note`: the note for a day, in the configured folder and format
//! (`[daily]` in .weft.toml, or Obsidian's daily-notes settings), created
//! from the configured template when missing; read it or add to it (end,
//! start, or a section). No protocol.

use chrono::NaiveTime;
use serde::Serialize;

use super::error::OpError;
use super::{Change, Ops, Step, WriteOptions, change, lock_writes, sha256_hex, template};
use weft_vault::daily::{Date, daily_note_path, find_daily_note};
use weft_vault::edit::{EditOp, apply_ops};
use weft_vault::note::strip_md;

/// What to do with the day's note.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DailyOp {
    /// Return its text (creating it from the template when missing and
    /// writes are allowed).
    #[default]
    Read,
    Append {
        content: String,
    },
    /// After the frontmatter.
    Prepend {
        content: String,
    },
    /// At the end of a section (`Heading` or `Parent::Child`), which the
    /// note (or its template) must have.
    AppendSection {
        section: String,
        content: String,
    },
    PrependSection {
        section: String,
        content: String,
    },
}

impl DailyOp {
    pub fn name(&self) -> &'static str {
        match self {
            DailyOp::Read => "read",
            DailyOp::Append { .. } => "append",
            DailyOp::Prepend { .. } => "prepend",
            DailyOp::AppendSection { .. } => "append_section",
            DailyOp::PrependSection { .. } => "prepend_section",
        }
    }

    fn edit(&self) -> Option<EditOp> {
        Some(match self.clone() {
            DailyOp::Read => return None,
            DailyOp::Append { content } => EditOp::Append { content },
            DailyOp::Prepend { content } => EditOp::Prepend { content },
            DailyOp::AppendSection { section, content } => {
                EditOp::AppendSection { section, content }
            }
            DailyOp::PrependSection { section, content } => {
                EditOp::PrependSection { section, content }
            }
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DailyNote {
    /// `today` (or nothing), `yesterday`, `tomorrow` or `YYYY-MM-DD`.
    pub date: Option<String>,
    pub op: DailyOp,
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DailyReport {
    pub path: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Whether the note exists after the call (false for a read that could
    /// not create it: read-only vault or dry run).
    pub exists: bool,
    /// Created by this call (or, in a dry run, would be).
    pub created: bool,
    pub dry_run: bool,
    /// The note's text after the call (for `read`, or as it would be).
    pub text: String,
    pub sha256: String,
    /// The file's change, when there is one.
    pub change: Option<Change>,
}

impl Ops<'_> {
    /// Reads or adds to the daily note of a day.
    pub fn daily_note(&self, request: &DailyNote) -> Result<DailyReport, OpError> {
        let now = self.now();
        let (today, time) = (now.today(), now.time());
        let date = template::parse_day(request.date.as_deref(), today)?;
        let daily = &self.config().daily;
        let wanted = daily_note_path(&daily.folder, &daily.format, date);
        let (wanted, _) = self.note_target(&wanted)?;
        let writes = request.op != DailyOp::Read;
        if writes {
            self.policy.check_writable()?;
        }
        let _writes = lock_writes();
        let rel = self.daily_note_of(wanted);
        let iso = template::iso_date(date);
        // The daily note of a folder the agent may not access is not its to
        // read (or to be told of): only the date is named.
        if let Some(error) = self
            .policy
            .unseen_error(&rel, &format!("the daily note of {iso}"))
        {
            return Err(error);
        }
        let current = self.read_current(&rel)?;
        if let (DailyOp::Read, Some(current)) = (&request.op, &current) {
            return Ok(DailyReport {
                path: rel,
                date: iso,
                exists: true,
                created: false,
                dry_run: request.options.dry_run,
                sha256: sha256_hex(&current.bytes),
                text: current.text.clone(),
                change: None,
            });
        }
        let before = match &current {
            Some(current) => current.text.clone(),
            None => self.new_daily_text(&rel, date, time)?,
        };
        let dry_run = request.options.dry_run;
        // A read of a missing note creates it, unless nothing may be written.
        let may_write = self.policy.check_write(&rel).is_ok() && !dry_run;
        if !writes && !may_write {
            return Ok(DailyReport {
                path: rel,
                date: iso,
                exists: false,
                created: false,
                dry_run,
                sha256: sha256_hex(before.as_bytes()),
                text: before,
                change: None,
            });
        }
        self.policy.check_write(&rel)?;
        self.check_expected(
            &rel,
            current.as_ref().map(|c| c.bytes.as_slice()),
            &request.options,
        )?;
        let after = apply_daily(&rel, &request.op, &before)?;
        let old = current.as_ref().map(|c| (rel.as_str(), c.text.as_str()));
        self.check_tags(old, &rel, &after)?;
        let report_change = change(
            &rel,
            None,
            current.as_ref().map(|c| c.text.as_str()),
            Some(&after),
            dry_run,
        );
        let changed = current.as_ref().is_none_or(|c| c.text != after);
        if changed {
            self.perform(
                dry_run,
                "daily_note",
                &rel,
                &[Step::Write {
                    path: rel.clone(),
                    before: current.as_ref().map(|c| c.bytes.clone()),
                    after: after.clone(),
                }],
            )?;
        }
        Ok(DailyReport {
            path: rel,
            date: iso,
            exists: !dry_run || current.is_some(),
            created: current.is_none(),
            dry_run,
            sha256: sha256_hex(after.as_bytes()),
            text: after,
            change: changed.then_some(report_change),
        })
    }

    /// The note already taken as the daily note at `wanted` (written in
    /// another case, say), or `wanted`.
    fn daily_note_of(&self, wanted: String) -> String {
        let index = self.index();
        find_daily_note(&index, &wanted)
            .map(|id| index.note(id).path.to_string())
            .unwrap_or(wanted)
    }

    /// The text a new daily note at `rel` starts with: the template
    /// filled in, or nothing.
    fn new_daily_text(&self, rel: &str, date: Date, time: NaiveTime) -> Result<String, OpError> {
        let title = strip_md(rel).rsplit('/').next().unwrap_or_default();
        Ok(match &self.config().daily.template {
            Some(name) => template::fill(&self.read_template(name)?, title, date, time),
            None => String::new(),
        })
    }
}

/// `before` with `op` applied (a read leaves it as it is).
fn apply_daily(rel: &str, op: &DailyOp, before: &str) -> Result<String, OpError> {
    let Some(edit) = op.edit() else {
        return Ok(before.to_string());
    };
    Ok(apply_ops(before, std::slice::from_ref(&edit))
        .map_err(|(_, error)| OpError::Edit {
            path: rel.to_string(),
            op: 0,
            name: op.name(),
            error,
        })?
        .text)
}
