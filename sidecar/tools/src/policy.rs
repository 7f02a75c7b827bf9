//! What the agent may see and do: the tool profile (`--tools`,
//! `--read-only`, `[agent] read_only`) and the path allow/deny lists of
//! `.weft.toml`, which apply to every tool, reads included.
//!
//! Must not know how tools work; tools ask it about names and paths.

use std::path::Path;

use weft_workspace::access::Access;
use weft_workspace::config::AgentConfig;

/// Which tools a server offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum ToolSet {
    /// Reading, searching and links only.
    Read,
    /// Reads plus changes that keep every note (create, edit, frontmatter,
    /// daily notes).
    Write,
    /// Everything, moves, deletes and restores included.
    #[default]
    Full,
}

/// Which tools one client is offered: `--read-only` and `--tools` of
/// `weft mcp` (the configuration's `[agent] read_only` applies on top).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Profile {
    pub read_only: bool,
    pub tools: ToolSet,
}

/// What a tool does to the vault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    Read,
    Write,
    /// Moves, deletes or restores notes (and rewrites links elsewhere).
    Destructive,
}

/// What of the index a tool needs to answer completely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: it reports the state itself (`vault_info`).
    Nothing,
    /// Every note read (names, links, tags).
    Notes,
    /// The full-text index too.
    FullText,
    /// Everything loaded: writes (which wait on their own, longer).
    Everything,
}

impl ToolSet {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolSet::Read => "read",
            ToolSet::Write => "write",
            ToolSet::Full => "full",
        }
    }

    /// Whether this set holds tools of `class`.
    pub fn offers(self, class: ToolClass) -> bool {
        match (self, class) {
            (_, ToolClass::Read) => true,
            (ToolSet::Read, _) => false,
            (ToolSet::Write, ToolClass::Destructive) => false,
            _ => true,
        }
    }
}

/// The access rules of one server: the tool profile over the vault's one
/// [`Access`] (the same rules the write operations apply).
pub struct Policy {
    pub tools: ToolSet,
    /// Set by `--read-only` or `[agent] read_only`.
    pub read_only: bool,
    /// THE rule for what the agent may see: [`Access::sees`], and
    /// [`Access::sight`] where notes are listed.
    pub access: Access,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("tools", &self.tools)
            .field("read_only", &self.read_only)
            .field("access", &self.access)
            .finish()
    }
}

impl Policy {
    pub fn new(root: &Path, agent: &AgentConfig, tools: ToolSet, read_only: bool) -> Policy {
        let read_only = read_only || agent.read_only;
        let mut access = Access::new(root, agent);
        access.read_only = read_only;
        Policy {
            tools: if read_only { ToolSet::Read } else { tools },
            read_only,
            access,
        }
    }

    /// Why a tool is not offered, for the error when it is called anyway.
    pub fn why_not_offered(&self, tool: &str) -> String {
        if self.read_only {
            format!(
                "`{tool}` is not available: this server is read-only (`--read-only` or `[agent] read_only` in .weft.toml)."
            )
        } else {
            format!(
                "`{tool}` is not available with `--tools {}`; start the server with `--tools full` to offer it.",
                self.tools.as_str()
            )
        }
    }

    /// The sentence explaining that `path` is hidden, naming `shown` (what
    /// the agent gave, never where a name of its led).
    pub fn hidden_message(&self, path: &str, shown: &str) -> String {
        match self.access.refusal(path, false) {
            Some(refusal) => self.access.hidden_message(shown, &refusal),
            None => format!("`{shown}` is outside what this agent may access."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hidden_message_names_what_the_agent_gave() {
        let agent = AgentConfig {
            read_only: false,
            allow: vec!["notes/".into(), "*.md".into()],
            deny: vec!["private/".into(), "secret*.md".into()],
        };
        let policy = Policy::new(Path::new("/vault"), &agent, ToolSet::Full, false);
        assert!(
            policy
                .hidden_message("private/x.md", "x")
                .contains("`x` is outside what this agent may access (`[agent] deny`")
        );
    }

    #[test]
    fn profiles() {
        let agent = AgentConfig::default();
        let read = Policy::new(Path::new("/v"), &agent, ToolSet::Full, true);
        assert!(
            read.offers("search_notes")
                && !read.offers("write_note")
                && !read.offers("delete_note")
        );
        assert!(read.why_not_offered("write_note").contains("read-only"));
        let write = Policy::new(Path::new("/v"), &agent, ToolSet::Write, false);
        assert!(write.offers("edit_note") && !write.offers("move_note"));
        let config_ro = AgentConfig {
            read_only: true,
            ..AgentConfig::default()
        };
        assert!(
            !Policy::new(Path::new("/v"), &config_ro, ToolSet::Full, false).offers("edit_note")
        );
        assert!(Policy::new(Path::new("/v"), &agent, ToolSet::Full, false).offers("restore_note"));
    }
}
