//! What `vault_info` answers: the vault's status, counts, policy,
//! configuration, failures, history and search by meaning, as the
//! structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Serialize, JsonSchema)]
pub struct VaultInfoOut {
    pub root: String,
    pub version: String,
    pub status: Status,
    pub counts: Counts,
    pub policy: PolicyOut,
    pub config: ConfigOut,
    pub guide: String,
    /// The auto-context block, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_context: Option<String>,
    /// Recent failed tool calls, newest first.
    pub failures: Vec<FailureOut>,
    pub history: HistoryOut,
    pub semantic: SemanticOut,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SemanticOut {
    /// off, downloading, loading, ready or failed.
    pub mode: String,
    /// What it does now, or why not and how to enable it.
    pub note: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Notes and passages embedded.
    pub notes: usize,
    pub passages: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Status {
    /// loading, fulltext (notes ready, full text building), ready or failed.
    pub phase: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub notes_indexed: usize,
    pub fulltext_indexed: usize,
    pub fulltext_total: usize,
    /// Milliseconds from start until the notes were indexed (0 until then).
    pub notes_ms: usize,
    pub fulltext_ms: usize,
    /// Changes on disk are followed.
    pub watching: bool,
    pub started: String,
    /// Files that could not be read, with why.
    pub unreadable: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Counts {
    pub notes: usize,
    pub attachments: usize,
    pub markdown_bytes: u64,
    pub links: usize,
    pub unresolved_links: usize,
    pub ambiguous_links: usize,
    pub tags: usize,
    pub orphans: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PolicyOut {
    /// read, write or full.
    pub tools: String,
    pub read_only: bool,
    pub offered_tools: Vec<String>,
    pub allow: Vec<String>,
    pub deny: Vec<String>,
    /// open or existing (new tags must already be in use).
    pub tag_policy: String,
    pub auto_context_tag: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfigOut {
    pub new_notes_folder: String,
    pub templates_folder: String,
    pub daily_folder: String,
    pub daily_format: String,
    /// The zone "today" and every time shown are in: `Europe/Berlin`, or
    /// `system (+01:00)`.
    pub timezone: String,
    /// `.weft.toml` failed to load.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `.obsidian/types.json` does not read: property types are inferred
    /// from the values instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub types_error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FailureOut {
    pub time: String,
    pub tool: String,
    pub input: String,
    pub error: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryOut {
    /// Versions are recorded and can be listed, diffed and restored.
    pub available: bool,
    /// weft (recording), off (configured off), unavailable (the store is
    /// damaged or cannot be used) or opening.
    pub mode: String,
    pub note: String,
    /// Weft's history repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// The vault's own git repository, listed read only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vault_git: Option<String>,
    /// The store was found deleted or damaged and started anew: the
    /// versions before are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<weft_workspace::history::Lost>,
}
