//! What the agent may see and do: the tool profile (`--tools`,
//! `--read-only`, `[agent] read_only`) and the path allow/deny lists of
//! `.weft.toml`, which apply to every tool, reads included.
//!
//! Must not know how tools work; tools ask it about names and paths.

use std::path::Path;
use std::sync::{Arc, Mutex};

use weft_vault::VaultIndex;
use weft_workspace::access::Access;
use weft_workspace::config::AgentConfig;
use weft_workspace::sync::lock;

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
    pub access: Access,
    /// Hidden paths by index generation, for filtering queries.
    hidden: Mutex<Option<(u64, Arc<Vec<String>>)>>,
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
            hidden: Mutex::new(None),
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

    /// Whether the agent may see the note or file at this vault path.
    pub fn visible(&self, path: &str) -> bool {
        self.access.visible(path)
    }

    /// Whether the agent may see the entry at `path`, whether a file or a
    /// folder (for paths whose kind is not known, such as one that could
    /// not be read).
    pub fn visible_entry(&self, path: &str) -> bool {
        self.access.refusal(path, false).is_none() && self.access.refusal(path, true).is_none()
    }

    /// Whether any path is hidden at all.
    pub fn restricts(&self) -> bool {
        self.access.restricts()
    }

    /// The vault paths of hidden notes (as indexed), cached per index
    /// generation.
    pub(crate) fn hidden_paths(&self, index: &VaultIndex) -> Arc<Vec<String>> {
        if !self.restricts() {
            return Arc::new(Vec::new());
        }
        let mut cache = lock(&self.hidden);
        if let Some((generation, paths)) = &*cache
            && *generation == index.generation()
        {
            return paths.clone();
        }
        let paths: Arc<Vec<String>> = Arc::new(
            index
                .notes()
                .map(|(_, n)| &*n.path)
                .filter(|p| !self.visible(p))
                .map(str::to_string)
                .collect(),
        );
        *cache = Some((index.generation(), paths.clone()));
        paths
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
    fn allow_and_deny_globs() {
        let agent = AgentConfig {
            read_only: false,
            allow: vec!["notes/".into(), "*.md".into()],
            deny: vec!["private/".into(), "secret*.md".into()],
        };
        let policy = Policy::new(Path::new("/vault"), &agent, ToolSet::Full, false);
        assert!(policy.visible("notes/a.md"));
        assert!(policy.visible("top.md"));
        assert!(!policy.visible("private/x.md"));
        assert!(!policy.visible("notes/secret-plan.md"));
        assert!(
            policy
                .hidden_message("private/x.md", "x")
                .contains("`x` is outside what this agent may access (`[agent] deny`")
        );
        let open = Policy::new(
            Path::new("/vault"),
            &AgentConfig::default(),
            ToolSet::Full,
            false,
        );
        assert!(open.visible("anything/at/all.md") && !open.restricts());
    }

    /// Regression: `vault_info` named every file the scan could not read,
    /// those of a denied folder too (an unreadable folder, the folder
    /// itself). An entry of unknown kind is shown only when neither as a
    /// file nor as a folder is it out of reach.
    #[test]
    fn an_entry_of_unknown_kind_is_visible_only_both_ways() {
        let agent = AgentConfig {
            read_only: false,
            allow: Vec::new(),
            deny: vec!["private/".into()],
        };
        let policy = Policy::new(Path::new("/vault"), &agent, ToolSet::Full, false);
        assert!(policy.visible_entry("notes/a.md") && policy.visible_entry("notes"));
        assert!(!policy.visible_entry("private/x.md"));
        assert!(!policy.visible_entry("private"), "the denied folder itself");
        assert!(
            policy.visible("private"),
            "(as a file, the name alone passes)"
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
