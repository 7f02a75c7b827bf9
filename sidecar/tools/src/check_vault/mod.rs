//! `check_vault`: the vault's health — broken and ambiguous links (kind
//! `ambiguous` also covers `#A#B` fragments several headings fit), missing
//! headings and block ids, parse problems (from `vault::query::check`),
//! orphans, duplicate titles and aliases, tag rules and inconsistent tag
//! spellings — each with a fix hint; by folder, kind, page.
//!
//! Arguments here, the findings as data in `compute` (the domain's
//! problems, and this tool's orphan, duplicate, rule and spelling checks:
//! small pure functions of the index), their words in `render`.

mod answer;
mod compute;
mod render;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::Deserialize;

pub use answer::{CheckVaultOut, Issue, Kind};
pub use compute::{Checked, Found, NameUse, Placed, Query, compute};

use super::args::lenient;
use super::common::{cursor_offset, limit, next_cursor};
use super::format::{Reply, ToolError, ToolResult};
use super::state::ToolState;
use weft_vault::filter::Folder;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckVaultArgs {
    /// Folder.
    #[serde(default, alias = "folder", alias = "path")]
    pub path_prefix: Option<String>,
    #[serde(default, alias = "checks", alias = "only")]
    pub kinds: Option<Vec<Kind>>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

pub fn run(state: &ToolState, args: CheckVaultArgs) -> ToolResult {
    // A folder with its boundary, however it is written (`projects\\`,
    // `/projects/`): the one rule, `vault::filter`.
    let folder = Folder::new(args.path_prefix.as_deref().unwrap_or(""))
        .map_err(|e| ToolError::new(format!("path_prefix: {e}.")))?;
    let kinds: Vec<Kind> = match &args.kinds {
        Some(k) if !k.is_empty() => k.clone(),
        _ => Kind::ALL.to_vec(),
    };
    let offset = cursor_offset(args.cursor.as_deref(), &(folder.key(), &kinds))?;
    let prefix = folder.shown().to_string();
    let query = Query {
        folder,
        kinds,
        offset,
        limit: limit(args.limit, 50, 500),
    };
    let fingerprint = (query.folder.key(), &query.kinds);
    let policy = state.policy();
    let index = state.index();
    let config = state.config();
    let checked = compute(
        &index,
        &policy.access,
        &config.tags.rules,
        &config.types,
        &query,
    );
    let next = next_cursor(offset, checked.page.len(), checked.total, &fingerprint);
    let out = render::out(&index, &policy.access, checked, next);
    drop(index);
    Ok(Reply::new(render::markdown(&out, offset, &prefix), &out))
}
