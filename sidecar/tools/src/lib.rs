//! The agent's note tools, answered once for every face: each tool's
//! arguments (read leniently), its answer as readable Markdown plus
//! structured content, and its errors that say how to recover; the access
//! policy and tool profile of one client; the one-shot answers of the
//! command line and the requests behind the prompts. One file per tool.
//!
//! Knows no protocol: the MCP adapter (`mcp`) wraps these answers as tool
//! results, prompts and resources; the command line prints them.

pub mod args;
pub mod common;
pub mod context;
pub mod format;
pub mod guide;
pub mod policy;
pub mod query;
pub mod registry;
pub mod retrieval;
pub mod scope;
pub mod state;
pub mod versions;
pub mod writing;

#[cfg(test)]
mod testing;

pub mod check_vault;
pub mod editor_state;
pub mod get_context;
pub mod get_links;
pub mod list_notes;
pub mod list_tags;
pub mod list_tasks;
pub mod query_notes;
pub mod read_note;
pub mod related_notes;
pub mod resolve_note;
pub mod search_notes;
pub mod vault_info;

pub mod daily_note;
pub mod delete_note;
pub mod edit_note;
pub mod move_note;
pub mod update_frontmatter;
pub mod update_task;
pub mod write_note;

pub mod diff_note;
pub mod note_history;
pub mod restore_note;

pub use policy::{Needs, Profile, ToolClass, ToolSet};
pub use registry::{TOOLS, ToolInfo, class_of};
pub use state::{Phase, StartError, ToolState};
