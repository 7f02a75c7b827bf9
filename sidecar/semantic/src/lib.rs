//! Finding notes by meaning, offline: a static embedding model loaded from
//! a local folder (`model`), or first fetched, only when asked, from the
//! pinned ids (`pinned`) and verified (`fetch`); notes cut into passages (`chunk`), their
//! vectors kept per note and in step with the index (`store`, `semantic`),
//! and the hybrid ranking of words, meaning and links (`retrieve`).
//!
//! Knows the vault model and the full-text index, no protocol and no
//! runtime; reads notes through the full text's `FileSource`.

#[cfg(feature = "transformer")]
mod bert;
pub mod chunk;
pub mod fetch;
#[cfg(test)]
mod fetch_tests;
pub mod model;
pub mod pinned;
pub mod retrieve;
pub mod semantic;
pub mod store;
#[cfg(test)]
mod tiny;

pub use fetch::{FetchError, Progress, fetch};
pub use model::{Model, ModelError};
pub use pinned::{PinnedFile, PinnedModel};
pub use retrieve::{Found, Mode, Question, retrieve};
pub use semantic::{SemanticIndex, Synced, Wanted};
pub use store::Close;

#[cfg(test)]
mod tests;
