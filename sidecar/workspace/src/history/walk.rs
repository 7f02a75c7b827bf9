//! Reading history: walking commits (Weft's first-parent chain, the vault
//! repository's commits by time), following a note back through renames,
//! listing versions page by page, resolving full and short ids, and reading
//! a note as it was. Reads only; both repositories are left as they are.

use chrono::{DateTime, FixedOffset, Utc};
use git2::{Commit, ErrorCode, ObjectType, Oid, Repository, Revwalk, Sort, Tree};

use super::changes::{blob_entry, changes, same_at, subtree};
use super::error::HistoryError;
use super::model::{
    ChangeKind, MAX_LISTED_CHANGES, NoteVersion, Page, PathChange, Version, VersionSource,
};
use super::store::{Store, head_id, parse_trailers, short_id, vault_path};

/// How many recent versions an unknown-id error lists.
const RECENT_IN_ERRORS: usize = 5;

/// Which repository a version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Weft,
    VaultGit,
}

/// One repository to read versions from.
struct Src<'r> {
    repo: &'r Repository,
    kind: Kind,
    /// The vault's folder inside the repository: `""` or `"notes/"`.
    prefix: &'r str,
}

fn sources(store: &Store) -> Vec<Src<'_>> {
    let mut sources = vec![Src {
        repo: &store.repo,
        kind: Kind::Weft,
        prefix: "",
    }];
    if let Some(git) = &store.vault_git {
        sources.push(Src {
            repo: &git.repo,
            kind: Kind::VaultGit,
            prefix: &git.prefix,
        });
    }
    sources
}

/// The commits of one repository, newest first.
enum Commits<'r> {
    /// Weft's linear history, parent by parent.
    Chain {
        repo: &'r Repository,
        next: Option<Oid>,
    },
    /// The vault repository's commits reachable from HEAD, by commit time.
    Walk {
        repo: &'r Repository,
        walk: Box<Revwalk<'r>>,
    },
}

impl<'r> Iterator for Commits<'r> {
    type Item = Result<Commit<'r>, HistoryError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Commits::Chain { repo, next } => {
                let id = next.take()?;
                let commit = match repo.find_commit(id) {
                    Ok(c) => c,
                    Err(e) => return Some(Err(HistoryError::git("reading a history commit")(e))),
                };
                *next = commit.parent_id(0).ok();
                Some(Ok(commit))
            }
            Commits::Walk { repo, walk } => {
                let id = match walk.next()? {
                    Ok(id) => id,
                    Err(e) => {
                        return Some(Err(HistoryError::git("walking the vault's git log")(e)));
                    }
                };
                Some(
                    repo.find_commit(id)
                        .map_err(HistoryError::git("reading a vault git commit")),
                )
            }
        }
    }
}

impl<'r> Src<'r> {
    fn head(&self) -> Result<Option<Oid>, HistoryError> {
        match self.kind {
            Kind::Weft => head_id(self.repo),
            Kind::VaultGit => match self.repo.head() {
                Ok(head) => Ok(head.peel_to_commit().ok().map(|c| c.id())),
                Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                    Ok(None)
                }
                Err(e) => Err(HistoryError::git("reading the vault's git HEAD")(e)),
            },
        }
    }

    fn commits(&self) -> Result<Commits<'r>, HistoryError> {
        let head = self.head()?;
        match self.kind {
            Kind::Weft => Ok(Commits::Chain {
                repo: self.repo,
                next: head,
            }),
            Kind::VaultGit => {
                let error = HistoryError::git("walking the vault's git log");
                let mut walk = self.repo.revwalk().map_err(error)?;
                walk.set_sorting(Sort::TIME).map_err(error)?;
                if let Some(head) = head {
                    walk.push(head).map_err(error)?;
                }
                Ok(Commits::Walk {
                    repo: self.repo,
                    walk: Box::new(walk),
                })
            }
        }
    }

    /// The parents that count: Weft's history is linear (first parent).
    fn parents(&self, commit: &Commit<'r>) -> Result<Vec<Commit<'r>>, HistoryError> {
        let count = match self.kind {
            Kind::Weft => commit.parent_count().min(1),
            Kind::VaultGit => commit.parent_count(),
        };
        (0..count)
            .map(|i| {
                commit
                    .parent(i)
                    .map_err(HistoryError::git("reading a parent commit"))
            })
            .collect()
    }

    fn qualifier(&self) -> &'static str {
        match self.kind {
            Kind::Weft => "weft",
            Kind::VaultGit => "git",
        }
    }

    fn repo_path(&self, vault_path: &str) -> String {
        format!("{}{vault_path}", self.prefix)
    }

    /// A listing entry for `commit`.
    fn version(
        &self,
        commit: &Commit<'_>,
        path_at_version: Option<String>,
        changes: Vec<PathChange>,
        changes_total: usize,
    ) -> Version {
        let raw = String::from_utf8_lossy(commit.message_bytes());
        let (message, source) = match self.kind {
            Kind::Weft => {
                let trailers = parse_trailers(&raw);
                let source = match trailers.source.as_deref() {
                    Some("external" | "baseline") => VersionSource::External,
                    _ => VersionSource::Weft,
                };
                (trailers.summary, source)
            }
            Kind::VaultGit => (raw.trim_end().to_string(), VersionSource::VaultGit),
        };
        let author = commit.author();
        Version {
            id: commit.id().to_string(),
            short_id: short_id(self.repo, commit.id()),
            time: time_of(author.when()),
            author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
            message,
            source,
            path_at_version,
            changes,
            changes_total,
        }
    }

    /// The vault's folder in `tree` (the tree itself without a prefix).
    fn vault_tree(&self, tree: &Tree<'r>) -> Result<Option<Tree<'r>>, HistoryError> {
        subtree(self.repo, tree, self.prefix)
    }

    /// Every vault path `commit` changed (against its first parent), with
    /// renames paired.
    fn changes_of(&self, commit: &Commit<'r>) -> Result<Vec<PathChange>, HistoryError> {
        let tree = commit
            .tree()
            .map_err(HistoryError::git("reading a version's tree"))?;
        let parent = match commit.parent_count() {
            0 => None,
            _ => Some(
                commit
                    .parent(0)
                    .and_then(|p| p.tree())
                    .map_err(HistoryError::git("reading a parent's tree"))?,
            ),
        };
        self.changes_between(commit, parent.as_ref(), &tree)
    }

    fn changes_between(
        &self,
        commit: &Commit<'r>,
        parent: Option<&Tree<'r>>,
        tree: &Tree<'r>,
    ) -> Result<Vec<PathChange>, HistoryError> {
        let old = match parent {
            Some(parent) => self.vault_tree(parent)?,
            None => None,
        };
        let new = self.vault_tree(tree)?;
        let moves = match self.kind {
            Kind::Weft => parse_trailers(&String::from_utf8_lossy(commit.message_bytes())).moves,
            Kind::VaultGit => Vec::new(),
        };
        changes(self.repo, old.as_ref(), new.as_ref(), &moves)
    }

    /// How `commit` changed the note at vault path `name`, `None` when it
    /// did not. `tree` is the commit's tree, `parents` its parents' trees.
    fn examine(
        &self,
        commit: &Commit<'r>,
        tree: &Tree<'r>,
        parents: &[Tree<'r>],
        name: &str,
    ) -> Result<Option<PathChange>, HistoryError> {
        let repo_path = self.repo_path(name);
        let touched = match parents {
            [] => blob_entry(tree, &repo_path).is_some(),
            // A merge shows only when it differs from every side.
            many => {
                let mut differs = true;
                for parent in many {
                    if same_at(self.repo, parent, tree, &repo_path)? {
                        differs = false;
                        break;
                    }
                }
                differs
            }
        };
        if !touched {
            return Ok(None);
        }
        let here = blob_entry(tree, &repo_path);
        let before = parents.first().and_then(|p| blob_entry(p, &repo_path));
        let plain = |kind| {
            Ok(Some(PathChange {
                kind,
                path: name.to_string(),
                from: None,
            }))
        };
        match (before, here) {
            (Some(_), Some(_)) | (None, None) => plain(ChangeKind::Modified),
            (Some(_), None) => plain(ChangeKind::Deleted),
            (None, Some(_)) if parents.len() == 1 => {
                // Added, or renamed: Weft's record first, else the pairing
                // of the commit's changes.
                if self.kind == Kind::Weft {
                    let trailers = parse_trailers(&String::from_utf8_lossy(commit.message_bytes()));
                    if let Some((from, _)) = trailers.moves.into_iter().find(|(_, to)| to == name) {
                        return Ok(Some(PathChange {
                            kind: ChangeKind::Renamed,
                            path: name.to_string(),
                            from: Some(from),
                        }));
                    }
                }
                let changes = self.changes_between(commit, parents.first(), tree)?;
                match changes.into_iter().find(|c| c.path == name) {
                    Some(change) if change.kind == ChangeKind::Renamed => Ok(Some(change)),
                    _ => plain(ChangeKind::Added),
                }
            }
            (None, Some(_)) => plain(ChangeKind::Added),
        }
    }
}

fn time_of(when: git2::Time) -> DateTime<FixedOffset> {
    let offset = FixedOffset::east_opt(when.offset_minutes() * 60)
        .unwrap_or_else(|| FixedOffset::east_opt(0).expect("UTC is a valid offset"));
    DateTime::from_timestamp(when.seconds(), 0)
        .unwrap_or_default()
        .with_timezone(&offset)
}

/// One commit of a note's walk back through history.
struct Step<'r> {
    commit: Commit<'r>,
    /// The note's vault path in this commit.
    name: String,
    /// How this commit changed the note, `None` when it did not.
    change: Option<PathChange>,
}

/// Walks a repository's commits newest first, keeping track of the note's
/// name across renames.
struct NoteWalk<'s, 'r> {
    src: &'s Src<'r>,
    commits: Commits<'r>,
    /// The note's vault path at the commit about to be examined.
    name: String,
    /// The last parent's tree: the next commit's own tree, in Weft's chain
    /// (large trees are not kept in libgit2's cache).
    cached: Option<(Oid, Tree<'r>)>,
}

impl<'s, 'r> NoteWalk<'s, 'r> {
    fn new(src: &'s Src<'r>, vault_path: &str) -> Result<Self, HistoryError> {
        Ok(NoteWalk {
            src,
            commits: src.commits()?,
            name: vault_path.to_string(),
            cached: None,
        })
    }

    fn step(&mut self, commit: Commit<'r>) -> Result<Step<'r>, HistoryError> {
        let tree = match self.cached.take() {
            Some((id, tree)) if id == commit.id() => tree,
            _ => commit
                .tree()
                .map_err(HistoryError::git("reading a version's tree"))?,
        };
        let parents = self.src.parents(&commit)?;
        let mut parent_trees = Vec::with_capacity(parents.len());
        for parent in &parents {
            parent_trees.push(
                parent
                    .tree()
                    .map_err(HistoryError::git("reading a parent's tree"))?,
            );
        }
        let change = self
            .src
            .examine(&commit, &tree, &parent_trees, &self.name)?;
        let name = self.name.clone();
        if let Some(from) = change.as_ref().and_then(|c| c.from.clone()) {
            self.name = from; // Older commits know the note by its old name.
        }
        if let (Some(parent), Some(parent_tree)) =
            (parents.first(), parent_trees.into_iter().next())
        {
            self.cached = Some((parent.id(), parent_tree));
        }
        Ok(Step {
            commit,
            name,
            change,
        })
    }
}

impl<'r> Iterator for NoteWalk<'_, 'r> {
    type Item = Result<Step<'r>, HistoryError>;

    fn next(&mut self) -> Option<Self::Item> {
        let commit = match self.commits.next()? {
            Ok(c) => c,
            Err(e) => return Some(Err(e)),
        };
        Some(self.step(commit))
    }
}

/// Where a listing stopped, per repository: the last version returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Cursor {
    weft: Option<Oid>,
    git: Option<Oid>,
    /// The path was given without `.md` and found with it.
    md: bool,
}

impl Cursor {
    fn encode(&self) -> String {
        let hex = |id: Option<Oid>| id.map(|id| id.to_string()).unwrap_or_default();
        let md = if self.md { ".md" } else { "" };
        format!("w{}.g{}{md}", hex(self.weft), hex(self.git))
    }

    fn decode(text: &str) -> Result<Cursor, HistoryError> {
        let bad = || HistoryError::BadCursor(format!("`{text}` is not a cursor from a listing"));
        let trimmed = text.trim();
        let (trimmed, md) = match trimmed.strip_suffix(".md") {
            Some(rest) => (rest, true),
            None => (trimmed, false),
        };
        let (weft, git) = trimmed
            .strip_prefix('w')
            .and_then(|rest| rest.split_once(".g"))
            .ok_or_else(bad)?;
        let id = |hex: &str| -> Result<Option<Oid>, HistoryError> {
            if hex.is_empty() {
                Ok(None)
            } else {
                Oid::from_str(hex).map(Some).map_err(|_| bad())
            }
        };
        Ok(Cursor {
            weft: id(weft)?,
            git: id(git)?,
            md,
        })
    }

    fn of(&self, kind: Kind) -> Option<Oid> {
        match kind {
            Kind::Weft => self.weft,
            Kind::VaultGit => self.git,
        }
    }

    fn set(&mut self, kind: Kind, id: Oid) {
        match kind {
            Kind::Weft => self.weft = Some(id),
            Kind::VaultGit => self.git = Some(id),
        }
    }
}

/// What one repository contributes to a page.
struct Stream {
    kind: Kind,
    items: Vec<Version>,
    /// More versions exist past `items`.
    more: bool,
}

/// Limits a walk: versions older than `since`, and the cursor to skip to.
struct Window {
    since: Option<i64>,
    after: Option<Oid>,
    want: usize,
}

impl Window {
    /// Whether the walk can stop at `commit` (everything after is older).
    fn ended(&self, kind: Kind, commit: &Commit<'_>) -> bool {
        let Some(since) = self.since else {
            return false;
        };
        match kind {
            // Weft's commits are made in order.
            Kind::Weft => commit.author().when().seconds() < since,
            // Sorted by commit time, which is never before the author time.
            Kind::VaultGit => commit.time().seconds() < since,
        }
    }

    fn too_old(&self, commit: &Commit<'_>) -> bool {
        self.since
            .is_some_and(|since| commit.author().when().seconds() < since)
    }
}

/// A note's versions in one repository, after the cursor.
fn note_versions(src: &Src<'_>, path: &str, window: &Window) -> Result<Stream, HistoryError> {
    let mut skipping = window.after;
    let mut items = Vec::new();
    let mut ended = false;
    for step in NoteWalk::new(src, path)? {
        let step = step?;
        if window.ended(src.kind, &step.commit) {
            ended = true;
            break;
        }
        let Some(change) = step.change else {
            continue;
        };
        if let Some(after) = skipping {
            if step.commit.id() == after {
                skipping = None;
            }
            continue;
        }
        if window.too_old(&step.commit) {
            continue;
        }
        if items.len() == window.want {
            return Ok(Stream {
                kind: src.kind,
                items,
                more: true,
            });
        }
        items.push(src.version(&step.commit, Some(step.name), vec![change], 1));
    }
    if skipping.is_some() && !ended {
        return Err(HistoryError::BadCursor(
            "it does not point into this note's history".into(),
        ));
    }
    Ok(Stream {
        kind: src.kind,
        items,
        more: false,
    })
}

/// The vault's versions in one repository, after the cursor.
fn vault_versions(src: &Src<'_>, window: &Window) -> Result<Stream, HistoryError> {
    let mut skipping = window.after;
    let mut items = Vec::new();
    let mut ended = false;
    for commit in src.commits()? {
        let commit = commit?;
        if window.ended(src.kind, &commit) {
            ended = true;
            break;
        }
        if let Some(after) = skipping {
            if commit.id() == after {
                skipping = None;
            }
            continue;
        }
        if window.too_old(&commit) || (src.kind == Kind::VaultGit && commit.parent_count() > 1) {
            continue; // A merge's changes are listed with the commits merged.
        }
        let mut changes = src.changes_of(&commit)?;
        if changes.is_empty() {
            continue; // A commit of the vault repository outside the vault.
        }
        if items.len() == window.want {
            return Ok(Stream {
                kind: src.kind,
                items,
                more: true,
            });
        }
        let total = changes.len();
        changes.truncate(MAX_LISTED_CHANGES);
        items.push(src.version(&commit, None, changes, total));
    }
    if skipping.is_some() && !ended {
        return Err(HistoryError::BadCursor(
            "it does not point into the vault's history".into(),
        ));
    }
    Ok(Stream {
        kind: src.kind,
        items,
        more: false,
    })
}

/// Merges the repositories' streams newest first (Weft first on a tie).
fn merge(streams: Vec<Stream>, limit: usize, mut cursor: Cursor) -> Page<Version> {
    let mut streams: Vec<(Kind, std::collections::VecDeque<Version>, bool)> = streams
        .into_iter()
        .map(|s| (s.kind, s.items.into(), s.more))
        .collect();
    let mut items = Vec::new();
    while items.len() < limit {
        let next = streams
            .iter()
            .enumerate()
            .filter_map(|(i, (_, items, _))| items.front().map(|v| (i, v.time)))
            .fold(
                None::<(usize, DateTime<FixedOffset>)>,
                |best, (i, time)| match best {
                    Some((_, best_time)) if best_time >= time => best,
                    _ => Some((i, time)),
                },
            );
        let Some((i, _)) = next else {
            break;
        };
        let (kind, queue, _) = &mut streams[i];
        let version = queue.pop_front().expect("a stream with a front item");
        if let Ok(id) = Oid::from_str(&version.id) {
            cursor.set(*kind, id);
        }
        items.push(version);
    }
    let more = streams
        .iter()
        .any(|(_, queue, more)| *more || !queue.is_empty());
    Page {
        items,
        next_cursor: more.then(|| cursor.encode()),
    }
}

/// `History::log`.
pub(super) fn log(
    store: &Store,
    path: Option<&str>,
    since: Option<DateTime<Utc>>,
    limit: usize,
    cursor: Option<&str>,
) -> Result<Page<Version>, HistoryError> {
    let cursor = cursor.map(Cursor::decode).transpose()?;
    let sources = sources(store);
    let list = |path: Option<&str>, md: bool| -> Result<Page<Version>, HistoryError> {
        let mut start = cursor.unwrap_or_default();
        start.md = md;
        let mut streams = Vec::new();
        for src in &sources {
            let window = Window {
                since: since.map(|t| t.timestamp()),
                after: start.of(src.kind),
                want: limit,
            };
            streams.push(match path {
                Some(path) => note_versions(src, path, &window)?,
                None => vault_versions(src, &window)?,
            });
        }
        Ok(merge(streams, limit, start))
    };
    let Some(path) = path else {
        return list(None, false);
    };
    let path = vault_path(path)?;
    // `note` names `note.md` when `note` itself has no history; the cursor
    // remembers which it was.
    let with_md = format!("{path}.md");
    if cursor.is_some_and(|c| c.md) {
        return list(Some(&with_md), true);
    }
    let page = list(Some(&path), false)?;
    if page.items.is_empty() && cursor.is_none() && !path.ends_with(".md") {
        return list(Some(&with_md), true);
    }
    Ok(page)
}

/// Splits `weft:`/`git:` off a version id.
fn qualified(spec: &str) -> (Option<Kind>, &str) {
    let spec = spec.trim();
    if let Some(hex) = spec.strip_prefix("weft:") {
        (Some(Kind::Weft), hex.trim())
    } else if let Some(hex) = spec.strip_prefix("git:") {
        (Some(Kind::VaultGit), hex.trim())
    } else {
        (None, spec)
    }
}

/// The commit a full or short id names, in either repository.
fn resolve<'s, 'r>(
    sources: &'s [Src<'r>],
    spec: &str,
    path: Option<&str>,
) -> Result<(&'s Src<'r>, Oid), HistoryError> {
    let (only, hex) = qualified(spec);
    let unknown = || HistoryError::UnknownVersion {
        version: spec.trim().to_string(),
        recent: recent(sources, path),
    };
    if hex.len() < 4 || hex.len() > 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(unknown());
    }
    let hex = hex.to_ascii_lowercase();
    let mut found: Vec<(&Src<'r>, Oid)> = Vec::new();
    for src in sources.iter().filter(|s| only.is_none_or(|k| k == s.kind)) {
        match src
            .repo
            .find_object_by_prefix(&hex, Some(ObjectType::Commit))
        {
            Ok(object) => found.push((src, object.id())),
            Err(e) if e.code() == ErrorCode::Ambiguous => {
                // Trees and blobs share the id space; only commits count.
                for commit in src.commits()? {
                    let commit = commit?;
                    if commit.id().to_string().starts_with(&hex) {
                        found.push((src, commit.id()));
                    }
                }
            }
            Err(_) => {}
        }
    }
    match found.as_slice() {
        [] => Err(unknown()),
        [one] => Ok(*one),
        many => Err(HistoryError::AmbiguousVersion {
            version: spec.trim().to_string(),
            candidates: many
                .iter()
                .map(|(src, id)| format!("{}:{}", src.qualifier(), short_id(src.repo, *id)))
                .collect(),
        }),
    }
}

/// `short_id (date)` of a few recent versions (of the note when it
/// has any), for error messages.
fn recent(sources: &[Src<'_>], path: Option<&str>) -> Vec<String> {
    let window = Window {
        since: None,
        after: None,
        want: RECENT_IN_ERRORS,
    };
    let collect = |path: Option<&str>| -> Vec<Version> {
        let streams: Vec<Stream> = sources
            .iter()
            .filter_map(|src| match path {
                Some(path) => note_versions(src, path, &window).ok(),
                None => vault_versions(src, &window).ok(),
            })
            .collect();
        merge(streams, RECENT_IN_ERRORS, Cursor::default()).items
    };
    let mut versions = path.map(|p| collect(Some(p))).unwrap_or_default();
    if versions.is_empty()
        && let Some(path) = path.filter(|p| !p.ends_with(".md"))
    {
        versions = collect(Some(&format!("{path}.md")));
    }
    if versions.is_empty() {
        versions = collect(None);
    }
    versions.iter().map(describe).collect()
}

/// `abc1234 (2026-11-22 10:31)`, for error messages. Not its message: it
/// may name paths an agent may not see (note_history lists versions with
/// their messages, as the agent may see them).
pub(super) fn describe(version: &Version) -> String {
    let qualifier = if version.source == VersionSource::VaultGit {
        "git:"
    } else {
        ""
    };
    format!(
        "{qualifier}{} ({})",
        version.short_id,
        version.time.format("%Y-%m-%d %H:%M")
    )
}

/// `History::read`.
pub(super) fn read(store: &Store, path: &str, spec: &str) -> Result<NoteVersion, HistoryError> {
    let path = vault_path(path)?;
    let sources = sources(store);
    let (src, id) = resolve(&sources, spec, Some(&path))?;
    match read_in(src, &path, id) {
        Err(error @ HistoryError::NotInVersion { .. }) if !path.ends_with(".md") => {
            read_in(src, &format!("{path}.md"), id).map_err(|_| error)
        }
        result => result,
    }
}

/// The listing entry of the commit `spec` names, without a note.
pub(super) fn version_of(store: &Store, spec: &str) -> Result<Version, HistoryError> {
    let sources = sources(store);
    let (src, id) = resolve(&sources, spec, None)?;
    let commit = src
        .repo
        .find_commit(id)
        .map_err(HistoryError::git("reading a version"))?;
    Ok(src.version(&commit, None, Vec::new(), 0))
}

fn read_in(src: &Src<'_>, path: &str, id: Oid) -> Result<NoteVersion, HistoryError> {
    let commit = src
        .repo
        .find_commit(id)
        .map_err(HistoryError::git("reading a version"))?;
    let tree = commit
        .tree()
        .map_err(HistoryError::git("reading a version's tree"))?;
    // Most reads name the note as it was then; otherwise follow renames
    // back from today to that version.
    let mut walk = None;
    let name = if blob_entry(&tree, &src.repo_path(path)).is_some() {
        path.to_string()
    } else {
        let mut steps = NoteWalk::new(src, path)?;
        let mut name = None;
        for step in steps.by_ref() {
            let step = step?;
            if step.commit.id() == id {
                name = Some(step.name);
                break;
            }
        }
        walk = Some(steps);
        name.unwrap_or_else(|| path.to_string())
    };
    let Some((blob_id, _)) = blob_entry(&tree, &src.repo_path(&name)) else {
        return Err(not_in_version(src, path, &commit, walk));
    };
    let blob = src
        .repo
        .find_blob(blob_id)
        .map_err(HistoryError::git("reading a note's old content"))?;
    let bytes = blob.content().to_vec();
    let mut parents = Vec::new();
    for parent in src.parents(&commit)? {
        parents.push(
            parent
                .tree()
                .map_err(HistoryError::git("reading a parent's tree"))?,
        );
    }
    let change = src.examine(&commit, &tree, &parents, &name)?;
    let changes: Vec<PathChange> = change.into_iter().collect();
    let total = changes.len();
    Ok(NoteVersion {
        version: src.version(&commit, Some(name.clone()), changes, total),
        path: name,
        text: String::from_utf8_lossy(&bytes).into_owned(),
        bytes,
    })
}

/// The error for a note absent from a version, naming the version before
/// it that has the note (for a version that deleted it) when there is one.
fn not_in_version(
    src: &Src<'_>,
    path: &str,
    commit: &Commit<'_>,
    walk: Option<NoteWalk<'_, '_>>,
) -> HistoryError {
    let version = src.version(commit, None, Vec::new(), 0);
    let mut hint = None;
    if let Some(walk) = walk {
        for step in walk {
            let Ok(step) = step else { break };
            let Ok(tree) = step.commit.tree() else { break };
            if blob_entry(&tree, &src.repo_path(&step.name)).is_some() {
                let older = src.version(&step.commit, None, Vec::new(), 0);
                hint = Some(format!(
                    "the last version before it that has the note is {}",
                    describe(&older)
                ));
                break;
            }
        }
    }
    HistoryError::NotInVersion {
        path: path.to_string(),
        version: describe(&version),
        hint,
    }
}
