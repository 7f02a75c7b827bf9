//! Zed's side of the extension's imports, as Zed implements them for API
//! 0.6/0.7 (`since_v0_6_0.rs` in Zed's `extension_host`): settings in Zed's
//! shapes, GitHub and downloads from the test's fakes, paths confined to the
//! work directory, and `run-command` spawning the real process once the
//! manifest declares it and the user grants it.

use std::path::{Path, PathBuf};

use wasmtime::component::Resource;
use wasmtime_wasi::{WasiCtxView, WasiView};

use super::bindings::zed::extension::{
    common, context_server, dap, github, http_client, lsp, nodejs, platform, process, slash_command,
};
use super::bindings::{
    DownloadedFileType, ExtensionImports, HostKeyValueStore, HostProject, HostWorktree,
    LanguageServerInstallationStatus, SettingsLocation,
};
use super::worktree::{FakeKeyValueStore, FakeProject, FakeResponseStream, FakeWorktree};
use super::{HostState, Status};

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl HostState {
    /// Zed's `writeable_path_from_extension`: inside the work directory or
    /// refused.
    fn writeable_path(&self, path: &str) -> Result<PathBuf, String> {
        let joined = super::normalize(&self.work_dir.join(path));
        if joined.starts_with(&self.work_dir) {
            Ok(joined)
        } else {
            Err(format!("cannot write to path {}", joined.display()))
        }
    }

    fn download(&mut self, url: &str, path: &str, kind: DownloadedFileType) -> Result<(), String> {
        // Zed checks the user's grants; the manifest's `download_file`
        // entries are checked too, so a user who grants exactly what the
        // manifest declares is known to be able to download.
        if !self.setup.granted.iter().any(|c| c.allows_download(url)) {
            return Err(format!(
                "capability for download_file {url} is not granted by the extension host"
            ));
        }
        if !super::manifest()
            .capabilities
            .iter()
            .any(|c| c.allows_download(url))
        {
            return Err(format!(
                "capability for download_file {url} was not listed in the extension manifest"
            ));
        }
        let destination = self.writeable_path(path)?;
        self.downloads.push(url.to_string());
        self.download_kinds.push(format!("{kind:?}"));
        let release = self.setup.release.as_ref().map_err(Clone::clone)?;
        let asset = release
            .asset_at(url)
            .ok_or_else(|| "download failed with status 404 Not Found".to_string())?;
        super::github::unpack(&asset.bytes, kind, &destination)
    }

    fn run(&mut self, command: process::Command) -> Result<process::Output, String> {
        let manifest = super::manifest();
        if !manifest
            .capabilities
            .iter()
            .any(|c| c.allows_exec(&command.command, &command.args))
        {
            return Err(format!(
                "capability for process:exec {} {:?} was not listed in the extension manifest",
                command.command, command.args
            ));
        }
        if !self
            .setup
            .granted
            .iter()
            .any(|c| c.allows_exec(&command.command, &command.args))
        {
            return Err(format!(
                "capability for process:exec {} {:?} is not granted by the extension host",
                command.command, command.args
            ));
        }
        self.executions
            .push((command.command.clone(), command.args.clone()));
        // As Zed: the command as given (no work-directory resolution here),
        // Zed's own environment plus the command's.
        let mut process = std::process::Command::new(&command.command);
        if let Some(zed_env) = &self.setup.process_env {
            process.env_clear().envs(zed_env.iter().cloned());
        }
        let output = process
            .args(&command.args)
            .envs(command.env)
            .output()
            .map_err(|e| e.to_string())?;
        Ok(process::Output {
            status: output.status.code(),
            stdout: output.stdout,
            stderr: output.stderr,
        })
    }

    /// `get-settings` in the shapes Zed serialises: `LspSettings` and
    /// `ContextServerSettings` of `zed_extension_api::settings`.
    fn settings(&self, category: &str, key: Option<&str>) -> Result<String, String> {
        let user = &self.setup.settings;
        let entry = |section: &str| {
            key.and_then(|key| user.get(section)?.get(key))
                .cloned()
                .unwrap_or(serde_json::Value::Null)
        };
        let value = match category {
            "language" => serde_json::json!({ "tab_size": 4 }),
            "lsp" => {
                let entry = entry("lsp");
                let binary = entry.get("binary").map(|binary| {
                    serde_json::json!({
                        "path": binary.get("path"),
                        "arguments": binary.get("arguments"),
                        "env": binary.get("env"),
                    })
                });
                serde_json::json!({
                    "binary": binary,
                    "initialization_options": entry.get("initialization_options"),
                    "settings": entry.get("settings"),
                })
            }
            "context_servers" => {
                let entry = entry("context_servers");
                // A custom entry (`"command": "/path", "args": […]`) reaches
                // the extension as `command` with `args` always present.
                let command = entry.get("command").and_then(|c| c.as_str()).map(|path| {
                    serde_json::json!({
                        "path": path,
                        "arguments": entry.get("args").cloned().unwrap_or(serde_json::json!([])),
                        "env": entry.get("env"),
                    })
                });
                serde_json::json!({ "command": command, "settings": entry.get("settings") })
            }
            other => return Err(format!("Unknown settings category: {other}")),
        };
        Ok(value.to_string())
    }
}

impl HostWorktree for HostState {
    fn id(&mut self, worktree: Resource<FakeWorktree>) -> wasmtime::Result<u64> {
        Ok(self.table.get(&worktree)?.id)
    }

    fn root_path(&mut self, worktree: Resource<FakeWorktree>) -> wasmtime::Result<String> {
        Ok(self.table.get(&worktree)?.root.display().to_string())
    }

    fn read_text_file(
        &mut self,
        worktree: Resource<FakeWorktree>,
        path: String,
    ) -> wasmtime::Result<Result<String, String>> {
        Ok(self.table.get(&worktree)?.read_text_file(&path))
    }

    fn which(
        &mut self,
        worktree: Resource<FakeWorktree>,
        binary_name: String,
    ) -> wasmtime::Result<Option<String>> {
        Ok(self.table.get(&worktree)?.which(&binary_name))
    }

    fn shell_env(
        &mut self,
        worktree: Resource<FakeWorktree>,
    ) -> wasmtime::Result<Vec<(String, String)>> {
        Ok(self.table.get(&worktree)?.shell_env.clone())
    }

    fn drop(&mut self, _worktree: Resource<FakeWorktree>) -> wasmtime::Result<()> {
        // Only borrows are handed out; the host frees the slot after the call.
        Ok(())
    }
}

impl HostProject for HostState {
    fn worktree_ids(&mut self, project: Resource<FakeProject>) -> wasmtime::Result<Vec<u64>> {
        Ok(self.table.get(&project)?.worktree_ids.clone())
    }

    fn drop(&mut self, _project: Resource<FakeProject>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl HostKeyValueStore for HostState {
    fn insert(
        &mut self,
        _store: Resource<FakeKeyValueStore>,
        _key: String,
        _value: String,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(Err("the test host keeps no docs database".into()))
    }

    fn drop(&mut self, _store: Resource<FakeKeyValueStore>) -> wasmtime::Result<()> {
        Ok(())
    }
}

impl ExtensionImports for HostState {
    fn get_settings(
        &mut self,
        _location: Option<SettingsLocation>,
        category: String,
        key: Option<String>,
    ) -> wasmtime::Result<Result<String, String>> {
        Ok(self.settings(&category, key.as_deref()))
    }

    fn download_file(
        &mut self,
        url: String,
        file_path: String,
        file_type: DownloadedFileType,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(self.download(&url, &file_path, file_type))
    }

    fn make_file_executable(&mut self, filepath: String) -> wasmtime::Result<Result<(), String>> {
        Ok(self
            .writeable_path(&filepath)
            .and_then(|path| make_executable(&path)))
    }

    fn set_language_server_installation_status(
        &mut self,
        language_server_name: String,
        status: LanguageServerInstallationStatus,
    ) -> wasmtime::Result<()> {
        let status = match status {
            LanguageServerInstallationStatus::None => Status::None,
            LanguageServerInstallationStatus::Downloading => Status::Downloading,
            LanguageServerInstallationStatus::CheckingForUpdate => Status::CheckingForUpdate,
            LanguageServerInstallationStatus::Failed(error) => Status::Failed(error),
        };
        self.statuses.push((language_server_name, status));
        Ok(())
    }
}

fn make_executable(path: &Path) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("failed to set permissions for path {path:?}: {e}"))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

impl github::Host for HostState {
    fn latest_github_release(
        &mut self,
        repo: String,
        _options: github::GithubReleaseOptions,
    ) -> wasmtime::Result<Result<github::GithubRelease, String>> {
        self.release_checks.push(repo.clone());
        Ok(match &self.setup.release {
            Ok(release) if release.repo == repo => Ok(github::GithubRelease {
                version: release.tag.clone(),
                assets: release
                    .assets
                    .iter()
                    .map(|asset| github::GithubReleaseAsset {
                        name: asset.name.clone(),
                        download_url: release.download_url(&asset.name),
                    })
                    .collect(),
            }),
            Ok(_) => Err(format!("no release found for {repo}")),
            Err(error) => Err(error.clone()),
        })
    }

    fn github_release_by_tag_name(
        &mut self,
        repo: String,
        tag: String,
    ) -> wasmtime::Result<Result<github::GithubRelease, String>> {
        let latest = self.latest_github_release(
            repo,
            github::GithubReleaseOptions {
                require_assets: false,
                pre_release: true,
            },
        )?;
        Ok(latest.and_then(|release| {
            if release.version == tag {
                Ok(release)
            } else {
                Err(format!("no release with tag {tag}"))
            }
        }))
    }
}

impl platform::Host for HostState {
    fn current_platform(&mut self) -> wasmtime::Result<(platform::Os, platform::Architecture)> {
        Ok(self.setup.platform)
    }
}

impl process::Host for HostState {
    fn run_command(
        &mut self,
        command: process::Command,
    ) -> wasmtime::Result<Result<process::Output, String>> {
        Ok(self.run(command))
    }
}

impl http_client::Host for HostState {
    fn fetch(
        &mut self,
        request: http_client::HttpRequest,
    ) -> wasmtime::Result<Result<http_client::HttpResponse, String>> {
        Ok(Err(format!(
            "the test host has no network ({})",
            request.url
        )))
    }

    fn fetch_stream(
        &mut self,
        request: http_client::HttpRequest,
    ) -> wasmtime::Result<Result<Resource<FakeResponseStream>, String>> {
        Ok(Err(format!(
            "the test host has no network ({})",
            request.url
        )))
    }
}

impl http_client::HostHttpResponseStream for HostState {
    fn next_chunk(
        &mut self,
        _stream: Resource<FakeResponseStream>,
    ) -> wasmtime::Result<Result<Option<Vec<u8>>, String>> {
        Ok(Ok(None))
    }

    fn drop(&mut self, stream: Resource<FakeResponseStream>) -> wasmtime::Result<()> {
        self.table.delete(stream)?;
        Ok(())
    }
}

impl nodejs::Host for HostState {
    fn node_binary_path(&mut self) -> wasmtime::Result<Result<String, String>> {
        Ok(Err("the test host has no Node.js".into()))
    }

    fn npm_package_latest_version(
        &mut self,
        _package: String,
    ) -> wasmtime::Result<Result<String, String>> {
        Ok(Err("the test host has no npm".into()))
    }

    fn npm_package_installed_version(
        &mut self,
        _package: String,
    ) -> wasmtime::Result<Result<Option<String>, String>> {
        Ok(Ok(None))
    }

    fn npm_install_package(
        &mut self,
        _package: String,
        _version: String,
    ) -> wasmtime::Result<Result<(), String>> {
        Ok(Err("the test host has no npm".into()))
    }
}

impl dap::Host for HostState {
    fn resolve_tcp_template(
        &mut self,
        _template: dap::TcpArgumentsTemplate,
    ) -> wasmtime::Result<Result<dap::TcpArguments, String>> {
        Ok(Err("the test host runs no debug adapters".into()))
    }
}

impl common::Host for HostState {}
impl lsp::Host for HostState {}
impl slash_command::Host for HostState {}
impl context_server::Host for HostState {}
