//! Finding notes by meaning, offline: a static embedding model loaded from
//! a local folder (`model`), notes cut into passages (`chunk`), their
//! vectors kept per note and in step with the index (`store`, `semantic`),
//! and the hybrid ranking of words, meaning and links (`retrieve`).
//!
//! Knows the vault model and the full-text index, no protocol and no
//! runtime; reads notes through the full text's `FileSource`.

#[cfg(feature = "transformer")]
mod bert;
pub mod chunk;
pub mod model;
pub mod retrieve;
pub mod semantic;
pub mod store;
#[cfg(test)]
mod tiny;

pub use model::{Model, ModelError};
pub use retrieve::{Found, Mode, Question, retrieve};
pub use semantic::{SemanticIndex, Synced, Wanted};
pub use store::Close;

#[cfg(test)]
mod tests;
