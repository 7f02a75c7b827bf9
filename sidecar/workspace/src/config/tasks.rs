//! How a vault's tasks are read and written: the Tasks plugin's own
//! settings (`.obsidian/plugins/obsidian-tasks-plugin/data.json`) where the
//! vault has them, `.weft.toml`'s `[tasks]` over them, the plugin's
//! defaults under both — made into the domain's `TaskSettings`.
//!
//! Reads one small file and validates values; it must not know the index,
//! the notes or any protocol.

use std::path::Path;

use serde::{Deserialize, Serialize};
use weft_vault::tasks::TaskSettings;
use weft_vault::tasks::fields::Format;
use weft_vault::tasks::status::{Status, StatusType, Statuses};

/// The Tasks plugin's settings file, read beside `.weft.toml`.
pub const TASKS_PLUGIN_DATA: &str = ".obsidian/plugins/obsidian-tasks-plugin/data.json";

/// `[tasks]` in `.weft.toml`: each key, when given, wins over the plugin's
/// setting of the same meaning.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TasksConfig {
    /// Only checklist lines holding this text are tasks (`"#task"`); `""`:
    /// every one.
    pub global_filter: Option<String>,
    /// `"emoji"` or `"dataview"`: how fields are written on a task that has
    /// none yet.
    pub format: Option<String>,
    /// Completing a task stamps `✅ <today>`.
    pub set_done_date: Option<bool>,
    /// Cancelling a task stamps `❌ <today>`.
    pub set_cancelled_date: Option<bool>,
    /// A recurring task's next copy gets `➕ <today>`.
    pub set_created_date: Option<bool>,
    /// A recurring task's next copy goes below the done one (default: above).
    pub recurrence_below: Option<bool>,
    /// A recurring task's next copy has no scheduled date.
    pub remove_scheduled_on_recurrence: Option<bool>,
    /// Statuses beyond `[ ]`, `[x]`, `[/]` and `[-]` (or redefining them).
    pub statuses: Vec<StatusConfig>,
}

/// One status of `[[tasks.statuses]]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusConfig {
    /// The one character between the brackets.
    pub symbol: String,
    pub name: String,
    /// The symbol a toggle moves to.
    pub next: String,
    /// `TODO`, `IN_PROGRESS`, `ON_HOLD`, `DONE`, `CANCELLED` or `NON_TASK`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The plugin's `data.json`; it holds many other keys, accepted here.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct PluginData {
    global_filter: Option<String>,
    task_format: Option<String>,
    set_done_date: Option<bool>,
    set_cancelled_date: Option<bool>,
    set_created_date: Option<bool>,
    recurrence_on_next_line: Option<bool>,
    remove_scheduled_date_on_recurrence: Option<bool>,
    status_settings: Option<PluginStatuses>,
    global_query: Option<String>,
    presets: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct PluginStatuses {
    core_statuses: Vec<PluginStatus>,
    custom_statuses: Vec<PluginStatus>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct PluginStatus {
    symbol: String,
    name: String,
    next_status_symbol: String,
    #[serde(rename = "type")]
    kind: String,
}

/// The one character of a status symbol.
fn symbol(text: &str) -> Result<char, String> {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !matches!(c, '\n' | '\r' | ']') => Ok(c),
        _ => Err(format!(
            "`{text}`: a status symbol is one character (the one between the brackets)"
        )),
    }
}

fn status(symbol_text: &str, name: &str, next: &str, kind: &str) -> Result<Status, String> {
    let kind = StatusType::parse(kind).ok_or_else(|| {
        format!(
            "`{kind}` is not a status type; use TODO, IN_PROGRESS, ON_HOLD, DONE, CANCELLED or NON_TASK"
        )
    })?;
    let next = if next.is_empty() {
        symbol(symbol_text)?
    } else {
        symbol(next)?
    };
    Ok(Status::new(symbol(symbol_text)?, name, next, kind))
}

fn format(text: &str) -> Result<Format, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "emoji" | "taskspluginemoji" => Ok(Format::Emoji),
        "dataview" => Ok(Format::Dataview),
        other => Err(format!(
            "`{other}` is not a task format; use \"emoji\" or \"dataview\""
        )),
    }
}

impl PluginData {
    /// The plugin's settings file of the vault at `root`: `Ok(None)` when
    /// there is none, `Err` (a sentence) when it does not read.
    pub(crate) fn load(root: &Path) -> Result<Option<PluginData>, String> {
        let path = root.join(TASKS_PLUGIN_DATA);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl TasksConfig {
    /// Checks the values (`key` and a sentence on the first bad one).
    pub(crate) fn validate(&self) -> Result<(), (String, String)> {
        if let Some(f) = &self.format {
            format(f).map_err(|m| ("tasks.format".to_string(), m))?;
        }
        for (i, s) in self.statuses.iter().enumerate() {
            status(&s.symbol, &s.name, &s.next, &s.kind)
                .map_err(|m| (format!("tasks.statuses[{i}]"), m))?;
        }
        Ok(())
    }

    /// The settings tasks follow: `plugin`'s (the plugin's file, or its
    /// defaults), each key this table gives over them.
    pub fn settings(&self, plugin: &TaskSettings) -> TaskSettings {
        let mut out = plugin.clone();
        if let Some(filter) = &self.global_filter {
            out.global_filter = filter.trim().into();
        }
        if let Some(f) = self.format.as_deref().and_then(|f| format(f).ok()) {
            out.format = f;
        }
        for (value, into) in [
            (self.set_done_date, &mut out.set_done_date),
            (self.set_cancelled_date, &mut out.set_cancelled_date),
            (self.set_created_date, &mut out.set_created_date),
            (self.recurrence_below, &mut out.recurrence_below),
            (
                self.remove_scheduled_on_recurrence,
                &mut out.remove_scheduled_on_recurrence,
            ),
        ] {
            if let Some(v) = value {
                *into = v;
            }
        }
        let own = self
            .statuses
            .iter()
            .filter_map(|s| status(&s.symbol, &s.name, &s.next, &s.kind).ok());
        out.statuses = out.statuses.with(own);
        out
    }
}

impl PluginData {
    /// The settings the plugin's file says, over the plugin's defaults. A
    /// status that does not read is skipped (it is the plugin's file, not
    /// ours).
    pub(crate) fn settings(&self) -> TaskSettings {
        let mut out = TaskSettings::default();
        if let Some(filter) = &self.global_filter {
            out.global_filter = filter.trim().into();
        }
        if let Some(f) = self.task_format.as_deref().and_then(|f| format(f).ok()) {
            out.format = f;
        }
        if let Some(query) = &self.global_query {
            out.global_query = query.as_str().into();
        }
        out.presets = self
            .presets
            .iter()
            .map(|(name, text)| (name.as_str().into(), text.as_str().into()))
            .collect();
        for (value, into) in [
            (self.set_done_date, &mut out.set_done_date),
            (self.set_cancelled_date, &mut out.set_cancelled_date),
            (self.set_created_date, &mut out.set_created_date),
            (self.recurrence_on_next_line, &mut out.recurrence_below),
            (
                self.remove_scheduled_date_on_recurrence,
                &mut out.remove_scheduled_on_recurrence,
            ),
        ] {
            if let Some(v) = value {
                *into = v;
            }
        }
        if let Some(statuses) = &self.status_settings {
            let own = statuses
                .core_statuses
                .iter()
                .chain(&statuses.custom_statuses)
                .filter_map(|s| status(&s.symbol, &s.name, &s.next_status_symbol, &s.kind).ok());
            out.statuses = Statuses::new(own.collect());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_file_then_weft_toml_over_it() {
        let plugin: PluginData = serde_json::from_str(
            r##"{"globalFilter": "#task", "taskFormat": "dataview", "setDoneDate": false,
                "recurrenceOnNextLine": true, "presets": {"x": "not done"},
                "globalQuery": "path does not include Archive",
                "statusSettings": {"coreStatuses": [], "customStatuses": [
                    {"symbol": "D", "name": "Delegated", "nextStatusSymbol": "x", "type": "ON_HOLD"},
                    {"symbol": "too long", "name": "?", "nextStatusSymbol": "x", "type": "TODO"}]}}"##,
        )
        .unwrap();
        let plugin = plugin.settings();
        let none = TasksConfig::default().settings(&plugin);
        assert_eq!(&*none.global_filter, "#task");
        assert_eq!(none.format, Format::Dataview);
        assert!(!none.set_done_date && none.recurrence_below);
        assert_eq!(none.statuses.kind('D'), StatusType::OnHold);
        assert_eq!(&*none.global_query, "path does not include Archive");
        assert_eq!(none.presets, [("x".into(), "not done".into())]);
        let ours: TasksConfig = toml::from_str(
            "global_filter = \"\"\nformat = \"emoji\"\n[[statuses]]\nsymbol = \"D\"\nname = \"Done elsewhere\"\nnext = \" \"\ntype = \"done\"\n",
        )
        .unwrap();
        ours.validate().unwrap();
        let both = ours.settings(&plugin);
        assert_eq!(&*both.global_filter, "");
        assert_eq!(both.format, Format::Emoji);
        assert_eq!(both.statuses.kind('D'), StatusType::Done);
        let defaults = TaskSettings::default();
        assert_eq!(TasksConfig::default().settings(&defaults), defaults);
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad: TasksConfig = toml::from_str(
            "[[statuses]]\nsymbol = \"ab\"\nname = \"x\"\nnext = \"x\"\ntype = \"TODO\"\n",
        )
        .unwrap();
        let (key, message) = bad.validate().unwrap_err();
        assert_eq!(key, "tasks.statuses[0]");
        assert!(message.contains("one character"), "{message}");
        let bad: TasksConfig = toml::from_str("format = \"org\"").unwrap();
        assert_eq!(bad.validate().unwrap_err().0, "tasks.format");
        assert!(toml::from_str::<TasksConfig>("globalfilter = \"x\"").is_err());
    }
}
