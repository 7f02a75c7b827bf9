//! The tool set, written once: every tool's name, title, class, hints and
//! one-line summary, in the order agents are shown them, and for the read
//! tools the function that answers a call outside an agent session.
//!
//! Everything else is derived from [`TOOLS`]: the MCP adapter's titles and
//! annotations, which tools a profile offers (`Policy::offers`, by
//! [`class_of`]; what a class means to a profile is `policy.rs`), the
//! dispatch of `weft query` and the prompts ([`crate::query::call`]), the
//! names `vault_info` reports, and the README's tool table (a test
//! compares it).
//! A tool's description and schemas stay with its MCP declaration and its
//! argument types; this table knows no protocol.

use serde_json::Value;

use super::format::{ToolError, ToolResult};
use super::policy::{Needs, Policy, ToolClass};
use super::state::ToolState;
use super::{
    check_vault, editor_state, get_context, get_links, list_notes, list_tags, list_tasks,
    query_notes, read_note, related_notes, resolve_note, search_notes, vault_info,
};

/// How a read tool is answered from JSON arguments, as `tools/call` would.
pub type Answer = fn(&ToolState, Value) -> ToolResult;

/// One tool of the set.
#[derive(Debug, Clone, Copy)]
pub struct ToolInfo {
    pub name: &'static str,
    /// What clients show as the tool's name.
    pub title: &'static str,
    /// What it does to the vault; profiles offer tools by class.
    pub class: ToolClass,
    /// It may remove or overwrite what is there (MCP `destructiveHint`);
    /// meaningful for tools that write.
    pub destructive: bool,
    /// Calling it twice with the same arguments changes nothing more (MCP
    /// `idempotentHint`).
    pub idempotent: bool,
    /// What it does, in a line (the README's tool table).
    pub summary: &'static str,
    /// Answers it outside an agent session: the read tools whose answer
    /// needs nothing but the vault (no history wait, no author).
    pub answer: Option<Answer>,
    /// What of the index it needs before it can answer completely; a call
    /// waits for it (bounded), never answers from a partial index.
    pub needs: Needs,
}

const fn read(
    name: &'static str,
    title: &'static str,
    summary: &'static str,
    answer: Option<Answer>,
) -> ToolInfo {
    ToolInfo {
        name,
        title,
        class: ToolClass::Read,
        destructive: false,
        idempotent: true,
        summary,
        answer,
        needs: Needs::Notes,
    }
}

/// A read tool that searches the full text.
const fn search(tool: ToolInfo) -> ToolInfo {
    ToolInfo {
        needs: Needs::FullText,
        ..tool
    }
}

const fn change(
    name: &'static str,
    title: &'static str,
    class: ToolClass,
    destructive: bool,
    idempotent: bool,
    summary: &'static str,
) -> ToolInfo {
    ToolInfo {
        name,
        title,
        class,
        destructive,
        idempotent,
        summary,
        answer: None,
        needs: Needs::Everything,
    }
}

/// Every tool of the set (the whole set of the tool specification), in the
/// order agents are shown them.
pub const TOOLS: &[ToolInfo] = &[
    read(
        "read_note",
        "Read note",
        "one or more notes: full, body, metadata with backlinks, outline or one section; an old version",
        Some(|s, v| read_note::run(s, args("read_note", v)?)),
    ),
    read(
        "resolve_note",
        "Resolve note name",
        "a title, alias, link target or partial name as ranked candidate notes, with why each matched",
        Some(|s, v| resolve_note::run(s, args("resolve_note", v)?)),
    ),
    read(
        "list_notes",
        "List notes",
        "browse a folder (notes and subfolders with counts), sorted, filtered by tags or date, as a list or a tree",
        Some(|s, v| list_notes::run(s, args("list_notes", v)?)),
    ),
    search(read(
        "search_notes",
        "Search notes",
        "full-text search with the query syntax and filters; fuzzy names; tags",
        Some(|s, v| search_notes::run(s, args("search_notes", v)?)),
    )),
    search(read(
        "get_context",
        "Get context for a question",
        "the best passages for a question, stitched with their neighbours, within a budget",
        Some(|s, v| get_context::run(s, args("get_context", v)?)),
    )),
    read(
        "get_links",
        "Get links",
        "backlinks with context, outgoing links, typed links, or the graph around a note",
        Some(|s, v| get_links::run(s, args("get_links", v)?)),
    ),
    search(read(
        "related_notes",
        "Related notes",
        "notes related to a note or a text by links, shared tags and similar text, with the reasons",
        Some(|s, v| related_notes::run(s, args("related_notes", v)?)),
    )),
    read(
        "list_tags",
        "List tags",
        "tags with counts and nesting; frontmatter keys, values and typed-link relations",
        Some(|s, v| list_tags::run(s, args("list_tags", v)?)),
    ),
    read(
        "query_notes",
        "Query notes (Bases)",
        "a table of notes by their properties: a `.base` file or block and view, or a Bases filter expression with columns, sort and grouping",
        Some(|s, v| query_notes::run(s, args("query_notes", v)?)),
    ),
    read(
        "list_tasks",
        "List tasks",
        "checklist tasks as the Tasks plugin reads them, by status, dates (due, scheduled, overdue, this week), priority, tags, text or folder, or by a Tasks plugin query (a note's `tasks` blocks or its text); sorted, grouped, each with its path and line",
        Some(|s, v| list_tasks::run(s, args("list_tasks", v)?)),
    ),
    read(
        "check_vault",
        "Check vault health",
        "broken and ambiguous links and fragments, orphans, duplicate names, frontmatter and tag problems",
        Some(|s, v| check_vault::run(s, args("check_vault", v)?)),
    ),
    ToolInfo {
        needs: Needs::Nothing,
        ..read(
            "editor_state",
            "What the user is working on",
            "the notes open in the editor, most recently edited first: unsaved changes by section, the last edit",
            Some(|s, v| editor_state::run(s, args("editor_state", v)?)),
        )
    },
    ToolInfo {
        needs: Needs::Nothing,
        ..read(
            "vault_info",
            "Vault info and guide",
            "the vault, its counts and status, configuration and policy, the guide, auto-context, failures",
            Some(|s, v| {
                let _: vault_info::VaultInfoArgs = args("vault_info", v)?;
                vault_info::run(s, names().map(str::to_string).collect())
            }),
        )
    },
    change(
        "write_note",
        "Write note",
        ToolClass::Write,
        true,
        true,
        "create a note (or overwrite one) from content, properties or a template",
    ),
    change(
        "edit_note",
        "Edit note",
        ToolClass::Write,
        true,
        false,
        "change a note by ordered operations (text, sections, lines), all or nothing",
    ),
    change(
        "update_frontmatter",
        "Update frontmatter",
        ToolClass::Write,
        true,
        true,
        "set, unset, merge or rename properties, tags and aliases, changing only those keys, in one note, several (`paths`) or all a `where` selects; a `#tag` renamed everywhere",
    ),
    change(
        "update_task",
        "Update task",
        ToolClass::Write,
        true,
        false,
        "complete, reopen, cancel or reschedule a checklist task as the Tasks plugin does (done date, a recurring task's next copy), changing only that line",
    ),
    change(
        "move_note",
        "Move or rename note",
        ToolClass::Destructive,
        true,
        false,
        "move or rename a note or folder, rewriting every link to it",
    ),
    change(
        "delete_note",
        "Delete note (to trash)",
        ToolClass::Destructive,
        true,
        false,
        "move a note to the trash, listing (or marking) the links it breaks",
    ),
    change(
        "daily_note",
        "Daily note",
        ToolClass::Write,
        false,
        false,
        "read or add to today's (or a date's) daily note, created from its template",
    ),
    read(
        "note_history",
        "Note history",
        "versions of a note or of the vault, from Weft's history and the vault's git",
        None,
    ),
    read(
        "diff_note",
        "Diff note versions",
        "a unified diff between two versions of a note, or a version and now",
        None,
    ),
    change(
        "restore_note",
        "Restore note version",
        ToolClass::Destructive,
        true,
        true,
        "bring back a version of a note (a deleted one too) as a new version",
    ),
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static ToolInfo> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// Every tool's name, in order.
pub fn names() -> impl Iterator<Item = &'static str> {
    TOOLS.iter().map(|tool| tool.name)
}

/// The class of a tool by name; unknown names count as destructive, so a
/// tool missing here is hidden from restricted profiles.
pub fn class_of(tool: &str) -> ToolClass {
    find(tool).map_or(ToolClass::Destructive, |tool| tool.class)
}

impl Policy {
    /// Whether the profile offers a tool (by its class here).
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.offers(class_of(tool))
    }
}

fn args<T: serde::de::DeserializeOwned>(tool: &str, value: Value) -> Result<T, ToolError> {
    serde_json::from_value(value)
        .map_err(|e| ToolError::new(format!("invalid arguments for `{tool}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of tools says what this registry says, row for
    /// row: a tool added, renamed, reclassified or re-described in one
    /// place and not the other fails here.
    #[test]
    fn the_readme_tool_table_is_the_registry() {
        // The package folder at run time, not the one compiled in: a
        // target folder shared by several clones may hold a test binary
        // another clone built.
        let package = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
        let readme = std::fs::read_to_string(package.join("../../README.md")).unwrap();
        let rows: Vec<String> = readme
            .lines()
            .skip_while(|line| !line.starts_with("| tool | class | what it does |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .map(str::to_string)
            .collect();
        let expected: Vec<String> = TOOLS
            .iter()
            .map(|tool| {
                let class = match tool.class {
                    ToolClass::Read => "read",
                    ToolClass::Write => "write",
                    ToolClass::Destructive => "destructive",
                };
                format!("| `{}` | {class} | {} |", tool.name, tool.summary)
            })
            .collect();
        assert_eq!(rows, expected, "README's tool table, row by row");
    }

    #[test]
    fn names_are_unique_and_read_tools_are_idempotent() {
        let mut names: Vec<&str> = names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        for tool in TOOLS {
            if tool.class == ToolClass::Read {
                assert!(tool.idempotent && !tool.destructive, "{}", tool.name);
            }
            if tool.answer.is_some() {
                assert_eq!(tool.class, ToolClass::Read, "{}", tool.name);
            }
        }
    }
}
