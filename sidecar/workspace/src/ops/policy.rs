//! What the agent may write: the read-only switch, the path allow/deny
//! globs (gitignore syntax, as `exclude`), the tag policy and per-tag rules.
//! Checks only; knows nothing of how writes are done or of any protocol.

use std::collections::BTreeSet;
use std::path::Path;

use super::error::{OpError, RuleProblem};
use crate::access::Access;
use crate::config::{AgentConfig, TagPolicy, TagsConfig};
use weft_vault::VaultIndex;
use weft_vault::key::name_key;
use weft_vault::note::strip_md;
use weft_vault::parse::parse_text;
use weft_vault::tags::matches as tag_matches;

/// What the agent may write: the vault's one [`Access`] (the rules every
/// read of an agent follows too) as the write operations ask it.
pub(crate) struct WritePolicy {
    /// THE rule for what the agent may see ([`Access::sees`]).
    pub(crate) access: Access,
}

impl WritePolicy {
    pub(crate) fn new(root: &Path, agent: &AgentConfig) -> WritePolicy {
        WritePolicy {
            access: Access::new(root, agent),
        }
    }

    /// Fails when writes are switched off.
    pub(crate) fn check_writable(&self) -> Result<(), OpError> {
        if self.access.read_only {
            Err(OpError::ReadOnly)
        } else {
            Ok(())
        }
    }

    /// Fails when the allow/deny lists refuse the vault path `rel` (a file,
    /// or a folder when `is_dir`).
    pub(crate) fn check_path(&self, rel: &str, is_dir: bool) -> Result<(), OpError> {
        match self.access.refusal(rel, is_dir) {
            Some(refusal) => Err(OpError::Denied {
                path: rel.to_string(),
                reason: refusal.reason(),
            }),
            None => Ok(()),
        }
    }

    /// Why the agent may not see `rel`, as the sentence naming only `shown`
    /// (what it typed), if it may not.
    pub(crate) fn unseen_error(&self, rel: &str, shown: &str) -> Option<OpError> {
        let refusal = self.access.refusal(rel, false)?;
        Some(OpError::Hidden {
            message: self.access.hidden_message(shown, &refusal),
        })
    }

    /// [`WritePolicy::check_writable`] and [`WritePolicy::check_path`].
    pub(crate) fn check_write(&self, rel: &str) -> Result<(), OpError> {
        self.check_writable()?;
        self.check_path(rel, false)
    }
}

/// Checks that writing `new` (at `new_path`) over `old` (at `old_path`, or
/// nothing for a new note) brings in no tag the policy forbids and breaks no
/// tag rule that held before. Violations the note already had are left
/// alone: a write must not be refused for what it did not cause.
pub(crate) fn check_tags(
    index: &VaultIndex,
    tags: &TagsConfig,
    sees: Option<&dyn Fn(&str) -> bool>,
    old: Option<(&str, &str)>,
    new_path: &str,
    new: &str,
) -> Result<(), OpError> {
    if tags.policy == TagPolicy::Open && tags.rules.is_empty() {
        return Ok(());
    }
    let new_note = parse_text(new_path, new);
    let old_note = old.map(|(path, text)| parse_text(path, text));
    if tags.policy == TagPolicy::Existing {
        let had: BTreeSet<String> = old_note
            .iter()
            .flat_map(|n| n.tags.iter().map(|t| name_key(&t.name)))
            .collect();
        // The tags in use that the agent may see: a tag only hidden notes
        // carry is new to it (and never listed to it).
        let known: std::borrow::Cow<'_, _> = match sees {
            None => std::borrow::Cow::Borrowed(index.tags()),
            Some(sees) => std::borrow::Cow::Owned(index.tags_of(&|n| sees(&n.path))),
        };
        let mut refused: Vec<String> = Vec::new();
        for tag in &new_note.tags {
            let key = name_key(&tag.name);
            if had.contains(&key) || known.contains_key(key.as_str()) {
                continue;
            }
            // A parent of a tag in use (`project` when `project/weft` is).
            let parent = format!("{key}/");
            if known.keys().any(|k| k.starts_with(&parent)) {
                continue;
            }
            if !refused.iter().any(|r| name_key(r) == key) {
                refused.push(tag.name.to_string());
            }
        }
        if !refused.is_empty() {
            let mut allowed: Vec<String> =
                known.values().map(|s| s.display().to_string()).collect();
            allowed.sort_by_key(|a| name_key(a));
            return Err(OpError::TagPolicy {
                path: new_path.to_string(),
                tags: refused,
                allowed,
            });
        }
    }
    if !tags.rules.is_empty() {
        let before: Vec<RuleProblem> = old_note
            .as_ref()
            .map(|n| rule_problems(tags, n))
            .unwrap_or_default();
        let problems: Vec<RuleProblem> = rule_problems(tags, &new_note)
            .into_iter()
            .filter(|p| !before.contains(p))
            .collect();
        if !problems.is_empty() {
            return Err(OpError::TagRule {
                path: new_path.to_string(),
                problems,
            });
        }
    }
    Ok(())
}

/// Every rule a note breaks, each once, in the order of their sentences.
fn rule_problems(tags: &TagsConfig, note: &weft_vault::Note) -> Vec<RuleProblem> {
    let mut problems = Vec::new();
    let stem = strip_md(&note.path).rsplit('/').next().unwrap_or_default();
    for rule in &tags.rules {
        if !note.tags.iter().any(|t| tag_matches(&rule.tag, &t.name)) {
            continue;
        }
        for key in &rule.require_keys {
            let present = note
                .frontmatter
                .as_ref()
                .and_then(|fm| fm.get(key))
                .is_some_and(|v| !v.is_null());
            if !present {
                problems.push(RuleProblem::MissingKey {
                    tag: rule.tag.clone(),
                    key: key.clone(),
                });
            }
        }
        if let Some(prefix) = &rule.name_prefix
            && !stem.starts_with(prefix.as_str())
        {
            problems.push(RuleProblem::NamePrefix {
                tag: rule.tag.clone(),
                prefix: prefix.clone(),
                stem: stem.to_string(),
            });
        }
    }
    problems.sort_by_cached_key(|p| p.to_string());
    problems.dedup();
    problems
}
