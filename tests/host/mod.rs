//! A Zed extension host for tests: loads the extension component that
//! `cargo build --target wasm32-wasip2` built, with wasmtime and bindings
//! generated from `zed_extension_api` 0.7.0's own WIT (`since_v0.6.0`), and
//! calls its exports the way Zed does. Zed's side is faked where it needs
//! Zed (worktree, project, settings, GitHub) and real where it can be: the
//! work directory is a folder, `download_file` unpacks real archives into
//! it, and `process::run-command` really runs the command after Zed's
//! capability checks against `extension.toml`.
//!
//! Knows nothing of Weft's behaviour: the tests assert that.

pub mod github;
mod imports;
pub mod manifest;
pub mod worktree;

use std::marker::PhantomData;
use std::path::{Component as PathComponent, Path, PathBuf};
use std::sync::OnceLock;

use wasmtime::component::{Component, HasSelf, Linker, Resource, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder};

pub use self::github::FakeRelease;
pub use self::manifest::{Capability, Manifest};
pub use self::worktree::{FakeProject, FakeWorktree};

/// Types and traits `bindgen!` generates from the WIT (see tests/build.rs).
mod bindings {
    include!(concat!(env!("OUT_DIR"), "/zed_bindings.rs"));
}

pub use bindings::DownloadedFileType;
use bindings::Extension;
pub use bindings::zed::extension::context_server::ContextServerConfiguration;
pub use bindings::zed::extension::platform::{Architecture, Os};
pub use bindings::zed::extension::slash_command::{
    SlashCommand, SlashCommandArgumentCompletion, SlashCommandOutput,
};

/// The API version Zed reads from the component's `zed:api-version`
/// section; 0.7.0 binds `since_v0.6.0`.
pub const API_VERSION: [u16; 3] = [0, 7, 0];

/// The repository root (the folder with `extension.toml`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the repository")
        .to_path_buf()
}

/// The extension's manifest, read once.
pub fn manifest() -> &'static Manifest {
    static MANIFEST: OnceLock<Manifest> = OnceLock::new();
    MANIFEST.get_or_init(|| Manifest::read(&repo_root().join("extension.toml")))
}

/// The wasm Zed's dev-extension install builds:
/// `$CARGO_TARGET_DIR/wasm32-wasip2/debug/weft_extension.wasm` (or
/// `WEFT_EXTENSION_WASM`).
pub fn wasm_path() -> PathBuf {
    if let Some(path) = std::env::var_os("WEFT_EXTENSION_WASM") {
        return PathBuf::from(path);
    }
    let target_dir = match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        // This test runs from <target>/debug/deps/.
        _ => std::env::current_exe()
            .expect("test executable path")
            .ancestors()
            .nth(3)
            .expect("<target>/debug/deps")
            .to_path_buf(),
    };
    target_dir.join("wasm32-wasip2/debug/weft_extension.wasm")
}

/// The wasm's bytes; a missing build fails with how to make it.
pub fn wasm_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let path = wasm_path();
        std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read the extension {} ({e}): build it first with \
                 `cargo build --target wasm32-wasip2` in the repository root \
                 (scripts/test.sh does), with the same CARGO_TARGET_DIR",
                path.display()
            )
        })
    })
}

/// The engine, the compiled component and the linker: compiling takes
/// seconds, so once per test binary.
fn runtime() -> &'static (Engine, Component, Linker<HostState>) {
    static RUNTIME: OnceLock<(Engine, Component, Linker<HostState>)> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let mut config = Config::new();
        config.wasm_component_model(true);
        // The tests run the extension briefly: compiling it quickly (no
        // cranelift optimisations, a debug-built cranelift) matters more.
        config.cranelift_opt_level(wasmtime::OptLevel::None);
        let engine = Engine::new(&config).expect("wasmtime engine");
        let component =
            Component::from_binary(&engine, wasm_bytes()).expect("the extension is a component");
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).expect("link WASI");
        Extension::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |state| state)
            .expect("link Zed's imports");
        (engine, component, linker)
    })
}

/// The custom section Zed reads to pick the API version
/// (`parse_wasm_extension_version`): three big-endian u16.
pub fn api_version(wasm: &[u8]) -> Option<[u16; 3]> {
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let Ok(wasmparser::Payload::CustomSection(section)) = payload
            && section.name() == "zed:api-version"
        {
            let data = section.data();
            if data.len() == 6 {
                let part = |i: usize| u16::from_be_bytes([data[i], data[i + 1]]);
                return Some([part(0), part(2), part(4)]);
            }
        }
    }
    None
}

/// What a test sets up on Zed's side before the extension starts.
#[derive(Clone, Debug)]
pub struct ZedSetup {
    /// The user's settings as in `settings.json`: `{"lsp": {"weft": …},
    /// "context_servers": {"weft": …}}`.
    pub settings: serde_json::Value,
    /// What `latest_github_release` answers.
    pub release: Result<FakeRelease, String>,
    /// What `current_platform` answers; the machine's own by default, so a
    /// downloaded binary runs.
    pub platform: (Os, Architecture),
    /// The user's `granted_extension_capabilities` (Zed's defaults grant
    /// everything the manifest asks for).
    pub granted: Vec<Capability>,
    /// Zed's own environment, which the processes the extension runs
    /// inherit (`process::run-command`); `None` stands for this process's.
    pub process_env: Option<Vec<(String, String)>>,
}

impl Default for ZedSetup {
    fn default() -> Self {
        ZedSetup {
            settings: serde_json::json!({}),
            release: Err("the test gave GitHub no release".into()),
            platform: (native_os(), native_arch()),
            granted: Capability::zed_defaults(),
            process_env: None,
        }
    }
}

fn native_os() -> Os {
    match std::env::consts::OS {
        "macos" => Os::Mac,
        "windows" => Os::Windows,
        _ => Os::Linux,
    }
}

fn native_arch() -> Architecture {
    match std::env::consts::ARCH {
        "aarch64" => Architecture::Aarch64,
        "x86" => Architecture::X86,
        _ => Architecture::X8664,
    }
}

/// A language server installation status as Zed records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    None,
    CheckingForUpdate,
    Downloading,
    Failed(String),
}

/// A command as Zed receives it after resolving the path against the
/// extension's work directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedCommand {
    pub command: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Everything Zed's side of the calls sees and records.
pub struct HostState {
    table: ResourceTable,
    wasi: WasiCtx,
    pub work_dir: PathBuf,
    pub setup: ZedSetup,
    /// `set_language_server_installation_status` calls, in order.
    pub statuses: Vec<(String, Status)>,
    /// `latest_github_release` calls (the repository asked for).
    pub release_checks: Vec<String>,
    /// `download_file` calls that reached the network (the URL).
    pub downloads: Vec<String>,
    /// How each download was to be unpacked (`GzipTar`, `Zip`, …).
    pub download_kinds: Vec<String>,
    /// `process::run-command` calls that passed the capability checks.
    pub executions: Vec<(String, Vec<String>)>,
}

/// One loaded extension instance (Zed keeps one per extension).
pub struct ExtensionHost {
    store: Store<HostState>,
    extension: Extension,
}

impl ExtensionHost {
    /// Instantiates the extension with `work_dir` as its work directory and
    /// calls `init-extension`, as Zed does on load.
    pub fn start(work_dir: &Path, setup: ZedSetup) -> ExtensionHost {
        let (engine, component, linker) = runtime();
        std::fs::create_dir_all(work_dir).expect("create the work directory");
        let work_dir = work_dir.canonicalize().expect("work directory path");
        let work_dir_str = work_dir.to_str().expect("UTF-8 work directory");
        // Zed preopens the work directory as `.` and under its own path,
        // and sets PWD to it: the extension's start-up reads PWD.
        let wasi = WasiCtxBuilder::new()
            .inherit_stderr()
            .preopened_dir(&work_dir, ".", FsPerms::ReadWrite)
            .expect("preopen .")
            .preopened_dir(&work_dir, work_dir_str, FsPerms::ReadWrite)
            .expect("preopen the work directory")
            .env("PWD", work_dir_str)
            .env("RUST_BACKTRACE", "full")
            .build();
        let state = HostState {
            table: ResourceTable::new(),
            wasi,
            work_dir: work_dir.clone(),
            setup,
            statuses: Vec::new(),
            release_checks: Vec::new(),
            downloads: Vec::new(),
            download_kinds: Vec::new(),
            executions: Vec::new(),
        };
        let mut store = Store::new(engine, state);
        let extension = Extension::instantiate(&mut store, component, linker).expect("instantiate");
        extension
            .call_init_extension(&mut store)
            .expect("init-extension");
        ExtensionHost { store, extension }
    }

    pub fn state(&self) -> &HostState {
        self.store.data()
    }

    /// Changes the user's settings, as editing `settings.json` does.
    pub fn set_settings(&mut self, settings: serde_json::Value) {
        self.store.data_mut().setup.settings = settings;
    }

    pub fn language_server_command(
        &mut self,
        worktree: &FakeWorktree,
    ) -> Result<ResolvedCommand, String> {
        let (resource, lent) = self.lend(worktree.clone());
        let command = self
            .extension
            .call_language_server_command(&mut self.store, "weft", resource)
            .expect("language-server-command traps");
        self.release(Some(lent));
        command.map(|command| self.resolve(command))
    }

    pub fn initialization_options(
        &mut self,
        worktree: &FakeWorktree,
    ) -> Result<Option<serde_json::Value>, String> {
        let (resource, lent) = self.lend(worktree.clone());
        let options = self
            .extension
            .call_language_server_initialization_options(&mut self.store, "weft", resource)
            .expect("language-server-initialization-options traps");
        self.release(Some(lent));
        options.map(|json| json.map(|json| parse_json(&json)))
    }

    pub fn workspace_configuration(
        &mut self,
        worktree: &FakeWorktree,
    ) -> Result<Option<serde_json::Value>, String> {
        let (resource, lent) = self.lend(worktree.clone());
        let configuration = self
            .extension
            .call_language_server_workspace_configuration(&mut self.store, "weft", resource)
            .expect("language-server-workspace-configuration traps");
        self.release(Some(lent));
        configuration.map(|json| json.map(|json| parse_json(&json)))
    }

    pub fn context_server_command(
        &mut self,
        project: &FakeProject,
    ) -> Result<ResolvedCommand, String> {
        let (resource, lent) = self.lend(project.clone());
        let command = self
            .extension
            .call_context_server_command(&mut self.store, "weft", resource)
            .expect("context-server-command traps");
        self.release(Some(lent));
        command.map(|command| self.resolve(command))
    }

    pub fn context_server_configuration(
        &mut self,
        project: &FakeProject,
    ) -> Result<Option<ContextServerConfiguration>, String> {
        let (resource, lent) = self.lend(project.clone());
        let configuration = self
            .extension
            .call_context_server_configuration(&mut self.store, "weft", resource)
            .expect("context-server-configuration traps");
        self.release(Some(lent));
        configuration
    }

    /// Runs `/name args…` as Zed's text thread does: the command record comes
    /// from the manifest, the worktree is the project's first one (or none).
    pub fn run_slash_command(
        &mut self,
        name: &str,
        args: &[&str],
        worktree: Option<&FakeWorktree>,
    ) -> Result<SlashCommandOutput, String> {
        let command = slash_command(name);
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        let (resource, lent) = match worktree {
            Some(worktree) => {
                let (resource, lent) = self.lend(worktree.clone());
                (Some(resource), Some(lent))
            }
            None => (None, None),
        };
        let output = self
            .extension
            .call_run_slash_command(&mut self.store, &command, &args, resource)
            .expect("run-slash-command traps");
        self.release(lent);
        output
    }

    pub fn complete_slash_command_argument(
        &mut self,
        name: &str,
        args: &[&str],
    ) -> Result<Vec<SlashCommandArgumentCompletion>, String> {
        let command = slash_command(name);
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        self.extension
            .call_complete_slash_command_argument(&mut self.store, &command, &args)
            .expect("complete-slash-command-argument traps")
    }

    /// Puts a worktree or project in the table for one call.
    fn lend<T: Send + 'static>(&mut self, value: T) -> (Resource<T>, Lent<T>) {
        let resource = self
            .store
            .data_mut()
            .table
            .push(value)
            .expect("push resource");
        let lent = Lent(resource.rep(), PhantomData);
        (resource, lent)
    }

    /// Zed lends a resource for one call; it is gone after it.
    fn release<T: 'static>(&mut self, lent: Option<Lent<T>>) {
        if let Some(Lent(rep, _)) = lent {
            self.store
                .data_mut()
                .table
                .delete(Resource::<T>::new_own(rep))
                .expect("the lent resource is still in the table");
        }
    }

    fn resolve(&self, command: bindings::Command) -> ResolvedCommand {
        ResolvedCommand {
            command: path_from_extension(&self.state().work_dir, &command.command),
            args: command.args,
            env: command.env,
        }
    }
}

/// The table slot of a resource lent for one call.
struct Lent<T>(u32, PhantomData<T>);

/// The slash command record Zed builds from the manifest entry.
fn slash_command(name: &str) -> SlashCommand {
    let entry = manifest()
        .slash_commands
        .get(name)
        .unwrap_or_else(|| panic!("extension.toml declares no slash command {name}"));
    SlashCommand {
        name: name.to_string(),
        description: entry.description.clone(),
        tooltip_text: entry.description.clone(),
        requires_argument: entry.requires_argument,
    }
}

fn parse_json(json: &str) -> serde_json::Value {
    serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("the extension sent invalid JSON ({e}): {json}"))
}

/// Zed's `path_from_extension`, applied to the language and context server
/// commands: the command joined onto the work directory (an absolute
/// command stays as it is), normalised. `PATH` is not searched.
pub fn path_from_extension(work_dir: &Path, command: &str) -> PathBuf {
    normalize(&work_dir.join(command))
}

/// Removes `.` and `..` without touching the disk (Zed's `normalize_path`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            PathComponent::CurDir => {}
            PathComponent::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_resolve_against_the_work_directory_not_path() {
        let work = Path::new("/zed/extensions/work/weft");
        assert_eq!(
            path_from_extension(work, "weft-0.2.0/./weft"),
            Path::new("/zed/extensions/work/weft/weft-0.2.0/weft")
        );
        assert_eq!(
            path_from_extension(work, "weft"),
            Path::new("/zed/extensions/work/weft/weft")
        );
        assert_eq!(
            path_from_extension(work, "/usr/bin/weft"),
            Path::new("/usr/bin/weft")
        );
    }
}
