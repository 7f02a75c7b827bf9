//! Comparing two versions of a note (or a version and the current text) as
//! a unified diff with three lines of context and line counts. No protocol.

use similar::{ChangeTag, TextDiff};

use super::error::HistoryError;
use super::model::{DiffResult, DiffTarget, NoteVersion, Version};
use super::store::{Store, vault_path};
use super::walk::{read, version_of};

/// One side of a diff: the version, and the note in it (if it existed).
fn side(
    store: &Store,
    path: &str,
    spec: &str,
) -> Result<(Version, Option<NoteVersion>), HistoryError> {
    match read(store, path, spec) {
        Ok(note) => Ok((note.version.clone(), Some(note))),
        Err(HistoryError::NotInVersion { .. }) => Ok((version_of(store, spec)?, None)),
        Err(e) => Err(e),
    }
}

/// `History::diff`.
pub(super) fn diff(
    store: &Store,
    path: &str,
    from: &str,
    to: DiffTarget<'_>,
) -> Result<DiffResult, HistoryError> {
    let (from_version, old) = side(store, path, from)?;
    let (to_version, new_path, new_text, to_label) = match to {
        DiffTarget::Version(spec) => {
            let (version, new) = side(store, path, spec)?;
            let label = version.short_id.clone();
            let (path, text) = match new {
                Some(note) => (Some(note.path), Some(note.text)),
                None => (None, None),
            };
            (Some(version), path, text, label)
        }
        DiffTarget::Current(text) => {
            let mut current = vault_path(path)?;
            // `note` names `note.md` when that is what the version had.
            if let Some(old) = &old
                && old.path == format!("{current}.md")
            {
                current = old.path.clone();
            }
            (
                None,
                Some(current),
                Some(text.to_string()),
                "current".into(),
            )
        }
    };
    if old.is_none() && new_text.is_none() {
        // Neither side has the note: say so for the older one.
        return Err(read(store, path, from)
            .err()
            .unwrap_or(HistoryError::NoHistory {
                path: path.to_string(),
            }));
    }
    let (old_path, old_text) = match old {
        Some(note) => (Some(note.path), Some(note.text)),
        None => (None, None),
    };
    let a = match &old_path {
        Some(p) => format!("a/{p}@{}", from_version.short_id),
        None => "/dev/null".to_string(),
    };
    let b = match &new_path {
        Some(p) if new_text.is_some() => format!("b/{p}@{to_label}"),
        _ => "/dev/null".to_string(),
    };
    let before = old_text.as_deref().unwrap_or("");
    let after = new_text.as_deref().unwrap_or("");
    let (unified, additions, deletions) = unified(before, after, &a, &b);
    Ok(DiffResult {
        unified,
        additions,
        deletions,
        from: from_version,
        to: to_version,
        from_path: old_path,
        to_path: new_text.and(new_path),
    })
}

/// The unified diff of two texts and its added and deleted line counts.
pub(super) fn unified(before: &str, after: &str, a: &str, b: &str) -> (String, usize, usize) {
    if before == after {
        return (String::new(), 0, 0);
    }
    // Bounded: past the deadline the diff is approximate, never endless.
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(before, after);
    let (mut additions, mut deletions) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => additions += 1,
            ChangeTag::Delete => deletions += 1,
            ChangeTag::Equal => {}
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    (text, additions, deletions)
}
