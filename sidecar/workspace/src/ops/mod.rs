//! Write operations on a vault, as plain functions over a [`LiveVault`]:
//! create ([`Ops::write_note`]), edit ([`Ops::edit_note`]), change
//! frontmatter ([`Ops::update_frontmatter`]), move or rename with link
//! rewriting ([`Ops::move_note`]), delete to the trash ([`Ops::delete_note`]),
//! daily notes ([`Ops::daily_note`]) and restoring an old text
//! ([`Ops::restore_note`]).
//!
//! Every operation validates everything first (paths, policy, the caller's
//! `expected_sha256`, the edit itself), computes every new text, and only
//! then writes: atomically, file by file, and updates the index before it
//! returns, so a read right after sees the change. A failure before writing
//! changes nothing. This module must not know any protocol (MCP, LSP,
//! JSON-RPC) or async runtime: the MCP write tools are thin adapters over it.

mod daily_note;
mod delete_note;
mod edit_note;
mod error;
mod move_note;
mod pin;
mod policy;
mod restore_note;
pub mod template;
mod update_frontmatter;
mod write_note;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLockReadGuard};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::io::{LiveVault, checked_path, move_file, write_atomic};
use crate::sync::{lock, read};
use weft_vault::key::path_key;
use weft_vault::note::{folder_of, is_note_path};
use weft_vault::parse::parse_text;
use weft_vault::query::{Lookup, lookup};
use weft_vault::rewrite::note_path_for;
use weft_vault::{FragmentTarget, Link, Note, NoteId, VaultIndex, resolve_fragment};

pub use daily_note::{DailyNote, DailyOp, DailyReport};
pub use delete_note::{DeleteNote, DeleteReport, LinkPolicy};
pub use edit_note::{EditNote, EditReport, OpCount};
pub use error::OpError;
pub use move_note::{LinkEdit, LinksIn, MoveNote, MoveReport};
pub use restore_note::{RestoreNote, RestoreReport};
pub use template::{fill as fill_template, format_moment, parse_day};
pub use update_frontmatter::{FrontmatterReport, UpdateFrontmatter};
pub use write_note::{NoteLink, WriteNote, WriteReport};

/// Where deleted notes go, under the vault root (a dot-folder: not indexed).
pub const TRASH_FOLDER: &str = ".trash";

/// Options every write accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// The sha256 (hex) of the note as the caller read it; a different
    /// current content is a conflict and nothing is written.
    pub expected_sha256: Option<String>,
    /// Compute and report everything, with diffs, but write nothing.
    pub dry_run: bool,
}

/// What happened (or, in a dry run, would happen) to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    /// Moved or renamed (its text may have changed too: relative links).
    Moved,
    /// Moved to the trash.
    Deleted,
}

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The vault path before the change (for a created note, its path).
    pub path: String,
    /// Moved: the new vault path; deleted: where it is in the trash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    /// Size before (`None` for a created note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_before: Option<u64>,
    /// Size after (`None` for a deleted note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_after: Option<u64>,
    /// The sha256 of the new content (`None` for a deleted note).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Dry runs only: the unified diff of the file (empty for a move that
    /// does not change the text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The sha256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The unified diff between two versions of a file (`None`: absent).
pub fn unified_diff(
    old_path: &str,
    new_path: &str,
    before: Option<&str>,
    after: Option<&str>,
) -> String {
    let a = before.map_or("/dev/null".to_string(), |_| format!("a/{old_path}"));
    let b = after.map_or("/dev/null".to_string(), |_| format!("b/{new_path}"));
    let (before, after) = (before.unwrap_or(""), after.unwrap_or(""));
    if before == after {
        return String::new();
    }
    // Bounded: past the deadline the diff is approximate, never endless.
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string()
}

/// Threads writing the files of one operation.
const WRITE_THREADS: usize = 8;

/// Serialises writes of this process: a check (sha256, existence) and the
/// write it guards cannot interleave with another operation's.
static WRITE_LOCK: Mutex<()> = Mutex::new(());

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

/// One file an operation wrote, as it is now on disk (for history).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// Created or rewritten.
    Write { path: String, bytes: Vec<u8> },
    /// Moved or renamed; `bytes` is its content at `to` (a move may rewrite
    /// relative links).
    Move {
        from: String,
        to: String,
        bytes: Vec<u8>,
    },
    /// Deleted (moved to the trash).
    Delete { path: String },
}

/// Receives what each operation wrote, once it is on disk and indexed:
/// history records it as one commit (`actor` as the author, `tool: path` as
/// the message). Also called with the steps done when an operation stops
/// part way, since they are on disk. Errors are the log's own business.
pub trait WriteLog: Send + Sync {
    fn record(&self, actor: &str, tool: &str, path: &str, written: &[Written]);
}

/// Stands between an operation and text that is not on disk yet: an
/// editor's unsaved buffer is never overwritten.
pub trait WriteGuard: Send + Sync {
    /// Fails when `path` (a note, or with `folder` everything under it) has
    /// unsaved changes somewhere.
    fn check(&self, path: &str, folder: bool) -> Result<(), OpError>;
    /// These vault paths were just written (and indexed): buffers holding
    /// them (all saved, by [`WriteGuard::check`]) are now older than the disk.
    fn written(&self, paths: &[String]);
}

/// A note's current content on disk.
pub(crate) struct Current {
    pub(crate) bytes: Vec<u8>,
    pub(crate) text: String,
}

/// One step of a write, checked again right before it is carried out.
pub(crate) enum Step {
    /// Write `after` at `path`; the file must still hold `before` (`None`:
    /// must not exist).
    Write {
        path: String,
        before: Option<Vec<u8>>,
        after: String,
    },
    /// Move a file or folder; `to` must not exist.
    Move { from: String, to: String },
}

impl Step {
    fn describe(&self) -> String {
        match self {
            Step::Write { path, before, .. } => {
                format!(
                    "{} `{path}`",
                    if before.is_some() { "wrote" } else { "created" }
                )
            }
            Step::Move { from, to } => format!("moved `{from}` to `{to}`"),
        }
    }
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

    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn index(&self) -> RwLockReadGuard<'_, VaultIndex> {
        read(&self.vault.index)
    }

    pub(crate) fn abs(&self, rel: &str) -> PathBuf {
        self.vault.root.join(rel)
    }

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
                    .filter(|path| self.policy.visible(path))
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

    fn lookup_note(&self, input: &str) -> Result<Option<String>, OpError> {
        if input.trim().is_empty() {
            return Err(OpError::Invalid(
                "`path` is empty; give a vault path (with or without .md), a title or an alias"
                    .into(),
            ));
        }
        let index = self.index();
        // A note the agent may not see is named to it by nothing but what
        // it typed.
        let hidden = |id: NoteId| self.policy.hidden(&index.note(id).path, input.trim());
        match lookup(&index, input) {
            Lookup::Found(id) => match hidden(id) {
                Some(error) => Err(error),
                None => Ok(Some(index.note(id).path.to_string())),
            },
            Lookup::Ambiguous(ids) => {
                let visible: Vec<NoteId> = ids
                    .iter()
                    .copied()
                    .filter(|&id| hidden(id).is_none())
                    .collect();
                match visible.as_slice() {
                    [] => Err(hidden(ids[0]).unwrap_or(OpError::NotFound {
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

    /// Reads a note's bytes; `None` when there is no file.
    pub(crate) fn read_current(&self, rel: &str) -> Result<Option<Current>, OpError> {
        match std::fs::read(self.abs(rel)) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes.clone()).map_err(|e| OpError::NotUtf8 {
                    path: rel.to_string(),
                    at: e.utf8_error().valid_up_to(),
                })?;
                Ok(Some(Current { bytes, text }))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(OpError::Io {
                path: rel.to_string(),
                action: "read",
                message: e.to_string(),
            }),
        }
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
        let visible = |path: &str| self.policy.visible(path);
        let visible: Option<&dyn Fn(&str) -> bool> = self.policy.restricts().then_some(&visible);
        policy::check_tags(&index, &self.config().tags, visible, old, new_path, new)
    }

    /// Carries out `steps` ([`Ops::execute`]), or for a dry run only
    /// checks what would refuse them before anything is read again: an
    /// editor's unsaved text (a dry run's diff is against the disk, which
    /// is not what the user sees).
    pub(crate) fn perform(
        &self,
        dry_run: bool,
        tool: &str,
        path: &str,
        steps: &[Step],
    ) -> Result<(), OpError> {
        if dry_run {
            return self.check_guard(steps);
        }
        self.execute(tool, path, steps)
    }

    fn check_guard(&self, steps: &[Step]) -> Result<(), OpError> {
        let Some(guard) = self.guard else {
            return Ok(());
        };
        for step in steps {
            match step {
                Step::Write { path, .. } => guard.check(path, false)?,
                Step::Move { from, .. } => guard.check(from, true)?,
            }
        }
        Ok(())
    }

    /// Carries out `steps`, each checked again against the disk right
    /// before, then brings the index up to date for every path touched (also
    /// after a failure, for the steps that were done). Every write's check
    /// runs first, so a conflict found then changes nothing. Runs of writes
    /// go in parallel (their fsyncs overlap); moves follow in order.
    pub(crate) fn execute(&self, tool: &str, path: &str, steps: &[Step]) -> Result<(), OpError> {
        self.check_guard(steps)?;
        for step in steps {
            if let Step::Write { path, before, .. } = step {
                self.check_unchanged(path, before.as_deref())?;
            }
        }
        let mut touched: Vec<PathBuf> = Vec::new();
        let mut touched_rel: Vec<String> = Vec::new();
        let mut done: Vec<String> = Vec::new();
        let mut done_steps: Vec<&Step> = Vec::new();
        let mut failure: Option<(String, OpError)> = None;
        let mut rest = steps;
        while !rest.is_empty() && failure.is_none() {
            let writes = rest
                .iter()
                .take_while(|s| matches!(s, Step::Write { .. }))
                .count()
                .max(1);
            let (batch, next) = rest.split_at(writes);
            rest = next;
            let results = self.run_steps(batch);
            for (step, result) in batch.iter().zip(results) {
                match result {
                    Ok(()) => {
                        match step {
                            Step::Write { path, .. } => {
                                touched.push(self.abs(path));
                                touched_rel.push(path.clone());
                            }
                            Step::Move { from, to } => {
                                touched.push(self.abs(from));
                                touched.push(self.abs(to));
                                touched_rel.push(from.clone());
                                touched_rel.push(to.clone());
                            }
                        }
                        done.push(step.describe());
                        done_steps.push(step);
                    }
                    Err(error) => {
                        if failure.is_none() {
                            failure = Some((step.describe(), error));
                        }
                    }
                }
            }
        }
        if !touched.is_empty() {
            self.vault.apply_paths(touched);
            if let Some(guard) = self.guard {
                guard.written(&touched_rel);
            }
        }
        if let Some(log) = self.log {
            let written = self.written(&done_steps);
            if !written.is_empty() {
                log.record(&self.actor, tool, path, &written);
            }
        }
        match failure {
            None => Ok(()),
            Some((_, error)) if done.is_empty() => Err(error),
            Some((failed, error)) => Err(OpError::Partial {
                done,
                failed: failed
                    .replacen("wrote", "writing", 1)
                    .replacen("created", "creating", 1)
                    .replacen("moved", "moving", 1),
                message: error.to_string(),
                touched: touched_rel,
            }),
        }
    }

    /// What `steps` (all done) wrote, for the log: a file written and then
    /// moved is one move with its new bytes; a folder move lists its files.
    fn written(&self, steps: &[&Step]) -> Vec<Written> {
        let mut out: Vec<Written> = Vec::new();
        for &step in steps {
            match step {
                Step::Write { path, after, .. } => out.push(Written::Write {
                    path: path.clone(),
                    bytes: after.clone().into_bytes(),
                }),
                Step::Move { from, to } if to.starts_with(&format!("{TRASH_FOLDER}/")) => {
                    out.push(Written::Delete { path: from.clone() })
                }
                Step::Move { from, to } => {
                    let abs = self.abs(to);
                    let files: Vec<(String, String)> = if abs.is_dir() {
                        files_under(&abs)
                            .into_iter()
                            .map(|rel| (format!("{from}/{rel}"), format!("{to}/{rel}")))
                            .collect()
                    } else {
                        vec![(from.clone(), to.clone())]
                    };
                    for (from, to) in files {
                        out.retain(|w| !matches!(w, Written::Write { path, .. } if *path == from));
                        let bytes = std::fs::read(self.abs(&to)).unwrap_or_default();
                        out.push(Written::Move { from, to, bytes });
                    }
                }
            }
        }
        out
    }

    /// Runs independent steps, on several threads when there are many:
    /// the time goes to fsync, and concurrent fsyncs share journal commits
    /// (a thousand notes: about 1 s instead of 7–10 s on this kind of disk).
    fn run_steps(&self, batch: &[Step]) -> Vec<Result<(), OpError>> {
        let threads = batch.len().min(WRITE_THREADS);
        if threads <= 1 {
            return batch.iter().map(|step| self.run_step(step)).collect();
        }
        let next = AtomicUsize::new(0);
        let results: Vec<Mutex<Option<Result<(), OpError>>>> =
            batch.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(step) = batch.get(i) else { break };
                        let result = self.run_step(step);
                        *lock(&results[i]) = Some(result);
                    }
                });
            }
        });
        results
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
                    .unwrap_or_else(|| Err(OpError::Invalid("a write thread stopped early".into())))
            })
            .collect()
    }

    /// Fails unless `path` holds `before` (`None`: does not exist).
    fn check_unchanged(&self, path: &str, before: Option<&[u8]>) -> Result<(), OpError> {
        let now = match std::fs::read(self.abs(path)) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(OpError::Io {
                    path: path.to_string(),
                    action: "read",
                    message: e.to_string(),
                });
            }
        };
        if now.as_deref() == before {
            return Ok(());
        }
        Err(match before {
            None => OpError::Exists {
                path: path.to_string(),
            },
            Some(before) => OpError::Conflict {
                path: path.to_string(),
                expected: sha256_hex(before),
                current: now.as_deref().map(sha256_hex),
            },
        })
    }

    fn run_step(&self, step: &Step) -> Result<(), OpError> {
        match step {
            Step::Write {
                path,
                before,
                after,
            } => {
                self.check_unchanged(path, before.as_deref())?;
                write_atomic(&self.abs(path), after.as_bytes()).map_err(|e| OpError::Io {
                    path: path.clone(),
                    action: "write",
                    message: e.to_string(),
                })
            }
            Step::Move { from, to } => {
                move_file(&self.abs(from), &self.abs(to)).map_err(|e| OpError::Io {
                    path: from.clone(),
                    action: "move",
                    message: e.to_string(),
                })
            }
        }
    }
}

/// The files under `dir` (relative, `/`-separated), dot-files skipped.
fn files_under(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&abs) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push((entry.path(), child)),
                Ok(_) => out.push(child),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out
}

/// A [`Change`] for writing `after` over `before` at `path` (moving it to
/// `new_path` when given); the diff only in dry runs.
pub(crate) fn change(
    path: &str,
    new_path: Option<&str>,
    before: Option<&str>,
    after: Option<&str>,
    dry_run: bool,
) -> Change {
    let kind = match (before, after, new_path) {
        (None, _, _) => ChangeKind::Created,
        (Some(_), None, _) => ChangeKind::Deleted,
        (Some(_), Some(_), Some(_)) => ChangeKind::Moved,
        (Some(_), Some(_), None) => ChangeKind::Modified,
    };
    let diff = dry_run.then(|| {
        if kind == ChangeKind::Deleted {
            String::new()
        } else {
            unified_diff(path, new_path.unwrap_or(path), before, after)
        }
    });
    Change {
        kind,
        path: path.to_string(),
        new_path: new_path.map(str::to_string),
        bytes_before: before.map(|t| t.len() as u64),
        bytes_after: after.map(|t| t.len() as u64),
        sha256: after.map(|t| sha256_hex(t.as_bytes())),
        diff,
    }
}

/// The folder of a vault path, for messages and resolution.
pub(crate) fn folder(path: &str) -> &str {
    folder_of(path)
}

/// 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    weft_vault::lines::line_of(text, offset) + 1
}

/// The links of the note at `path` whose text is `text`: the index's own
/// parse when it was made from this very text (same length and hash), else
/// a fresh parse. Saves parsing a thousand notes twice in a large move.
pub(crate) fn links_of<'i>(index: &'i VaultIndex, path: &str, text: &str) -> Cow<'i, [Link]> {
    if let Some(id) = index.id_of(path) {
        let note = index.note(id);
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        if *note.path == *path
            && note.len as usize == text.len()
            && note.content_hash == hasher.finish()
        {
            return Cow::Borrowed(&note.links);
        }
    }
    Cow::Owned(parse_text(path, text).links)
}

/// Links into the note at `path` that reach it with its text `old` and
/// would not with `new`: by an alias or title the change removes, or to a
/// heading or block id it removes. One sentence each, at most ten.
pub(crate) fn lost_links(
    index: &VaultIndex,
    visible: &dyn Fn(&str) -> bool,
    path: &str,
    old: &str,
    new: &str,
) -> Vec<String> {
    let Some(id) = index.id_of(path) else {
        return Vec::new();
    };
    let (old_note, new_note) = (parse_text(path, old), parse_text(path, new));
    let names = |note: &Note| -> HashSet<String> {
        let mut keys: HashSet<String> = note.aliases.iter().map(|a| path_key(a)).collect();
        keys.insert(path_key(&note.title));
        keys
    };
    let path_keys = path_key(path);
    let stem = path_keys.rsplit('/').next().unwrap_or_default();
    let new_names = names(&new_note);
    let removed: HashSet<String> = names(&old_note)
        .into_iter()
        .filter(|k| k != stem && !new_names.contains(k))
        .collect();
    let mut out = Vec::new();
    let mut more = 0;
    let mut hidden = 0;
    for r in index.backlinks(id) {
        if r.source == id {
            continue; // The note's own links are its own text's business.
        }
        let source_visible = visible(&index.note(r.source).path);
        let link = index.link(r);
        let by_name = removed.contains(&path_key(link.target.trim()));
        let fragment = link.fragment.as_deref().filter(|f| {
            resolve_fragment(&old_note, f) != FragmentTarget::Missing
                && resolve_fragment(&new_note, f) == FragmentTarget::Missing
        });
        if !by_name && fragment.is_none() {
            continue;
        }
        if !source_visible {
            hidden += 1;
            continue;
        }
        if out.len() == 10 {
            more += 1;
            continue;
        }
        let how = if by_name {
            format!("by the name `{}`, which this change removes", link.target)
        } else {
            format!(
                "at `#{}`, which this change removes",
                fragment.unwrap_or_default()
            )
        };
        out.push(format!(
            "the link on line {} of `{}` reaches this note {how}: it will not resolve",
            link.line + 1,
            index.note(r.source).path
        ));
    }
    if more > 0 {
        out.push(format!(
            "… and {more} more such links (get_links lists them)"
        ));
    }
    if hidden > 0 {
        out.push(format!(
            "{hidden} link(s) in notes this agent may not access reach this note the same way: \
             they will not resolve either"
        ));
    }
    out
}

/// Links of a text as a note at `path` would have them, resolved against
/// the index.
pub(crate) fn resolved_links(
    index: &VaultIndex,
    visible: &dyn Fn(&str) -> bool,
    path: &str,
    text: &str,
) -> Vec<NoteLink> {
    let note = parse_text(path, text);
    note.links
        .iter()
        .map(|link| {
            let resolved = if link.is_self_link() {
                Some(path.to_string())
            } else {
                match index.resolve(folder(path), &link.target, link.kind) {
                    // A note the agent may not see is no answer to show.
                    weft_vault::Resolution::Note(id)
                    | weft_vault::Resolution::Ambiguous { chosen: id, .. } => {
                        Some(index.note(id).path.to_string()).filter(|p| visible(p))
                    }
                    weft_vault::Resolution::Attachment(p) => {
                        Some(p.to_string()).filter(|p| visible(p))
                    }
                    weft_vault::Resolution::Unresolved => None,
                }
            };
            let written = text
                .get(link.span.start as usize..link.span.end as usize)
                .unwrap_or_default()
                .to_string();
            NoteLink {
                link: written,
                target: link.target.to_string(),
                line: link.line + 1,
                resolved,
            }
        })
        .collect()
}

fn lock_writes() -> std::sync::MutexGuard<'static, ()> {
    lock(&WRITE_LOCK)
}
