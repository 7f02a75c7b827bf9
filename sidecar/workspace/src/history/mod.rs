//! Note history: every change to the vault recorded as a commit in Weft's own
//! git repository (default `.weft/history.git`, bare, its work tree the
//! vault), listed, read, diffed and planned for restore — and, read only, the
//! commits of the vault's own git repository when it has one.
//!
//! This module must not know any protocol (MCP, LSP, JSON-RPC) or async
//! runtime, nor how the index works: callers hand it the bytes they wrote.
//! It never touches the vault's own repository (HEAD, refs, index, config,
//! work tree) and never checks anything out: trees are built in memory from
//! the previous commit's tree, updating only the changed paths, so a commit
//! costs the same in a vault of 100 notes or of 100,000.
//!
//! Layout: `store` opens or creates the repository and records commits;
//! `changes` compares two trees (cost follows the change) and pairs renames;
//! `walk` lists versions (following renames), resolves ids and reads old
//! content; `diff` compares versions as text;
//! `write_log` records what the write operations (`ops`) wrote.

mod changes;
mod diff;
mod error;
mod model;
mod store;
mod walk;
mod write_log;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::{HistoryConfig, HistoryMode};
use crate::io::pool;
use crate::sync::{lock, read, write};

pub use error::HistoryError;
pub use model::{
    Change, ChangeKind, CommitId, DiffResult, DiffTarget, MAX_LISTED_CHANGES, NoteVersion, Page,
    PathChange, RestorePlan, Source, Version, VersionSource,
};
pub use store::Lost;

use store::{Origin, Store};

/// Whether history is recording, for status reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryStatus {
    /// `weft` (recording), `off` (configured off) or `unavailable`.
    pub mode: &'static str,
    /// The store, when recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Why history is not recording.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The vault's own git repository (listed read only), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vault_git: Option<PathBuf>,
    /// The store has no commit yet: call [`History::snapshot_all`].
    pub needs_baseline: bool,
    /// The store was found deleted or damaged and started anew: versions
    /// before then are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<Lost>,
}

/// The notes a new baseline records (vault paths): what the vault holds now.
pub(crate) type BaselineSource = Box<dyn Fn() -> Vec<String> + Send + Sync>;

/// The vault's history. Cheap to share (`&self` everywhere, thread-safe).
///
/// Every call first checks that the store is still there and readable: one
/// deleted or damaged while Weft runs is started anew with a baseline of the
/// vault as it is ([`History::set_baseline_source`]), and every answer from
/// then on can say that the versions before are gone ([`History::lost`]).
/// [`History::reconfigure`] follows a changed `[history]` configuration.
pub struct History {
    vault_root: PathBuf,
    /// The configuration it was opened with.
    config: Mutex<HistoryConfig>,
    state: RwLock<State>,
    baseline: Mutex<Option<BaselineSource>>,
}

enum State {
    Enabled(Mutex<Store>),
    Disabled { reason: String, off: bool },
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.status();
        f.debug_struct("History")
            .field("mode", &status.mode)
            .field("dir", &status.dir)
            .field("reason", &status.reason)
            .finish()
    }
}

const OFF_REASON: &str =
    "history is off in the configuration (`[history] mode = \"off\"` in .weft.toml)";

impl History {
    /// Opens Weft's history of the vault at `vault_root`, creating the store
    /// when it is missing. A damaged store is set aside and started anew
    /// (reported by [`History::lost`]). Mode `off` gives a disabled history.
    /// A store that cannot be used at all (a bad location, no permission) is
    /// an error; callers keep working with [`History::disabled`].
    pub fn open(vault_root: &Path, config: &HistoryConfig) -> Result<History, HistoryError> {
        Ok(History {
            vault_root: vault_root.to_path_buf(),
            config: Mutex::new(config.clone()),
            state: RwLock::new(open_state(vault_root, config)?),
            baseline: Mutex::new(None),
        })
    }

    /// A history that records nothing and lists nothing; `reason` is
    /// reported by [`History::status`] and by reads.
    pub fn disabled(reason: impl Into<String>) -> History {
        History {
            vault_root: PathBuf::new(),
            config: Mutex::new(HistoryConfig::default()),
            state: RwLock::new(State::Disabled {
                reason: reason.into(),
                off: false,
            }),
            baseline: Mutex::new(None),
        }
    }

    /// Follows a changed `[history]` configuration (mode, folder); nothing
    /// when it is the one in use. Returns whether it changed, so that the
    /// caller can take a baseline of a store it now records in.
    pub(crate) fn reconfigure(&self, config: &HistoryConfig) -> bool {
        let mut current = lock(&self.config);
        if *current == *config || self.vault_root.as_os_str().is_empty() {
            return false;
        }
        let state = open_state(&self.vault_root, config).unwrap_or_else(|e| {
            tracing::warn!("{e}");
            State::Disabled {
                reason: e.to_string(),
                off: false,
            }
        });
        tracing::info!(
            "note history: now {}",
            match &state {
                State::Enabled(_) => "recording",
                State::Disabled { .. } => "not recording",
            }
        );
        *write(&self.state) = state;
        *current = config.clone();
        true
    }

    /// Where a store started anew takes its baseline from: the notes of the
    /// vault now (without one, a new store starts empty).
    pub(crate) fn set_baseline_source(&self, source: BaselineSource) {
        *lock(&self.baseline) = Some(source);
    }

    /// When and why the versions before a point were lost, if they were.
    pub fn lost(&self) -> Option<Lost> {
        match &*read(&self.state) {
            State::Enabled(store) => lock(store).lost.clone(),
            State::Disabled { .. } => None,
        }
    }

    /// Runs `f` on the store, checked first: started anew (with a baseline
    /// of the vault as it is, but for `except`, which the caller is about
    /// to record) when it was deleted or damaged.
    fn with_store<T>(
        &self,
        except: &[&str],
        f: impl FnOnce(&mut Store) -> Result<T, HistoryError>,
    ) -> Result<T, HistoryError> {
        let state = read(&self.state);
        let mut store = match &*state {
            State::Enabled(store) => lock(store),
            State::Disabled { reason, .. } => return Err(HistoryError::Disabled(reason.clone())),
        };
        if store.check()? {
            let paths = lock(&self.baseline)
                .as_ref()
                .map(|source| source())
                .unwrap_or_default();
            let root = store.vault_root.clone();
            let paths: Vec<&String> = paths
                .iter()
                .filter(|p| !except.contains(&p.as_str()))
                .collect();
            let files = pool::map_lazily(&paths, |p| std::fs::read(root.join(p)).ok())
                .zip(&paths)
                .filter_map(|(bytes, p)| bytes.map(|bytes| (*p, bytes)));
            store.snapshot_all(files)?;
        }
        f(&mut store)
    }

    /// Whether changes are recorded.
    pub fn is_enabled(&self) -> bool {
        matches!(&*read(&self.state), State::Enabled(_))
    }

    /// Whether history records, where, and whether versions were lost (a
    /// store found deleted or damaged now is started anew first).
    pub fn status(&self) -> HistoryStatus {
        let enabled = self.with_store(&[], |store| {
            Ok(HistoryStatus {
                mode: "weft",
                dir: Some(store.git_dir.clone()),
                reason: None,
                vault_git: store.vault_git.as_ref().map(|g| g.dir.clone()),
                needs_baseline: store.head_id().ok().flatten().is_none(),
                lost: store.lost.clone(),
            })
        });
        let (reason, off) = match (&*read(&self.state), enabled) {
            (State::Enabled(_), Ok(status)) => return status,
            (State::Enabled(_), Err(e)) => (e.to_string(), false),
            (State::Disabled { reason, off }, _) => (reason.clone(), *off),
        };
        HistoryStatus {
            mode: if off { "off" } else { "unavailable" },
            dir: None,
            reason: Some(reason),
            vault_git: None,
            needs_baseline: false,
            lost: None,
        }
    }

    /// Records `changes` as one commit (a move that rewrites links in 40
    /// notes is one call). `author` is the client's name (`external` when
    /// empty for [`Source::External`]); `message` is `tool: path` style.
    /// Returns `None` when nothing changed (or history is disabled).
    pub fn record(
        &self,
        changes: &[Change<'_>],
        author: &str,
        message: &str,
        source: Source,
    ) -> Result<Option<CommitId>, HistoryError> {
        if !self.is_enabled() {
            return Ok(None);
        }
        let origin = match source {
            Source::Tool => Origin::Tool,
            Source::External => Origin::External,
        };
        let touched: Vec<&str> = changes
            .iter()
            .flat_map(|c| match *c {
                Change::Write { path, .. } | Change::Delete { path } => vec![path],
                Change::Move { from, to, .. } => vec![from, to],
            })
            .collect();
        self.with_store(&touched, |store| {
            store.record(changes, author, message, origin)
        })
    }

    /// Records the vault's complete state: the tree becomes exactly `files`
    /// (vault path, content). The first one is the baseline that older
    /// versions are diffed against; later ones (say, at start-up) record
    /// what changed while Weft was not running, as an external change.
    pub fn snapshot_all<P, B>(
        &self,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Option<CommitId>, HistoryError>
    where
        P: AsRef<str>,
        B: AsRef<[u8]>,
    {
        if !self.is_enabled() {
            return Ok(None);
        }
        self.with_store(&[], |store| store.snapshot_all(files))
    }

    /// Records changes made outside Weft to the notes at `paths` (vault
    /// paths, as the watcher reports them): each is read from disk, a
    /// missing one is a deletion. Files that are not notes are skipped.
    /// Meant for the watcher's callback, which debounces; `vault_root` is
    /// the vault's folder.
    pub(crate) fn snapshot_external_at(
        &self,
        vault_root: &Path,
        paths: &[String],
    ) -> Result<Option<CommitId>, HistoryError> {
        if !self.is_enabled() {
            return Ok(None);
        }
        let touched: Vec<&str> = paths.iter().map(String::as_str).collect();
        self.with_store(&touched, |store| {
            let files = store::read_external(vault_root, paths);
            store.record_external(&files)
        })
    }

    /// Lists versions, newest first: of the note at `path` (following
    /// renames back; a deleted note's versions too), or, for `None`, of the
    /// whole vault with the paths each changed. The vault's own git
    /// repository's commits are merged in by time. `since` drops older
    /// versions; `limit` (at least 1) bounds the page; `cursor` continues a
    /// previous page. A path without `.md` also finds `path.md`.
    pub fn log(
        &self,
        path: Option<&str>,
        since: Option<DateTime<Utc>>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<Version>, HistoryError> {
        if !self.is_enabled() {
            return Ok(Page {
                items: Vec::new(),
                next_cursor: None,
            });
        }
        self.with_store(&[], |store| {
            walk::log(store, path, since, limit.max(1), cursor)
        })
    }

    /// The note at `path` as it was in `version` (full or short id, from
    /// either repository; `weft:`/`git:` may say which). `path` is the
    /// note's path today or in that version; renames are followed.
    pub fn read(&self, path: &str, version: &str) -> Result<NoteVersion, HistoryError> {
        self.with_store(&[], |store| walk::read(store, path, version))
    }

    /// The unified diff of the note at `path` from `from` to `to`.
    pub fn diff(
        &self,
        path: &str,
        from: &str,
        to: DiffTarget<'_>,
    ) -> Result<DiffResult, HistoryError> {
        self.with_store(&[], |store| diff::diff(store, path, from, to))
    }

    /// What restoring `path` to `version` writes (see [`RestorePlan`]); works
    /// for deleted and moved notes. Restoring the version that deleted the
    /// note is an error naming the version before it.
    pub fn restore_plan(&self, path: &str, version: &str) -> Result<RestorePlan, HistoryError> {
        self.read(path, version)
    }
}

/// A history state for `config`.
fn open_state(vault_root: &Path, config: &HistoryConfig) -> Result<State, HistoryError> {
    if config.mode == HistoryMode::Off {
        return Ok(State::Disabled {
            reason: OFF_REASON.into(),
            off: true,
        });
    }
    Ok(State::Enabled(Mutex::new(Store::open(
        vault_root,
        &config.dir,
    )?)))
}
