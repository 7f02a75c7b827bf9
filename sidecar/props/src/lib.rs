//! The properties Weft's fuzz targets check: one public function per
//! target, `fn(&[u8])`, which reads the input, runs the code under test
//! and panics, saying which promise broke, when the result breaks it.
//! `fuzz/fuzz_targets/<target>.rs` hands it libFuzzer's inputs;
//! `tests/corpus.rs` runs it over every committed input of the target
//! (`fuzz/corpus/`, `fuzz/regressions/`), so the plain test suite checks
//! them all without an instrumented build.
//!
//! Above every crate it tests, beside `weft-bench`, and never shipped: it
//! calls their public entry points only (and `weft-vault`'s fixtures), so
//! it must not need anything a product build would not have. Inputs are
//! bytes; where structure helps, a text comes first and choices read with
//! `arbitrary` follow it (`input.rs`).

mod bases;
mod complete;
mod edit;
mod filter;
mod frontmatter;
mod headings;
mod input;
mod parse;
mod positions;
mod query;
mod rename;
mod snapshot;
mod wire;

pub use bases::bases;
pub use complete::complete_context;
pub use edit::text_edit;
pub use filter::filter;
pub use frontmatter::frontmatter_edit;
pub use headings::headings;
pub use parse::parse_note;
pub use positions::positions;
pub use query::search_query;
pub use rename::rename;
pub use snapshot::{BUILD as SNAPSHOT_BUILD, ROOT as SNAPSHOT_ROOT, snapshot_decode};
pub use wire::wire_framing;
