//! The index daemon as faces use it, with the built binary: faces of one
//! vault share one daemon; a daemon killed mid-session is replaced and the
//! sessions replayed (open buffers included); stale sockets are cleared;
//! two builds never meet; `--no-daemon` and unsafe runtime folders run
//! in-process; an idle daemon leaves; faces starting at once start one.
//! Each test has its own runtime folder and stops the daemons it started.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{TempVault, weft_bin};

const VAULT: &str = "
//- /a.md
# A
See [[b]].
//- /b.md
# B
";

const WAIT: Duration = Duration::from_secs(60);

/// A runtime folder of the test's own; stops its daemons when dropped.
struct Runtime {
    dir: tempfile::TempDir,
    /// `WEFT_DAEMON_IDLE` for the faces.
    idle: &'static str,
}

impl Runtime {
    fn new() -> Runtime {
        Runtime {
            dir: tempfile::tempdir().expect("runtime dir"),
            idle: "2",
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("run")
    }

    fn command(&self, bin: &Path) -> Command {
        let mut command = Command::new(bin);
        command
            .env("WEFT_RUNTIME_DIR", self.path())
            .env("WEFT_DAEMON_IDLE", self.idle)
            .env_remove("WEFT_NO_DAEMON");
        command
    }

    fn files(&self, ext: &str) -> Vec<PathBuf> {
        let Ok(dir) = std::fs::read_dir(self.path()) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        out.sort();
        out
    }

    fn pids(&self) -> Vec<u32> {
        self.files("pid")
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
            .collect()
    }

    fn kill_daemons(&self, signal: &str) {
        for pid in self.pids() {
            let _ = Command::new("kill")
                .args([signal, &pid.to_string()])
                .status();
        }
    }

    fn query(&self, bin: &Path, vault: &Path, args: &[&str]) -> std::process::Output {
        self.command(bin)
            .args(["query"])
            .args(args)
            .arg("--vault")
            .arg(vault)
            .output()
            .expect("run weft query")
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.kill_daemons("-KILL");
    }
}

/// A face speaking JSON-RPC over its stdio: MCP (lines) or LSP (headers).
struct Face {
    child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    /// Notifications from the server, as they came.
    notifications: Vec<Value>,
    lsp: bool,
    next: u64,
}

impl Face {
    fn start(mut command: Command, lsp: bool) -> Face {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the face");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let body = if lsp {
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("Content-Length:") {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    body
                } else {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    line.into_bytes()
                };
                if let Ok(message) = serde_json::from_slice(&body)
                    && tx.send(message).is_err()
                {
                    return;
                }
            }
        });
        Face {
            child,
            stdin,
            messages,
            notifications: Vec::new(),
            lsp,
            next: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let bytes = if self.lsp {
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        } else {
            format!("{body}\n")
        };
        self.stdin.write_all(bytes.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The whole response to a request (answering the server's own
    /// requests meanwhile).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    fn response(&mut self, id: u64) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to request {id}"));
            if message.get("method").is_some() {
                self.server_message(message);
                continue;
            }
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Answers the server's request; keeps a notification.
    fn server_message(&mut self, message: Value) {
        match message.get("id") {
            Some(server_id) => {
                let server_id = server_id.clone();
                self.send(&json!({"jsonrpc": "2.0", "id": server_id, "result": null}));
            }
            None => self.notifications.push(message),
        }
    }

    /// Waits for a notification matching `wanted` after the first `seen`.
    fn notification(&mut self, seen: usize, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(found) = self.notifications.iter().skip(seen).find(|n| wanted(n)) {
                return found.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no such notification"));
            if message.get("method").is_some() {
                self.server_message(message);
            }
        }
    }

    fn mcp(runtime: &Runtime, vault: &Path) -> Face {
        let mut command = runtime.command(&weft_bin());
        command.arg("mcp").arg("--vault").arg(vault);
        let mut face = Face::start(command, false);
        let init = face.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "daemon-test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        face.notify("notifications/initialized", json!({}));
        face
    }

    /// A tool call's result; retries while the vault is still indexing.
    fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let response =
                self.request("tools/call", json!({"name": name, "arguments": arguments}));
            let result = response["result"].clone();
            let text = result.to_string();
            let busy = text.contains("still being indexed") || response.get("error").is_some();
            if !busy || Instant::now() > deadline {
                return if response.get("error").is_some() {
                    response
                } else {
                    result
                };
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn lsp(runtime: &Runtime, vault: &Path) -> Face {
        let mut command = runtime.command(&weft_bin());
        command.arg("lsp");
        let mut face = Face::start(command, true);
        let uri = format!("file://{}", vault.display());
        let init = face.request(
            "initialize",
            json!({"processId": null, "rootUri": uri, "capabilities": {},
                   "workspaceFolders": [{"uri": uri, "name": "vault"}]}),
        );
        assert!(init.get("result").is_some(), "{init}");
        face.notify("initialized", json!({}));
        let deadline = Instant::now() + WAIT;
        while face.request("weft/status", Value::Null)["result"]["ready"] != true {
            assert!(Instant::now() < deadline, "the vault never got ready");
            std::thread::sleep(Duration::from_millis(50));
        }
        face
    }
}

impl Drop for Face {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether process `pid` has ended, its files closed: every thread left is
/// a zombie (the main thread is one before the others have closed them).
fn gone(pid: u32) -> bool {
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

fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn faces_of_one_vault_share_one_daemon() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    let mut first = Face::mcp(&runtime, &root);
    let mut second = Face::mcp(&runtime, &root);
    let written = first.tool(
        "write_note",
        json!({"path": "c", "content": "# C\n[[b]]\n"}),
    );
    assert_ne!(written["isError"], true, "{written}");
    let links = second.tool("get_links", json!({"path": "b", "direction": "in"}));
    assert!(text_of(&links).contains("**C**"), "{links}");
    let out = runtime.query(&weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(`c`)"));
    assert_eq!(runtime.files("sock").len(), 1);
    assert_eq!(runtime.pids().len(), 1);
    let socket = &runtime.files("sock")[0];
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(socket).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(runtime.path()).unwrap().permissions(),
    );
    assert_eq!(dir_mode & 0o777, 0o700);
}

#[test]
fn a_killed_daemon_is_replaced_and_sessions_resume() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    let mut agent = Face::mcp(&runtime, &root);
    let mut editor = Face::lsp(&runtime, &root);
    // Unsaved text in the editor, typed as edits: a link to a note that
    // does not exist.
    let uri = format!("file://{}", root.join("a.md").display());
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1,
               "text": "# A\nSee [[b]].\n"}}),
    );
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 10}},
            "text": " And [[Typed only]]."}]}),
    );
    let unresolved = |agent: &mut Face| {
        let check = agent.tool("check_vault", json!({}));
        text_of(&check).contains("Typed only")
    };
    wait_until("the unsaved link reaches the agent", || {
        unresolved(&mut agent)
    });
    let before = runtime.pids();
    assert_eq!(before.len(), 1);
    let seen = editor.notifications.len();
    runtime.kill_daemons("-KILL");
    wait_until("the daemon is gone", || gone(before[0]));
    // The next request of each answers, right, after a short delay: the
    // faces start another daemon, replay their sessions and wait for the
    // vault to load again.
    let started = Instant::now();
    let links = agent.request(
        "tools/call",
        json!({"name": "get_links", "arguments": {"path": "b", "direction": "in"}}),
    );
    assert!(text_of(&links["result"]).contains("**A**"), "{links}");
    assert!(!text_of(&links["result"]).contains("Indexing"), "{links}");
    eprintln!(
        "agent answered {} ms after the daemon was gone",
        started.elapsed().as_millis()
    );
    let started = Instant::now();
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}),
    );
    assert!(hover["result"].to_string().contains("**B**"), "{hover}");
    eprintln!(
        "editor answered {} ms after the agent",
        started.elapsed().as_millis()
    );
    // The editor's buffer was replayed into the new daemon: its diagnostics
    // come back, and the agent sees the unsaved link again.
    let diagnostics = editor.notification(seen, |n| {
        n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri.as_str()
    });
    assert!(
        diagnostics.to_string().contains("Typed only"),
        "{diagnostics}"
    );
    wait_until("the editor's buffer is back", || unresolved(&mut agent));
    let after = runtime.pids();
    assert_eq!(after.len(), 1);
    assert_ne!(before, after, "a new daemon serves");
}

#[test]
fn a_daemon_whose_socket_or_vault_is_gone_leaves() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    // Not idle meanwhile.
    let mut runtime = Runtime::new();
    runtime.idle = "600";
    let mut face = Face::mcp(&runtime, &root);
    let socket = runtime.files("sock")[0].clone();
    let pid = runtime.pids()[0];
    // Its socket removed: it leaves even with a face attached (which
    // starts another).
    std::fs::remove_file(&socket).unwrap();
    wait_until("the daemon leaves", || gone(pid));
    let info = face.tool("vault_info", json!({}));
    assert_ne!(info["isError"], true, "{info}");
    let pid = runtime.pids()[0];
    drop(face);
    // Its vault removed.
    drop(vault);
    wait_until("the daemon leaves", || gone(pid));
    assert!(runtime.files("sock").is_empty());
    assert!(runtime.pids().is_empty());
    assert!(runtime.files("log").is_empty(), "nothing left behind");
}

#[test]
fn stale_sockets_are_cleared() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    // Learn the socket's name from a first daemon, then leave debris there.
    assert!(
        runtime
            .query(&weft_bin(), &root, &["backlinks", "b"])
            .status
            .success()
    );
    let socket = runtime.files("sock")[0].clone();
    runtime.kill_daemons("-KILL");
    wait_until("the daemon is gone", || {
        std::os::unix::net::UnixStream::connect(&socket).is_err()
    });
    // A socket nobody listens on (the killed daemon's) …
    assert!(socket.exists());
    let out = runtime.query(&weft_bin(), &root, &["backlinks", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "no fallback"
    );
    runtime.kill_daemons("-KILL");
    wait_until("the daemon is gone", || {
        std::os::unix::net::UnixStream::connect(&socket).is_err()
    });
    // … and a plain file.
    std::fs::remove_file(&socket).unwrap();
    std::fs::write(&socket, "junk").unwrap();
    let out = runtime.query(&weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "no fallback"
    );
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());
}

#[test]
fn two_builds_run_side_by_side() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    // Another build: the same program with a few bytes more.
    let copy_dir = tempfile::tempdir().unwrap();
    let other = copy_dir.path().join("weft");
    let mut bytes = std::fs::read(weft_bin()).unwrap();
    bytes.extend_from_slice(b"another build");
    std::fs::write(&other, bytes).unwrap();
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for bin in [weft_bin(), other.clone(), weft_bin(), other] {
        let out = runtime.query(&bin, &root, &["backlinks", "b"]);
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    }
    assert_eq!(runtime.files("sock").len(), 2);
    assert_eq!(runtime.pids().len(), 2);
}

#[test]
fn no_daemon_and_unsafe_runtime_folders_answer_in_process() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    let mut flag = runtime.command(&weft_bin());
    flag.args(["--no-daemon", "query", "backlinks", "b", "--vault"])
        .arg(&root);
    let mut env = runtime.command(&weft_bin());
    env.env("WEFT_NO_DAEMON", "1")
        .args(["query", "backlinks", "b", "--vault"])
        .arg(&root);
    for mut command in [flag, env] {
        let out = command.output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
    }
    assert!(!runtime.path().exists(), "no runtime folder, no socket");
    // An MCP server without the daemon.
    let mut command = runtime.command(&weft_bin());
    command.args(["--no-daemon", "mcp", "--vault"]).arg(&root);
    let mut face = Face::start(command, false);
    let init = face.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init.get("result").is_some());
    face.notify("notifications/initialized", json!({}));
    assert!(
        text_of(&face.tool("get_links", json!({"path": "b", "direction": "in"}))).contains("**A**")
    );
    assert!(!runtime.path().exists());
    // A runtime folder open to others is not used.
    std::fs::create_dir_all(runtime.path()).unwrap();
    std::fs::set_permissions(
        runtime.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = runtime.query(&weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("open to other users") && stderr.contains("in-process"),
        "{stderr}"
    );
    assert!(runtime.files("sock").is_empty());
}

#[test]
fn an_idle_daemon_leaves_and_faces_starting_at_once_start_one() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let runtime = Runtime::new();
    let queries: Vec<_> = (0..4)
        .map(|_| {
            runtime
                .command(&weft_bin())
                .args(["query", "backlinks", "b", "--vault"])
                .arg(&root)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for query in queries {
        let out = query.wait_with_output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    }
    assert_eq!(runtime.pids().len(), 1, "one daemon for four faces");
    let log = std::fs::read_to_string(&runtime.files("log")[0]).unwrap();
    assert_eq!(log.matches("serving").count(), 1, "{log}");
    // Idle for 2 s: it leaves, taking its socket and pid file along.
    wait_until("the idle daemon leaves", || {
        runtime.files("sock").is_empty()
    });
    assert!(runtime.pids().is_empty());
}
