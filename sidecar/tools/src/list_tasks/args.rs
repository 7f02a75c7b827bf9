//! `list_tasks`' arguments, as the agent passes them.

use schemars::JsonSchema;
use serde::Deserialize;

use super::compute::Group;
use crate::args::lenient;

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTasksArgs {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub due: Option<String>,
    #[serde(default)]
    pub scheduled: Option<String>,
    #[serde(default, alias = "starts")]
    pub start: Option<String>,
    #[serde(default, alias = "completed")]
    pub done: Option<String>,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub happens: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub overdue: Option<bool>,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default, alias = "tag", deserialize_with = "lenient::strings")]
    pub tags: Option<Vec<String>>,
    #[serde(default, alias = "description")]
    pub text: Option<String>,
    #[serde(default)]
    pub heading: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub recurring: Option<bool>,
    #[serde(default, alias = "path", alias = "path_prefix")]
    pub folder: Option<String>,
    #[serde(default, alias = "order_by", alias = "sort_by")]
    pub sort: Option<String>,
    #[serde(default, alias = "group")]
    pub group_by: Option<Group>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
    /// A ```tasks query (the Tasks plugin's language), one instruction a
    /// line; in place of the filters.
    #[serde(default)]
    pub query: Option<String>,
    /// Runs this note's ```tasks blocks.
    #[serde(default)]
    pub query_note: Option<String>,
    /// Only this block of `query_note` (from 1).
    #[serde(default, deserialize_with = "lenient::usize")]
    pub block: Option<usize>,
}
