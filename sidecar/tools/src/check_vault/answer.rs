//! What `check_vault` answers: the kinds of finding, and the page as the
//! structured content the client gets.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::args::choice;

choice! {
    pub enum Kind {
        Unresolved = "unresolved" | "broken" | "broken_links" | "missing",
        Ambiguous = "ambiguous",
        Fragment = "fragment" | "fragments" | "heading" | "block",
        Parse = "parse" | "yaml" | "frontmatter",
        Orphan = "orphan" | "orphans",
        Duplicate = "duplicate" | "duplicates",
        Rule = "rule" | "rules" | "tag_rule",
        Tag = "tag" | "tags" | "spelling",
        Property = "property" | "properties" | "types" | "type",
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckVaultOut {
    pub total: usize,
    /// Issues per kind.
    pub counts: BTreeMap<String, usize>,
    pub issues: Vec<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Issue {
    pub kind: Kind,
    /// The note (vault path without `.md`); absent for vault-wide issues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    pub fix: String,
}
