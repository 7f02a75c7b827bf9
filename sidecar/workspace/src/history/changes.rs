//! What a commit changed, found by comparing two trees while descending only
//! into subtrees whose ids differ — so the cost follows the change, not the
//! vault (libgit2's tree diff walks both trees whole). Renames are paired
//! from Weft's own move records, then by identical content, then by line
//! similarity for the few that remain. No protocol.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use git2::{ObjectType, Oid, Repository, Tree};

use super::error::HistoryError;
use super::model::{ChangeKind, PathChange};

/// Renames by similarity are only looked for when there are at most this
/// many (added × deleted) pairs; git has a similar limit.
const MAX_SIMILARITY_PAIRS: usize = 400;
/// Files larger than this are never compared for similarity.
const MAX_SIMILARITY_BYTES: usize = 1 << 20;
/// How alike two texts must be to count as a rename (git's default, 50%).
const MIN_SIMILARITY: f32 = 0.5;

/// A blob entry: id and file mode.
pub(super) type Entry = (Oid, i32);

/// One changed file, before rename pairing.
#[derive(Debug, Clone)]
struct Raw {
    path: String,
    old: Option<Entry>,
    new: Option<Entry>,
}

/// The vault's folder in `tree`: the tree itself for an empty prefix.
pub(super) fn subtree<'r>(
    repo: &'r Repository,
    tree: &Tree<'r>,
    prefix: &str,
) -> Result<Option<Tree<'r>>, HistoryError> {
    let Some(folder) = prefix.strip_suffix('/') else {
        return Ok(Some(tree.clone()));
    };
    match tree.get_path(Path::new(folder)) {
        Ok(entry) if entry.kind() == Some(ObjectType::Tree) => repo
            .find_tree(entry.id())
            .map(Some)
            .map_err(HistoryError::git("reading a folder's tree")),
        _ => Ok(None),
    }
}

/// The blob at `path` in `tree` (a folder there does not count).
pub(super) fn blob_entry(tree: &Tree<'_>, path: &str) -> Option<Entry> {
    let entry = tree.get_path(Path::new(path)).ok()?;
    (entry.kind() == Some(ObjectType::Blob)).then(|| (entry.id(), entry.filemode()))
}

/// Whether `path` is the same in both trees, looking only as deep as the
/// first level where they agree.
pub(super) fn same_at(
    repo: &Repository,
    a: &Tree<'_>,
    b: &Tree<'_>,
    path: &str,
) -> Result<bool, HistoryError> {
    if a.id() == b.id() {
        return Ok(true);
    }
    let Some((first, rest)) = path.split_once('/') else {
        let entry = |t: &Tree<'_>| t.get_name(path).map(|e| (e.id(), e.filemode()));
        return Ok(entry(a) == entry(b));
    };
    let (ea, eb) = (a.get_name(first), b.get_name(first));
    let key = |e: &Option<git2::TreeEntry<'_>>| e.as_ref().map(|e| (e.id(), e.filemode()));
    if key(&ea) == key(&eb) {
        return Ok(true);
    }
    let as_tree = |e: Option<git2::TreeEntry<'_>>| -> Result<Option<Tree<'_>>, HistoryError> {
        match e {
            Some(e) if e.kind() == Some(ObjectType::Tree) => repo
                .find_tree(e.id())
                .map(Some)
                .map_err(HistoryError::git("reading a folder's tree")),
            _ => Ok(None),
        }
    };
    match (as_tree(ea)?, as_tree(eb)?) {
        (Some(ta), Some(tb)) => same_at(repo, &ta, &tb, rest),
        (Some(t), None) | (None, Some(t)) => Ok(blob_entry(&t, rest).is_none()),
        (None, None) => Ok(true),
    }
}

/// How deep [`compare`] follows folders. It recurses once per level, and a
/// repository (the vault's own git, read for listings) can nest trees far
/// deeper than any folder on disk.
pub(super) const MAX_TREE_DEPTH: usize = 256;

/// Every file that differs between `old` and `new` (either may be absent),
/// paths relative to the trees, sorted.
fn raw_changes(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
) -> Result<Vec<Raw>, HistoryError> {
    let mut out = Vec::new();
    compare(repo, old, new, "", 0, &mut out)?;
    Ok(out)
}

type Side = Option<(Oid, i32, Option<ObjectType>)>;

fn compare(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    dir: &str,
    depth: usize,
    out: &mut Vec<Raw>,
) -> Result<(), HistoryError> {
    if let (Some(o), Some(n)) = (old, new)
        && o.id() == n.id()
    {
        return Ok(());
    }
    if depth > MAX_TREE_DEPTH {
        return Err(HistoryError::TooDeep {
            path: dir.to_string(),
            limit: MAX_TREE_DEPTH,
        });
    }
    let mut names: BTreeMap<Vec<u8>, (Side, Side)> = BTreeMap::new();
    for entry in old.iter().flat_map(|t| t.iter()) {
        names.entry(entry.name_bytes().to_vec()).or_default().0 =
            Some((entry.id(), entry.filemode(), entry.kind()));
    }
    for entry in new.iter().flat_map(|t| t.iter()) {
        names.entry(entry.name_bytes().to_vec()).or_default().1 =
            Some((entry.id(), entry.filemode(), entry.kind()));
    }
    let tree_of = |side: Side| -> Result<Option<Tree<'_>>, HistoryError> {
        match side {
            Some((id, _, Some(ObjectType::Tree))) => repo
                .find_tree(id)
                .map(Some)
                .map_err(HistoryError::git("reading a folder's tree")),
            _ => Ok(None),
        }
    };
    let blob_of = |side: Side| match side {
        Some((id, mode, Some(ObjectType::Blob))) => Some((id, mode)),
        _ => None,
    };
    for (name, (o, n)) in names {
        if o.map(|s| (s.0, s.1)) == n.map(|s| (s.0, s.1)) {
            continue;
        }
        let name = String::from_utf8_lossy(&name);
        let path = if dir.is_empty() {
            name.into_owned()
        } else {
            format!("{dir}/{name}")
        };
        let (old_tree, new_tree) = (tree_of(o)?, tree_of(n)?);
        if old_tree.is_some() || new_tree.is_some() {
            compare(
                repo,
                old_tree.as_ref(),
                new_tree.as_ref(),
                &path,
                depth + 1,
                out,
            )?;
        }
        let (old_blob, new_blob) = (blob_of(o), blob_of(n));
        if old_blob.is_some() || new_blob.is_some() {
            out.push(Raw {
                path,
                old: old_blob,
                new: new_blob,
            });
        }
    }
    Ok(())
}

/// What changed from `old` to `new` (vault folders), with renames paired:
/// first `moves` (Weft's records, `(from, to)`), then identical content,
/// then similar text.
pub(super) fn changes(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    moves: &[(String, String)],
) -> Result<Vec<PathChange>, HistoryError> {
    let raw = raw_changes(repo, old, new)?;
    // (order in `raw`, change): the listing keeps the path order.
    let mut deleted: Vec<(usize, &Raw)> = Vec::new();
    let mut added: Vec<(usize, &Raw)> = Vec::new();
    let mut out: Vec<(usize, PathChange)> = Vec::new();
    for (order, change) in raw.iter().enumerate() {
        match (change.old, change.new) {
            (Some(_), Some(_)) => out.push((
                order,
                PathChange {
                    kind: ChangeKind::Modified,
                    path: change.path.clone(),
                    from: None,
                },
            )),
            (Some(_), None) => deleted.push((order, change)),
            (None, Some(_)) => added.push((order, change)),
            (None, None) => {}
        }
    }
    let mut pairs = Pairs {
        added: vec![false; added.len()],
        deleted: vec![false; deleted.len()],
        renamed: Vec::new(),
    };
    // Weft's records.
    if !moves.is_empty() {
        let index = |list: &[(usize, &Raw)]| -> HashMap<String, usize> {
            list.iter()
                .enumerate()
                .map(|(i, (_, c))| (c.path.clone(), i))
                .collect()
        };
        let (added_at, deleted_at) = (index(&added), index(&deleted));
        for (from, to) in moves {
            if let (Some(&a), Some(&d)) = (added_at.get(to), deleted_at.get(from)) {
                pairs.pair(a, d);
            }
        }
    }
    // Identical content.
    let mut by_content: HashMap<Oid, Vec<usize>> = HashMap::new();
    for (d, (_, change)) in deleted.iter().enumerate() {
        if !pairs.deleted[d]
            && let Some((id, _)) = change.old
        {
            by_content.entry(id).or_default().push(d);
        }
    }
    for (a, (_, change)) in added.iter().enumerate() {
        let Some((id, _)) = change.new else { continue };
        if pairs.added[a] {
            continue;
        }
        let Some(candidates) = by_content.get_mut(&id) else {
            continue;
        };
        if let Some(position) = candidates.iter().position(|&d| !pairs.deleted[d]) {
            let d = candidates.remove(position);
            pairs.pair(a, d);
        }
    }
    // Similar text, when few files are left to compare.
    let open_added: Vec<usize> = (0..added.len()).filter(|&a| !pairs.added[a]).collect();
    let open_deleted: Vec<usize> = (0..deleted.len()).filter(|&d| !pairs.deleted[d]).collect();
    if !open_added.is_empty()
        && !open_deleted.is_empty()
        && open_added.len() * open_deleted.len() <= MAX_SIMILARITY_PAIRS
    {
        let text = |entry: Option<Entry>| -> Option<String> {
            let blob = repo.find_blob(entry?.0).ok()?;
            (blob.size() <= MAX_SIMILARITY_BYTES)
                .then(|| String::from_utf8_lossy(blob.content()).into_owned())
        };
        let old_texts: Vec<Option<String>> = open_deleted
            .iter()
            .map(|&d| text(deleted[d].1.old))
            .collect();
        for &a in &open_added {
            let Some(new_text) = text(added[a].1.new) else {
                continue;
            };
            let mut best: Option<(f32, usize)> = None;
            for (i, &d) in open_deleted.iter().enumerate() {
                let Some(old_text) = old_texts[i].as_deref().filter(|_| !pairs.deleted[d]) else {
                    continue;
                };
                // A similarity, so an approximation past the deadline does.
                let ratio = similar::TextDiff::configure()
                    .timeout(std::time::Duration::from_millis(200))
                    .diff_lines(old_text, new_text.as_str())
                    .ratio();
                if ratio >= MIN_SIMILARITY && best.is_none_or(|(r, _)| ratio > r) {
                    best = Some((ratio, d));
                }
            }
            if let Some((_, d)) = best {
                pairs.pair(a, d);
            }
        }
    }
    for &(a, d) in &pairs.renamed {
        out.push((
            added[a].0,
            PathChange {
                kind: ChangeKind::Renamed,
                path: added[a].1.path.clone(),
                from: Some(deleted[d].1.path.clone()),
            },
        ));
    }
    for (a, (order, change)) in added.iter().enumerate() {
        if !pairs.added[a] {
            out.push((
                *order,
                PathChange {
                    kind: ChangeKind::Added,
                    path: change.path.clone(),
                    from: None,
                },
            ));
        }
    }
    for (d, (order, change)) in deleted.iter().enumerate() {
        if !pairs.deleted[d] {
            out.push((
                *order,
                PathChange {
                    kind: ChangeKind::Deleted,
                    path: change.path.clone(),
                    from: None,
                },
            ));
        }
    }
    out.sort_by_key(|(order, _)| *order);
    Ok(out.into_iter().map(|(_, change)| change).collect())
}

/// Added and deleted files paired as renames so far.
struct Pairs {
    added: Vec<bool>,
    deleted: Vec<bool>,
    /// (added, deleted) indices.
    renamed: Vec<(usize, usize)>,
}

impl Pairs {
    fn pair(&mut self, a: usize, d: usize) {
        if !self.added[a] && !self.deleted[d] {
            self.added[a] = true;
            self.deleted[d] = true;
            self.renamed.push((a, d));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree holding one file `depth` folders down.
    fn nested(repo: &Repository, depth: usize) -> Oid {
        let blob = repo.blob(b"deep\n").unwrap();
        let mut builder = repo.treebuilder(None).unwrap();
        builder.insert("n.md", blob, 0o100644).unwrap();
        let mut id = builder.write().unwrap();
        for _ in 0..depth {
            let mut builder = repo.treebuilder(None).unwrap();
            builder.insert("d", id, 0o040000).unwrap();
            id = builder.write().unwrap();
        }
        id
    }

    /// Regression: comparing trees recursed once per folder level with no
    /// bound, and a repository can nest trees far deeper than a disk.
    #[test]
    fn trees_nested_too_deeply_are_an_error_not_a_stack_overflow() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let shallow = repo.find_tree(nested(&repo, 10)).unwrap();
        let raw = raw_changes(&repo, None, Some(&shallow)).unwrap();
        assert_eq!(raw.len(), 1);
        assert_eq!(raw[0].path, format!("{}n.md", "d/".repeat(10)));
        let deep = repo.find_tree(nested(&repo, 5_000)).unwrap();
        let error = raw_changes(&repo, None, Some(&deep)).unwrap_err();
        assert!(matches!(error, HistoryError::TooDeep { .. }), "{error}");
    }
}
