//! What the tests of the tools' computations share: the index of an inline
//! fixture (`//- /path.md` starts a file: `weft_vault::fixture`), the
//! agent's access as a configuration gives it, a fixture with its full
//! text and file times (`searchable`), ids shown as paths, and what a
//! name means (`target`).

use std::path::Path;

use crate::scope::Times;
use weft_search::fixture::MemFiles;
use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;
use weft_workspace::config::AgentConfig;

pub(crate) use weft_search::fixture::fixture as searchable;
pub(crate) use weft_vault::fixture::index as vault;

/// The access of an agent that may not see what `deny` names.
pub(crate) fn access(deny: &[&str]) -> Access {
    let agent = AgentConfig {
        deny: deny.iter().map(|d| d.to_string()).collect(),
        ..AgentConfig::default()
    };
    Access::new(Path::new("/vault"), &agent)
}

/// A note's path, for readable snapshots.
pub(crate) fn path(index: &VaultIndex, id: NoteId) -> &str {
    index.note(id).id()
}

/// What a name means, as the tools find it: a note, or the links to a
/// note not written yet (hiding nothing).
pub(crate) fn target(index: &VaultIndex, name: &str) -> crate::common::Target {
    use weft_vault::query::{Lookup, lookup};
    match lookup(index, name) {
        Lookup::Found(id) => crate::common::Target::Note(id),
        Lookup::Unresolved { target, links } => crate::common::Target::Missing { target, links },
        Lookup::Ambiguous(ids) => panic!("`{name}` names {} notes", ids.len()),
        other => panic!("`{name}`: {other:?}"),
    }
}

/// A fixture's file times (`//- /path.md @SECONDS`).
impl Times for MemFiles {
    fn modified(&self, path: &str) -> Option<i64> {
        self.0.lock().unwrap().get(path)?.modified
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.0.lock().unwrap().get(path)?.created
    }
}

/// A fixture's file times (`//- /path.md @SECONDS`) without its full
/// text: the one time given is the file's modified and its created time
/// (as where the file system keeps no creation time).
pub(crate) struct FileTimes(std::collections::HashMap<String, i64>);

pub(crate) fn file_times(src: &str) -> FileTimes {
    FileTimes(
        weft_vault::fixture::files(src)
            .into_iter()
            .filter_map(|f| Some((f.path, f.time?)))
            .collect(),
    )
}

impl Times for FileTimes {
    fn modified(&self, path: &str) -> Option<i64> {
        self.0.get(path).copied()
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.0.get(path).copied()
    }
}
