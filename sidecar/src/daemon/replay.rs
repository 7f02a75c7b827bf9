//! What a face remembers of its session so that, if the daemon dies, a new
//! one can be brought to where the old one stood without the client
//! noticing more than a delay: the handshake, the open documents with their
//! current text (LSP), settings and folders, subscriptions and log level
//! (MCP), and which requests are in flight (answered with an error, since
//! their answers are lost).
//!
//! Works on JSON values; anything it cannot read is forwarded untouched
//! and not remembered. Never panics on bad input.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Value, json};
use tower_lsp_server::ls_types::Range;

use super::wire::Framing;
use crate::lsp::convert::{Encoding, LineIndex};

/// What to do with a message.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Forward,
    /// An answer meant for the face itself (to a replayed request) or to a
    /// request of a session that is gone.
    Drop,
    /// The new session answered the replayed handshake: drop the answer and
    /// send what was held back (servers ignore messages sent before their
    /// handshake is answered).
    Resume,
}

struct Doc {
    language: Value,
    version: Value,
    text: String,
}

/// The session as the face has seen it.
pub struct Replay {
    framing: Framing,
    handshake: Option<Value>,
    handshake_id: Option<String>,
    initialized: Option<Value>,
    encoding: Encoding,
    docs: BTreeMap<String, Doc>,
    configuration: Option<Value>,
    folders: Vec<Value>,
    subscriptions: BTreeSet<String>,
    log_level: Option<Value>,
    /// Client requests waiting for an answer: id key → id.
    pending: HashMap<String, Value>,
    /// Requests from the server waiting for the client's answer.
    server_pending: HashSet<String>,
    /// Those of a session that is gone: the client's answers are dropped.
    stale: HashSet<String>,
    /// Answers to replayed requests, for the face alone.
    swallow: HashSet<String>,
    /// The replayed handshake's id, until the new session answers it.
    awaiting: Option<String>,
    replays: u64,
    /// The client ended the session (`exit`, or `shutdown` asked).
    pub ending: bool,
}

impl Replay {
    pub fn new(framing: Framing) -> Replay {
        Replay {
            framing,
            handshake: None,
            handshake_id: None,
            initialized: None,
            encoding: Encoding::Utf16,
            docs: BTreeMap::new(),
            configuration: None,
            folders: Vec::new(),
            subscriptions: BTreeSet::new(),
            log_level: None,
            pending: HashMap::new(),
            server_pending: HashSet::new(),
            stale: HashSet::new(),
            swallow: HashSet::new(),
            awaiting: None,
            replays: 0,
            ending: false,
        }
    }

    /// A message from the client, on its way to the server.
    pub fn client(&mut self, body: &[u8]) -> Verdict {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return Verdict::Forward;
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                self.pending.insert(key(id), id.clone());
                match method {
                    "initialize" | "server/discover" if self.handshake.is_none() => {
                        self.handshake = Some(message.clone());
                        self.handshake_id = Some(key(id));
                    }
                    "shutdown" => self.ending = true,
                    "resources/subscribe" => {
                        if let Some(uri) = message["params"]["uri"].as_str() {
                            self.subscriptions.insert(uri.to_string());
                        }
                    }
                    "resources/unsubscribe" => {
                        if let Some(uri) = message["params"]["uri"].as_str() {
                            self.subscriptions.remove(uri);
                        }
                    }
                    "logging/setLevel" => self.log_level = Some(message["params"].clone()),
                    _ => {}
                }
            }
            (Some(method), None) => self.notification(method, &message),
            (None, Some(id)) => {
                let key = key(id);
                if self.stale.remove(&key) {
                    return Verdict::Drop;
                }
                self.server_pending.remove(&key);
            }
            (None, None) => {}
        }
        Verdict::Forward
    }

    fn notification(&mut self, method: &str, message: &Value) {
        let params = &message["params"];
        let uri = params["textDocument"]["uri"].as_str().map(str::to_string);
        match method {
            "initialized" | "notifications/initialized" => {
                self.initialized = Some(message.clone());
            }
            "exit" => self.ending = true,
            "workspace/didChangeConfiguration" => self.configuration = Some(message.clone()),
            "workspace/didChangeWorkspaceFolders" => self.folders.push(message.clone()),
            "textDocument/didOpen" => {
                if let (Some(uri), Some(text)) = (uri, params["textDocument"]["text"].as_str()) {
                    self.docs.insert(
                        uri,
                        Doc {
                            language: params["textDocument"]["languageId"].clone(),
                            version: params["textDocument"]["version"].clone(),
                            text: text.to_string(),
                        },
                    );
                }
            }
            "textDocument/didChange" => {
                let encoding = self.encoding;
                let Some(doc) = uri.and_then(|uri| self.docs.get_mut(&uri)) else {
                    return;
                };
                doc.version = params["textDocument"]["version"].clone();
                for change in params["contentChanges"].as_array().into_iter().flatten() {
                    let Some(text) = change["text"].as_str() else {
                        continue;
                    };
                    match serde_json::from_value::<Range>(change["range"].clone()) {
                        Ok(range) => {
                            let bytes = LineIndex::new(&doc.text).byte_range(range, encoding);
                            if bytes.start <= bytes.end
                                && bytes.end <= doc.text.len()
                                && doc.text.is_char_boundary(bytes.start)
                                && doc.text.is_char_boundary(bytes.end)
                            {
                                doc.text.replace_range(bytes, text);
                            }
                        }
                        Err(_) => doc.text = text.to_string(),
                    }
                }
            }
            "textDocument/didClose" => {
                if let Some(uri) = uri {
                    self.docs.remove(&uri);
                }
            }
            _ => {}
        }
    }

    /// A message from the server, on its way to the client.
    pub fn server(&mut self, body: &[u8]) -> Verdict {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return Verdict::Forward;
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|id| !id.is_null());
        match (method, id) {
            (None, Some(id)) => {
                let key = key(id);
                let swallowed = self.swallow.remove(&key);
                let handshake = swallowed || self.handshake_id.as_ref() == Some(&key);
                if handshake
                    && let Some(kind) =
                        message["result"]["capabilities"]["positionEncoding"].as_str()
                {
                    self.encoding = match kind {
                        "utf-8" => Encoding::Utf8,
                        _ => Encoding::Utf16,
                    };
                }
                if swallowed && self.awaiting.as_ref() == Some(&key) {
                    self.awaiting = None;
                    return Verdict::Resume;
                }
                if swallowed {
                    return Verdict::Drop;
                }
                self.pending.remove(&key);
            }
            (Some(_), Some(id)) => {
                self.server_pending.insert(key(id));
            }
            _ => {}
        }
        Verdict::Forward
    }

    /// The server went away: an error answer for every request in flight
    /// (their answers are lost); the server's own requests go stale.
    pub fn orphaned(&mut self) -> Vec<Vec<u8>> {
        self.stale.extend(self.server_pending.drain());
        self.swallow.clear();
        let code = match self.framing {
            Framing::Lsp => -32801, // ContentModified: clients retry or drop it quietly.
            Framing::Mcp => -32603,
        };
        self.pending
            .drain()
            .map(|(_, id)| {
                json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {"code": code, "message": "Weft's index daemon restarted; retry"},
                })
                .to_string()
                .into_bytes()
            })
            .collect()
    }

    /// The messages that bring a new session to where the old one stood:
    /// the handshake to send at once, and the rest, to send once the new
    /// session has answered it ([`Verdict::Resume`]; at once when there is
    /// no handshake).
    pub fn replay(&mut self) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        self.replays += 1;
        let mut first = Vec::new();
        let mut out = Vec::new();
        let request = |message: &Value, swallow: &mut HashSet<String>, n: usize| {
            let mut message = message.clone();
            let id = format!("weft-replay-{}-{n}", self.replays);
            swallow.insert(key(&Value::String(id.clone())));
            message["id"] = Value::String(id);
            message.to_string().into_bytes()
        };
        if let Some(handshake) = &self.handshake {
            first.push(request(handshake, &mut self.swallow, 0));
            self.awaiting = Some(key(&Value::String(format!(
                "weft-replay-{}-0",
                self.replays
            ))));
        }
        if let Some(initialized) = &self.initialized {
            out.push(initialized.to_string().into_bytes());
        }
        if let Some(configuration) = &self.configuration {
            out.push(configuration.to_string().into_bytes());
        }
        for folders in &self.folders {
            out.push(folders.to_string().into_bytes());
        }
        for (uri, doc) in &self.docs {
            out.push(
                json!({
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": {
                        "uri": uri,
                        "languageId": doc.language,
                        "version": doc.version,
                        "text": doc.text,
                    }},
                })
                .to_string()
                .into_bytes(),
            );
        }
        for (n, uri) in self.subscriptions.iter().enumerate() {
            let subscribe = json!({"jsonrpc": "2.0", "id": 0, "method": "resources/subscribe", "params": {"uri": uri}});
            out.push(request(&subscribe, &mut self.swallow, n + 1));
        }
        if let Some(level) = &self.log_level {
            let set =
                json!({"jsonrpc": "2.0", "id": 0, "method": "logging/setLevel", "params": level});
            out.push(request(&set, &mut self.swallow, usize::MAX));
        }
        if first.is_empty() {
            return (out, Vec::new());
        }
        (first, out)
    }

    /// The text a document has now, as the client sees it.
    #[cfg(test)]
    fn text(&self, uri: &str) -> Option<&str> {
        self.docs.get(uri).map(|d| d.text.as_str())
    }
}

/// A request id as a map key (numbers and strings never collide).
fn key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(replay: &mut Replay, message: Value) -> Verdict {
        replay.client(message.to_string().as_bytes())
    }

    fn receive(replay: &mut Replay, message: Value) -> Verdict {
        replay.server(message.to_string().as_bytes())
    }

    fn change(uri: &str, version: i32, range: Value, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": range, "text": text}],
        }})
    }

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
        json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}})
    }

    fn handshake(replay: &mut Replay, encoding: &str) {
        send(
            replay,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": "file:///v"}}),
        );
        receive(
            replay,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"positionEncoding": encoding}}}),
        );
        send(
            replay,
            json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        );
    }

    #[test]
    fn documents_follow_incremental_changes_in_either_encoding() {
        for (encoding, column) in [("utf-16", 4), ("utf-8", 6)] {
            let mut replay = Replay::new(Framing::Lsp);
            handshake(&mut replay, encoding);
            send(
                &mut replay,
                json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                    "uri": "file:///v/a.md", "languageId": "markdown", "version": 1, "text": "# A\n🙂 [[x]]\n"}}}),
            );
            // After the emoji and its space: 3 UTF-16 units, 5 bytes.
            send(
                &mut replay,
                change(
                    "file:///v/a.md",
                    2,
                    range(1, column - 1, 1, column - 1),
                    "see ",
                ),
            );
            send(
                &mut replay,
                change("file:///v/a.md", 3, range(0, 0, 1, 0), ""),
            );
            assert_eq!(
                replay.text("file:///v/a.md"),
                Some("🙂 see [[x]]\n"),
                "{encoding}"
            );
        }
    }

    #[test]
    fn a_new_session_gets_the_handshake_settings_and_open_documents() {
        let mut replay = Replay::new(Framing::Lsp);
        handshake(&mut replay, "utf-16");
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": "file:///v/a.md", "languageId": "markdown", "version": 1, "text": "one"}}}),
        );
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": "file:///v/b.md", "languageId": "markdown", "version": 1, "text": "two"}}}),
        );
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": "file:///v/b.md"}}}),
        );
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {"a": 1}}}),
        );
        // A request in flight, and one from the server the client has not answered.
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}}),
        );
        receive(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 3, "method": "workspace/configuration", "params": {}}),
        );
        let errors = replay.orphaned();
        assert_eq!(errors.len(), 1);
        let error: Value = serde_json::from_slice(&errors[0]).unwrap();
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["code"], -32801);
        let (now, later) = replay.replay();
        assert_eq!(now.len(), 1, "the handshake first, alone");
        let messages: Vec<Value> = now
            .iter()
            .chain(&later)
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect();
        let methods: Vec<&str> = messages
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "initialized",
                "workspace/didChangeConfiguration",
                "textDocument/didOpen"
            ]
        );
        assert_eq!(messages[3]["params"]["textDocument"]["text"], "one");
        // The new session's answer to the replayed handshake is the face's,
        // and lets the rest go.
        let answer =
            json!({"jsonrpc": "2.0", "id": messages[0]["id"], "result": {"capabilities": {}}});
        assert_eq!(receive(&mut replay, answer.clone()), Verdict::Resume);
        assert_eq!(receive(&mut replay, answer), Verdict::Forward);
        // The client's late answer to the old session's request is dropped.
        assert_eq!(
            send(
                &mut replay,
                json!({"jsonrpc": "2.0", "id": 3, "result": []})
            ),
            Verdict::Drop
        );
        assert_eq!(
            send(
                &mut replay,
                json!({"jsonrpc": "2.0", "id": 3, "result": []})
            ),
            Verdict::Forward
        );
    }

    #[test]
    fn mcp_sessions_keep_subscriptions_and_log_level() {
        let mut replay = Replay::new(Framing::Mcp);
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        );
        receive(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
        );
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        for (id, uri) in [(1, "weft://a"), (2, "weft://b")] {
            send(
                &mut replay,
                json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}}),
            );
        }
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe", "params": {"uri": "weft://a"}}),
        );
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x"}}),
        );
        for id in 1..=3 {
            receive(
                &mut replay,
                json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            );
        }
        let errors = replay.orphaned();
        assert_eq!(errors.len(), 1);
        let error: Value = serde_json::from_slice(&errors[0]).unwrap();
        assert_eq!(
            (error["id"].clone(), error["error"]["code"].clone()),
            (json!(4), json!(-32603))
        );
        let (now, later) = replay.replay();
        assert_eq!(now.len(), 1, "the handshake first, alone");
        let messages: Vec<Value> = now
            .iter()
            .chain(&later)
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect();
        let methods: Vec<&str> = messages
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "initialize",
                "notifications/initialized",
                "resources/subscribe"
            ]
        );
        assert_eq!(messages[2]["params"]["uri"], "weft://b");
    }

    #[test]
    fn garbage_is_forwarded_and_forgotten() {
        let mut replay = Replay::new(Framing::Lsp);
        assert_eq!(replay.client(b"not json"), Verdict::Forward);
        assert_eq!(replay.server(b"[1,2"), Verdict::Forward);
        assert_eq!(
            send(
                &mut replay,
                json!({"method": "textDocument/didChange", "params": 5})
            ),
            Verdict::Forward
        );
        assert_eq!(replay.replay(), (Vec::new(), Vec::new()));
    }
}
