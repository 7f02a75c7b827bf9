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
use tower_lsp_server::ls_types::DidChangeTextDocumentParams;

use weft_lsp::convert::{Encoding, apply_changes};
use weft_wire::Framing;

/// What to do with a message.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Forward,
    /// An answer meant for the face itself (to a replayed request) or to a
    /// request of a session that is gone.
    Drop,
    /// The new session answered the replayed handshake: send what was held
    /// back (servers ignore messages sent before their handshake is
    /// answered). The answer goes on to the client when it was the client's
    /// own handshake, which the old session never answered.
    Resume {
        forward: bool,
    },
    /// The answer to the face's own `weft/status` (LSP): whether the new
    /// session has loaded its vaults.
    Status {
        ready: bool,
    },
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
    /// The session has answered the client's handshake (else a new session
    /// gets the client's own, and the client its answer).
    handshake_answered: bool,
    initialized: Option<Value>,
    encoding: Encoding,
    docs: BTreeMap<String, Doc>,
    configuration: Option<Value>,
    folders: Vec<Value>,
    subscriptions: BTreeSet<String>,
    log_level: Option<Value>,
    /// Client requests waiting for an answer: id key → id.
    pending: HashMap<String, Value>,
    /// Those the server never got (the face could not send them): they go
    /// to the next session instead of being answered with an error.
    unsent: HashSet<String>,
    /// Requests from the server waiting for the client's answer.
    server_pending: HashSet<String>,
    /// Those of a session that is gone: the client's answers are dropped.
    stale: HashSet<String>,
    /// Answers to replayed requests, for the face alone.
    swallow: HashSet<String>,
    /// The replayed handshake's id, until the new session answers it.
    awaiting: Option<String>,
    replays: u64,
    /// The face's own `weft/status` request in flight.
    status_id: Option<String>,
    statuses: u64,
    /// The client ended the session (`exit`, or `shutdown` asked).
    pub ending: bool,
}

impl Replay {
    pub fn new(framing: Framing) -> Replay {
        Replay {
            framing,
            handshake: None,
            handshake_id: None,
            handshake_answered: false,
            initialized: None,
            encoding: Encoding::Utf16,
            docs: BTreeMap::new(),
            configuration: None,
            folders: Vec::new(),
            subscriptions: BTreeSet::new(),
            log_level: None,
            pending: HashMap::new(),
            unsent: HashSet::new(),
            server_pending: HashSet::new(),
            stale: HashSet::new(),
            swallow: HashSet::new(),
            awaiting: None,
            replays: 0,
            status_id: None,
            statuses: 0,
            ending: false,
        }
    }

    /// A message from the client, on its way to the server.
    pub fn client(&mut self, body: &[u8]) -> Verdict {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return Verdict::Forward;
        };
        let (method, id) = method_and_id(&message);
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
                // As the language server reads it: a malformed notification
                // changes nothing there, so nothing here either.
                let Ok(change) =
                    serde_json::from_value::<DidChangeTextDocumentParams>(params.clone())
                else {
                    return;
                };
                doc.version = params["textDocument"]["version"].clone();
                let changes = change
                    .content_changes
                    .iter()
                    .map(|c| (c.range, c.text.as_str()));
                apply_changes(&mut doc.text, None, changes, encoding);
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
        let (method, id) = method_and_id(&message);
        match (method, id) {
            (None, Some(id)) => {
                let key = key(id);
                if self.status_id.as_ref() == Some(&key) {
                    self.status_id = None;
                    // A server that does not know the method is ready enough.
                    let ready =
                        message["result"]["ready"] == true || message.get("error").is_some();
                    return Verdict::Status { ready };
                }
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
                if self.handshake_id.as_ref() == Some(&key) {
                    self.handshake_answered = true;
                }
                if self.awaiting.as_ref() == Some(&key) {
                    self.awaiting = None;
                    if !swallowed {
                        self.pending.remove(&key);
                    }
                    return Verdict::Resume {
                        forward: !swallowed,
                    };
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

    /// A client message the server never got (the face could not send it,
    /// or held it back): `true` for a request, which is to go to the next
    /// session rather than be answered with an error. The handshake is not
    /// one of them: [`Replay::replay`] sends it. Notifications are dropped:
    /// what they changed is in what the next session is replayed.
    pub fn unsend(&mut self, body: &[u8]) -> bool {
        let Ok(message) = serde_json::from_slice::<Value>(body) else {
            return false;
        };
        let (Some(_), Some(id)) = (
            message.get("method").and_then(Value::as_str),
            message.get("id").filter(|id| !id.is_null()),
        ) else {
            return false;
        };
        let key = key(id);
        if !self.pending.contains_key(&key) || self.handshake_id.as_ref() == Some(&key) {
            return false;
        }
        self.unsent.insert(key);
        true
    }

    /// The server went away: an error answer for every request in flight
    /// (their answers are lost), but for those it never got and an
    /// unanswered handshake, which the next session answers; the server's
    /// own requests go stale.
    pub fn orphaned(&mut self) -> Vec<Vec<u8>> {
        self.stale.extend(self.server_pending.drain());
        self.swallow.clear();
        self.awaiting = None;
        self.status_id = None;
        let code = match self.framing {
            Framing::Lsp => -32801, // ContentModified: clients retry or drop it quietly.
            Framing::Mcp => -32603,
        };
        let unsent = std::mem::take(&mut self.unsent);
        let handshake = self
            .handshake_id
            .clone()
            .filter(|_| !self.handshake_answered);
        let (kept, lost): (HashMap<_, _>, HashMap<_, _>) = self
            .pending
            .drain()
            .partition(|(key, _)| unsent.contains(key) || handshake.as_ref() == Some(key));
        self.pending = kept;
        lost.into_values()
            .map(|id| {
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
            if self.handshake_answered {
                first.push(request(handshake, &mut self.swallow, 0));
                self.awaiting = Some(key(&Value::String(format!(
                    "weft-replay-{}-0",
                    self.replays
                ))));
            } else {
                // The client still waits for this answer: its own request.
                first.push(handshake.to_string().into_bytes());
                self.awaiting = self.handshake_id.clone();
            }
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

    /// The face's own `weft/status` request (LSP), to learn when a new
    /// session has loaded its vaults; its answer is [`Verdict::Status`].
    pub fn status_request(&mut self) -> Vec<u8> {
        self.statuses += 1;
        let id = format!("weft-status-{}", self.statuses);
        self.status_id = Some(key(&Value::String(id.clone())));
        json!({"jsonrpc": "2.0", "id": id, "method": "weft/status", "params": null})
            .to_string()
            .into_bytes()
    }

    /// The text a document has now, as the client sees it.
    #[cfg(test)]
    fn text(&self, uri: &str) -> Option<&str> {
        self.docs.get(uri).map(|d| d.text.as_str())
    }
}

/// Whether a message is an answer (to a request of the server's).
pub fn is_response(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .is_ok_and(|m| m.get("method").is_none() && m.get("id").is_some())
}

/// A JSON-RPC message's method and id (a null id is none).
fn method_and_id(message: &Value) -> (Option<&str>, Option<&Value>) {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    (method, id)
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

    /// The one error a replay answers for the requests in flight.
    fn orphaned_one(replay: &mut Replay) -> Value {
        let errors = replay.orphaned();
        assert_eq!(errors.len(), 1);
        serde_json::from_slice(&errors[0]).unwrap()
    }

    /// What a replay sends (the handshake first, alone), and the methods.
    fn replayed(replay: &mut Replay) -> (Vec<Value>, Vec<String>) {
        let (now, later) = replay.replay();
        assert_eq!(now.len(), 1, "the handshake first, alone");
        let messages: Vec<Value> = now
            .iter()
            .chain(&later)
            .map(|m| serde_json::from_slice(m).unwrap())
            .collect();
        let methods = messages
            .iter()
            .map(|m| m["method"].as_str().unwrap().to_string())
            .collect();
        (messages, methods)
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
        let error = orphaned_one(&mut replay);
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["code"], -32801);
        let (messages, methods) = replayed(&mut replay);
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
        assert_eq!(
            receive(&mut replay, answer.clone()),
            Verdict::Resume { forward: false }
        );
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
        let error = orphaned_one(&mut replay);
        assert_eq!(
            (error["id"].clone(), error["error"]["code"].clone()),
            (json!(4), json!(-32603))
        );
        let (messages, methods) = replayed(&mut replay);
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
    fn requests_the_server_never_got_go_to_the_next_one() {
        let mut replay = Replay::new(Framing::Mcp);
        send(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        );
        receive(
            &mut replay,
            json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
        );
        let sent = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}});
        let unsent = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}});
        send(&mut replay, sent);
        send(&mut replay, unsent.clone());
        assert!(replay.unsend(unsent.to_string().as_bytes()));
        // Notifications, answers and unknown ids are not kept.
        for other in [
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call"}),
        ] {
            assert!(!replay.unsend(other.to_string().as_bytes()), "{other}");
        }
        let errors: Vec<Value> = replay
            .orphaned()
            .iter()
            .map(|e| serde_json::from_slice(e).unwrap())
            .collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0]["id"], 1);
        // The new session's answer to it reaches the client.
        replay.replay();
        assert_eq!(
            receive(
                &mut replay,
                json!({"jsonrpc": "2.0", "id": 2, "result": {}})
            ),
            Verdict::Forward
        );
        assert!(replay.orphaned().is_empty());
    }

    #[test]
    fn an_unanswered_handshake_is_the_clients_own_again() {
        let mut replay = Replay::new(Framing::Lsp);
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": "file:///v"}});
        send(&mut replay, initialize.clone());
        assert!(!replay.unsend(initialize.to_string().as_bytes()));
        assert!(replay.orphaned().is_empty(), "the client waits on");
        let (now, later) = replay.replay();
        assert!(later.is_empty());
        let sent: Value = serde_json::from_slice(&now[0]).unwrap();
        assert_eq!(sent, initialize);
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"positionEncoding": "utf-8"}}});
        assert_eq!(
            receive(&mut replay, answer),
            Verdict::Resume { forward: true }
        );
        assert_eq!(replay.encoding, Encoding::Utf8);
        // Answered now: a later session gets it under the face's own id.
        replay.orphaned();
        let (now, _) = replay.replay();
        let sent: Value = serde_json::from_slice(&now[0]).unwrap();
        assert_eq!(sent["id"], "weft-replay-2-0");
    }

    #[test]
    fn the_faces_status_requests_are_its_own() {
        let mut replay = Replay::new(Framing::Lsp);
        let request: Value = serde_json::from_slice(&replay.status_request()).unwrap();
        assert_eq!(request["method"], "weft/status");
        let answer = |ready: bool| json!({"jsonrpc": "2.0", "id": request["id"], "result": {"ready": ready}});
        assert_eq!(
            receive(&mut replay, answer(false)),
            Verdict::Status { ready: false }
        );
        // Answered once; the same id again is not the face's.
        assert_eq!(receive(&mut replay, answer(true)), Verdict::Forward);
        let request: Value = serde_json::from_slice(&replay.status_request()).unwrap();
        let unknown = json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no"}});
        assert_eq!(
            receive(&mut replay, unknown),
            Verdict::Status { ready: true }
        );
        assert!(is_response(br#"{"jsonrpc":"2.0","id":1,"result":null}"#));
        assert!(!is_response(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#));
        assert!(!is_response(b"junk"));
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
