//! A folder as a filter names it: one normaliser for every way a user or
//! agent writes one (`projects`, `projects/`, `/projects`, `./projects`,
//! `projects\`, any case or Unicode form), and the folder's boundary
//! (`proj` never takes in `projects/…`).

use crate::key::path_key;

/// A folder of the vault (or one note's path, which a folder filter also
/// takes: `projects/plan` is the note `projects/plan.md`). The root is the
/// empty folder. Two folders are the same when their keys are.
#[derive(Debug, Clone)]
pub struct Folder {
    /// Its comparison key: `/`-separated, no leading or trailing `/`, as
    /// [`path_key`] makes it.
    key: Box<str>,
    /// As written, with `/` between its parts and none around them.
    shown: Box<str>,
}

impl PartialEq for Folder {
    fn eq(&self, other: &Folder) -> bool {
        self.key == other.key
    }
}

impl Eq for Folder {}

impl std::hash::Hash for Folder {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

/// Why a text names no folder of the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderError {
    pub folder: String,
    pub reason: &'static str,
}

impl std::fmt::Display for FolderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` names no folder of the vault: {}",
            self.folder, self.reason
        )
    }
}

impl std::error::Error for FolderError {}

impl Folder {
    /// The whole vault.
    pub fn root() -> Folder {
        Folder {
            key: "".into(),
            shown: "".into(),
        }
    }

    /// The folder `text` names, relative to the vault's root however it is
    /// written; `..` and absolute paths outside the vault are refused.
    pub fn new(text: &str) -> Result<Folder, FolderError> {
        let refuse = |reason| FolderError {
            folder: text.to_string(),
            reason,
        };
        let unified = text.trim().replace('\\', "/");
        let mut parts: Vec<&str> = Vec::new();
        for part in unified.split('/') {
            match part.trim() {
                "" | "." => {}
                ".." => return Err(refuse("`..` leaves the vault; name a folder inside it")),
                _ => parts.push(part),
            }
        }
        if unified.len() >= 2 && unified.as_bytes()[1] == b':' {
            return Err(refuse(
                "a drive path is outside the vault; name a folder inside it",
            ));
        }
        let shown = parts.join("/");
        Ok(Folder {
            key: path_key(&shown).into(),
            shown: shown.into(),
        })
    }

    /// The comparison key (`""` for the root).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// As written (`Projects/Weft` for ` /Projects\\Weft/`).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    pub fn is_root(&self) -> bool {
        self.key.is_empty()
    }

    /// Whether the note or file at vault path `path` is in this folder (at
    /// any depth), or is the note it names.
    pub fn contains(&self, path: &str) -> bool {
        self.key.is_empty() || self.contains_key(&path_key(path))
    }

    /// [`Folder::contains`] for a path's key ([`path_key`]) the caller
    /// already has.
    pub fn contains_key(&self, key: &str) -> bool {
        key.strip_prefix(&*self.key)
            .is_some_and(|rest| self.key.is_empty() || rest.is_empty() || rest.starts_with('/'))
    }
}
