//! `vault_info`: the vault root, counts, index status (indexing / ready),
//! configuration and active policy, the usage guide, the auto-context
//! block, recent tool failures and history status.
//!
//! An adapter over the state and `vault::query::stats`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::visible_stats;
use super::context::auto_context;
use super::format::{Reply, ToolResult, code_list};
use super::guide::GUIDE;
use super::state::{Phase, ToolState};
use weft_search::clock::unix_now;
use weft_search::dates::{Zone, format_time};
use weft_workspace::config::{HistoryMode, TagPolicy};
use weft_workspace::hub::SemanticStatus;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VaultInfoArgs {}

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

pub fn run(state: &ToolState, offered_tools: Vec<String>) -> ToolResult {
    let policy = state.policy();
    let index = state.index();
    let s = visible_stats(&policy, &index);
    drop(index);
    let (phase, error) = match state.phase() {
        Phase::Loading => ("loading", None),
        Phase::FullText => ("fulltext", None),
        Phase::Ready => ("ready", None),
        Phase::Failed(e) => ("failed", Some(e)),
    };
    let (notes_ms, fulltext_ms) = state.timings();
    let config = state.config();
    let zone = config.zone();
    let out = VaultInfoOut {
        root: state.root().display().to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        status: Status {
            phase: phase.into(),
            error,
            notes_indexed: s.notes,
            fulltext_indexed: state.search().map_or(0, |x| x.len()),
            fulltext_total: state.fulltext_progress().1,
            notes_ms,
            fulltext_ms,
            watching: state.live().is_some() && state.watch_error().is_none(),
            started: state.started_at(),
            unreadable: state
                .live()
                .map(|l| {
                    // A path out of the agent's reach is not named, even
                    // unreadable.
                    l.errors()
                        .into_iter()
                        .filter(|(p, _)| policy.access.sees_unknown_kind(p))
                        .take(20)
                        .map(|(p, m)| format!("{p}: {m}"))
                        .collect()
                })
                .unwrap_or_default(),
        },
        counts: Counts {
            notes: s.notes,
            attachments: s.attachments,
            markdown_bytes: s.bytes,
            links: s.links,
            unresolved_links: s.unresolved,
            ambiguous_links: s.ambiguous,
            tags: s.tags,
            orphans: s.orphans,
        },
        policy: PolicyOut {
            tools: policy.tools.as_str().into(),
            read_only: policy.read_only,
            offered_tools,
            allow: policy.access.allow_globs.clone(),
            deny: policy.access.deny_globs.clone(),
            tag_policy: match config.tags.policy {
                TagPolicy::Open => "open",
                TagPolicy::Existing => "existing",
            }
            .into(),
            auto_context_tag: config.tags.auto_context_tag.clone(),
        },
        config: ConfigOut {
            new_notes_folder: config.new_notes_folder.clone(),
            templates_folder: config.templates_folder.clone(),
            daily_folder: config.daily.folder.clone(),
            daily_format: config.daily.format.clone(),
            timezone: zone_text(zone),
            error: state.config_error().clone(),
        },
        guide: GUIDE.to_string(),
        auto_context: auto_context(state),
        failures: state
            .failures(10)
            .into_iter()
            .map(|f| FailureOut {
                time: format_time(f.time, zone),
                tool: f.tool,
                input: f.input,
                error: f.error,
            })
            .collect(),
        history: history_out(state),
        semantic: semantic_out(state),
    };
    Ok(Reply::new(render(&out), &out))
}

fn semantic_out(state: &ToolState) -> SemanticOut {
    let status = state.hub().semantic_status();
    let mode = match &status {
        SemanticStatus::Off => "off",
        SemanticStatus::Downloading { .. } => "downloading",
        SemanticStatus::Loading { .. } => "loading",
        SemanticStatus::Ready { .. } => "ready",
        SemanticStatus::Failed { .. } => "failed",
    };
    let folder = status.folder();
    // Counted among the notes the agent may see: an unseen note is no
    // count either.
    let policy = state.policy();
    let (notes, passages) = match state.hub().semantic() {
        Some(index) if policy.access.restricts() => {
            index.counts_of(&|path: &str| policy.access.sees(path))
        }
        Some(index) => {
            let (notes, passages, _) = index.stats();
            (notes, passages)
        }
        None => (0, 0),
    };
    let note = match &status {
        SemanticStatus::Ready { .. } => "get_context, related_notes and search_notes (mode semantic or hybrid) find notes by meaning as well as by words".to_string(),
        SemanticStatus::Loading { .. } => "loading the model and embedding what changed; matched by words until done".to_string(),
        SemanticStatus::Downloading { .. } => super::retrieval::meaning_unavailable(state).map(|m| m.0).unwrap_or_default(),
        _ => super::retrieval::meaning_unavailable(state).map(|m| m.0).unwrap_or_default(),
    };
    SemanticOut {
        mode: mode.into(),
        note,
        model: folder.map(|f| f.display().to_string()),
        notes,
        passages,
    }
}

fn history_out(state: &ToolState) -> HistoryOut {
    let Some(history) = state.history() else {
        let off = state.config().history.mode == HistoryMode::Off;
        return HistoryOut {
            available: false,
            mode: if off { "off" } else { "opening" }.into(),
            note: if off {
                "history is off in the configuration".into()
            } else {
                "the history opens once the notes are read".into()
            },
            dir: None,
            vault_git: None,
            lost: None,
        };
    };
    let status = history.status();
    let mut note = match status.mode {
        "weft" => {
            "every change is recorded (tools and outside edits); note_history, diff_note, restore_note"
                .to_string()
        }
        _ => status.reason.clone().unwrap_or_default(),
    };
    if let Some(lost) = &status.lost {
        note.push_str(&format!(
            "; ⚠ history was lost at {} ({}): versions before that are gone",
            lost.at, lost.reason
        ));
    }
    HistoryOut {
        available: history.is_enabled(),
        mode: status.mode.into(),
        note,
        dir: status.dir.map(|d| d.display().to_string()),
        vault_git: status.vault_git.map(|d| d.display().to_string()),
        lost: status.lost,
    }
}

fn render(out: &VaultInfoOut) -> String {
    let s = &out.status;
    let status = match s.phase.as_str() {
        "ready" => format!(
            "ready ({} notes in {} ms, full text in {} ms{})",
            s.notes_indexed,
            s.notes_ms,
            s.fulltext_ms,
            if s.watching {
                ", following changes"
            } else {
                ", not following changes"
            }
        ),
        "fulltext" => format!(
            "indexing full text: {} of {} notes (names, links and tags are ready)",
            s.fulltext_indexed, s.fulltext_total
        ),
        "loading" => "indexing: reading the notes".to_string(),
        _ => format!("failed: {}", s.error.as_deref().unwrap_or("")),
    };
    let c = &out.counts;
    let p = &out.policy;
    let mut text = format!(
        "# Vault `{}`\nWeft {} · status: {status}\n\n{} notes, {} attachments, {} KB of Markdown; {} links ({} unresolved, {} ambiguous); {} tags; {} orphans.",
        out.root,
        out.version,
        c.notes,
        c.attachments,
        c.markdown_bytes / 1024,
        c.links,
        c.unresolved_links,
        c.ambiguous_links,
        c.tags,
        c.orphans
    );
    if !s.unreadable.is_empty() {
        text.push_str(&format!("\nUnreadable files: {}", s.unreadable.join("; ")));
    }
    text.push_str(&format!(
        "\n\n## Policy\nTools: {} ({}){}. Tag policy: {}.",
        p.tools,
        code_list(&p.offered_tools),
        if p.read_only { ", read-only" } else { "" },
        p.tag_policy
    ));
    if !p.allow.is_empty() {
        text.push_str(&format!(
            " Only these paths are visible: {}.",
            code_list(&p.allow)
        ));
    }
    if !p.deny.is_empty() {
        text.push_str(&format!(" Hidden paths: {}.", code_list(&p.deny)));
    }
    let cfg = &out.config;
    text.push_str(&format!(
        "\n\n## Configuration\nNew notes in `{}`, templates in `{}`, daily notes in `{}` as `{}`, days and times in {}. History: {} ({}).",
        if cfg.new_notes_folder.is_empty() { "/" } else { &cfg.new_notes_folder },
        cfg.templates_folder,
        if cfg.daily_folder.is_empty() { "/" } else { &cfg.daily_folder },
        cfg.daily_format,
        cfg.timezone,
        out.history.mode,
        out.history.note
    ));
    text.push_str(&format!(
        " Finding by meaning: {} ({}).",
        out.semantic.mode, out.semantic.note
    ));
    if let Some(e) = &cfg.error {
        text.push_str(&format!("\n⚠ .weft.toml: {e}"));
    }
    if !out.failures.is_empty() {
        text.push_str("\n\n## Recent tool failures");
        for f in &out.failures {
            text.push_str(&format!(
                "\n- {} `{}` {}: {}",
                f.time, f.tool, f.input, f.error
            ));
        }
    }
    if let Some(block) = &out.auto_context {
        text.push_str(&format!("\n\n{block}"));
    }
    text.push_str(&format!("\n\n{}", out.guide));
    text
}
/// The zone by name, or the system's with its offset now.
fn zone_text(zone: Zone) -> String {
    match zone {
        Zone::System => format!("the system's zone ({})", zone.offset_at(unix_now())),
        Zone::Named(_) => zone.name().to_string(),
    }
}
