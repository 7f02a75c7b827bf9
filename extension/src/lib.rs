//! The Weft Zed extension: finds the `weft` sidecar and registers it as the
//! Markdown language server (`weft lsp`) and as an MCP context server
//! (`weft mcp`). All vault work happens in the sidecar; this crate only
//! resolves the binary and passes the user's settings through.

use std::collections::HashMap;

use zed_extension_api::{
    self as zed, Command, ContextServerId, EnvVars, LanguageServerId, Project, Result, Worktree,
    settings::{ContextServerSettings, LspSettings},
};

/// The key of the language server and the context server in `extension.toml`,
/// hence of the user's `lsp.weft` and `context_servers.weft` settings.
const SERVER_ID: &str = "weft";

/// The sidecar's executable name, looked up on the worktree's `PATH`.
const BINARY_NAME: &str = "weft";

struct WeftExtension {
    /// The sidecar path the last `language_server_command` resolved. The
    /// context server has no `which` (a `Project` knows no paths), so it
    /// reuses this one when the user configured nothing for it.
    sidecar_path: Option<String>,
}

impl WeftExtension {
    /// Resolves the sidecar for the language server: the user's
    /// `lsp.weft.binary` setting first, then `weft` on the worktree's `PATH`.
    /// Returns an absolute path: Zed resolves a relative command against the
    /// extension's work directory, not `PATH`.
    fn resolve_lsp_command(&self, worktree: &Worktree) -> Result<Command> {
        let binary = LspSettings::for_worktree(SERVER_ID, worktree)?.binary;
        if let Some(binary) = binary
            && let Some(path) = binary.path
        {
            return Ok(Command {
                command: path,
                args: binary.arguments.unwrap_or_else(|| vec!["lsp".into()]),
                env: sorted_env(binary.env.unwrap_or_default()),
            });
        }
        if let Some(path) = worktree.which(BINARY_NAME) {
            return Ok(Command {
                command: path,
                args: vec!["lsp".into()],
                env: worktree.shell_env(),
            });
        }
        Err(format!(
            "Weft: the `{BINARY_NAME}` binary was not found. Install it on your PATH, \
             or set its absolute path in Zed's settings: \
             \"lsp\": {{ \"{SERVER_ID}\": {{ \"binary\": {{ \"path\": \"/path/to/{BINARY_NAME}\" }} }} }}"
        ))
    }
}

/// Turns a settings map into Zed's env list, sorted by name so the command is
/// the same every time (a `HashMap` iterates in random order).
fn sorted_env(env: HashMap<String, String>) -> EnvVars {
    let mut env: EnvVars = env.into_iter().collect();
    env.sort();
    env
}

impl zed::Extension for WeftExtension {
    fn new() -> Self {
        Self { sidecar_path: None }
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &Worktree,
    ) -> Result<Command> {
        let command = self.resolve_lsp_command(worktree)?;
        self.sidecar_path = Some(command.command.clone());
        Ok(command)
    }

    fn language_server_initialization_options(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &Worktree,
    ) -> Result<Option<zed::serde_json::Value>> {
        Ok(LspSettings::for_worktree(SERVER_ID, worktree)?.initialization_options)
    }

    fn language_server_workspace_configuration(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &Worktree,
    ) -> Result<Option<zed::serde_json::Value>> {
        Ok(LspSettings::for_worktree(SERVER_ID, worktree)?.settings)
    }

    fn context_server_command(
        &mut self,
        _context_server_id: &ContextServerId,
        project: &Project,
    ) -> Result<Command> {
        // Zed only fills `command` for a `context_servers.weft` entry that has
        // its own command, and current Zed then runs that entry itself without
        // asking the extension; honouring it here costs nothing and covers
        // older hosts.
        let command = ContextServerSettings::for_project(SERVER_ID, project)?.command;
        if let Some(command) = command
            && let Some(path) = command.path
        {
            return Ok(Command {
                command: path,
                args: command.arguments.unwrap_or_else(|| vec!["mcp".into()]),
                env: sorted_env(command.env.unwrap_or_default()),
            });
        }
        if let Some(path) = &self.sidecar_path {
            return Ok(Command {
                command: path.clone(),
                args: vec!["mcp".into()],
                env: Vec::new(),
            });
        }
        Err(format!(
            "Weft: no `{BINARY_NAME}` binary known for the context server yet. Open a Markdown \
             file so the language server can find `{BINARY_NAME}` on your PATH (then restart the \
             context server), or add to Zed's settings: \
             \"context_servers\": {{ \"{SERVER_ID}\": {{ \"command\": \"/path/to/{BINARY_NAME}\", \"args\": [\"mcp\"] }} }}"
        ))
    }
}

zed::register_extension!(WeftExtension);
