//! `editor_state`: what the user is working on — the notes open in the
//! vault's editors, the most recently edited first, each with its unsaved
//! changes by section and where the last edit was, so "summarise what I'm
//! writing" needs no path. Only Weft can say it: the editor and the agent
//! share one hub. The agent's access rule hides what it may not see.
//!
//! An adapter: the computation is the hub's (`Buffers::activity`, which
//! reads the files to compare them with the editors' text), given the
//! agent's access; `render` words its typed answer.

mod answer;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{ChangedSection, EditorStateOut, LastEdit, OpenNoteOut};

use super::args::lenient;
use super::common::limit;
use super::format::{Reply, ToolResult};
use super::state::ToolState;

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditorStateArgs {
    /// Default 10.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
}

pub fn run(state: &ToolState, args: EditorStateArgs) -> ToolResult {
    let policy = state.policy();
    let limit = limit(args.limit, 10, 50);
    let open = state
        .hub()
        .buffers
        .activity(state.root(), |path| policy.access.sees(path), limit);
    let out = EditorStateOut {
        notes: open
            .into_iter()
            .map(|open| render::note_out(open, state.zone()))
            .collect(),
    };
    Ok(Reply::new(render::markdown(&out), &out))
}
