//! What an agent may see and change: `[agent] read_only`, `allow` and
//! `deny` (gitignore syntax, as `exclude`), compiled once per configuration
//! and asked by everything an agent reaches — the MCP tools' text and
//! structured content, prompts, resources, completions, errors and "did you
//! mean" lists, history and diffs, and the write operations — so a path is
//! treated the same way by every one of them.
//!
//! THE question is [`Access::sees`]: whether the agent may see a path
//! (`true` always means "it may"; nothing answers "hidden" with `true`).
//! Where notes are listed, the same rule is [`Access::sight`], THE note
//! filter (`vault::filter`) of the notes it sees, which joins a tool's own
//! filters; layers below this crate, which cannot name this type, take it
//! as a `sees` predicate.
//!
//! Paths are vault paths (`folder/note.md`, `/` separators; a leading `/`
//! is ignored). A folder is asked about as a folder (`is_dir`): `private/`
//! matches the folder `private` and everything under it. Knows no protocol
//! and no tool.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use unicode_normalization::UnicodeNormalization;
use weft_vault::VaultIndex;
use weft_vault::filter::Filter;

use crate::config::AgentConfig;
use crate::sync::lock;

/// The compiled `[agent]` rules.
pub struct Access {
    /// No writes at all.
    pub read_only: bool,
    allow: Option<Gitignore>,
    deny: Option<Gitignore>,
    /// The patterns as configured, for reports.
    pub allow_globs: Vec<String>,
    pub deny_globs: Vec<String>,
    /// [`Access::sight`] by index generation.
    sight: Mutex<Option<(u64, Arc<Filter>)>>,
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
            sight: Mutex::new(None),
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

    /// Whether the agent may see the note or file at `path`: THE rule.
    pub fn sees(&self, path: &str) -> bool {
        self.refusal(path, false).is_none()
    }

    /// [`Access::sees`] for an entry whose kind is not known (a path the
    /// scan could not read): seen only when seen as a file and as a
    /// folder alike, so a denied folder is not named either.
    pub fn sees_unknown_kind(&self, path: &str) -> bool {
        self.sees(path) && self.refusal(path, true).is_none()
    }

    /// The notes of `index` the agent sees, as THE note filter
    /// (`Filter::All` when nothing is out of reach), to join a query's own
    /// filters. Built from [`Access::sees`] once per index generation, so
    /// a query pays no pass over the notes of its own.
    pub fn sight(&self, index: &VaultIndex) -> Arc<Filter> {
        if !self.restricts() {
            return Arc::new(Filter::All);
        }
        let mut cache = lock(&self.sight);
        if let Some((generation, sight)) = &*cache
            && *generation == index.generation()
        {
            return sight.clone();
        }
        let unseen: BTreeSet<Box<str>> = index
            .notes()
            .map(|(_, n)| &n.path)
            .filter(|p| !self.sees(p))
            .cloned()
            .collect();
        let sight = Arc::new(match unseen.is_empty() {
            true => Filter::All,
            false => Filter::Not(Box::new(Filter::Paths(unseen))),
        });
        *cache = Some((index.generation(), sight.clone()));
        sight
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
        assert!(!accents.sees("prive\u{301}/x.md"));
        assert!(!accents.sees("PRIVÉ/x.md"));
        let open = access(&[], &[]);
        assert!(!open.restricts() && open.sees("anything/at/all.md"));
    }

    /// The one rule answers as the three it replaced: `Policy::visible`
    /// (true: seen), `Policy::hidden_paths` (the notes not seen, cached per
    /// index generation) and `visible_entry` (an entry of unknown kind).
    #[test]
    fn sees_and_sight_answer_alike_for_allow_and_deny_globs() {
        use weft_vault::filter::FileMeta;
        use weft_vault::parse::parse_text;
        let a = access(&["notes/", "*.md"], &["private/", "secret*.md"]);
        for (path, seen) in [
            ("notes/a.md", true),
            ("top.md", true),
            ("private/x.md", false),
            ("notes/secret-plan.md", false),
            ("notes/image.png", true),
            ("image.png", false),
        ] {
            assert_eq!(a.sees(path), seen, "{path}");
            assert_eq!(a.sees(path), a.refusal(path, false).is_none(), "{path}");
        }
        let mut index = VaultIndex::default();
        for path in [
            "notes/a.md",
            "top.md",
            "private/x.md",
            "notes/secret-plan.md",
        ] {
            index.upsert(parse_text(path, "text"));
        }
        let sight = a.sight(&index);
        for (id, note) in index.notes() {
            assert_eq!(
                sight.matches(&index, id, &FileMeta::default()),
                a.sees(&note.path),
                "{}",
                note.path
            );
        }
        assert!(
            Arc::ptr_eq(&sight, &a.sight(&index)),
            "cached per generation"
        );
        let id = index.upsert(parse_text("private/y.md", "text"));
        assert!(
            !a.sight(&index).matches(&index, id, &FileMeta::default()),
            "a new generation is asked again"
        );
        assert_eq!(*access(&[], &[]).sight(&index), Filter::All);
        assert_eq!(*access(&[], &["nothing-here/"]).sight(&index), Filter::All);
    }

    /// Regression: `vault_info` named every file the scan could not read,
    /// those of a denied folder too (an unreadable folder, the folder
    /// itself). An entry of unknown kind is seen only when neither as a
    /// file nor as a folder is it out of reach.
    #[test]
    fn an_entry_of_unknown_kind_is_seen_only_both_ways() {
        let a = access(&[], &["private/"]);
        assert!(a.sees_unknown_kind("notes/a.md") && a.sees_unknown_kind("notes"));
        assert!(!a.sees_unknown_kind("private/x.md"));
        assert!(!a.sees_unknown_kind("private"), "the denied folder itself");
        assert!(a.sees("private"), "(as a file, the name alone passes)");
    }
}
