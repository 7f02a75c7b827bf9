//! Rewriting links when something they name changes: a note or attachment
//! moves or is renamed (alone or with its folder), a heading's text, a block
//! id, a tag or a property key is renamed. The result is a [`Plan`]: byte edits per note plus
//! the file moves, for a face to apply (the editor through a workspace edit,
//! the agent by writing files).
//!
//! Each affected note is read from the text the caller supplies, and
//! parsed again unless the index's parse is of that very text, so edits
//! always fit that text (an unsaved buffer included). Links keep their
//! style: wikilink or Markdown, bare name, vault path or relative path,
//! `.md` or not, `|alias`, `#fragment` and embeds. This module must not
//! know any protocol, nor do IO: texts come through
//! [`TextSource`](crate::query::TextSource).
//!
//! The parts: `plan` holds the result and the collector every rename fills;
//! `moves`, `fragments` (headings and blocks), `tags` and `keys` are one file per
//! kind of rename; `pins` keeps the links a move would send elsewhere.

mod fragments;
mod keys;
mod moves;
mod pins;
mod plan;
mod tags;

pub use fragments::{heading_text_range, rename_block, rename_heading};
pub use keys::rename_key;
pub use moves::{folder_moves, move_files, note_path_for};
pub use pins::{Pin, add_pins, captured_links};
pub use plan::{Edit, FileEdits, Plan, RewriteError};
pub use tags::rename_tag;
