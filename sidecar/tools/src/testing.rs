//! What the tests of the tools' computations share: the index of an inline
//! fixture (`//- /path.md` starts a file: `weft_vault::fixture`), the
//! agent's access as a configuration gives it, and ids shown as paths.

use std::path::Path;

use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;
use weft_workspace::config::AgentConfig;

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

/// A fixture's file times (`//- /path.md @SECONDS`) as a tool's source of
/// them: the one time given is the file's modified and its created time
/// (as where the file system keeps no creation time); only those asked
/// for are given.
pub(crate) fn file_times<'a>(
    index: &'a VaultIndex,
    src: &str,
) -> impl Fn(NoteId, weft_vault::filter::TimesRead) -> weft_vault::filter::FileMeta + 'a {
    let times: std::collections::HashMap<String, i64> = weft_vault::fixture::files(src)
        .into_iter()
        .filter_map(|f| Some((f.path, f.time?)))
        .collect();
    move |id, read| {
        let time = times.get(&*index.note(id).path).copied();
        weft_vault::filter::FileMeta {
            modified: time.filter(|_| read.modified),
            created: time.filter(|_| read.created),
        }
    }
}
