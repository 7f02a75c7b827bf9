//! The vault configuration: `.weft.toml` at the vault root, Obsidian's
//! daily-note settings, and overlays given as JSON (editor settings).
//!
//! This module reads two small files and validates values; it must not know
//! the index, the file walk or any protocol (LSP, MCP). Unknown keys are
//! errors everywhere, so a typo never silently falls back to a default.

mod live;
mod tasks;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use weft_search::dates::{Now, Zone};
use weft_semantic::PinnedModel;
use weft_vault::props::Types;

pub use live::{LiveConfig, Reloaded, Snapshot};
pub use tasks::{StatusConfig, TASKS_PLUGIN_DATA, TasksConfig};

/// The configuration file, at the vault root.
pub const CONFIG_FILE: &str = ".weft.toml";
/// Obsidian's daily-note settings, imported when `.weft.toml` has no `[daily]`.
pub(crate) const OBSIDIAN_DAILY_NOTES: &str = ".obsidian/daily-notes.json";
/// Obsidian's property types, read beside `.weft.toml`.
pub const OBSIDIAN_TYPES: &str = ".obsidian/types.json";
/// How [`Config::merge_json`] names its input in errors.
pub(crate) const SETTINGS_SOURCE: &str = "settings";

/// Everything a vault can configure. Every key is optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Gitignore-style globs of folders and files to skip (`drafts/`, `*.tmp`).
    pub exclude: Vec<String>,
    /// Vault folder for new notes; `""` is the vault root.
    pub new_notes_folder: String,
    /// Vault folder holding note templates.
    pub templates_folder: String,
    /// The IANA time zone days are counted in (`Europe/Berlin`): "today",
    /// relative dates, daily notes and the times an agent reads. Unset: the
    /// system's zone.
    pub timezone: Option<String>,
    pub daily: DailyConfig,
    pub history: HistoryConfig,
    pub agent: AgentConfig,
    pub tags: TagsConfig,
    pub diagnostics: DiagnosticsConfig,
    pub semantic: SemanticConfig,
    pub tasks: TasksConfig,
    /// The Tasks plugin's settings (its `data.json`, read beside this file;
    /// not a key of `.weft.toml`), or its defaults.
    #[serde(skip)]
    pub tasks_plugin: weft_vault::tasks::TaskSettings,
    /// Why the plugin's `data.json` was not read, when it exists and could
    /// not be (its defaults apply then).
    #[serde(skip)]
    pub tasks_plugin_error: Option<String>,
    /// The property types `.obsidian/types.json` declares (Obsidian's file,
    /// read beside this one; not a key of `.weft.toml`).
    #[serde(skip)]
    pub types: Types,
    /// Why `.obsidian/types.json` was not read, when it exists and could not
    /// be (the types are then inferred alone).
    #[serde(skip)]
    pub types_error: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            exclude: Vec::new(),
            new_notes_folder: String::new(),
            templates_folder: "templates".into(),
            timezone: None,
            daily: DailyConfig::default(),
            history: HistoryConfig::default(),
            agent: AgentConfig::default(),
            tags: TagsConfig::default(),
            diagnostics: DiagnosticsConfig::default(),
            types: Types::default(),
            types_error: None,
            semantic: SemanticConfig::default(),
            tasks: TasksConfig::default(),
            tasks_plugin: weft_vault::tasks::TaskSettings::default(),
            tasks_plugin_error: None,
        }
    }
}

/// `[semantic]`: finding notes by meaning. Off unless `model` names a
/// model folder or a pinned model id; nothing is downloaded unless
/// `download` allows it (or the user ran `weft model fetch`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticConfig {
    /// A model folder (`config.json`, `tokenizer.json`,
    /// `model.safetensors`): absolute, `~/…`, or relative to the vault
    /// root; or the id of a pinned model
    /// (`sentence-transformers/all-MiniLM-L6-v2`), used from the user's
    /// cache.
    pub model: Option<String>,
    /// Lets Weft fetch a pinned model that is not in the cache yet, once,
    /// in the background, verified against its pinned checksums.
    pub download: bool,
}

/// What `[semantic] model` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// A folder on this machine, used as it is.
    Folder(PathBuf),
    /// A pinned model, kept in the user's cache.
    Pinned(&'static PinnedModel<'static>),
    /// A value shaped like a model id that is neither pinned nor a folder
    /// (`folder`: where it was looked for).
    Unknown { id: String, folder: PathBuf },
}

impl SemanticConfig {
    /// What `model` names, when one is configured. A pinned id is the id;
    /// anything else is a folder, except an `owner/name` that is not one.
    pub fn model(&self, root: &Path) -> Option<ModelChoice> {
        let model = self
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())?;
        if let Some(pinned) = weft_semantic::pinned::pinned(model) {
            return Some(ModelChoice::Pinned(pinned));
        }
        let home = std::env::var_os("HOME");
        let folder = match (model.strip_prefix("~/"), home) {
            (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
            _ => root.join(model),
        };
        if weft_semantic::pinned::looks_like_id(model) && !folder.exists() {
            return Some(ModelChoice::Unknown {
                id: model.to_string(),
                folder,
            });
        }
        Some(ModelChoice::Folder(folder))
    }
}

/// `[daily]`: where daily notes live and how they are named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DailyConfig {
    /// Vault folder; `""` is the vault root.
    pub folder: String,
    /// A moment.js date format as Obsidian uses it (`YYYY-MM-DD`).
    pub format: String,
    /// Vault path of the template note (`.md` optional).
    pub template: Option<String>,
}

impl Default for DailyConfig {
    fn default() -> Self {
        DailyConfig {
            folder: String::new(),
            format: "YYYY-MM-DD".into(),
            template: None,
        }
    }
}

/// `[history] mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HistoryMode {
    /// Record every change in Weft's own repository.
    #[default]
    Weft,
    /// Record nothing.
    Off,
}

/// `[history]`: Weft's own change history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HistoryConfig {
    pub mode: HistoryMode,
    /// The history repository, relative to the vault root (or absolute).
    pub dir: String,
}

impl Default for HistoryConfig {
    fn default() -> Self {
        HistoryConfig {
            mode: HistoryMode::Weft,
            dir: ".weft/history.git".into(),
        }
    }
}

/// `[agent]`: what the agent (MCP tools) may change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentConfig {
    /// Refuse every write.
    pub read_only: bool,
    /// When non-empty, only paths matching one of these globs may be written.
    pub allow: Vec<String>,
    /// Paths matching one of these globs may never be written.
    pub deny: Vec<String>,
}

/// `[tags] policy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TagPolicy {
    /// Any tag may be used.
    #[default]
    Open,
    /// Only tags already used somewhere in the vault.
    Existing,
}

/// `[tags]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TagsConfig {
    pub policy: TagPolicy,
    /// Opt-in: notes with this tag are offered to the agent as context.
    pub auto_context_tag: Option<String>,
    pub rules: Vec<TagRule>,
}

/// One `[[tags.rules]]` entry: what a note with `tag` must have.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagRule {
    /// The tag, without `#`.
    pub tag: String,
    /// Frontmatter keys a note with the tag must have.
    #[serde(default)]
    pub require_keys: Vec<String>,
    /// The file name of a note with the tag must start with this.
    #[serde(default)]
    pub name_prefix: Option<String>,
}

/// How a diagnostic is reported, or `off`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    #[default]
    Warning,
    Information,
    Hint,
    Off,
}

/// `[diagnostics]`: the severity of each kind of link problem.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiagnosticsConfig {
    /// A link to a note that does not exist.
    pub unresolved: Severity,
    /// A link that several notes could answer, or whose `#A#B` heading
    /// path several headings could (it leads to the first).
    pub ambiguous: Severity,
    /// A `#heading` or `#^block` that the target note does not have.
    pub broken_fragment: Severity,
}

/// Why a configuration could not be used. Every variant names its source (a
/// file, or [`SETTINGS_SOURCE`]) and, where there is one, the key.
#[derive(Debug)]
pub enum ConfigError {
    /// The file exists but could not be read.
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not valid TOML, has an unknown key or a value of the
    /// wrong type. `line` and `column` are 1-based.
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A key that does not exist (in JSON settings).
    UnknownKey {
        source: String,
        key: String,
        expected: Vec<String>,
    },
    /// A value that has the wrong type or is not allowed.
    Invalid {
        source: String,
        key: String,
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ConfigError::Parse {
                path,
                line,
                column,
                message,
            } => write!(f, "{}:{line}:{column}: {message}", path.display()),
            ConfigError::UnknownKey {
                source,
                key,
                expected,
            } => {
                write!(f, "{source}: unknown key `{key}`")?;
                if !expected.is_empty() {
                    let list: Vec<String> = expected.iter().map(|k| format!("`{k}`")).collect();
                    write!(f, "; expected one of {}", list.join(", "))?;
                }
                Ok(())
            }
            ConfigError::Invalid {
                source,
                key,
                message,
            } => write!(f, "{source}: `{key}`: {message}"),
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// `.obsidian/daily-notes.json`; Obsidian writes other keys too, so unknown
/// keys are accepted here.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ObsidianDailyNotes {
    folder: Option<String>,
    format: Option<String>,
    template: Option<String>,
}

impl Config {
    /// The zone days are counted in: `timezone`, or the system's.
    pub fn zone(&self) -> Zone {
        self.timezone
            .as_deref()
            .and_then(|name| Zone::named(name).ok())
            .unwrap_or_default()
    }

    /// Now, in the vault's zone: what "today" is for this vault.
    pub fn now(&self) -> Now {
        Now::read(self.zone())
    }

    /// Reads `.weft.toml` at `root` (defaults when it does not exist) and,
    /// when it has no `[daily]` table, Obsidian's daily-note settings.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(CONFIG_FILE);
        let (mut config, has_daily) = match std::fs::read(&path) {
            Ok(bytes) => Self::parse_toml(&path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Config::default(), false),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        if !has_daily {
            config.import_obsidian_daily(root);
        }
        config.import_obsidian_types(root);
        config.import_tasks_plugin(root);
        config.validate(&path.display().to_string())?;
        Ok(config)
    }

    /// Parses the text of a `.weft.toml`; also tells whether it has `[daily]`.
    fn parse_toml(path: &Path, bytes: &[u8]) -> Result<(Config, bool), ConfigError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let (line, column) = line_column(bytes, e.valid_up_to());
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: "invalid UTF-8; save the file as UTF-8".into(),
            }
        })?;
        let parse_error = |e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map_or((1, 1), |span| line_column(bytes, span.start));
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim_end().to_string(),
            }
        };
        let config: Config = toml::from_str(text).map_err(parse_error)?;
        let table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        Ok((config, table.contains_key("daily")))
    }

    /// Takes the property types `.obsidian/types.json` declares, when that
    /// file exists. One that does not read is reported (`types_error`, and
    /// the log) and skipped: the types are then inferred from the values.
    fn import_obsidian_types(&mut self, root: &Path) {
        let path = root.join(OBSIDIAN_TYPES);
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                self.types_error = Some(format!("cannot read {}: {e}", path.display()));
                tracing::warn!(
                    "cannot read {}: {e}; property types inferred",
                    path.display()
                );
                return;
            }
        };
        match Types::parse(&text) {
            Ok(types) => self.types = types,
            Err(e) => {
                tracing::warn!("{}: {e}; property types inferred", path.display());
                self.types_error = Some(format!("{}: {e}", path.display()));
            }
        }
    }

    /// Takes the Tasks plugin's settings from its `data.json`, when that
    /// exists. One that does not read is reported (`tasks_plugin_error`,
    /// and the log) and skipped: the plugin's defaults apply.
    fn import_tasks_plugin(&mut self, root: &Path) {
        match tasks::PluginData::load(root) {
            Ok(Some(data)) => self.tasks_plugin = data.settings(),
            Ok(None) => {}
            Err(e) => {
                tracing::warn!("{e}; the Tasks plugin's defaults apply");
                self.tasks_plugin_error = Some(e);
            }
        }
    }

    /// How tasks are read and written: the plugin's settings with
    /// `[tasks]` over them.
    pub fn task_settings(&self) -> weft_vault::tasks::TaskSettings {
        self.tasks.settings(&self.tasks_plugin)
    }

    /// Takes `[daily]` values from `.obsidian/daily-notes.json` when that
    /// file exists. A file that does not parse is reported and skipped: it is
    /// Obsidian's file, not ours, and must not stop the vault from opening.
    fn import_obsidian_daily(&mut self, root: &Path) {
        let path = root.join(OBSIDIAN_DAILY_NOTES);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(
                        "cannot read {}: {e}; daily-note settings not imported",
                        path.display()
                    );
                }
                return;
            }
        };
        let obsidian: ObsidianDailyNotes = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!("{}: {e}; daily-note settings not imported", path.display());
                return;
            }
        };
        // Obsidian writes "" for "not set" (its own defaults apply).
        if let Some(folder) = obsidian.folder {
            self.daily.folder = folder;
        }
        if let Some(format) = obsidian.format.filter(|f| !f.trim().is_empty()) {
            self.daily.format = format;
        }
        if let Some(template) = obsidian.template.filter(|t| !t.trim().is_empty()) {
            self.daily.template = Some(template);
        }
    }

    /// Overlays settings given as JSON with the same keys as `.weft.toml`
    /// (`{"daily": {"folder": "journal"}}`). Tables merge key by key; any
    /// other value (lists included) replaces the current one; `null` resets a
    /// key to its default. Unknown keys are errors. On error `self` is left
    /// unchanged.
    pub fn merge_json(&mut self, value: &Value) -> Result<(), ConfigError> {
        let source = SETTINGS_SOURCE;
        if value.is_null() {
            return Ok(());
        }
        if !value.is_object() {
            return Err(ConfigError::Invalid {
                source: source.into(),
                key: String::new(),
                message: format!(
                    "expected a JSON object of settings, found {}",
                    json_kind(value)
                ),
            });
        }
        check_keys(&schema(), value, "", source)?;
        let mut merged = serde_json::to_value(&*self).map_err(|e| ConfigError::Invalid {
            source: source.into(),
            key: String::new(),
            message: e.to_string(),
        })?;
        merge_value(&mut merged, value);
        let mut config: Config =
            serde_path_to_error::deserialize(merged).map_err(|e| ConfigError::Invalid {
                source: source.into(),
                key: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        // What was read from Obsidian's files is no key of the overlay: it
        // stays as read.
        config.types = self.types.clone();
        config.types_error = self.types_error.clone();
        config.tasks_plugin = self.tasks_plugin.clone();
        config.tasks_plugin_error = self.tasks_plugin_error.clone();
        config.validate(source)?;
        *self = config;
        Ok(())
    }

    /// Checks values that parse but cannot be used, and normalises folder
    /// paths (`/daily/` → `daily`, `\` → `/`).
    fn validate(&mut self, source: &str) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            source: source.into(),
            key: key.into(),
            message,
        };
        for (i, glob) in self.exclude.iter().enumerate() {
            let key = format!("exclude[{i}]");
            if glob.starts_with('!') {
                return Err(invalid(
                    &key,
                    format!("`{glob}`: an exclude pattern cannot be negated with `!`"),
                ));
            }
            check_glob(glob).map_err(|m| invalid(&key, m))?;
        }
        self.tasks
            .validate()
            .map_err(|(key, message)| invalid(&key, message))?;
        for (list, name) in [
            (&self.agent.allow, "agent.allow"),
            (&self.agent.deny, "agent.deny"),
        ] {
            for (i, glob) in list.iter().enumerate() {
                check_glob(glob).map_err(|m| invalid(&format!("{name}[{i}]"), m))?;
            }
        }
        for (value, key) in [
            (&mut self.new_notes_folder, "new_notes_folder"),
            (&mut self.templates_folder, "templates_folder"),
            (&mut self.daily.folder, "daily.folder"),
        ] {
            *value = vault_folder(value).map_err(|m| invalid(key, m))?;
        }
        if let Some(template) = &mut self.daily.template {
            *template = vault_folder(template).map_err(|m| invalid("daily.template", m))?;
            if template.is_empty() {
                self.daily.template = None;
            }
        }
        if let Some(name) = &mut self.timezone {
            let zone = Zone::named(name).map_err(|m| invalid("timezone", m))?;
            *name = zone.name().to_string();
        }
        if self.daily.format.trim().is_empty() {
            return Err(invalid(
                "daily.format",
                "must not be empty (e.g. \"YYYY-MM-DD\")".into(),
            ));
        }
        if self.history.dir.trim().is_empty() || self.history.dir.contains('\0') {
            return Err(invalid(
                "history.dir",
                "must be a folder path (default \".weft/history.git\")".into(),
            ));
        }
        if let Some(tag) = &mut self.tags.auto_context_tag {
            *tag = tag_name(tag).map_err(|m| invalid("tags.auto_context_tag", m))?;
        }
        for (i, rule) in self.tags.rules.iter_mut().enumerate() {
            rule.tag =
                tag_name(&rule.tag).map_err(|m| invalid(&format!("tags.rules[{i}].tag"), m))?;
        }
        Ok(())
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(bytes.len());
    let start = weft_vault::lines::line_start_at(bytes, offset);
    let column = String::from_utf8_lossy(&bytes[start..offset])
        .chars()
        .count()
        + 1;
    (weft_vault::lines::line_of(bytes, offset) + 1, column)
}

/// The deepest `{ }` nesting a glob may have. The glob compiler (globset)
/// recurses once per level, in building and again in dropping the pattern,
/// with no limit of its own: a `.gitignore` line of a few thousand `{` took
/// the whole process down.
pub(crate) const MAX_GLOB_NESTING: usize = 16;
/// The longest glob accepted, in bytes.
pub(crate) const MAX_GLOB_LEN: usize = 4096;

/// Why a glob line (an `exclude` or `[agent]` pattern, or a line of a
/// `.gitignore`) must not reach the glob compiler, if it must not.
pub(crate) fn unsafe_glob(glob: &str) -> Option<String> {
    if glob.len() > MAX_GLOB_LEN {
        return Some(format!(
            "the pattern is {} bytes long; at most {MAX_GLOB_LEN} are accepted",
            glob.len()
        ));
    }
    let mut depth = 0usize;
    let mut escaped = false;
    for byte in glob.bytes() {
        match byte {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'{' => {
                depth += 1;
                if depth > MAX_GLOB_NESTING {
                    return Some(format!(
                        "`{{ }}` nest more than {MAX_GLOB_NESTING} deep in the pattern"
                    ));
                }
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Whether a gitignore-style glob compiles.
fn check_glob(glob: &str) -> Result<(), String> {
    if glob.trim().is_empty() {
        return Err("an empty pattern matches nothing; remove it".into());
    }
    if let Some(problem) = unsafe_glob(glob) {
        return Err(problem);
    }
    let mut builder = ignore::gitignore::GitignoreBuilder::new("/");
    builder
        .add_line(None, glob)
        .map(|_| ())
        .map_err(|e| format!("`{glob}` is not a valid glob: {e}"))
}

/// A vault-relative folder or file path: `/` separators, no leading or
/// trailing `/`, never climbing out of the vault.
fn vault_folder(value: &str) -> Result<String, String> {
    let value = value.trim().replace('\\', "/");
    if value.contains('\0') {
        return Err("must not contain NUL".into());
    }
    let parts: Vec<&str> = value
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(format!(
            "`{value}` leaves the vault; use a path inside the vault"
        ));
    }
    Ok(parts.join("/"))
}

/// A tag name without its `#`, by the one rule (`vault::tags`).
fn tag_name(value: &str) -> Result<String, String> {
    weft_vault::tags::checked(value).map(str::to_string)
}

/// Every key [`Config`] knows, as JSON; lists of tables hold one sample
/// element so that their keys can be checked too.
fn schema() -> Value {
    let mut config = Config::default();
    config.tags.rules.push(TagRule::default());
    serde_json::to_value(&config).unwrap_or(Value::Null)
}

/// Fails on the first key of `value` that `schema` does not have.
fn check_keys(schema: &Value, value: &Value, path: &str, source: &str) -> Result<(), ConfigError> {
    match (schema, value) {
        (Value::Object(known), Value::Object(given)) => {
            for (key, v) in given {
                let key_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match known.get(key) {
                    Some(s) => check_keys(s, v, &key_path, source)?,
                    None => {
                        return Err(ConfigError::UnknownKey {
                            source: source.into(),
                            key: key_path,
                            expected: known.keys().cloned().collect(),
                        });
                    }
                }
            }
            Ok(())
        }
        (Value::Array(known), Value::Array(given)) => match known.first() {
            Some(element) => {
                for (i, v) in given.iter().enumerate() {
                    check_keys(element, v, &format!("{path}[{i}]"), source)?;
                }
                Ok(())
            }
            None => Ok(()),
        },
        // Type mismatches are reported by the typed deserialisation.
        _ => Ok(()),
    }
}

/// Deep-merges `overlay` into `base`: objects key by key, `null` removes the
/// key (so the default applies), anything else replaces.
fn merge_value(base: &mut Value, overlay: &Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, v) in overlay {
                if v.is_null() {
                    base.remove(key);
                } else if let Some(b) = base.get_mut(key) {
                    merge_value(b, v);
                } else {
                    base.insert(key.clone(), v.clone());
                }
            }
        }
        (base, overlay) => *base = overlay.clone(),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::write_file as write;
    use serde_json::json;

    fn vault() -> tempfile::TempDir {
        tempfile::tempdir().expect("temp dir")
    }

    fn load_err(text: &str) -> String {
        let dir = vault();
        write(dir.path(), CONFIG_FILE, text);
        Config::load(dir.path()).expect_err("an error").to_string()
    }

    #[test]
    fn missing_file_gives_defaults() {
        let dir = vault();
        let config = Config::load(dir.path()).expect("defaults");
        assert_eq!(config, Config::default());
        assert_eq!(config.templates_folder, "templates");
        assert_eq!(config.daily.format, "YYYY-MM-DD");
        assert_eq!(config.history.mode, HistoryMode::Weft);
        assert_eq!(config.history.dir, ".weft/history.git");
        assert_eq!(config.tags.policy, TagPolicy::Open);
        assert_eq!(config.tags.auto_context_tag, None);
        assert_eq!(config.diagnostics.unresolved, Severity::Warning);
        assert_eq!(config.diagnostics.ambiguous, Severity::Warning);
        assert_eq!(config.diagnostics.broken_fragment, Severity::Warning);
        assert!(!config.agent.read_only);
        assert_eq!(config.zone(), Zone::System);
    }

    #[test]
    fn every_key_parses() {
        let dir = vault();
        write(
            dir.path(),
            CONFIG_FILE,
            r##"
exclude = ["drafts/", "*.tmp"]
new_notes_folder = "inbox/"
templates_folder = "/meta/templates"
timezone = "europe/berlin"

[daily]
folder = "journal"
format = "YYYY/MM/DD"
template = "meta/templates/daily"

[history]
mode = "off"
dir = ".weft/h.git"

[agent]
read_only = true
allow = ["notes/**"]
deny = ["private/**", "*.secret.md"]

[tags]
policy = "existing"
auto_context_tag = "#ai-context"

[[tags.rules]]
tag = "person"
require_keys = ["email"]
name_prefix = "@"

[[tags.rules]]
tag = "#project"

[diagnostics]
unresolved = "off"
ambiguous = "error"
broken_fragment = "hint"
"##,
        );
        let config = Config::load(dir.path()).expect("parses");
        assert_eq!(config.exclude, ["drafts/", "*.tmp"]);
        assert_eq!(config.new_notes_folder, "inbox");
        assert_eq!(config.templates_folder, "meta/templates");
        // A zone's name as the database spells it.
        assert_eq!(config.timezone.as_deref(), Some("Europe/Berlin"));
        assert_eq!(config.zone(), Zone::named("Europe/Berlin").unwrap());
        assert_eq!(
            config.daily,
            DailyConfig {
                folder: "journal".into(),
                format: "YYYY/MM/DD".into(),
                template: Some("meta/templates/daily".into()),
            }
        );
        assert_eq!(config.history.mode, HistoryMode::Off);
        assert_eq!(config.history.dir, ".weft/h.git");
        assert!(config.agent.read_only);
        assert_eq!(config.agent.allow, ["notes/**"]);
        assert_eq!(config.agent.deny, ["private/**", "*.secret.md"]);
        assert_eq!(config.tags.policy, TagPolicy::Existing);
        assert_eq!(config.tags.auto_context_tag.as_deref(), Some("ai-context"));
        assert_eq!(
            config.tags.rules,
            [
                TagRule {
                    tag: "person".into(),
                    require_keys: vec!["email".into()],
                    name_prefix: Some("@".into()),
                },
                TagRule {
                    tag: "project".into(),
                    require_keys: vec![],
                    name_prefix: None,
                },
            ]
        );
        assert_eq!(config.diagnostics.unresolved, Severity::Off);
        assert_eq!(config.diagnostics.ambiguous, Severity::Error);
        assert_eq!(config.diagnostics.broken_fragment, Severity::Hint);
        // Keys not given keep their defaults.
        let dir = vault();
        write(dir.path(), CONFIG_FILE, "[daily]\nfolder = \"d\"\n");
        let config = Config::load(dir.path()).expect("parses");
        assert_eq!(config.daily.format, "YYYY-MM-DD");
        assert_eq!(config.templates_folder, "templates");
    }

    #[test]
    fn unknown_keys_name_the_key_and_the_file() {
        let message = load_err("new_notes_folder = \"x\"\ncolour = \"red\"\n");
        assert!(message.contains(".weft.toml:2:1:"), "{message}");
        assert!(message.contains("unknown field `colour`"), "{message}");
        assert!(message.contains("`new_notes_folder`"), "{message}");

        let message = load_err("[daily]\nfolder = \"d\"\nfromat = \"YYYY\"\n");
        assert!(message.contains(".weft.toml:3:1:"), "{message}");
        assert!(message.contains("unknown field `fromat`"), "{message}");
        assert!(message.contains("`format`"), "{message}");

        let message = load_err("[[tags.rules]]\ntag = \"p\"\nprefix = \"@\"\n");
        assert!(message.contains("unknown field `prefix`"), "{message}");
        assert!(message.contains(":3:1:"), "{message}");

        let message = load_err("[nope]\n");
        assert!(message.contains("unknown field `nope`"), "{message}");
    }

    #[test]
    fn bad_values_are_errors() {
        let message = load_err("[history]\nmode = \"git\"\n");
        assert!(message.contains(".weft.toml:2:"), "{message}");
        assert!(message.contains("unknown variant `git`"), "{message}");
        let message = load_err("[diagnostics]\nunresolved = \"loud\"\n");
        assert!(message.contains("unknown variant `loud`"), "{message}");
        let message = load_err("exclude = \"drafts\"\n");
        assert!(message.contains("invalid type"), "{message}");
        let message = load_err("exclude = [\"!keep\"]\n");
        assert!(
            message.contains("`exclude[0]`: `!keep`: an exclude pattern cannot be negated"),
            "{message}"
        );
        let message = load_err("exclude = [\"ok\", \"{a\"]\n");
        assert!(
            message.contains("`exclude[1]`: `{a` is not a valid glob"),
            "{message}"
        );
        let message = load_err("[agent]\ndeny = [\"[z-a]\"]\n");
        assert!(
            message.contains("`agent.deny[0]`: `[z-a]` is not a valid glob"),
            "{message}"
        );
        let message = load_err("new_notes_folder = \"../outside\"\n");
        assert!(
            message.contains("`new_notes_folder`: `../outside` leaves the vault"),
            "{message}"
        );
        let message = load_err("[daily]\nformat = \"\"\n");
        assert!(
            message.contains("`daily.format`: must not be empty"),
            "{message}"
        );
        let message = load_err("[tags]\nrules = [{ require_keys = [] }]\n");
        assert!(message.contains("missing field `tag`"), "{message}");
        let message = load_err("timezone = \"Berlin\"\n");
        assert!(
            message.contains(".weft.toml: `timezone`: `Berlin` is not a time zone name")
                && message.contains("\"Europe/Berlin\""),
            "{message}"
        );
        let mut config = Config::default();
        let error = config
            .merge_json(&serde_json::json!({"timezone": "Mars/Olympus"}))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("settings: `timezone`: `Mars/Olympus` is not a time zone name"),
            "{error}"
        );
        assert_eq!(config, Config::default());
        let message = load_err("this is not toml");
        assert!(message.contains(".weft.toml:1:"), "{message}");
    }

    #[test]
    fn unreadable_file_is_an_error() {
        let dir = vault();
        std::fs::create_dir(dir.path().join(CONFIG_FILE)).expect("mkdir");
        let error = Config::load(dir.path()).expect_err("a folder is not a file");
        assert!(matches!(error, ConfigError::Read { .. }));
        assert!(error.to_string().starts_with("cannot read "), "{error}");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn obsidian_daily_notes_are_imported_without_a_daily_table() {
        let dir = vault();
        write(
            dir.path(),
            OBSIDIAN_DAILY_NOTES,
            r#"{"folder": "Journal/", "format": "DD.MM.YYYY", "template": "Templates/Daily", "autorun": true}"#,
        );
        let config = Config::load(dir.path()).expect("loads");
        assert_eq!(
            config.daily,
            DailyConfig {
                folder: "Journal".into(),
                format: "DD.MM.YYYY".into(),
                template: Some("Templates/Daily".into()),
            }
        );

        // Missing keys and Obsidian's "" keep the defaults.
        write(
            dir.path(),
            OBSIDIAN_DAILY_NOTES,
            r#"{"folder": "Days", "format": ""}"#,
        );
        let config = Config::load(dir.path()).expect("loads");
        assert_eq!(config.daily.folder, "Days");
        assert_eq!(config.daily.format, "YYYY-MM-DD");
        assert_eq!(config.daily.template, None);

        // Other settings in .weft.toml do not stop the import ...
        write(dir.path(), CONFIG_FILE, "templates_folder = \"t\"\n");
        assert_eq!(
            Config::load(dir.path()).expect("loads").daily.folder,
            "Days"
        );

        // ... but a [daily] table wins, even a partial one.
        write(dir.path(), CONFIG_FILE, "[daily]\nformat = \"YYYY\"\n");
        let config = Config::load(dir.path()).expect("loads");
        assert_eq!(config.daily.folder, "");
        assert_eq!(config.daily.format, "YYYY");

        // A broken Obsidian file is skipped, not fatal.
        std::fs::remove_file(dir.path().join(CONFIG_FILE)).expect("rm");
        write(dir.path(), OBSIDIAN_DAILY_NOTES, "{not json");
        assert_eq!(
            Config::load(dir.path()).expect("loads").daily,
            DailyConfig::default()
        );
    }

    #[test]
    fn obsidian_property_types_are_read_and_a_bad_file_is_reported() {
        use weft_vault::props::PropType;
        let dir = vault();
        assert!(Config::load(dir.path()).expect("loads").types.is_empty());
        write(
            dir.path(),
            OBSIDIAN_TYPES,
            r#"{"types": {"due": "date", "Done": "checkbox"}}"#,
        );
        let config = Config::load(dir.path()).expect("loads");
        assert_eq!(config.types.declared("due"), Some(PropType::Date));
        assert_eq!(config.types.declared("done"), Some(PropType::Checkbox));
        assert_eq!(config.types_error, None);
        write(dir.path(), OBSIDIAN_TYPES, "{not json");
        let config = Config::load(dir.path()).expect("a bad types.json never stops the vault");
        assert!(config.types.is_empty());
        let error = config.types_error.expect("reported");
        assert!(
            error.contains("types.json") && error.contains("not JSON"),
            "{error}"
        );
    }

    #[test]
    fn json_settings_overlay_the_file() {
        let dir = vault();
        write(
            dir.path(),
            CONFIG_FILE,
            "exclude = [\"a/\"]\n[daily]\nfolder = \"journal\"\nformat = \"YYYY\"\n[agent]\nread_only = true\n",
        );
        let mut config = Config::load(dir.path()).expect("loads");
        config
            .merge_json(&json!({
                "exclude": ["b/", "c/"],
                "daily": {"folder": "days/"},
                "agent": {"read_only": null},
                "tags": {"auto_context_tag": "ctx", "rules": [{"tag": "#p", "require_keys": ["k"]}]},
                "diagnostics": {"unresolved": "error"},
                "history": {"mode": "off"},
            }))
            .expect("merges");
        assert_eq!(config.exclude, ["b/", "c/"]);
        assert_eq!(config.daily.folder, "days");
        assert_eq!(config.daily.format, "YYYY", "kept from the file");
        assert!(!config.agent.read_only, "null resets to the default");
        assert_eq!(config.tags.auto_context_tag.as_deref(), Some("ctx"));
        assert_eq!(config.tags.rules[0].tag, "p");
        assert_eq!(config.tags.rules[0].require_keys, ["k"]);
        assert_eq!(config.diagnostics.unresolved, Severity::Error);
        assert_eq!(config.diagnostics.ambiguous, Severity::Warning);
        assert_eq!(config.history.mode, HistoryMode::Off);

        // Empty and null overlays change nothing.
        let before = config.clone();
        config.merge_json(&json!({})).expect("merges");
        config.merge_json(&Value::Null).expect("merges");
        assert_eq!(config, before);
    }

    #[test]
    fn editor_settings_keep_what_obsidians_files_say() {
        let dir = tempfile::tempdir().unwrap();
        let obsidian = dir.path().join(".obsidian/plugins/obsidian-tasks-plugin");
        std::fs::create_dir_all(&obsidian).unwrap();
        std::fs::write(
            dir.path().join(".obsidian/types.json"),
            r#"{"types": {"zip": "text"}}"#,
        )
        .unwrap();
        std::fs::write(
            obsidian.join("data.json"),
            r##"{"globalFilter": "#task", "recurrenceOnNextLine": true}"##,
        )
        .unwrap();
        let mut config = Config::load(dir.path()).unwrap();
        let types = config.types.clone();
        assert!(config.task_settings().recurrence_below);
        config
            .merge_json(&json!({"tasks": {"global_filter": "#todo"}}))
            .expect("merges");
        assert_eq!(config.types, types, "types.json survives editor settings");
        let tasks = config.task_settings();
        assert_eq!(&*tasks.global_filter, "#todo", "[tasks] over the plugin's");
        assert!(tasks.recurrence_below, "the plugin's setting stays");
    }

    #[test]
    fn json_errors_name_the_key_and_leave_the_config_unchanged() {
        let mut config = Config::default();
        let before = config.clone();
        let error = |config: &mut Config, value: Value| {
            config.merge_json(&value).expect_err("an error").to_string()
        };

        let message = error(&mut config, json!({"daily": {"fromat": "YYYY"}}));
        assert_eq!(
            message,
            "settings: unknown key `daily.fromat`; expected one of `folder`, `format`, `template`"
        );
        let message = error(&mut config, json!({"colour": 1}));
        assert!(
            message.starts_with("settings: unknown key `colour`; expected one of "),
            "{message}"
        );
        let message = error(
            &mut config,
            json!({"tags": {"rules": [{"tag": "a"}, {"tag": "b", "x": 1}]}}),
        );
        assert!(
            message.starts_with("settings: unknown key `tags.rules[1].x`"),
            "{message}"
        );
        let message = error(&mut config, json!({"agent": {"read_only": "yes"}}));
        assert!(
            message.starts_with("settings: `agent.read_only`: invalid type: string \"yes\""),
            "{message}"
        );
        let message = error(&mut config, json!({"history": {"mode": "git"}}));
        assert!(
            message.starts_with("settings: `history.mode`: unknown variant `git`"),
            "{message}"
        );
        let message = error(&mut config, json!({"exclude": ["!x"]}));
        assert!(message.contains("`exclude[0]`"), "{message}");
        let message = error(&mut config, json!(["not", "an", "object"]));
        assert!(message.contains("expected a JSON object"), "{message}");
        assert_eq!(config, before);
    }

    #[test]
    fn a_semantic_model_is_a_pinned_id_or_a_folder() {
        let dir = vault();
        let root = dir.path();
        let semantic = |model: &str, download: bool| SemanticConfig {
            model: Some(model.into()),
            download,
        };
        let id = "sentence-transformers/all-MiniLM-L6-v2";
        let pinned = weft_semantic::pinned::pinned(id).unwrap();
        assert_eq!(
            semantic(id, false).model(root),
            Some(ModelChoice::Pinned(pinned))
        );
        // A pinned id is the id even when a folder has its name.
        std::fs::create_dir_all(root.join(id)).unwrap();
        assert_eq!(
            semantic(&format!(" {id} "), true).model(root),
            Some(ModelChoice::Pinned(pinned))
        );
        // Folders stay folders, whatever their shape.
        std::fs::create_dir_all(root.join("models/mine")).unwrap();
        for folder in ["models/mine", "models/absent/deeper", "/opt/models/x", "m"] {
            assert_eq!(
                semantic(folder, true).model(root),
                Some(ModelChoice::Folder(root.join(folder))),
                "{folder}"
            );
        }
        // An id-shaped value that is neither.
        assert_eq!(
            semantic("BAAI/bge-small-en-v1.5", true).model(root),
            Some(ModelChoice::Unknown {
                id: "BAAI/bge-small-en-v1.5".into(),
                folder: root.join("BAAI/bge-small-en-v1.5"),
            })
        );
        assert_eq!(semantic("  ", true).model(root), None);
        assert_eq!(SemanticConfig::default().model(root), None);
        let dir = vault();
        write(
            dir.path(),
            CONFIG_FILE,
            format!("[semantic]\nmodel = \"{id}\"\ndownload = true\n"),
        );
        let config = Config::load(dir.path()).unwrap();
        assert!(config.semantic.download);
        assert!(!Config::default().semantic.download);
    }
}
