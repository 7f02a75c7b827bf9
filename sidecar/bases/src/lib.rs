//! Obsidian Bases, headless: the expression language (`expr`), a base's
//! YAML and the ```` ```base ```` blocks of a note (`base`), evaluation on
//! the vault index (`eval`), views run to tables (`run`) and summaries
//! (`summary`); which rows a run need evaluate (`plan`); a property
//! renamed in a base (`rename`). The domain only:
//! no IO, no protocol — the faces (the agent's tools, `weft base`, the
//! prompt) read files and render.

pub mod base;
pub mod eval;
pub mod expr;
pub mod plan;
pub mod rename;
pub mod render;
pub mod run;
pub mod summary;

pub use base::{Base, BaseError, blocks, is_base_path};
pub use eval::{Files, RowMeta};
pub use run::{Context, Request, Table, run};
