//! The context server's side of the extension: its settings
//! (`context_servers.weft.settings`), the JSON Schema Zed shows for them, the
//! installation instructions, and the `weft mcp` command line. Knows nothing
//! of how the binary is found (see `sidecar.rs`).

use schemars::JsonSchema;
use serde::Deserialize;
use zed_extension_api::{self as zed, Command, ContextServerConfiguration, Result};

/// What a user may set under `context_servers.weft.settings`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Weft context server settings")]
pub struct Settings {
    /// Absolute path of the `weft` binary. Default: the binary Weft's
    /// language server uses (a `lsp.weft.binary.path` setting or `weft` on
    /// your PATH), else one downloaded from Weft's GitHub releases.
    pub path: Option<String>,
    /// Absolute path of the vault (the folder of Markdown notes). Default:
    /// the project's folder, which Zed starts context servers in.
    pub vault: Option<String>,
    /// A model for finding notes by meaning, used while the vault's
    /// `.weft.toml` names none in `[semantic] model`: a model folder
    /// (absolute, `~/…`, or relative to the vault) or a pinned model id
    /// (`weft model list`). Default: none (notes are found by their words).
    pub semantic_model: Option<String>,
}

impl Settings {
    /// Reads the user's settings; a mistake comes back as a message naming
    /// the setting.
    pub fn from_json(value: Option<zed::serde_json::Value>) -> Result<Settings> {
        match value {
            None | Some(zed::serde_json::Value::Null) => Ok(Settings::default()),
            Some(value) => zed::serde_json::from_value(value)
                .map_err(|error| format!("Weft: invalid context_servers.weft.settings: {error}")),
        }
    }
}

/// `weft mcp`, with `--vault` and `--semantic-model` when the settings
/// name them.
pub fn command(binary: String, settings: &Settings) -> Command {
    let mut args = vec!["mcp".to_string()];
    if let Some(vault) = &settings.vault {
        args.extend(["--vault".to_string(), vault.clone()]);
    }
    if let Some(model) = &settings.semantic_model {
        args.extend(["--semantic-model".to_string(), model.clone()]);
    }
    Command {
        command: binary,
        args,
        env: Vec::new(),
    }
}

/// What Zed shows when the user adds or configures the context server.
pub fn configuration() -> Result<ContextServerConfiguration> {
    let schema = schemars::schema_for!(Settings);
    let settings_schema = zed::serde_json::to_string_pretty(&schema)
        .map_err(|error| format!("Weft: cannot write the settings schema: {error}"))?;
    Ok(ContextServerConfiguration {
        installation_instructions: INSTALLATION_INSTRUCTIONS.to_string(),
        settings_schema,
        default_settings: DEFAULT_SETTINGS.to_string(),
    })
}

const INSTALLATION_INSTRUCTIONS: &str = "\
Weft gives the agent your vault of Markdown notes with `[[wikilinks]]`: \
search, backlinks, the link graph, and edits that keep links intact.

The extension runs the `weft` binary as `weft mcp`. It uses, in order:

1. `path` below, if you set it;
2. the `weft` that Weft's language server found (`lsp.weft.binary.path`, or \
`weft` on your `PATH`);
3. a `weft` it downloads from [Weft's GitHub releases](https://github.com/weft-notes/weft/releases).

The vault is the project's folder unless you set `vault` below. To build \
`weft` yourself: `cargo install --locked --path sidecar/weft` in a clone of the repository.
";

const DEFAULT_SETTINGS: &str = r#"{
  // Absolute path of the `weft` binary. Leave it out to use the one Weft's
  // language server finds, or a download from Weft's GitHub releases.
  // "path": "/usr/local/bin/weft",

  // Absolute path of your vault. Leave it out to use the project's folder.
  // "vault": "/home/me/notes",

  // A model folder to find notes by meaning, unless the vault's .weft.toml
  // names one. Leave it out to find notes by their words.
  // "semantic_model": "~/models/all-MiniLM-L6-v2"
}"#;
