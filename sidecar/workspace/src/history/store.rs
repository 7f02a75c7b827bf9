//! Weft's history repository on disk: opening or creating it (bare, apart
//! from the vault's own `.git`), and recording commits whose trees are the
//! previous tree with only the changed paths replaced.
//!
//! Nothing here reads or writes the vault's own repository except to open it
//! read only for listings; nothing here knows a protocol.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{
    Commit, ErrorCode, FileMode, ObjectType, Oid, Repository, RepositoryInitOptions,
    RepositoryOpenFlags, Signature, Tree,
};

use super::changes::blob_entry;
use super::error::HistoryError;
use super::model::{Change, CommitId};
use crate::io::pool;
use weft_vault::note::is_note_path;

/// Weft's branch in its own repository.
pub(super) const BRANCH: &str = "refs/heads/main";
/// The e-mail of every signature Weft writes.
pub(super) const EMAIL: &str = "weft@localhost";
/// The committer of every commit.
const COMMITTER: &str = "weft";
/// Author of changes seen on disk, when the caller names none.
pub(super) const EXTERNAL_AUTHOR: &str = "external";

/// Trailer keys in Weft's commit messages.
pub(super) const SOURCE_TRAILER: &str = "Weft-Source";
pub(super) const MOVE_TRAILER: &str = "Weft-Move";
/// More moves than this in one commit are left to git's rename detection
/// rather than listed in the message.
const MAX_MOVE_TRAILERS: usize = 200;

/// How long a commit keeps being retried while another writer (another
/// Weft on the same vault, another thread) holds or moves the branch. A
/// count of tries is not a bound that holds on a loaded machine: the writer
/// holding the branch's lock may not run for a while.
const COMMIT_PATIENCE: Duration = Duration::from_secs(10);

/// What kind of change a commit records (its `Weft-Source` trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    Tool,
    External,
    /// The first snapshot of a vault.
    Baseline,
}

impl Origin {
    fn trailer(self) -> &'static str {
        match self {
            Origin::Tool => "tool",
            Origin::External => "external",
            Origin::Baseline => "baseline",
        }
    }
}

/// The vault's own git repository, opened read only.
pub(super) struct VaultGit {
    pub repo: Repository,
    /// Where the vault is inside the repository's work tree: `""` or
    /// `"notes/"` (with the slash).
    pub prefix: String,
    /// The repository's git folder, for status reports.
    pub dir: PathBuf,
}

/// An open history store.
pub(super) struct Store {
    pub vault_root: PathBuf,
    pub git_dir: PathBuf,
    pub repo: Repository,
    pub vault_git: Option<VaultGit>,
    /// The store was found deleted or damaged and started anew: the
    /// versions before then are gone.
    pub lost: Option<Lost>,
    /// The branch had a commit when last looked at: a branch gone since
    /// is a loss, not a new store.
    had_commits: bool,
}

/// When the history before a point was lost, and how.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Lost {
    /// When the loss was found (RFC 3339, UTC); the versions before are gone.
    pub at: String,
    /// What was wrong with the store.
    pub reason: String,
}

/// In a store started anew: when and why the one before it was lost.
const LOST_MARKER: &str = "weft-history-lost.json";

impl Store {
    /// Opens (or creates) the store at `dir` (relative to the vault, or
    /// absolute).
    pub fn open(vault_root: &Path, dir: &str) -> Result<Store, HistoryError> {
        let vault_root = vault_root
            .canonicalize()
            .map_err(|source| HistoryError::Io {
                path: vault_root.to_path_buf(),
                source,
            })?;
        let dir = dir.trim();
        let git_dir = normalize(&vault_root.join(dir));
        if dir.is_empty() || git_dir == vault_root {
            return Err(HistoryError::BadLocation {
                dir: git_dir,
                message: "that is the vault itself".into(),
            });
        }
        let vault_git = open_vault_git(&vault_root);
        let own_git = [
            Some(vault_root.join(".git")),
            vault_git.as_ref().map(|g| g.dir.clone()),
        ];
        for other in own_git.into_iter().flatten() {
            let other = normalize(&other);
            if git_dir.starts_with(&other) || other.starts_with(&git_dir) {
                return Err(HistoryError::BadLocation {
                    dir: git_dir,
                    message: format!(
                        "it overlaps the vault's own git repository {}, which Weft never touches",
                        other.display()
                    ),
                });
            }
        }
        let opened = match is_missing_or_empty(&git_dir) {
            Ok(true) => Ok(create(&git_dir)?),
            Ok(false) => open_existing(&git_dir),
            Err(e) => Err(e),
        };
        let (repo, damaged) = match opened {
            Ok(repo) => (repo, None),
            // Set aside and started anew (and reported) below.
            Err(HistoryError::Corrupt { message, .. }) => (create_beside(&git_dir)?, Some(message)),
            Err(e) => return Err(e),
        };
        write_ignore_file(&vault_root, &git_dir);
        let mut store = Store {
            lost: read_lost(&git_dir),
            had_commits: head_id(&repo).ok().flatten().is_some(),
            vault_root,
            git_dir,
            repo,
            vault_git,
        };
        if let Some(message) = damaged {
            store.mark_lost(format!("the store was damaged ({message}) and set aside"))?;
        }
        Ok(store)
    }

    /// Checks that the store is still there and readable. One deleted or
    /// damaged while Weft runs (by hand, by a sync tool) is set aside when
    /// anything is left of it, started anew and remembered as lost
    /// ([`Store::lost`], also in the new store, so later runs still say so).
    /// Returns whether it was started anew: the caller takes a new baseline.
    pub fn check(&mut self) -> Result<bool, HistoryError> {
        let marked = read_lost(&self.git_dir);
        if marked.is_some() && marked != self.lost {
            // Another Weft on this vault found the loss and started the
            // store anew: take its word rather than setting its store aside.
            self.lost = marked;
            self.had_commits = self.head_id().ok().flatten().is_some();
        }
        let Some(problem) = self.problem() else {
            if !self.had_commits {
                self.had_commits = self.head_id().ok().flatten().is_some();
            }
            return Ok(false);
        };
        if self.git_dir.exists() {
            self.repo = create_beside(&self.git_dir)?;
        } else {
            self.repo = create(&self.git_dir)?;
        }
        write_ignore_file(&self.vault_root, &self.git_dir);
        self.had_commits = false;
        self.mark_lost(problem)?;
        Ok(true)
    }

    /// What is wrong with the store, if anything.
    fn problem(&self) -> Option<String> {
        if !self.git_dir.join("HEAD").is_file() || !self.git_dir.join("objects").is_dir() {
            return Some(format!("the store {} was deleted", self.git_dir.display()));
        }
        match head_id(&self.repo) {
            Err(e) => Some(format!("the store was damaged ({e}) and set aside")),
            Ok(None) if self.had_commits => {
                Some("the store's branch was deleted; the store was set aside".to_string())
            }
            Ok(None) => None,
            Ok(Some(id)) => match self.repo.find_commit(id).and_then(|c| c.tree()) {
                Ok(_) => None,
                Err(e) => Some(format!(
                    "the store was damaged (its last commit {id} cannot be read: {}) and set aside",
                    e.message()
                )),
            },
        }
    }

    /// Remembers that the history before now is gone, in memory, in the
    /// log and in the (new) store.
    fn mark_lost(&mut self, reason: String) -> Result<(), HistoryError> {
        let lost = Lost {
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            reason,
        };
        tracing::warn!(
            "note history {}: {}; versions before {} are gone; a new store records from now on",
            self.git_dir.display(),
            lost.reason,
            lost.at
        );
        let marker = self.git_dir.join(LOST_MARKER);
        let text = serde_json::to_string_pretty(&lost).unwrap_or_default();
        fs::write(&marker, text).map_err(|source| HistoryError::Io {
            path: marker,
            source,
        })?;
        self.lost = Some(lost);
        Ok(())
    }

    /// The id of the last commit, `None` before the first.
    pub fn head_id(&self) -> Result<Option<Oid>, HistoryError> {
        head_id(&self.repo)
    }

    fn head(&self) -> Result<Option<Commit<'_>>, HistoryError> {
        match self.head_id()? {
            Some(id) => self
                .repo
                .find_commit(id)
                .map(Some)
                .map_err(HistoryError::git("reading the last history commit")),
            None => Ok(None),
        }
    }

    fn empty_tree(&self) -> Result<Tree<'_>, HistoryError> {
        let id = self
            .repo
            .treebuilder(None)
            .and_then(|b| b.write())
            .map_err(HistoryError::git("writing the empty tree"))?;
        self.repo
            .find_tree(id)
            .map_err(HistoryError::git("writing the empty tree"))
    }

    fn blob(&self, bytes: &[u8]) -> Result<Oid, HistoryError> {
        self.repo
            .blob(bytes)
            .map_err(HistoryError::git("storing a note's content"))
    }

    /// Records `changes` as one commit on top of the last one.
    pub fn record(
        &mut self,
        changes: &[Change<'_>],
        author: &str,
        message: &str,
        origin: Origin,
    ) -> Result<Option<CommitId>, HistoryError> {
        if changes.is_empty() {
            return Ok(None);
        }
        // Everything is checked before anything is written.
        let mut checked = Vec::with_capacity(changes.len());
        for change in changes {
            checked.push(match *change {
                Change::Write { path, bytes } => (None, Some(vault_path(path)?), Some(bytes)),
                Change::Delete { path } => (Some(vault_path(path)?), None, None),
                Change::Move { from, to, bytes } => {
                    (Some(vault_path(from)?), Some(vault_path(to)?), Some(bytes))
                }
            });
        }
        self.check()?;
        let mut updates: BTreeMap<String, Option<Oid>> = BTreeMap::new();
        let mut moves = Vec::new();
        for (from, to, bytes) in checked {
            if let Some(from) = &from {
                updates.insert(from.clone(), None);
            }
            if let (Some(to), Some(bytes)) = (&to, bytes) {
                updates.insert(to.clone(), Some(self.blob(bytes)?));
            }
            if let (Some(from), Some(to)) = (from, to) {
                moves.push((from, to));
            }
        }
        let author = match (author.trim().is_empty(), origin) {
            (true, Origin::External) => EXTERNAL_AUTHOR,
            _ => author,
        };
        let text = compose_message(message, origin, &moves);
        self.commit(&updates, false, author, &text)
    }

    /// Records changes seen on disk: `files` are (vault path, content or
    /// `None` when gone); those history already has are left out, and the
    /// message names the rest.
    pub fn record_external(
        &mut self,
        files: &[(String, Option<Vec<u8>>)],
    ) -> Result<Option<CommitId>, HistoryError> {
        self.check()?;
        let tree = match self.head()? {
            Some(head) => Some(
                head.tree()
                    .map_err(HistoryError::git("reading the last history tree"))?,
            ),
            None => None,
        };
        let mut changes = Vec::new();
        for (path, bytes) in files {
            let Ok(normal) = vault_path(path) else {
                continue;
            };
            let known = tree.as_ref().and_then(|t| blob_entry(t, &normal));
            let changed = match (bytes, known) {
                (None, known) => known.is_some(),
                (Some(bytes), Some((id, _))) => {
                    Oid::hash_object(ObjectType::Blob, bytes).ok() != Some(id)
                }
                (Some(_), None) => true,
            };
            if changed {
                changes.push(match bytes {
                    Some(bytes) => Change::Write { path, bytes },
                    None => Change::Delete { path },
                });
            }
        }
        if changes.is_empty() {
            return Ok(None);
        }
        drop(tree);
        let message = external_message(changes.iter().map(|c| match c {
            Change::Write { path, .. } | Change::Delete { path } => *path,
            Change::Move { to, .. } => *to,
        }));
        self.record(&changes, EXTERNAL_AUTHOR, &message, Origin::External)
    }

    /// Records the vault's complete state (see `History::snapshot_all`).
    pub fn snapshot_all<P, B>(
        &mut self,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Option<CommitId>, HistoryError>
    where
        P: AsRef<str>,
        B: AsRef<[u8]>,
    {
        self.check()?;
        let mut updates: BTreeMap<String, Option<Oid>> = BTreeMap::new();
        for (path, bytes) in files {
            let path = vault_path(path.as_ref())?;
            updates.insert(path, Some(self.blob(bytes.as_ref())?));
        }
        let first = self.head_id()?.is_none();
        let count = updates.len();
        let (author, message, origin) = if first {
            let message = match &self.lost {
                Some(lost) => format!(
                    "baseline: the vault when Weft started its history again ({count} files); \
                     the versions before {} were lost",
                    lost.at
                ),
                None => format!("baseline: the vault as Weft first found it ({count} files)"),
            };
            (COMMITTER, message, Origin::Baseline)
        } else {
            (
                EXTERNAL_AUTHOR,
                format!("external: changes found by a full snapshot of the vault ({count} files)"),
                Origin::External,
            )
        };
        let text = compose_message(&message, origin, &[]);
        self.commit(&updates, true, author, &text)
    }

    /// Commits the last tree with `updates` applied (or, with `replace_all`,
    /// the tree of exactly `updates`), unless nothing changes. Retries when
    /// another process moved the branch meanwhile.
    fn commit(
        &self,
        updates: &BTreeMap<String, Option<Oid>>,
        replace_all: bool,
        author: &str,
        message: &str,
    ) -> Result<Option<CommitId>, HistoryError> {
        let author = signature(author)?;
        let committer = signature(COMMITTER)?;
        let started = std::time::Instant::now();
        let mut attempt: u64 = 0;
        loop {
            attempt += 1;
            let parent = self.head()?;
            let base = match (&parent, replace_all) {
                (Some(parent), false) => parent
                    .tree()
                    .map_err(HistoryError::git("reading the last history tree"))?,
                _ => self.empty_tree()?,
            };
            let tree_id = apply_updates(&self.repo, &base, updates)?;
            let unchanged = match &parent {
                Some(parent) => parent.tree_id() == tree_id,
                None => tree_id == self.empty_tree()?.id(),
            };
            if unchanged {
                return Ok(None);
            }
            let tree = self
                .repo
                .find_tree(tree_id)
                .map_err(HistoryError::git("reading the new tree"))?;
            let parents: Vec<&Commit<'_>> = parent.iter().collect();
            let id = self
                .repo
                .commit(None, &author, &committer, message, &tree, &parents)
                .map_err(HistoryError::git("writing a history commit"))?;
            let moved = match parent.as_ref().map(Commit::id) {
                Some(old) => self.repo.reference_matching(BRANCH, id, true, old, "weft"),
                None => self.repo.reference(BRANCH, id, false, "weft"),
            };
            match moved {
                Ok(_) => {
                    let short_id = short_id(&self.repo, id);
                    return Ok(Some(CommitId {
                        id: id.to_string(),
                        short_id,
                    }));
                }
                Err(e)
                    if started.elapsed() < COMMIT_PATIENCE
                        && matches!(
                            e.code(),
                            ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked
                        ) =>
                {
                    // Another writer committed first (or is committing):
                    // redo on top of its commit.
                    std::thread::sleep(Duration::from_millis((attempt * 2).min(50)));
                }
                Err(e) => return Err(HistoryError::git("moving the history branch")(e)),
            }
        }
    }
}

/// The last commit of Weft's branch in `repo`.
pub(super) fn head_id(repo: &Repository) -> Result<Option<Oid>, HistoryError> {
    match repo.refname_to_id(BRANCH) {
        Ok(id) => Ok(Some(id)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(HistoryError::git("reading the history branch")(e)),
    }
}

/// The shortest unambiguous prefix of `id` (at least 7 characters).
pub(super) fn short_id(repo: &Repository, id: Oid) -> String {
    repo.find_object(id, None)
        .and_then(|o| o.short_id())
        .ok()
        .and_then(|buf| buf.as_str().ok().map(str::to_string))
        .unwrap_or_else(|| id.to_string()[..7].to_string())
}

fn signature(name: &str) -> Result<Signature<'static>, HistoryError> {
    // git forbids `<`, `>` and line breaks in names.
    let clean: String = name
        .chars()
        .filter(|c| !matches!(c, '<' | '>' | '\n' | '\r' | '\0'))
        .collect();
    let clean = clean.trim();
    let clean = if clean.is_empty() { "unknown" } else { clean };
    Signature::now(clean, EMAIL).map_err(HistoryError::git("making a commit signature"))
}

/// Applies `updates` (path → new blob, or `None` to remove) to `base` and
/// writes the new tree. Only the trees along changed paths are read and
/// rewritten; an unchanged file gives back `base`'s id.
fn apply_updates(
    repo: &Repository,
    base: &Tree<'_>,
    updates: &BTreeMap<String, Option<Oid>>,
) -> Result<Oid, HistoryError> {
    // The common case in one pass, without looking anything up first:
    // upserts need no lookup, removals only an existence check.
    let mut builder = TreeUpdateBuilder::new();
    let mut count = 0;
    for (path, target) in updates {
        match target {
            Some(id) => {
                builder.upsert(path.as_str(), *id, FileMode::Blob);
            }
            None if base.get_path(Path::new(path)).is_ok() => {
                builder.remove(path.as_str());
            }
            None => continue,
        }
        count += 1;
    }
    if count == 0 {
        return Ok(base.id());
    }
    if let Ok(id) = builder.create_updated(repo, base) {
        return Ok(id);
    }
    // A file where a folder must go (or the reverse): libgit2 refuses both
    // in one update, so what is in the way is removed in a pass of its own.
    let mut in_the_way = BTreeSet::new();
    for (path, target) in updates {
        if target.is_none() {
            continue;
        }
        if let Ok(entry) = base.get_path(Path::new(path))
            && entry.kind() == Some(ObjectType::Tree)
        {
            in_the_way.insert(path.clone());
        }
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let prefix = &path[..end];
            if let Ok(entry) = base.get_path(Path::new(prefix))
                && entry.kind() != Some(ObjectType::Tree)
            {
                in_the_way.insert(prefix.to_string());
            }
            end += 1;
        }
    }
    let removals: BTreeMap<String, Option<Oid>> =
        in_the_way.into_iter().map(|p| (p, None)).collect();
    let cleared = update_tree(repo, base, &removals)?;
    let cleared = repo
        .find_tree(cleared)
        .map_err(HistoryError::git("reading a tree"))?;
    update_tree(repo, &cleared, updates)
}

/// One `git_tree_create_updated` pass; paths already as wanted are skipped
/// (libgit2 fails on removing what is not there).
fn update_tree(
    repo: &Repository,
    base: &Tree<'_>,
    updates: &BTreeMap<String, Option<Oid>>,
) -> Result<Oid, HistoryError> {
    let mut builder = TreeUpdateBuilder::new();
    let mut count = 0;
    for (path, target) in updates {
        let current = base.get_path(Path::new(path)).ok();
        match (target, current) {
            (None, Some(_)) => {
                builder.remove(path.as_str());
            }
            (None, None) => continue,
            (Some(id), Some(entry))
                if entry.id() == *id && entry.filemode() == i32::from(FileMode::Blob) =>
            {
                continue;
            }
            (Some(id), _) => {
                builder.upsert(path.as_str(), *id, FileMode::Blob);
            }
        }
        count += 1;
    }
    if count == 0 {
        return Ok(base.id());
    }
    builder
        .create_updated(repo, base)
        .map_err(HistoryError::git("writing the new tree"))
}

/// Checks a vault path for storage and normalises it (`/` separators, no
/// `.` parts, no leading or trailing slash).
pub(super) fn vault_path(input: &str) -> Result<String, HistoryError> {
    let invalid = |reason| HistoryError::InvalidPath {
        path: input.to_string(),
        reason,
    };
    if input.contains('\0') {
        return Err(invalid("it contains a NUL byte"));
    }
    let unified = input.trim().replace('\\', "/");
    if unified.starts_with('/') || Path::new(input.trim()).is_absolute() {
        return Err(invalid("it is absolute; give a path relative to the vault"));
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(invalid("it uses `..`")),
            p if p.eq_ignore_ascii_case(".git") => {
                return Err(invalid("git cannot store a file or folder named `.git`"));
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(invalid("it is empty"));
    }
    Ok(parts.join("/"))
}

/// The commit message: the caller's summary, then Weft's trailers.
fn compose_message(message: &str, origin: Origin, moves: &[(String, String)]) -> String {
    let summary = message.trim();
    let summary = if summary.is_empty() {
        "update"
    } else {
        summary
    };
    let mut text = format!("{summary}\n\n{SOURCE_TRAILER}: {}\n", origin.trailer());
    if moves.len() <= MAX_MOVE_TRAILERS {
        for (from, to) in moves {
            text.push_str(&format!(
                "{MOVE_TRAILER}: {} -> {}\n",
                escape(from),
                escape(to)
            ));
        }
    }
    text
}

/// What Weft's trailers in a message say.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Trailers {
    /// The message without the trailers.
    pub summary: String,
    /// The `Weft-Source` value, if any.
    pub source: Option<String>,
    /// `Weft-Move` pairs (from, to).
    pub moves: Vec<(String, String)>,
}

/// Splits Weft's trailers off a commit message. A message from elsewhere
/// (the vault's own repository) has none and is returned trimmed.
pub(super) fn parse_trailers(message: &str) -> Trailers {
    let message = message.trim_end();
    let Some(split) = message.rfind("\n\n") else {
        return Trailers {
            summary: message.to_string(),
            ..Trailers::default()
        };
    };
    let block = &message[split + 2..];
    let ours = block.lines().all(|line| {
        line.starts_with(&format!("{SOURCE_TRAILER}: "))
            || line.starts_with(&format!("{MOVE_TRAILER}: "))
    });
    if !ours {
        return Trailers {
            summary: message.to_string(),
            ..Trailers::default()
        };
    }
    let mut trailers = Trailers {
        summary: message[..split].trim_end().to_string(),
        ..Trailers::default()
    };
    for line in block.lines() {
        if let Some(value) = line.strip_prefix(&format!("{SOURCE_TRAILER}: ")) {
            trailers.source = Some(value.trim().to_string());
        } else if let Some(value) = line.strip_prefix(&format!("{MOVE_TRAILER}: "))
            && let Some((from, to)) = value.split_once(" -> ")
        {
            trailers.moves.push((unescape(from), unescape(to)));
        }
    }
    trailers
}

/// Escapes what would break a trailer line or its ` -> ` separator.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            '>' => out.push_str("%3E"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3);
        let decoded = match code {
            Some("25") => Some('%'),
            Some("0A") => Some('\n'),
            Some("0D") => Some('\r'),
            Some("3E") => Some('>'),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 3..];
            }
            None => {
                out.push('%');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Reads the notes at `paths` for an external snapshot: content, or `None`
/// when the file is gone. Paths that are not notes, folders and unreadable
/// files are skipped (an unreadable file must not be recorded as deleted).
pub(super) fn read_external(vault_root: &Path, paths: &[String]) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out: Vec<(String, Option<Vec<u8>>)> = Vec::new();
    let unique: BTreeSet<&String> = paths.iter().collect();
    let notes: Vec<&String> = unique
        .into_iter()
        .filter(|path| is_note_path(path) && vault_path(path).is_ok())
        .collect();
    let read = pool::map(&notes, |path| {
        let abs = vault_root.join(path);
        (fs::read(&abs), abs)
    });
    for (path, (read, abs)) in notes.into_iter().zip(read) {
        match read {
            Ok(bytes) => out.push((path.clone(), Some(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.push((path.clone(), None)),
            Err(e) if abs.is_dir() => {
                let _ = e; // A folder named like a note: its notes come one by one.
            }
            Err(e) => tracing::warn!("history: cannot read {path}: {e}; not recorded"),
        }
    }
    out
}

/// `external: a.md` or `external: 3 notes (a.md, b.md, c.md)`.
pub(super) fn external_message<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    let paths: Vec<&str> = paths.collect();
    match paths.as_slice() {
        [one] => format!("external: {one}"),
        many => {
            let shown: Vec<&str> = many.iter().take(5).copied().collect();
            let more = many.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "external: {} notes ({}{tail})",
                many.len(),
                shown.join(", ")
            )
        }
    }
}

/// `path` with `.` and `..` resolved without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

fn is_missing_or_empty(dir: &Path) -> Result<bool, HistoryError> {
    match fs::read_dir(dir) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) if dir.is_file() => {
            let _ = e;
            Err(HistoryError::Corrupt {
                dir: dir.to_path_buf(),
                message: "it is a file, not a repository folder".into(),
            })
        }
        Err(source) => Err(HistoryError::Io {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

fn create(git_dir: &Path) -> Result<Repository, HistoryError> {
    let mut options = RepositoryInitOptions::new();
    options
        .bare(true)
        .mkpath(true)
        .no_reinit(false)
        .external_template(false)
        .initial_head("main")
        .description(
            "Weft's note history of this vault. Inspect with \
             git --git-dir=<this folder> log; do not commit to it by hand.",
        );
    Repository::init_opts(git_dir, &options).map_err(|e| HistoryError::Corrupt {
        dir: git_dir.to_path_buf(),
        message: format!("cannot create it: {}", e.message()),
    })
}

/// Moves what is at `git_dir` aside (`NAME.lost-SECONDS`, kept for
/// whoever wants to look into it) and creates a new store there.
fn create_beside(git_dir: &Path) -> Result<Repository, HistoryError> {
    let name = git_dir
        .file_name()
        .map_or_else(|| "history".into(), |n| n.to_string_lossy().into_owned());
    let stamp = chrono::Utc::now().timestamp();
    let mut aside = git_dir.with_file_name(format!("{name}.lost-{stamp}"));
    let mut n = 1;
    while aside.exists() {
        aside = git_dir.with_file_name(format!("{name}.lost-{stamp}-{n}"));
        n += 1;
    }
    fs::rename(git_dir, &aside).map_err(|source| HistoryError::Io {
        path: git_dir.to_path_buf(),
        source,
    })?;
    tracing::warn!(
        "the damaged note history store is kept at {}",
        aside.display()
    );
    create(git_dir)
}

/// The loss recorded in a store started anew, if any.
fn read_lost(git_dir: &Path) -> Option<Lost> {
    let text = fs::read(git_dir.join(LOST_MARKER)).ok()?;
    serde_json::from_slice(&text).ok()
}

fn open_existing(git_dir: &Path) -> Result<Repository, HistoryError> {
    let corrupt = |message: String| HistoryError::Corrupt {
        dir: git_dir.to_path_buf(),
        message,
    };
    let repo = Repository::open_bare(git_dir)
        .map_err(|e| corrupt(format!("not a readable git repository: {}", e.message())))?;
    if !repo.is_bare() {
        return Err(corrupt("not a bare repository".into()));
    }
    match repo.head() {
        Ok(_) => {}
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {}
        Err(e) => return Err(corrupt(format!("HEAD is unreadable: {}", e.message()))),
    }
    let head = head_id(&repo).map_err(|e| corrupt(e.to_string()))?;
    if let Some(id) = head {
        repo.find_commit(id)
            .and_then(|commit| commit.tree())
            .map_err(|e| {
                corrupt(format!(
                    "its last commit {id} cannot be read: {}",
                    e.message()
                ))
            })?;
    }
    Ok(repo)
}

/// Makes the vault's own git ignore the store: `.weft/.gitignore` for a
/// store under `.weft/`, else a `.gitignore` inside the store folder. An
/// existing file is left alone. Best effort: a failure is only logged.
fn write_ignore_file(vault_root: &Path, git_dir: &Path) {
    let Ok(rel) = git_dir.strip_prefix(vault_root) else {
        return; // Outside the vault: nothing to ignore.
    };
    let folder = match rel.components().next() {
        Some(Component::Normal(first)) if first == ".weft" => vault_root.join(first),
        _ => git_dir.to_path_buf(),
    };
    let file = folder.join(".gitignore");
    if file.exists() {
        return;
    }
    let text = "# Weft's own files (note history): not part of the vault's git.\n*\n";
    if let Err(e) = fs::create_dir_all(&folder).and_then(|()| fs::write(&file, text)) {
        tracing::warn!("cannot write {}: {e}", file.display());
    }
}

/// The vault's own git repository (the vault or a folder above it), read
/// only. Problems are logged, not fatal: listings just lack its commits.
fn open_vault_git(vault_root: &Path) -> Option<VaultGit> {
    let repo = match Repository::open_ext(
        vault_root,
        RepositoryOpenFlags::empty(),
        std::iter::empty::<&std::ffi::OsStr>(),
    ) {
        Ok(repo) => repo,
        Err(e) if e.code() == ErrorCode::NotFound => return None,
        Err(e) => {
            tracing::warn!(
                "the vault's git repository cannot be read ({}); its commits are not listed",
                e.message()
            );
            return None;
        }
    };
    if repo.is_bare() {
        return None;
    }
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let rel = vault_root.strip_prefix(&workdir).ok()?;
    let mut prefix = String::new();
    for component in rel.components() {
        prefix.push_str(component.as_os_str().to_str()?);
        prefix.push('/');
    }
    let dir = repo
        .path()
        .canonicalize()
        .unwrap_or_else(|_| repo.path().to_path_buf());
    Some(VaultGit { repo, prefix, dir })
}
