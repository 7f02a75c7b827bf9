//! Finding a version and reading a note as it was: a full or short id
//! (`weft:` or `git:` may say which repository) resolved to a commit, the
//! note read at that commit by its name then (renames followed back), and
//! errors that name a few recent versions or the last one that had the note.
//!
//! Reads only, and never lists a page: the recent versions an error names
//! come from `listing`.

use git2::{Commit, ErrorCode, ObjectType, Oid};

use super::listing::{Cursor, Stream, Window, merge, note_versions, vault_versions};
use super::note_walk::NoteWalk;
use super::source::{Kind, Src, sources};
use crate::history::changes::blob_entry;
use crate::history::error::HistoryError;
use crate::history::model::{NoteVersion, PathChange, Version, VersionSource};
use crate::history::store::{Store, short_id, vault_path};

/// How many recent versions an unknown-id error lists.
const RECENT_IN_ERRORS: usize = 5;

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
fn describe(version: &Version) -> String {
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
pub(crate) fn read(store: &Store, path: &str, spec: &str) -> Result<NoteVersion, HistoryError> {
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
pub(crate) fn version_of(store: &Store, spec: &str) -> Result<Version, HistoryError> {
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
