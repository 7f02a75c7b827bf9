//! The Weft Zed extension: finds the `weft` sidecar and registers it as the
//! Markdown language server (`weft lsp`), as an MCP context server
//! (`weft mcp`) and behind the `/backlinks`, `/graph` and `/related` slash
//! commands (`weft query …`). All vault work happens in the sidecar; this
//! crate resolves the binary, passes the user's settings through, and turns
//! the sidecar's answers into what Zed shows.

mod context_server;
mod release;
mod sidecar;
mod slash_commands;
mod verify;

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use zed_extension_api::{
    self as zed, Command, ContextServerConfiguration, ContextServerId, EnvVars, LanguageServerId,
    Project, Result, SlashCommand, SlashCommandArgumentCompletion, SlashCommandOutput, Worktree,
    settings::{CommandSettings, ContextServerSettings, LspSettings},
};

use crate::sidecar::{BINARY_NAME, Downloads};
use crate::slash_commands::Request;

/// The key of the language server and the context server in `extension.toml`,
/// hence of the user's `lsp.weft` and `context_servers.weft` settings.
const SERVER_ID: &str = "weft";

struct WeftExtension {
    /// Zed calls the slash command exports through `&self`; the state they
    /// share with the others sits behind a lock (never contended: the
    /// extension runs on one thread).
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The sidecar path last resolved for a worktree. The context server and
    /// argument completion get no worktree (no `which`, no `lsp` settings),
    /// so they reuse this one.
    sidecar_path: Option<String>,
    /// The root of the last worktree seen. Argument completion gets no
    /// worktree either, and the vault is the worktree.
    vault_root: Option<String>,
    downloads: Downloads,
}

impl WeftExtension {
    fn state(&self) -> MutexGuard<'_, State> {
        // A panic cannot leave `State` half-updated in a way that matters.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl State {
    /// The sidecar for a worktree: the user's `lsp.weft.binary.path`, then
    /// `weft` on the worktree's `PATH`, then a downloaded release. Remembers
    /// the binary and the worktree for the exports that get no worktree.
    fn sidecar_for_worktree(
        &mut self,
        worktree: &Worktree,
        binary: Option<&CommandSettings>,
        server: Option<&LanguageServerId>,
    ) -> Result<String> {
        self.vault_root = Some(worktree.root_path());
        let path = match binary.and_then(|binary| binary.path.clone()) {
            Some(path) => path,
            None => match worktree.which(BINARY_NAME) {
                Some(path) => path,
                None => self.downloads.binary(server)?,
            },
        };
        self.sidecar_path = Some(path.clone());
        Ok(path)
    }

    /// The sidecar when there is no worktree to ask: the one resolved for a
    /// worktree earlier, else a downloaded release.
    fn sidecar_without_worktree(&mut self) -> Result<String> {
        match &self.sidecar_path {
            Some(path) => Ok(path.clone()),
            None => self.downloads.binary(None),
        }
    }
}

/// The worktree's shell environment with the user's `env` setting on top,
/// which replaces a variable of the same name. The user's variables come in
/// name order so the command is the same every time (a `HashMap` iterates in
/// random order).
fn merge_env(mut env: EnvVars, overrides: Option<HashMap<String, String>>) -> EnvVars {
    let mut overrides: Vec<(String, String)> = overrides.unwrap_or_default().into_iter().collect();
    overrides.sort();
    for (name, value) in overrides {
        match env.iter_mut().find(|(existing, _)| *existing == name) {
            Some(slot) => slot.1 = value,
            None => env.push((name, value)),
        }
    }
    env
}

impl zed::Extension for WeftExtension {
    fn new() -> Self {
        WeftExtension {
            state: Mutex::new(State::default()),
        }
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &Worktree,
    ) -> Result<Command> {
        let binary = LspSettings::for_worktree(SERVER_ID, worktree)?.binary;
        let path = self.state().sidecar_for_worktree(
            worktree,
            binary.as_ref(),
            Some(language_server_id),
        )?;
        let (arguments, env) = binary
            .map(|binary| (binary.arguments, binary.env))
            .unwrap_or_default();
        Ok(Command {
            command: path,
            args: arguments.unwrap_or_else(|| vec!["lsp".into()]),
            env: merge_env(worktree.shell_env(), env),
        })
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
        let settings = ContextServerSettings::for_project(SERVER_ID, project)?;
        // Zed fills `command` only for a `context_servers.weft` entry with a
        // command of its own, which current Zed runs without asking the
        // extension; honouring it here covers older versions.
        if let Some(command) = settings.command
            && let Some(path) = command.path
        {
            return Ok(Command {
                command: path,
                args: command.arguments.unwrap_or_else(|| vec!["mcp".into()]),
                env: merge_env(Vec::new(), command.env),
            });
        }
        let settings = context_server::Settings::from_json(settings.settings)?;
        let binary = match &settings.path {
            Some(path) => path.clone(),
            None => self.state().sidecar_without_worktree()?,
        };
        Ok(context_server::command(binary, &settings))
    }

    fn context_server_configuration(
        &mut self,
        _context_server_id: &ContextServerId,
        _project: &Project,
    ) -> Result<Option<ContextServerConfiguration>> {
        context_server::configuration().map(Some)
    }

    fn complete_slash_command_argument(
        &self,
        _command: SlashCommand,
        args: Vec<String>,
    ) -> Result<Vec<SlashCommandArgumentCompletion>> {
        let mut state = self.state();
        // Zed passes no worktree here: the vault is the last worktree seen.
        let Some(vault) = state.vault_root.clone() else {
            return Err(
                "Weft: open a Markdown file of your vault (or run a Weft slash command once) \
                 so that Weft knows the vault; then completion lists its notes."
                    .to_string(),
            );
        };
        let binary = state.sidecar_without_worktree()?;
        slash_commands::complete(&binary, &vault, &args)
    }

    fn run_slash_command(
        &self,
        command: SlashCommand,
        args: Vec<String>,
        worktree: Option<&Worktree>,
    ) -> Result<SlashCommandOutput> {
        let request = Request::parse(&command.name, &args)?;
        let Some(worktree) = worktree else {
            return Err(format!(
                "Weft: /{} needs a project folder (the vault); open one first.",
                command.name
            ));
        };
        let binary = LspSettings::for_worktree(SERVER_ID, worktree)?.binary;
        let binary = self
            .state()
            .sidecar_for_worktree(worktree, binary.as_ref(), None)?;
        slash_commands::run(&binary, &worktree.root_path(), &request)
    }
}

zed::register_extension!(WeftExtension);
