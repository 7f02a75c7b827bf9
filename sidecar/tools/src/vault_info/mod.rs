//! `vault_info`: the vault root, counts, index status (indexing / ready),
//! configuration and active policy, the usage guide, the auto-context
//! block, recent tool failures and history status.
//!
//! Arguments and what is read of the state here (the status, history and
//! search by meaning are the state's reports), the counts of the index as
//! the agent may see them in `compute`, the Markdown in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{
    ConfigOut, Counts, FailureOut, HistoryOut, PolicyOut, SemanticOut, Status, VaultInfoOut,
};
pub use compute::{counts, unreadable};

use super::context::auto_context;
use super::format::{Reply, ToolResult};
use super::guide::GUIDE;
use super::policy::Policy;
use super::state::{Phase, ToolState};
use weft_search::clock::unix_now;
use weft_search::dates::{Zone, format_time};
use weft_workspace::config::{Config, HistoryMode, TagPolicy};
use weft_workspace::hub::SemanticStatus;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VaultInfoArgs {}

pub fn run(state: &ToolState, offered_tools: Vec<String>) -> ToolResult {
    let policy = state.policy();
    let index = state.index();
    let counts = counts(&index, &policy.access);
    drop(index);
    let config = state.config();
    let zone = config.zone();
    let out = VaultInfoOut {
        root: state.root().display().to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        status: status(state, &policy, counts.notes),
        counts,
        policy: policy_out(&policy, &config, offered_tools),
        config: ConfigOut {
            new_notes_folder: config.new_notes_folder.clone(),
            templates_folder: config.templates_folder.clone(),
            daily_folder: config.daily.folder.clone(),
            daily_format: config.daily.format.clone(),
            timezone: zone_text(zone),
            error: state.config_error().clone(),
            types_error: config.types_error.clone(),
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
    Ok(Reply::new(render::markdown(&out), &out))
}

/// The index's phase and progress, as the state reports them.
fn status(state: &ToolState, policy: &Policy, notes: usize) -> Status {
    let (phase, error) = match state.phase() {
        Phase::Loading => ("loading", None),
        Phase::FullText => ("fulltext", None),
        Phase::Ready => ("ready", None),
        Phase::Failed(e) => ("failed", Some(e)),
    };
    let (notes_ms, fulltext_ms) = state.timings();
    Status {
        phase: phase.into(),
        error,
        notes_indexed: notes,
        fulltext_indexed: state.search().map_or(0, |x| x.len()),
        fulltext_total: state.fulltext_progress().1,
        notes_ms,
        fulltext_ms,
        watching: state.live().is_some() && state.watch_error().is_none(),
        started: state.started_at(),
        unreadable: state
            .live()
            .map(|l| unreadable(l.errors(), &policy.access))
            .unwrap_or_default(),
    }
}

/// The client's policy: its tools, its reach, the tag policy.
fn policy_out(policy: &Policy, config: &Config, offered_tools: Vec<String>) -> PolicyOut {
    PolicyOut {
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
    }
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

/// The zone by name, or the system's with its offset now.
fn zone_text(zone: Zone) -> String {
    match zone {
        Zone::System => format!("the system's zone ({})", zone.offset_at(unix_now())),
        Zone::Named(_) => zone.name().to_string(),
    }
}
