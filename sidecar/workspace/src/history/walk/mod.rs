//! Reading history: walking commits (Weft's first-parent chain, the vault
//! repository's commits by time), following a note back through renames,
//! listing versions page by page, resolving full and short ids, and reading
//! a note as it was. Reads only; both repositories are left as they are.
//!
//! Layout: `source` is one repository to read (its commits, what a commit
//! changed, a version's listing entry); `note_walk` follows one note back
//! through renames; `listing` pages versions of a note or of the vault,
//! newest first across both repositories; `lookup` resolves a version id
//! and reads a note as it was.

mod listing;
mod lookup;
mod note_walk;
mod source;

pub(super) use listing::log;
pub(super) use lookup::{read, version_of};
