//! What an agent may see and change: `[agent] read_only`, `allow` and
//! `deny` (gitignore syntax, as `exclude`), compiled once per configuration
//! and asked by everything an agent reaches — the MCP tools' text and
//! structured content, prompts, resources, completions, errors and "did you
//! mean" lists, history and diffs, and the write operations — so a path is
//! treated the same way by every one of them.
//!
//! Paths are vault paths (`folder/note.md`, `/` separators; a leading `/`
//! is ignored). A folder is asked about as a folder (`is_dir`): `private/`
//! matches the folder `private` and everything under it. Knows no protocol
//! and no tool.

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use unicode_normalization::UnicodeNormalization;

use crate::config::AgentConfig;

/// The compiled `[agent]` rules.
pub struct Access {
    /// No writes at all.
    pub read_only: bool,
    allow: Option<Gitignore>,
    deny: Option<Gitignore>,
    /// The patterns as configured, for reports.
    pub allow_globs: Vec<String>,
    pub deny_globs: Vec<String>,
}

/// Why a path is out of the agent's reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It matches this `deny` pattern.
    Denied(String),
    /// `allow` is set and it matches none of those patterns.
    NotAllowed(Vec<String>),
}

impl Refusal {
    /// The rule, as a clause: "it matches the deny pattern `private/`".
    pub fn reason(&self) -> String {
        match self {
            Refusal::Denied(glob) => format!("it matches the deny pattern `{glob}`"),
            Refusal::NotAllowed(globs) => {
                let list: Vec<String> = globs.iter().map(|g| format!("`{g}`")).collect();
                format!(
                    "it matches none of the allowed patterns {}",
                    list.join(", ")
                )
            }
        }
    }

    /// Which setting refuses it.
    pub fn setting(&self) -> &'static str {
        match self {
            Refusal::Denied(_) => "`[agent] deny`",
            Refusal::NotAllowed(_) => "`[agent] allow`",
        }
    }
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Access")
            .field("read_only", &self.read_only)
            .field("allow", &self.allow_globs)
            .field("deny", &self.deny_globs)
            .finish()
    }
}

impl Access {
    /// The rules of `agent` for the vault at `root`. `Config` has checked
    /// that every pattern compiles (and is safe to compile).
    pub fn new(root: &Path, agent: &AgentConfig) -> Access {
        let build = |globs: &[String]| -> Option<Gitignore> {
            if globs.is_empty() {
                return None;
            }
            let mut builder = GitignoreBuilder::new(root);
            for glob in globs {
                // Names compare as the vault compares them (composed,
                // lower-case): `Private/` is `private/`, one folder on macOS
                // and Windows and one name in links.
                if let Err(e) = builder.add_line(None, &normal(glob)) {
                    tracing::warn!("agent path pattern `{glob}` skipped: {e}");
                }
            }
            builder.build().ok()
        };
        Access {
            read_only: agent.read_only,
            allow: build(&agent.allow),
            deny: build(&agent.deny),
            allow_globs: agent.allow.clone(),
            deny_globs: agent.deny.clone(),
        }
    }

    /// Whether any path is out of reach at all.
    pub fn restricts(&self) -> bool {
        self.allow.is_some() || self.deny.is_some()
    }

    /// Why the file (or, with `is_dir`, folder) at `path` is out of the
    /// agent's reach; `None` when it is within it.
    pub fn refusal(&self, path: &str, is_dir: bool) -> Option<Refusal> {
        if !self.restricts() {
            return None;
        }
        // As the patterns: composed (a name from macOS's disk comes
        // decomposed) and lower-case.
        let path = normal(path.trim_start_matches('/'));
        let path = path.as_str();
        if let Some(deny) = &self.deny
            && let ignore::Match::Ignore(glob) = deny.matched_path_or_any_parents(path, is_dir)
        {
            return Some(Refusal::Denied(glob.original().to_string()));
        }
        if let Some(allow) = &self.allow
            && !allow.matched_path_or_any_parents(path, is_dir).is_ignore()
        {
            return Some(Refusal::NotAllowed(self.allow_globs.clone()));
        }
        None
    }

    /// Whether the agent may see the note or file at `path`.
    pub fn visible(&self, path: &str) -> bool {
        self.refusal(path, false).is_none()
    }

    /// The sentence for a path out of reach, naming only what the caller
    /// gave (`shown`), never where a name led.
    pub fn hidden_message(&self, shown: &str, refusal: &Refusal) -> String {
        format!(
            "`{shown}` is outside what this agent may access ({} in .weft.toml); ask the user if \
             you need it.",
            refusal.setting()
        )
    }
}

/// A path or pattern as names compare: Unicode composed form, lower-case.
fn normal(text: &str) -> String {
    text.nfc().collect::<String>().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(allow: &[&str], deny: &[&str]) -> Access {
        Access::new(
            Path::new("/vault"),
            &AgentConfig {
                read_only: false,
                allow: allow.iter().map(|s| s.to_string()).collect(),
                deny: deny.iter().map(|s| s.to_string()).collect(),
            },
        )
    }

    /// One rule for reads and writes, files and folders (regression: reads
    /// and writes compiled the lists apart, with different handling of a
    /// leading `/` and of folders).
    #[test]
    fn files_folders_and_leading_slashes_follow_one_rule() {
        let a = access(
            &["notes/", "*.md"],
            &["private/", "secret*.md", "/top-only.md"],
        );
        let cases: &[(&str, bool, bool)] = &[
            ("PRIVATE/x.md", false, false),
            ("Notes/A.MD", false, true),
            ("notes/a.md", false, true),
            ("/notes/a.md", false, true),
            ("top.md", false, true),
            ("private/x.md", false, false),
            ("/private/x.md", false, false),
            ("private/deep/x.png", false, false),
            ("private", true, false),
            ("notes/secret-plan.md", false, false),
            ("top-only.md", false, false),
            ("sub/top-only.md", false, true),
            ("image.png", false, false),
            ("notes", true, true),
        ];
        for &(path, is_dir, visible) in cases {
            assert_eq!(
                a.refusal(path, is_dir).is_none(),
                visible,
                "{path} (dir: {is_dir})"
            );
        }
        assert_eq!(
            a.refusal("private/x.md", false),
            Some(Refusal::Denied("private/".into()))
        );
        assert!(matches!(
            a.refusal("image.png", false),
            Some(Refusal::NotAllowed(_))
        ));
        // Composed and decomposed forms of a name are one name.
        let accents = access(&[], &["privé/"]);
        assert!(!accents.visible("prive\u{301}/x.md"));
        assert!(!accents.visible("PRIVÉ/x.md"));
        let open = access(&[], &[]);
        assert!(!open.restricts() && open.visible("anything/at/all.md"));
    }
}
