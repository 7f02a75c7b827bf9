//! Carrying out an operation's steps: every write checked against the
//! disk first (a conflict then changes nothing), writes run together on the
//! IO pool so their fsyncs overlap, moves in order, then the guard told and
//! the index brought up to date for every path touched, and the log given
//! what was written (also when an operation stops part way).
//!
//! Knows the steps, not the operations that planned them: deciding what to
//! write is each operation's business, and a dry run never gets here.

use std::path::PathBuf;
use std::sync::Mutex;

use super::error::OpError;
use super::{Ops, TRASH_FOLDER, Written, sha256_hex};
use crate::io::pool;
use crate::io::{make_below, move_unsynced, sync_dirs, write_atomic};
use crate::sync::lock;

/// Serialises writes of this process: a check (sha256, existence) and the
/// write it guards cannot interleave with another operation's.
static WRITE_LOCK: Mutex<()> = Mutex::new(());

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

/// What a run of steps did: the vault paths touched (both ends of a
/// move), the steps done, and the first step that failed.
#[derive(Default)]
struct Run<'s> {
    touched: Vec<String>,
    done: Vec<String>,
    done_steps: Vec<&'s Step>,
    failure: Option<(String, OpError)>,
}

impl<'s> Run<'s> {
    /// Counts one step's result: done, or the failure (the first kept).
    fn add(&mut self, step: &'s Step, result: Result<(), OpError>) {
        match result {
            Ok(()) => {
                match step {
                    Step::Write { path, .. } => self.touched.push(path.clone()),
                    Step::Move { from, to } => {
                        self.touched.push(from.clone());
                        self.touched.push(to.clone());
                    }
                }
                self.done.push(step.describe());
                self.done_steps.push(step);
            }
            Err(error) => {
                if self.failure.is_none() {
                    self.failure = Some((step.describe(), error));
                }
            }
        }
    }

    /// The operation's result: its failure, as it is when nothing was
    /// done, or as stopped part way.
    fn outcome(self) -> Result<(), OpError> {
        match self.failure {
            None => Ok(()),
            Some((_, error)) if self.done.is_empty() => Err(error),
            Some((failed, error)) => Err(OpError::Partial {
                done: self.done,
                failed: failed
                    .replacen("wrote", "writing", 1)
                    .replacen("created", "creating", 1)
                    .replacen("moved", "moving", 1),
                message: error.to_string(),
                touched: self.touched,
            }),
        }
    }
}

impl Ops<'_> {
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
    /// go in parallel (their fsyncs overlap); moves follow in order, and the
    /// folders they changed are synced together once the run is done.
    pub(crate) fn execute(&self, tool: &str, path: &str, steps: &[Step]) -> Result<(), OpError> {
        self.check_before(path, steps)?;
        let run = self.run_all(steps);
        if !run.touched.is_empty() {
            // The guard first: buffers of these notes go stale before the
            // index takes the disk's text, so the watcher's news of the
            // write, whenever it comes, cannot put their older text back.
            if let Some(guard) = self.guard {
                guard.written(&run.touched);
            }
            self.vault.apply_paths(
                run.touched
                    .iter()
                    .map(|p| self.abs(p))
                    .collect::<Vec<PathBuf>>(),
            );
        }
        if let Some(log) = self.log {
            let written = self.written(&run.done_steps);
            if !written.is_empty() {
                log.record(&self.actor, tool, path, &written);
            }
        }
        run.outcome()
    }

    /// What refuses `steps` before any is taken: an editor's unsaved text,
    /// a vault folder gone, a file changed since it was read.
    fn check_before(&self, path: &str, steps: &[Step]) -> Result<(), OpError> {
        self.check_guard(steps)?;
        // A vault folder deleted (or moved) while served is not made again
        // by the folders a write creates.
        if !self.vault.root.is_dir() {
            return Err(OpError::io(
                path,
                "write",
                &std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!(
                        "the vault folder {} is gone (deleted or moved while Weft served it); \
                         open the vault where it is now",
                        self.vault.root.display()
                    ),
                ),
            ));
        }
        let writes: Vec<(&str, Option<&[u8]>)> = steps
            .iter()
            .filter_map(|step| match step {
                Step::Write { path, before, .. } => Some((path.as_str(), before.as_deref())),
                Step::Move { .. } => None,
            })
            .collect();
        for checked in pool::map(&writes, |(path, before)| {
            self.check_unchanged(path, *before)
        }) {
            checked?;
        }
        Ok(())
    }

    /// Takes `steps` in runs (writes together, moves in order) until one
    /// fails: what was done, and the first failure.
    fn run_all<'s>(&self, steps: &'s [Step]) -> Run<'s> {
        let mut out = Run::default();
        let mut rest = steps;
        while let Some(first) = rest.first()
            && out.failure.is_none()
        {
            let writes = matches!(first, Step::Write { .. });
            let run = rest
                .iter()
                .take_while(|s| matches!(s, Step::Write { .. }) == writes)
                .count();
            let (batch, next) = rest.split_at(run);
            rest = next;
            let results = self.run_steps(batch, writes);
            for (step, result) in batch.iter().zip(results) {
                out.add(step, result);
            }
        }
        out
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
                    let contents = pool::map(&files, |(_, to)| {
                        std::fs::read(self.abs(to)).unwrap_or_default()
                    });
                    for ((from, to), bytes) in files.into_iter().zip(contents) {
                        out.retain(|w| !matches!(w, Written::Write { path, .. } if *path == from));
                        out.push(Written::Move { from, to, bytes });
                    }
                }
            }
        }
        out
    }

    /// Runs a run of steps: independent writes all together on the IO pool
    /// (the time goes to fsync, and concurrent fsyncs share journal
    /// commits), or moves one after the other up to the first that fails.
    /// The folders the moves changed are then synced, each once, together.
    /// One result per step attempted.
    fn run_steps(&self, batch: &[Step], independent: bool) -> Vec<Result<(), OpError>> {
        let outcomes = if independent {
            pool::map(batch, |step| self.run_step(step))
        } else {
            let mut outcomes = Vec::with_capacity(batch.len());
            for step in batch {
                let outcome = self.run_step(step);
                let failed = outcome.is_err();
                outcomes.push(outcome);
                if failed {
                    break;
                }
            }
            outcomes
        };
        let mut folders = Vec::new();
        let results = outcomes
            .into_iter()
            .map(|outcome| outcome.map(|changed| folders.extend(changed)))
            .collect();
        sync_dirs(folders);
        results
    }

    /// Fails unless `path` holds `before` (`None`: does not exist).
    fn check_unchanged(&self, path: &str, before: Option<&[u8]>) -> Result<(), OpError> {
        let now = self.read_bytes(path)?;
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

    /// Makes the folders `abs` goes in, below the vault root (which a write
    /// never makes again: a vault deleted while served stays deleted).
    fn make_parent(&self, abs: &std::path::Path) -> std::io::Result<()> {
        match abs.parent() {
            Some(parent) => make_below(&self.vault.root, parent),
            None => Ok(()),
        }
    }

    /// Carries out one step; for a move, the folders to sync once the run
    /// of moves is done (a write is durable when it returns).
    fn run_step(&self, step: &Step) -> Result<Vec<PathBuf>, OpError> {
        match step {
            Step::Write {
                path,
                before,
                after,
            } => {
                self.check_unchanged(path, before.as_deref())?;
                let abs = self.abs(path);
                // Its folders are made below the vault, never the vault.
                self.make_parent(&abs)
                    .and_then(|()| write_atomic(&abs, after.as_bytes()))
                    .map_err(|e| OpError::io(path, "write", &e))?;
                Ok(Vec::new())
            }
            Step::Move { from, to } => {
                let abs = self.abs(to);
                self.make_parent(&abs)
                    .and_then(|()| move_unsynced(&self.abs(from), &abs))
                    .map_err(|e| OpError::io(from, "move", &e))
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

/// Holds [`WRITE_LOCK`] for one operation.
pub(crate) fn lock_writes() -> std::sync::MutexGuard<'static, ()> {
    lock(&WRITE_LOCK)
}
