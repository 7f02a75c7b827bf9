//! `vault_info`'s answer as Markdown: the status line and counts, the
//! policy, the configuration (history and search by meaning with it), the
//! recent failures, the auto-context block and the guide.

use super::answer::{Status, VaultInfoOut};
use crate::format::code_list;

pub(super) fn markdown(out: &VaultInfoOut) -> String {
    let c = &out.counts;
    let mut text = format!(
        "# Vault `{}`\nWeft {} · status: {}\n\n{} notes, {} attachments, {} KB of Markdown; {} links ({} unresolved, {} ambiguous); {} tags; {} orphans.",
        out.root,
        out.version,
        status(&out.status),
        c.notes,
        c.attachments,
        c.markdown_bytes / 1024,
        c.links,
        c.unresolved_links,
        c.ambiguous_links,
        c.tags,
        c.orphans
    );
    if !out.status.unreadable.is_empty() {
        text.push_str(&format!(
            "\nUnreadable files: {}",
            out.status.unreadable.join("; ")
        ));
    }
    policy(&mut text, out);
    configuration(&mut text, out);
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

/// The index's phase in words.
fn status(s: &Status) -> String {
    match s.phase.as_str() {
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
    }
}

/// The tools offered, the tag policy and what the agent may see.
fn policy(text: &mut String, out: &VaultInfoOut) {
    let p = &out.policy;
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
}

/// The folders, the zone, history, search by meaning and a configuration
/// that failed to load.
fn configuration(text: &mut String, out: &VaultInfoOut) {
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
    if let Some(e) = &cfg.types_error {
        text.push_str(&format!(
            "\n⚠ {e}; property types are inferred from the values until it reads"
        ));
    }
}
