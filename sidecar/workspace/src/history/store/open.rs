//! Opening the history store: creating it when missing (bare, with an
//! ignore file so the vault's own git leaves it alone), finding the vault's
//! own repository (read only), and checking the store before each use: one
//! deleted or damaged is set aside, started anew and remembered as lost.
//!
//! Must not record anything (a new store's baseline is the caller's), and
//! never writes into the vault's own repository.

use std::fs;
use std::path::{Component, Path, PathBuf};

use git2::{ErrorCode, Repository, RepositoryInitOptions, RepositoryOpenFlags};

use super::{Lost, Store, VaultGit, head_id};
use crate::history::error::HistoryError;
use crate::io::make_below;

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
            Ok(true) => Ok(create(&vault_root, &git_dir)?),
            Ok(false) => open_existing(&git_dir),
            Err(e) => Err(e),
        };
        let (repo, damaged) = match opened {
            Ok(repo) => (repo, None),
            // Set aside and started anew (and reported) below.
            Err(HistoryError::Corrupt { message, .. }) => {
                (create_beside(&vault_root, &git_dir)?, Some(message))
            }
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
        store.clear_temporary_objects()?;
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
            self.repo = create_beside(&self.vault_root, &self.git_dir)?;
        } else {
            self.repo = create(&self.vault_root, &self.git_dir)?;
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

/// A new store at `git_dir`, its folders made as needed, but never the
/// vault's own: a vault deleted while served is not made again.
fn create(vault_root: &Path, git_dir: &Path) -> Result<Repository, HistoryError> {
    // Folder by folder below the root, never the root itself: checking the
    // root and then making a path would make it again if it went between.
    if let Err(e) = make_below(vault_root, git_dir) {
        if !vault_root.is_dir() {
            return Err(HistoryError::Disabled(format!(
                "the vault folder {} is gone (deleted or moved while Weft served it); nothing is \
                 recorded",
                vault_root.display()
            )));
        }
        return Err(HistoryError::Disabled(format!(
            "cannot create its store {} ({e}), so changes are not recorded; the notes themselves \
             are unaffected. A read-only vault has no history; otherwise give the user Weft runs \
             as write permission there, or set `[history] dir` in .weft.toml to a writable folder",
            git_dir.display()
        )));
    }
    let mut options = RepositoryInitOptions::new();
    options
        .bare(true)
        .mkpath(false)
        .no_reinit(false)
        .external_template(false)
        .initial_head("main")
        .description(
            "Weft's note history of this vault. Inspect with \
             git --git-dir=<this folder> log; do not commit to it by hand.",
        );
    // Nothing is there to be damaged: the folder could not be made (a
    // read-only vault, most often).
    Repository::init_opts(git_dir, &options).map_err(|e| {
        HistoryError::Disabled(format!(
            "cannot create its store {} ({}), so changes are not recorded; the notes themselves \
             are unaffected. A read-only vault has no history; otherwise give the user Weft runs \
             as write permission there, or set `[history] dir` in .weft.toml to a writable folder",
            git_dir.display(),
            e.message()
        ))
    })
}

/// Moves what is at `git_dir` aside (`NAME.lost-SECONDS`, kept for
/// whoever wants to look into it) and creates a new store there.
fn create_beside(vault_root: &Path, git_dir: &Path) -> Result<Repository, HistoryError> {
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
    create(vault_root, git_dir)
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
    if let Err(e) = make_below(vault_root, &folder).and_then(|()| fs::write(&file, text)) {
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
