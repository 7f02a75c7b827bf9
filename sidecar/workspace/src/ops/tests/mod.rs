//! Tests of the write operations on temporary vaults opened with
//! `LiveVault::open`: each operation, each error path (the vault is left
//! byte for byte as it was), dry runs, line endings, the index after
//! writes, link rewriting on moves and a randomized sequence of writes
//! checked against fresh rebuilds.

mod daily;
mod delete;
mod edit;
mod frontmatter;
mod log;
mod many;
mod moves;
mod property;
mod task;
mod write;

pub(super) use crate::fixture::write_file;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{OpError, Ops};
use crate::io::LiveVault;
use weft_vault::Resolution;

/// A vault in a temporary folder.
pub(super) struct TestVault {
    pub(super) _dir: tempfile::TempDir,
    pub(super) vault: LiveVault,
}

impl TestVault {
    pub(super) fn new(files: &[(&str, &str)]) -> TestVault {
        let dir = tempfile::tempdir().expect("temp dir");
        for (rel, text) in files {
            write_file(dir.path(), rel, text.as_bytes());
        }
        let vault = LiveVault::open(dir.path()).expect("opens");
        TestVault { _dir: dir, vault }
    }

    pub(super) fn ops(&self) -> Ops<'_> {
        Ops::new(&self.vault, "test")
    }

    pub(super) fn root(&self) -> &Path {
        &self.vault.root
    }

    pub(super) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel))
            .unwrap_or_else(|e| panic!("reading {rel}: {e}"))
    }

    pub(super) fn exists(&self, rel: &str) -> bool {
        self.root().join(rel).exists()
    }

    /// Runs `op`, which must fail, and checks that neither the disk nor
    /// the index changed. Returns the error.
    pub(super) fn fails<T: std::fmt::Debug>(
        &self,
        op: impl FnOnce(&Ops<'_>) -> Result<T, OpError>,
    ) -> OpError {
        let disk = snapshot(self.root());
        let index = dump(&self.vault);
        let ops = self.ops();
        let error = op(&ops).expect_err("the operation must fail");
        assert_eq!(snapshot(self.root()), disk, "the disk changed on {error}");
        assert_eq!(dump(&self.vault), index, "the index changed on {error}");
        error
    }

    /// Runs `op`, a dry run, and checks that nothing changed.
    pub(super) fn dry<T>(&self, op: impl FnOnce(&Ops<'_>) -> Result<T, OpError>) -> T {
        let disk = snapshot(self.root());
        let index = dump(&self.vault);
        let ops = self.ops();
        let report = op(&ops).unwrap_or_else(|e| panic!("dry run failed: {e}"));
        assert_eq!(snapshot(self.root()), disk, "a dry run changed the disk");
        assert_eq!(dump(&self.vault), index, "a dry run changed the index");
        report
    }

    /// The live index equals a fresh load of the folder.
    pub(super) fn assert_fresh(&self) {
        let fresh = LiveVault::open(self.root()).expect("opens");
        assert_eq!(
            dump(&self.vault),
            dump(&fresh),
            "live index != fresh rebuild"
        );
    }

    /// The vault path the link `n` of note `path` resolves to.
    pub(super) fn resolves(&self, path: &str, n: usize) -> Option<String> {
        let index = self.vault.index.read().expect("lock");
        let id = index.id_of(path).expect("note");
        let link = &index.note(id).links[n];
        index
            .resolve_link(id, link)
            .note()
            .map(|t| index.note(t).path.to_string())
    }

    /// Paths of the notes linking to `path`, sorted.
    pub(super) fn backlinks(&self, path: &str) -> Vec<String> {
        let index = self.vault.index.read().expect("lock");
        let id = index.id_of(path).expect("note");
        let mut sources: Vec<String> = index
            .backlinks(id)
            .into_iter()
            .map(|r| index.note(r.source).path.to_string())
            .collect();
        sources.dedup();
        sources
    }
}

/// Every file and folder under `root` (hidden ones included) with its bytes.
pub(super) fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                out.insert(format!("{rel}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).ok());
            }
        }
    }
    walk(root, root, &mut out);
    out
}

/// The index as text, with no ids: every note (hash, title, aliases, each
/// link's resolution, backlinks), attachments, tags and unresolved targets.
pub(super) fn dump(vault: &LiveVault) -> String {
    let index = vault.index.read().expect("lock");
    let mut notes: Vec<_> = index.notes().collect();
    notes.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    let mut out = String::new();
    let path_of = |id| index.note(id).path.to_string();
    for (id, note) in &notes {
        let _ = writeln!(
            out,
            "{} {:x} title={:?} aliases={:?}",
            note.path, note.content_hash, note.title, note.aliases
        );
        for link in &note.links {
            let to = match index.resolve_link(*id, link) {
                Resolution::Note(t) => path_of(t),
                Resolution::Ambiguous { chosen, .. } => format!("{} (ambiguous)", path_of(chosen)),
                Resolution::Attachment(p) => p.to_string(),
                Resolution::Unresolved => "(unresolved)".into(),
            };
            let _ = writeln!(out, "  -> {:?} = {to}", link.target());
        }
        let mut back: Vec<(String, u32)> = index
            .backlinks(*id)
            .into_iter()
            .map(|r| (path_of(r.source), r.link))
            .collect();
        back.sort();
        let _ = writeln!(out, "  <- {back:?}");
    }
    let mut attachments: Vec<&str> = index.attachments().collect();
    attachments.sort();
    let _ = writeln!(out, "attachments {attachments:?}");
    let mut tags: Vec<(String, u32, u32)> = index
        .tags()
        .iter()
        .map(|(k, s)| (k.to_string(), s.uses, s.notes))
        .collect();
    tags.sort();
    let _ = writeln!(out, "tags {tags:?}");
    for (key, refs) in index.unresolved() {
        let mut refs: Vec<(String, u32)> = refs
            .into_iter()
            .map(|r| (path_of(r.source), r.link))
            .collect();
        refs.sort();
        let _ = writeln!(out, "unresolved {key} {refs:?}");
    }
    out
}
