//! A face (`weft lsp` or `weft mcp`) spoken to over its stdio as an
//! editor or an agent speaks to it: JSON-RPC framed for the protocol
//! (headers for LSP, lines for MCP), the server's own requests answered,
//! its notifications kept.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::Sandbox;

/// How long a face waits for an answer: only a failing run waits this long.
const WAIT: Duration = Duration::from_secs(60);

/// A face speaking JSON-RPC over its stdio: MCP (lines) or LSP (headers).
pub struct Face {
    pub child: Child,
    stdin: ChildStdin,
    messages: mpsc::Receiver<Value>,
    /// Notifications from the server, as they came.
    pub notifications: Vec<Value>,
    lsp: bool,
    next: u64,
}

impl Face {
    pub fn start(mut command: Command, lsp: bool) -> Face {
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

    pub fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string());
    }

    /// Sends `body` as one message, framed for the protocol.
    pub fn send_raw(&mut self, body: String) {
        let bytes = if self.lsp {
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        } else {
            format!("{body}\n")
        };
        self.stdin.write_all(bytes.as_bytes()).expect("write");
        self.stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The whole response to a request (answering the server's own
    /// requests meanwhile).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    pub fn response(&mut self, id: u64) -> Value {
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
    pub fn server_message(&mut self, message: Value) {
        match message.get("id") {
            Some(server_id) => {
                let server_id = server_id.clone();
                self.send(&json!({"jsonrpc": "2.0", "id": server_id, "result": null}));
            }
            None => self.notifications.push(message),
        }
    }

    /// Waits for a notification matching `wanted` after the first `seen`.
    pub fn notification(&mut self, seen: usize, wanted: impl Fn(&Value) -> bool) -> Value {
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

    pub fn mcp(sandbox: &Sandbox, vault: &Path) -> Face {
        Face::mcp_with(sandbox.weft(), vault)
    }

    /// An MCP face run by `command` (`weft` with its environment).
    pub fn mcp_with(mut command: Command, vault: &Path) -> Face {
        command.arg("mcp").arg("--vault").arg(vault);
        let mut face = Face::start(command, false);
        mcp_handshake(&mut face, "daemon-test");
        face
    }

    /// A tool call's result; retries while the vault is still indexing.
    pub fn tool(&mut self, name: &str, arguments: Value) -> Value {
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

    pub fn lsp(sandbox: &Sandbox, vault: &Path) -> Face {
        Face::lsp_with(sandbox.weft(), vault)
    }

    /// A language server face run by `command`.
    pub fn lsp_with(mut command: Command, vault: &Path) -> Face {
        command.arg("lsp");
        let mut face = Face::start(command, true);
        lsp_handshake(&mut face, vault);
        face
    }
}

/// A JSON-RPC client a handshake is spoken through: a [`Face`], or a
/// test's own client of the raw wire.
pub trait Rpc {
    /// The whole response to a request.
    fn request(&mut self, method: &str, params: Value) -> Value;
    fn notify(&mut self, method: &str, params: Value);
}

impl Rpc for Face {
    fn request(&mut self, method: &str, params: Value) -> Value {
        Face::request(self, method, params)
    }

    fn notify(&mut self, method: &str, params: Value) {
        Face::notify(self, method, params)
    }
}

/// An editor's handshake with `vault` as its one workspace folder; returns
/// once the vault is loaded (`weft/status`).
pub fn lsp_handshake(rpc: &mut impl Rpc, vault: &Path) {
    let uri = format!("file://{}", vault.display());
    let init = rpc.request(
        "initialize",
        json!({"processId": null, "rootUri": uri, "capabilities": {},
               "workspaceFolders": [{"uri": uri, "name": "vault"}]}),
    );
    assert!(init.get("result").is_some(), "{init}");
    rpc.notify("initialized", json!({}));
    let deadline = Instant::now() + WAIT;
    while rpc.request("weft/status", Value::Null)["result"]["ready"] != true {
        assert!(Instant::now() < deadline, "the vault never got ready");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// An agent's handshake, as the client named `client`.
pub fn mcp_handshake(rpc: &mut impl Rpc, client: &str) {
    let init = rpc.request("initialize", mcp_initialize_params(client));
    assert!(init.get("result").is_some(), "{init}");
    rpc.notify("notifications/initialized", json!({}));
}

/// What an agent named `client` sends with `initialize`.
pub(crate) fn mcp_initialize_params(client: &str) -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {},
           "clientInfo": {"name": client, "version": "1"}})
}

impl Drop for Face {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
