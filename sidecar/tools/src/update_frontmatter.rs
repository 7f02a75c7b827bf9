//! `update_frontmatter`: set, unset and merge properties, the title, and
//! tags and aliases (replaced, or added/removed idempotently, removals
//! first), keeping the rest of the frontmatter as written; the tag policy
//! and per-tag rules apply.
//!
//! An adapter over `ops::Ops::update_frontmatter`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::args::lenient;
use super::format::{Reply, ToolResult, code_list};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, lenient_object, notify, one_change_text, op_error, options, shown,
    vault_input, warning_texts, warnings_text,
};
use weft_workspace::ops::UpdateFrontmatter;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateFrontmatterArgs {
    /// Path, title or alias.
    #[serde(alias = "note", alias = "name", alias = "file")]
    pub path: String,
    /// Keys to set (replacing values).
    #[serde(
        default,
        alias = "frontmatter",
        alias = "properties",
        deserialize_with = "lenient_object"
    )]
    pub set: Option<Map<String, Value>>,
    /// Keys to remove.
    #[serde(default, alias = "remove", deserialize_with = "lenient::strings")]
    pub unset: Option<Vec<String>>,
    /// Objects merged key by key.
    #[serde(default, deserialize_with = "lenient_object")]
    pub merge: Option<Map<String, Value>>,
    /// "" removes it.
    #[serde(default)]
    pub title: Option<String>,
    /// Replaces all tags.
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub add_tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub remove_tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub aliases: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub add_aliases: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub remove_aliases: Option<Vec<String>>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct UpdateFrontmatterOut {
    pub path: String,
    /// False when nothing needed changing (adding a tag it has).
    pub changed: bool,
    pub dry_run: bool,
    pub change: ChangeOut,
    /// The frontmatter after the change.
    pub frontmatter: Map<String, Value>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub warnings: Vec<String>,
}

pub fn run(state: &ToolState, actor: &str, args: UpdateFrontmatterArgs) -> ToolResult {
    let ops = state.ops(actor)?;
    // The answer names the tags and aliases when the call changed them.
    let names_asked = args.tags.is_some()
        || args.aliases.is_some()
        || [
            &args.add_tags,
            &args.remove_tags,
            &args.add_aliases,
            &args.remove_aliases,
        ]
        .iter()
        .any(|list| list.as_ref().is_some_and(|l| !l.is_empty()));
    let request = UpdateFrontmatter {
        path: vault_input(state, &args.path),
        set: args.set.unwrap_or_default(),
        unset: args.unset.unwrap_or_default(),
        merge: args.merge.unwrap_or_default(),
        title: args.title,
        tags: args.tags,
        add_tags: args.add_tags.unwrap_or_default(),
        remove_tags: args.remove_tags.unwrap_or_default(),
        aliases: args.aliases,
        add_aliases: args.add_aliases.unwrap_or_default(),
        remove_aliases: args.remove_aliases.unwrap_or_default(),
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = ops
        .update_frontmatter(&request)
        .map_err(|e| op_error(state, e))?;
    if report.changed && !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    let mut changes = Changes::new();
    let out = UpdateFrontmatterOut {
        path: shown(&report.change.path),
        changed: report.changed,
        dry_run: report.dry_run,
        change: changes.out(&report.change),
        frontmatter: report.frontmatter.clone(),
        tags: report.tags.clone(),
        aliases: report.aliases.clone(),
        warnings: warning_texts(&report.warnings),
    };
    let mut text = one_change_text(
        &out.change,
        out.changed,
        changes.omitted,
        out.dry_run,
        &format!(
            "`{}` already has this frontmatter; nothing changed",
            out.path
        ),
    );
    if names_asked {
        text.push_str(&format!(
            "Tags: {}. Aliases: {}.\n",
            if out.tags.is_empty() {
                "none".to_string()
            } else {
                code_list(&out.tags)
            },
            if out.aliases.is_empty() {
                "none".to_string()
            } else {
                code_list(&out.aliases)
            }
        ));
    }
    text.push_str(&warnings_text(&out.warnings));
    Ok(Reply::new(text.trim_end().to_string(), &out))
}
