//! Write operations on a vault, as plain functions over a [`LiveVault`]:
//! create ([`Ops::write_note`]), edit ([`Ops::edit_note`]), change
//! frontmatter ([`Ops::update_frontmatter`]), move or rename with link
//! rewriting ([`Ops::move_note`]), delete to the trash ([`Ops::delete_note`]),
//! daily notes ([`Ops::daily_note`]), a task changed as the Tasks plugin
//! would ([`Ops::update_task`]) and restoring an old text
//! ([`Ops::restore_note`]).
//!
//! Every operation validates everything first (paths, policy, the caller's
//! `expected_sha256`, the edit itself), computes every new text, and only
//! then writes: atomically, file by file, and updates the index before it
//! returns, so a read right after sees the change. A failure before writing
//! changes nothing. This module must not know any protocol (MCP, LSP,
//! JSON-RPC) or async runtime: the MCP write tools are thin adapters over it.
//!
//! Layout: one file per operation (`move_note` with `move_target`, where a
//! move goes, and `pin`, links kept where they lead); `prepare` finds and
//! reads what a caller names and checks what it expects; `execute` carries
//! out the planned steps (the write lock, the IO pool, the index, the guard
//! and the log); `report` is what operations answer, `warning` what they
//! noticed and did not refuse, `links` the links they report, break or rewrite, `hooks` the log's and the guard's contracts.

mod daily_note;
mod delete_note;
mod edit_note;
mod error;
mod execute;
mod hooks;
mod links;
mod move_note;
mod move_target;
mod policy;
mod prepare;
mod report;
mod restore_note;
pub mod template;
mod update_frontmatter;
mod update_many;
mod update_task;
mod warning;
mod write_note;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::{Arc, RwLockReadGuard};

use crate::config::Config;
use crate::io::LiveVault;
use crate::sync::read;
use weft_search::dates::Now;
use weft_vault::VaultIndex;

pub use daily_note::{DailyNote, DailyOp, DailyReport};
pub use delete_note::{DeleteNote, DeleteReport, LinkPolicy};
pub use edit_note::{EditNote, EditReport, OpCount};
pub use error::{LISTED_TAGS, OpError, RuleProblem};
pub use hooks::{WriteGuard, WriteLog, Written};
pub use links::{LinkEdit, LinksIn, NoteLink};
pub use move_note::{MoveNote, MoveReport};
pub use report::{Change, ChangeKind, WriteOptions, sha256_hex};
pub use restore_note::{RestoreNote, RestoreReport};
pub use template::{fill as fill_template, format_moment, parse_day};
pub use update_frontmatter::{FrontmatterChange, FrontmatterReport, UpdateFrontmatter};
pub use update_many::{BATCH_LIMIT, ManyReport, RenameTags, UpdateMany};
pub use update_task::{TaskReport, UpdateTask};
pub use warning::{LostBy, Place, Warning};
pub use write_note::{WriteNote, WriteReport};

pub(crate) use execute::{Step, lock_writes};
pub(crate) use links::{describe_edits, folder, line_at, links_of, lost_links, resolved_links};
pub(crate) use report::change;

/// Where deleted notes go, under the vault root (a dot-folder: not indexed).
pub(crate) const TRASH_FOLDER: &str = ".trash";

/// The operations over one open vault, on behalf of `actor` (the client or
/// person asking; history records it as the author once history exists).
pub struct Ops<'a> {
    pub vault: &'a LiveVault,
    pub actor: String,
    policy: policy::WritePolicy,
    config: Arc<Config>,
    log: Option<&'a dyn WriteLog>,
    guard: Option<&'a dyn WriteGuard>,
}

impl<'a> Ops<'a> {
    pub fn new(vault: &'a LiveVault, actor: impl Into<String>) -> Ops<'a> {
        // One configuration for the whole operation, as it is now.
        let config = vault.config();
        Ops {
            vault,
            actor: actor.into(),
            policy: policy::WritePolicy::new(&vault.root, &config.agent),
            config,
            log: None,
            guard: None,
        }
    }

    /// Refuses writes over what `guard` protects (editors' unsaved text).
    pub fn with_guard(mut self, guard: &'a dyn WriteGuard) -> Ops<'a> {
        self.guard = Some(guard);
        self
    }

    /// Sends every operation's writes to `log` (history).
    pub fn with_log(mut self, log: &'a dyn WriteLog) -> Ops<'a> {
        self.log = Some(log);
        self
    }

    /// Now, in the vault's zone (THE clock, `weft_search::clock`): what
    /// today is for daily notes and templates.
    pub(crate) fn now(&self) -> Now {
        self.config().now()
    }

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn index(&self) -> RwLockReadGuard<'_, VaultIndex> {
        read(&self.vault.index)
    }

    pub(crate) fn abs(&self, rel: &str) -> PathBuf {
        self.vault.root.join(rel)
    }
}
