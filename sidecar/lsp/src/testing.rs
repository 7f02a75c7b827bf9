//! An in-process test client for the language server: the whole server
//! over a `tokio::io::duplex` pipe, driven by a small JSON-RPC client, on
//! inline fixture vaults (`//- /path` starts a file) written to a
//! temporary folder. Waits poll with generous deadlines; nothing asserts on
//! timing. For this crate's tests and, with the `test-support` feature,
//! tests of the crates above (editors and agents on one vault).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::{Notify, oneshot};

use crate::convert::{Encoding, LineIndex, path_to_uri};
use weft_wire::Framing;

/// How long any single wait may take before the test fails (generous: the
/// machine may be loaded).
const DEADLINE: Duration = Duration::from_secs(60);

type Writer = Arc<tokio::sync::Mutex<tokio::io::WriteHalf<tokio::io::DuplexStream>>>;

/// What the test client tells the server it can do.
#[derive(Clone)]
pub struct Options {
    pub encodings: Vec<&'static str>,
    /// Watch files for the server (dynamic registration), so it starts no
    /// file watcher of its own.
    pub watch: bool,
    pub initialization_options: Value,
    /// The answer to `workspace/configuration`, when the client supports it.
    pub configuration: Option<Value>,
    /// Send `initialized` (which starts loading) and wait for the vault.
    pub wait_ready: bool,
    /// Serve the fixture as a workspace folder instead of `--vault`.
    pub as_workspace_folder: bool,
    /// Serve these folders of the fixture as workspace folders instead.
    pub folders: Vec<&'static str>,
    /// Serve this existing folder (another session's vault) instead of a
    /// fixture of its own.
    pub attach: Option<PathBuf>,
    /// How long requests wait for the index.
    pub index_wait: Duration,
    /// Show work-done progress (`window.workDoneProgress`).
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            encodings: vec!["utf-8", "utf-16"],
            watch: true,
            initialization_options: Value::Null,
            configuration: None,
            wait_ready: true,
            as_workspace_folder: false,
            folders: Vec::new(),
            attach: None,
            index_wait: crate::world::INDEX_WAIT,
            progress: false,
        }
    }
}

#[derive(Default)]
struct Inbox {
    responses: HashMap<i64, oneshot::Sender<Value>>,
    notifications: Vec<Value>,
    server_requests: Vec<Value>,
}

pub struct TestClient {
    writer: Writer,
    inbox: Arc<Mutex<Inbox>>,
    arrived: Arc<Notify>,
    next_id: std::sync::atomic::AtomicI64,
    /// Kept for its lifetime: the vault is deleted with it.
    _dir: Option<tempfile::TempDir>,
    /// The vault root, canonical.
    pub root: PathBuf,
    pub encoding: Encoding,
    versions: Mutex<HashMap<String, i32>>,
}

/// The labels of a completion answer's items, in order.
pub fn labels(result: &Value) -> Vec<&str> {
    result["items"]
        .as_array()
        .expect("completion items")
        .iter()
        .map(|item| item["label"].as_str().expect("a label"))
        .collect()
}

/// Writes `//- /path` fixture files under `root`.
pub fn write_fixture(root: &Path, fixture: &str) {
    weft_workspace::fixture::write(root, fixture);
}

async fn write_message(writer: &Writer, message: &Value) {
    try_write_message(writer, message)
        .await
        .expect("write to server");
}

async fn try_write_message(writer: &Writer, message: &Value) -> std::io::Result<()> {
    let body = serde_json::to_string(message).expect("json");
    let mut w = writer.lock().await;
    Framing::Lsp.write(&mut *w, body.as_bytes()).await
}

async fn read_loop(
    read: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    writer: Writer,
    inbox: Arc<Mutex<Inbox>>,
    arrived: Arc<Notify>,
    configuration: Option<Value>,
) {
    let mut reader = BufReader::new(read);
    // The server's frames, read as the product reads frames.
    while let Ok(Some(body)) = Framing::Lsp.read(&mut reader, usize::MAX).await {
        let message: Value = serde_json::from_slice(&body).expect("server sent JSON");
        let has_method = message.get("method").is_some();
        let id = message.get("id").cloned();
        match (has_method, id) {
            (false, Some(id)) => {
                let sender = inbox
                    .lock()
                    .unwrap()
                    .responses
                    .remove(&id.as_i64().expect("numeric id"));
                if let Some(sender) = sender {
                    let _ = sender.send(message);
                }
            }
            (true, Some(id)) => {
                let method = message["method"].as_str().unwrap_or_default().to_string();
                inbox.lock().unwrap().server_requests.push(message.clone());
                let result = match method.as_str() {
                    "workspace/configuration" => {
                        let n = message["params"]["items"].as_array().map_or(1, Vec::len);
                        Value::Array(vec![configuration.clone().unwrap_or(Value::Null); n])
                    }
                    _ => Value::Null,
                };
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
                if try_write_message(&writer, &answer).await.is_err() {
                    return; // The server is gone (the test ended).
                }
            }
            _ => inbox.lock().unwrap().notifications.push(message),
        }
        arrived.notify_waiters();
    }
}

impl TestClient {
    /// A server on the vault written from `fixture`, initialized and loaded.
    pub async fn start(fixture: &str) -> TestClient {
        Self::start_with(fixture, Options::default()).await
    }

    pub async fn start_with(fixture: &str, options: Options) -> TestClient {
        let (dir, root) = match &options.attach {
            Some(root) => (None, root.canonicalize().expect("canonical root")),
            None => {
                let dir = tempfile::tempdir().expect("temp dir");
                write_fixture(dir.path(), fixture);
                let root = dir.path().canonicalize().expect("canonical root");
                (Some(dir), root)
            }
        };
        let (client_side, server_side) = tokio::io::duplex(1 << 22);
        let (server_read, server_write) = tokio::io::split(server_side);
        let vault_override =
            (!options.as_workspace_folder && options.folders.is_empty()).then(|| root.clone());
        tokio::spawn(crate::serve_waiting(
            server_read,
            server_write,
            vault_override,
            options.index_wait,
        ));
        let (client_read, client_write) = tokio::io::split(client_side);
        let writer: Writer = Arc::new(tokio::sync::Mutex::new(client_write));
        let inbox = Arc::new(Mutex::new(Inbox::default()));
        let arrived = Arc::new(Notify::new());
        tokio::spawn(read_loop(
            client_read,
            Arc::clone(&writer),
            Arc::clone(&inbox),
            Arc::clone(&arrived),
            options.configuration.clone(),
        ));
        let mut client = TestClient {
            writer,
            inbox,
            arrived,
            next_id: std::sync::atomic::AtomicI64::new(1),
            _dir: dir,
            root: root.clone(),
            encoding: Encoding::Utf16,
            versions: Mutex::default(),
        };
        let root_uri = path_to_uri(&root).expect("root uri");
        let mut params = json!({
            "processId": null,
            "rootUri": root_uri,
            "capabilities": {
                "general": {"positionEncodings": options.encodings},
                "workspace": {
                    "applyEdit": true,
                    "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"]},
                    "didChangeWatchedFiles": {"dynamicRegistration": options.watch},
                    "configuration": options.configuration.is_some(),
                    "semanticTokens": {"refreshSupport": true},
                    "codeLens": {"refreshSupport": true},
                    "workspaceFolders": true,
                },
                "textDocument": {"publishDiagnostics": {"relatedInformation": true}},
                "window": {"workDoneProgress": options.progress},
            },
            "initializationOptions": options.initialization_options,
        });
        if options.as_workspace_folder {
            params["workspaceFolders"] = json!([{"uri": root_uri, "name": "vault"}]);
        }
        if !options.folders.is_empty() {
            let folders: Vec<Value> = options
                .folders
                .iter()
                .map(|f| json!({"uri": path_to_uri(&root.join(f)).expect("uri"), "name": f}))
                .collect();
            params["workspaceFolders"] = Value::Array(folders);
        }
        let result = client.request("initialize", params).await;
        client.encoding = match result["capabilities"]["positionEncoding"].as_str() {
            Some("utf-8") => Encoding::Utf8,
            _ => Encoding::Utf16,
        };
        if options.wait_ready {
            client.notify("initialized", json!({})).await;
            client.wait_ready().await;
        }
        client
    }

    /// Closes the connection without `shutdown` or closing documents, as
    /// a client that crashed.
    pub async fn disconnect(self) {
        let _ = self.writer.lock().await.shutdown().await;
    }

    /// Polls `weft/status` until every vault is loaded and ranked.
    pub async fn wait_ready(&self) {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let status = self.request("weft/status", Value::Null).await;
            if status["ready"] == true && status["ranked"] == true {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "vault not ready: {status}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends a request; returns the whole response (`result` or `error`).
    pub async fn request_raw(&self, method: &str, params: Value) -> Value {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.inbox.lock().unwrap().responses.insert(id, tx);
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        write_message(&self.writer, &message).await;
        tokio::time::timeout(DEADLINE, rx)
            .await
            .unwrap_or_else(|_| panic!("no answer to {method}"))
            .expect("response")
    }

    /// Sends a request; returns its result, failing the test on an error.
    pub async fn request(&self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// The code lenses of the note `rel`, each as `range title`.
    pub async fn code_lenses(&self, rel: &str) -> Vec<String> {
        let result = self
            .request(
                "textDocument/codeLens",
                json!({"textDocument": {"uri": self.uri(rel)}}),
            )
            .await;
        result
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|l| {
                format!(
                    "{} {}",
                    show_range(&l["range"]),
                    l["command"]["title"].as_str().unwrap_or_default()
                )
            })
            .collect()
    }

    /// The code actions offered at `position` of the note `rel` (an empty
    /// range there, no diagnostics in the context).
    pub async fn code_actions(&self, rel: &str, position: Value) -> Vec<Value> {
        let result = self
            .request(
                "textDocument/codeAction",
                json!({
                    "textDocument": {"uri": self.uri(rel)},
                    "range": {"start": position, "end": position},
                    "context": {"diagnostics": []},
                }),
            )
            .await;
        result.as_array().cloned().unwrap_or_default()
    }

    pub async fn notify(&self, method: &str, params: Value) {
        write_message(
            &self.writer,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        )
        .await;
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn uri(&self, rel: &str) -> String {
        path_to_uri(&self.path(rel)).expect("uri").to_string()
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).expect("read fixture file")
    }

    /// Opens a note of the vault in the "editor" with its text on disk.
    pub async fn open(&self, rel: &str) -> String {
        let text = self.read(rel);
        self.open_text(rel, &text).await
    }

    /// Opens a note with `text` (unsaved).
    pub async fn open_text(&self, rel: &str, text: &str) -> String {
        let uri = self.uri(rel);
        self.versions.lock().unwrap().insert(rel.to_string(), 1);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        )
        .await;
        uri
    }

    /// The next version of an open note's text.
    fn next_version(&self, rel: &str) -> i32 {
        let mut versions = self.versions.lock().unwrap();
        let v = versions.entry(rel.to_string()).or_insert(1);
        *v += 1;
        *v
    }

    /// Replaces the whole text of an open note.
    pub async fn change(&self, rel: &str, text: &str) {
        let version = self.next_version(rel);
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": self.uri(rel), "version": version},
                "contentChanges": [{"text": text}],
            }),
        )
        .await;
    }

    /// An incremental edit of an open note: replace `range` by `text`.
    pub async fn edit(&self, rel: &str, range: Value, text: &str) {
        let version = self.next_version(rel);
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": self.uri(rel), "version": version},
                "contentChanges": [{"range": range, "text": text}],
            }),
        )
        .await;
    }

    /// The position of `$0` in `needle`, found (without the marker) in
    /// `text`, in the negotiated encoding.
    pub fn pos_in(&self, text: &str, needle: &str) -> Value {
        let marker = needle.find("$0").expect("needle has a $0 cursor");
        let plain = needle.replace("$0", "");
        let at = text
            .find(&plain)
            .unwrap_or_else(|| panic!("{plain:?} not in the text"));
        let position = LineIndex::new(text).position(at + marker, self.encoding);
        json!({"line": position.line, "character": position.character})
    }

    /// [`TestClient::pos_in`] for the text of a note on disk.
    pub fn pos(&self, rel: &str, needle: &str) -> Value {
        self.pos_in(&self.read(rel), needle)
    }

    /// `{textDocument, position}` for a cursor in a note on disk.
    pub fn at(&self, rel: &str, needle: &str) -> Value {
        json!({"textDocument": {"uri": self.uri(rel)}, "position": self.pos(rel, needle)})
    }

    /// Waits until the latest diagnostics published for `rel` satisfy
    /// `matches`; returns them.
    pub async fn diagnostics(&self, rel: &str, matches: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = self.uri(rel);
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let waiting = self.arrived.notified();
            let latest = self
                .inbox
                .lock()
                .unwrap()
                .notifications
                .iter()
                .rev()
                .find(|n| {
                    n["method"] == "textDocument/publishDiagnostics"
                        && n["params"]["uri"] == uri.as_str()
                })
                .map(|n| {
                    n["params"]["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                });
            if let Some(latest) = &latest
                && matches(latest)
            {
                return latest.clone();
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for diagnostics of {rel}; latest: {latest:?}"
            );
            let _ = tokio::time::timeout(left.min(Duration::from_millis(200)), waiting).await;
        }
    }

    /// Waits for a notification of `method` that `matches`.
    pub async fn notification(&self, method: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let waiting = self.arrived.notified();
            let found = self
                .inbox
                .lock()
                .unwrap()
                .notifications
                .iter()
                .find(|n| n["method"] == method && matches(n))
                .cloned();
            if let Some(found) = found {
                return found;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            assert!(!left.is_zero(), "timed out waiting for {method}");
            let _ = tokio::time::timeout(left.min(Duration::from_millis(200)), waiting).await;
        }
    }

    pub fn server_requests(&self, method: &str) -> Vec<Value> {
        self.inbox
            .lock()
            .unwrap()
            .server_requests
            .iter()
            .filter(|r| r["method"] == method)
            .cloned()
            .collect()
    }

    /// A location as `path:line:col-line:col` (vault-relative path).
    pub fn show_location(&self, location: &Value) -> String {
        let uri = location["uri"]
            .as_str()
            .or_else(|| location["targetUri"].as_str())
            .expect("uri");
        let range = if location["range"].is_object() {
            &location["range"]
        } else {
            &location["targetSelectionRange"]
        };
        format!("{}:{}", self.rel_of(uri), show_range(range))
    }

    /// The vault path a URI names.
    pub fn rel_of(&self, uri: &str) -> String {
        let uri: tower_lsp_server::ls_types::Uri = uri.parse().expect("uri");
        let path = crate::convert::uri_to_path(&uri).expect("file uri");
        path.strip_prefix(&self.root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| path.display().to_string())
    }

    /// Applies a workspace edit to the files on disk (as an editor would),
    /// renames included; returns what it did, one line per operation.
    pub fn apply_edit(&self, edit: &Value) -> Vec<String> {
        let log = std::cell::RefCell::new(Vec::new());
        let apply_text = |uri: &str, edits: &[Value]| {
            let rel = self.rel_of(uri);
            let path = self.path(&rel);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let lines = LineIndex::new(&text);
            let mut ranges: Vec<(std::ops::Range<usize>, String)> = edits
                .iter()
                .map(|e| {
                    let range = parse_range(&e["range"]);
                    (
                        lines.byte_range(range, self.encoding),
                        e["newText"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            ranges.sort_by_key(|r| std::cmp::Reverse(r.0.start));
            let mut text = text;
            for (range, new) in ranges {
                text.replace_range(range, &new);
            }
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            log.borrow_mut()
                .push(format!("edit {rel} ({} edits)", edits.len()));
        };
        if let Some(changes) = edit["changes"].as_object() {
            for (uri, edits) in changes {
                apply_text(uri, edits.as_array().unwrap());
            }
        }
        for change in edit["documentChanges"].as_array().into_iter().flatten() {
            match change["kind"].as_str() {
                Some("rename") => {
                    let old = self.path(&self.rel_of(change["oldUri"].as_str().unwrap()));
                    let new = self.path(&self.rel_of(change["newUri"].as_str().unwrap()));
                    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
                    std::fs::rename(&old, &new).unwrap();
                    log.borrow_mut().push(format!(
                        "rename {} -> {}",
                        self.rel_of(change["oldUri"].as_str().unwrap()),
                        self.rel_of(change["newUri"].as_str().unwrap())
                    ));
                }
                Some("create") => {
                    let rel = self.rel_of(change["uri"].as_str().unwrap());
                    let path = self.path(&rel);
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    if !path.exists() {
                        std::fs::write(&path, "").unwrap();
                    }
                    log.borrow_mut().push(format!("create {rel}"));
                }
                Some(other) => panic!("unexpected operation {other}"),
                None => apply_text(
                    change["textDocument"]["uri"].as_str().unwrap(),
                    change["edits"].as_array().unwrap(),
                ),
            }
        }
        log.into_inner()
    }

    /// After [`TestClient::apply_edit`]: tells the server what an editor
    /// would (renamed buffers reopened, edited buffers changed, files
    /// renamed and changed on disk).
    pub async fn settle(&self, log: &[String]) {
        let mut renamed: HashMap<String, String> = HashMap::new();
        for line in log {
            if let Some((old, new)) = line
                .strip_prefix("rename ")
                .and_then(|l| l.split_once(" -> "))
            {
                renamed.insert(old.to_string(), new.to_string());
                let was_open = self.versions.lock().unwrap().remove(old).is_some();
                if was_open {
                    self.notify(
                        "textDocument/didClose",
                        json!({"textDocument": {"uri": self.uri(old)}}),
                    )
                    .await;
                }
                self.notify(
                    "workspace/didRenameFiles",
                    json!({"files": [{"oldUri": self.uri(old), "newUri": self.uri(new)}]}),
                )
                .await;
                if was_open {
                    self.open(new).await;
                }
            }
        }
        for line in log {
            if let Some(rest) = line.strip_prefix("edit ") {
                let rel = rest.rsplit_once(" (").map_or(rest, |r| r.0);
                let rel = renamed.get(rel).map_or(rel, String::as_str);
                let open = self.versions.lock().unwrap().contains_key(rel);
                if open {
                    self.change(rel, &self.read(rel)).await;
                } else {
                    self.files_changed(&[(rel, 2)]).await;
                }
            } else if let Some(rel) = line.strip_prefix("create ") {
                self.files_changed(&[(rel, 1)]).await;
            }
        }
    }

    /// Tells the server files changed on disk (as the client's watcher).
    pub async fn files_changed(&self, rels: &[(&str, u32)]) {
        let changes: Vec<Value> = rels
            .iter()
            .map(|(rel, kind)| json!({"uri": self.uri(rel), "type": kind}))
            .collect();
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": changes}),
        )
        .await;
    }
}

pub fn parse_range(range: &Value) -> tower_lsp_server::ls_types::Range {
    serde_json::from_value(range.clone()).expect("a range")
}

pub fn show_range(range: &Value) -> String {
    format!(
        "{}:{}-{}:{}",
        range["start"]["line"],
        range["start"]["character"],
        range["end"]["line"],
        range["end"]["character"]
    )
}

/// The shared fixture: aliases, nested headings, a block, tags, an
/// ambiguous stem, an unresolved target, a Markdown link, a note in a
/// folder with spaces and non-ASCII characters, emoji.
pub const VAULT: &str = r#"
//- /Hub.md
---
aliases: [Centre]
tags: [topic]
---
# The Hub

Intro paragraph. ^intro

## Details
### Deep
## Other
//- /notes/A.md
# A
See [[Hub]] and [[Centre|the centre]] 🙂, and [[Hub#Details]].
Broken: [[Hub#Nowhere]] and [[Ghost]]. Block [[Hub#^intro]] #project/weft
//- /notes/Café notes/Crème brûlée.md
Back to [[hub]] and [[Plan]]. #project
[md](../../Hub.md#details)
//- /x/Plan.md
# Plan X
//- /y/Plan.md
# Plan Y
//- /img.png
"#;

/// Completion items as `label => newText @range`.
pub fn completion_items(result: &Value) -> Vec<String> {
    result["items"]
        .as_array()
        .expect("a completion list")
        .iter()
        .map(|i| {
            format!(
                "{} => {} @{}",
                i["label"].as_str().unwrap(),
                i["textEdit"]["newText"].as_str().unwrap(),
                show_range(&i["textEdit"]["range"])
            )
        })
        .collect()
}
