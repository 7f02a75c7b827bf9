//! Issue 21, protocol garbage: the built binary fed what no well-behaved
//! client sends, over `weft lsp`, `weft mcp` and the daemon's socket
//! itself — truncated frames, text that is not JSON, JSON-RPC of the wrong
//! types, batches, messages just over the size limit, unknown methods,
//! requests after `shutdown` (or before `initialize`), bad hellos, and
//! clients that leave in the middle of a request. Each gets the error
//! answer due to it (or, for a stream that breaks its framing, the end of
//! that session alone); after each, the vault's daemon is the same process,
//! its connections are back to what they were (none leaks), and a client
//! connected before the garbage still gets right answers.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{Process, Rpc, Sandbox, lsp_handshake, mcp_handshake};

/// `a` links to `b`, and so do many notes: a rename of `b` or its
/// references is a request with some work in it.
fn vault_text() -> String {
    let mut text = String::from("//- /a.md\n# A\nSee [[b]].\n//- /b.md\n# B\n");
    for n in 0..300 {
        text.push_str(&format!(
            "//- /many/n{n}.md\n# N{n}\nAbout [[b]] and [[a]].\n"
        ));
    }
    text
}

const WAIT: Duration = Duration::from_secs(60);

/// The LSP limit (64 MiB) and the MCP one (16 MiB), as `weft-wire` has them.
const LSP_LIMIT: usize = 64 << 20;
const MCP_LIMIT: usize = 16 << 20;

#[derive(Clone, Copy, PartialEq)]
enum Proto {
    Lsp,
    Mcp,
}

/// One client on the wire: a face's stdio or a raw connection to the
/// daemon's socket. What it reads comes as parsed messages; the channel
/// closes when the other end does.
struct Peer {
    child: Option<Child>,
    writer: Option<Box<dyn Write + Send>>,
    /// A connection to the socket, shut down to close it (its reader holds
    /// a copy).
    stream: Option<UnixStream>,
    messages: mpsc::Receiver<Value>,
    proto: Proto,
    next: u64,
}

impl Peer {
    fn new(
        proto: Proto,
        child: Option<Child>,
        writer: Box<dyn Write + Send>,
        reader: impl BufRead + Send + 'static,
    ) -> Peer {
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = reader;
            while let Some(body) = read_message(proto, &mut reader) {
                let message = serde_json::from_slice(&body)
                    .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&body)));
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Peer {
            child,
            writer: Some(writer),
            stream: None,
            messages,
            proto,
            next: 1,
        }
    }

    /// `weft lsp` or `weft mcp --vault VAULT`, not yet initialized.
    fn face(sandbox: &Sandbox, proto: Proto, vault: &Path) -> Peer {
        let mut command = sandbox.weft();
        match proto {
            Proto::Lsp => command.arg("lsp"),
            Proto::Mcp => command.arg("mcp").arg("--vault").arg(vault),
        };
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the face");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Peer::new(proto, Some(child), Box::new(stdin), stdout)
    }

    /// A face, initialized; for LSP, with the vault loaded and `a.md` open.
    fn ready(sandbox: &Sandbox, proto: Proto, vault: &Path) -> Peer {
        let mut peer = Peer::face(sandbox, proto, vault);
        peer.initialize(vault);
        peer
    }

    /// A raw connection to the daemon's socket: the hello sent, the
    /// welcome read and returned.
    fn socket(socket: &Path, proto: Proto, hello: &Value) -> (Peer, Value) {
        let mut stream = UnixStream::connect(socket).expect("connect to the daemon");
        writeln!(stream, "{hello}").unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let welcome = read_welcome(&mut reader);
        let mut peer = Peer::new(proto, None, Box::new(stream.try_clone().unwrap()), reader);
        peer.stream = Some(stream);
        (peer, welcome)
    }

    fn initialize(&mut self, vault: &Path) {
        match self.proto {
            Proto::Lsp => {
                lsp_handshake(self, vault);
                let a = uri_of(vault, "a.md");
                self.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": a, "languageId": "markdown", "version": 1,
                                            "text": "# A\nSee [[b]].\n"}}),
                );
            }
            Proto::Mcp => mcp_handshake(self, "garbage"),
        }
    }

    /// Writes raw bytes (a frame, part of one, anything).
    fn raw(&mut self, bytes: &[u8]) {
        let writer = self.writer.as_mut().expect("still writing");
        writer.write_all(bytes).expect("write");
        writer.flush().expect("flush");
    }

    /// Sends `body` as one message, framed for the protocol.
    fn send(&mut self, body: &str) {
        let bytes = match self.proto {
            Proto::Lsp => format!("Content-Length: {}\r\n\r\n{body}", body.len()),
            Proto::Mcp => format!("{body}\n"),
        };
        self.raw(bytes.as_bytes());
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string());
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.id();
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.response(&id.into())
    }

    fn id(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The next response (the server's own requests are answered, its
    /// notifications skipped meanwhile).
    fn next_response(&mut self) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .messages
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no response: {e}"));
            if message.get("method").is_none() {
                return message;
            }
            if let Some(id) = message.get("id") {
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": null});
                self.send(&answer.to_string());
            }
        }
    }

    /// The next response, which must be the one to `id`.
    fn response(&mut self, id: &Value) -> Value {
        let response = self.next_response();
        assert_eq!(&response["id"], id, "{response}");
        response
    }

    /// Sends `body` and gives the error it is answered with, after checking
    /// its code and id.
    fn refused(&mut self, body: &str, code: i64, id: Value) -> Value {
        self.send(body);
        let answer = self.response(&id);
        assert_eq!(answer["error"]["code"], code, "{body} → {answer}");
        answer
    }

    /// Whether this session still answers right.
    fn serves(&mut self, vault: &Path) {
        match self.proto {
            Proto::Lsp => {
                let definition = self.request(
                    "textDocument/definition",
                    json!({"textDocument": {"uri": uri_of(vault, "a.md")},
                           "position": {"line": 1, "character": 7}}),
                );
                assert!(
                    definition["result"].to_string().contains("b.md"),
                    "{definition}"
                );
            }
            Proto::Mcp => {
                let deadline = Instant::now() + WAIT;
                loop {
                    let links = self.request(
                        "tools/call",
                        json!({"name": "get_links", "arguments": {"path": "b", "direction": "in"}}),
                    );
                    if links["result"].to_string().contains("**A**") {
                        break;
                    }
                    assert!(Instant::now() < deadline, "{links}");
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }

    /// Closes the client's end (EOF for the server).
    fn close(&mut self) {
        self.writer = None;
        if let Some(stream) = &self.stream {
            let _ = stream.shutdown(std::net::Shutdown::Write);
        }
    }

    /// Waits until the server's end closes; the responses it sent before.
    fn until_closed(&mut self) -> Vec<Value> {
        let deadline = Instant::now() + WAIT;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if message.get("method").is_none() => got.push(message),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return got,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("the server's end stays open"),
            }
        }
    }

    /// Waits for the face's process to exit, and gives its exit code.
    fn exit_code(&mut self) -> Option<i32> {
        let child = self.child.as_mut().expect("a face");
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the face did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the face (a client gone without a word).
    fn kill(&mut self) {
        let child = self.child.as_mut().expect("a face");
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Rpc for Peer {
    fn request(&mut self, method: &str, params: Value) -> Value {
        Peer::request(self, method, params)
    }

    fn notify(&mut self, method: &str, params: Value) {
        Peer::notify(self, method, params)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.writer = None;
        if let Some(stream) = &self.stream {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// One message's body from the server; `None` at the end of its stream.
fn read_message(proto: Proto, reader: &mut impl BufRead) -> Option<Vec<u8>> {
    match proto {
        Proto::Lsp => {
            let mut length = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).ok()? == 0 {
                    return None;
                }
                let line = line.trim();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length:") {
                    length = v.trim().parse().ok();
                }
            }
            let mut body = vec![0; length?];
            reader.read_exact(&mut body).ok()?;
            Some(body)
        }
        Proto::Mcp => {
            let mut line = Vec::new();
            if reader.read_until(b'\n', &mut line).ok()? == 0 {
                return None;
            }
            Some(line)
        }
    }
}

fn read_welcome(reader: &mut impl BufRead) -> Value {
    let mut line = String::new();
    reader.read_line(&mut line).expect("the daemon's welcome");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

fn uri_of(vault: &Path, path: &str) -> String {
    format!("file://{}/{path}", vault.display())
}

/// A request of exactly `size` bytes (padding in its parameters), written
/// in pieces so that the test never holds it whole.
fn write_oversized(peer: &mut Peer, id: u64, method: &str, size: usize) {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"pad":""#);
    let tail = "\"}}";
    let newline = usize::from(peer.proto == Proto::Mcp);
    let mut left = size - head.len() - tail.len() - newline;
    if peer.proto == Proto::Lsp {
        peer.raw(format!("Content-Length: {size}\r\n\r\n").as_bytes());
    }
    peer.raw(head.as_bytes());
    let chunk = vec![b'x'; 1 << 20];
    while left > 0 {
        let n = left.min(chunk.len());
        peer.raw(&chunk[..n]);
        left -= n;
    }
    peer.raw(tail.as_bytes());
    if peer.proto == Proto::Mcp {
        peer.raw(b"\n");
    }
}

/// The sandbox's one daemon, its socket and its build tag.
struct Daemon {
    process: Process,
    socket: PathBuf,
    build: String,
}

impl Daemon {
    fn of(sandbox: &Sandbox) -> Daemon {
        let daemons = sandbox.daemons();
        assert_eq!(daemons.len(), 1, "{daemons:?}");
        let socket = std::fs::read_dir(sandbox.runtime_dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "sock"))
            .expect("the daemon's socket");
        // `weft-<version>-<build>-<vault hash>.sock`
        let name = socket.file_stem().unwrap().to_str().unwrap();
        let build = name
            .strip_prefix("weft-")
            .and_then(|rest| rest.rsplit_once('-'))
            .map(|(build, _)| build.to_string())
            .expect("a socket name with the build");
        Daemon {
            process: daemons[0].clone(),
            socket,
            build,
        }
    }

    /// The connections (sockets) the daemon holds open.
    fn sockets(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.process.pid))
            .map(|fds| {
                fds.filter_map(Result::ok)
                    .filter(|fd| {
                        std::fs::read_link(fd.path())
                            .is_ok_and(|l| l.to_string_lossy().starts_with("socket:"))
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    /// The daemon is the same process, and holds no more connections
    /// than `baseline` once the garbage's clients are gone.
    fn still_serves(&self, sandbox: &Sandbox, baseline: usize) {
        assert_eq!(
            sandbox.daemons(),
            std::slice::from_ref(&self.process),
            "the daemon is the same process"
        );
        let deadline = Instant::now() + WAIT;
        while self.sockets() > baseline {
            assert!(
                Instant::now() < deadline,
                "the daemon holds {} connections, {baseline} before the garbage",
                self.sockets()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn hello(&self, vault: &Path, face: Value) -> Value {
        json!({"weft": self.build, "vault": vault, "face": face})
    }
}

/// What every protocol's messages are checked against: the garbage of
/// each shape, and what it is answered.
fn shapes(peer: &mut Peer, method: &str) {
    let null = Value::Null;
    // Not JSON; JSON of the wrong types; a batch.
    peer.refused("{not json", -32700, null.clone());
    peer.refused(
        &format!(r#"{{"jsonrpc":"2.0","id":41,"method":"{method}","params":"x"}}"#),
        -32602,
        41.into(),
    );
    peer.refused(
        &format!(r#"{{"jsonrpc":"2.0","id":{{"a":1}},"method":"{method}"}}"#),
        -32600,
        null.clone(),
    );
    peer.refused(r#"{"jsonrpc":"2.0","id":42,"method":5}"#, -32600, 42.into());
    peer.refused(
        &format!(r#"[{{"jsonrpc":"2.0","id":43,"method":"{method}"}}]"#),
        -32600,
        null.clone(),
    );
    peer.refused(r#"{"id":44,"method":"ping"}"#, -32600, 44.into());
    peer.refused("null", -32600, null);
    // An unknown request: -32601; an unknown notification: nothing (the
    // next answer is to the next request).
    peer.refused(
        r#"{"jsonrpc":"2.0","id":45,"method":"weft/noSuchMethod","params":{}}"#,
        -32601,
        45.into(),
    );
    peer.send(r#"{"jsonrpc":"2.0","method":"weft/noSuchNotification","params":{}}"#);
    peer.send(r#"{"jsonrpc":"2.0","method":"weft/noSuchNotification","params":"x"}"#);
}

/// Faces that send `requests` and leave before the answers: killed, and
/// with their input closed. Each face is gone afterwards.
fn leave_mid_request(sandbox: &Sandbox, proto: Proto, vault: &Path, requests: &[(&str, Value)]) {
    for leave in [Peer::kill as fn(&mut Peer), Peer::close] {
        let mut face = Peer::ready(sandbox, proto, vault);
        for (method, params) in requests {
            let id = face.id();
            let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            face.send(&request.to_string());
        }
        leave(&mut face);
        if face.child.as_mut().unwrap().try_wait().unwrap().is_none() {
            face.exit_code();
        }
    }
}

#[test]
fn lsp_garbage_is_answered_and_every_other_client_is_served() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(&vault_text());
    let root = vault.path().canonicalize().unwrap();
    let mut bystander = Peer::ready(&sandbox, Proto::Lsp, &root);
    let mut editor = Peer::ready(&sandbox, Proto::Lsp, &root);
    let daemon = Daemon::of(&sandbox);
    let baseline = daemon.sockets();
    assert!(baseline >= 3, "the listener and two clients: {baseline}");

    shapes(&mut editor, "textDocument/hover");
    editor.serves(&root);

    // Just over the limit: refused with its id, never held.
    write_oversized(&mut editor, 46, "textDocument/hover", LSP_LIMIT + 1);
    let refused = editor.response(&46.into());
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    editor.serves(&root);

    // After `shutdown`: InvalidRequest, known method or not; `exit` ends
    // the face.
    let shutdown = editor.request("shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    for method in [
        "textDocument/definition",
        "weft/status",
        "weft/noSuchMethod",
    ] {
        let id = editor.id();
        editor.refused(
            &json!({"jsonrpc": "2.0", "id": id, "method": method,
                    "params": {"textDocument": {"uri": uri_of(&root, "a.md")},
                               "position": {"line": 1, "character": 7}}})
            .to_string(),
            -32600,
            id.into(),
        );
    }
    editor.notify("exit", Value::Null);
    assert_eq!(editor.exit_code(), Some(0));

    // Frames cut short: the header, the body, a bad length. The stream
    // has broken its framing, so that session ends (nothing can be read
    // after it); no other does.
    for cut in [
        &b"Content-Length: 120\r\n"[..],
        b"Content-Length: 120\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,",
        b"Content-Length: many\r\n\r\n{}",
    ] {
        let mut face = Peer::face(&sandbox, Proto::Lsp, &root);
        face.initialize(&root);
        face.raw(cut);
        face.close();
        assert_eq!(face.until_closed(), Vec::<Value>::new());
        assert_eq!(face.exit_code(), Some(0));
    }

    // A client that leaves in the middle of requests with work in them.
    let b = uri_of(&root, "b.md");
    let at_b = json!({"textDocument": {"uri": b}, "position": {"line": 0, "character": 2}});
    let mut rename = at_b.clone();
    rename["newName"] = "Bee".into();
    let mut references = at_b;
    references["context"] = json!({"includeDeclaration": true});
    leave_mid_request(
        &sandbox,
        Proto::Lsp,
        &root,
        &[
            ("textDocument/rename", rename),
            ("textDocument/references", references),
        ],
    );

    daemon.still_serves(&sandbox, baseline);
    bystander.serves(&root);
    assert!(
        root.join("b.md").exists() && !root.join("Bee.md").exists(),
        "a rename is an edit the client applies"
    );
    drop((bystander, editor));
    sandbox.stop_daemons();
}

#[test]
fn mcp_garbage_is_answered_and_every_other_client_is_served() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(&vault_text());
    let root = vault.path().canonicalize().unwrap();
    let mut bystander = Peer::ready(&sandbox, Proto::Mcp, &root);
    let mut agent = Peer::ready(&sandbox, Proto::Mcp, &root);
    let daemon = Daemon::of(&sandbox);
    let baseline = daemon.sockets();
    assert!(baseline >= 3, "the listener and two clients: {baseline}");

    shapes(&mut agent, "tools/list");
    // A known method whose parameters are of the wrong shape: invalid
    // params (rmcp took it for an unknown method).
    agent.refused(
        r#"{"jsonrpc":"2.0","id":47,"method":"tools/call","params":{"name":"read_note","arguments":"x"}}"#,
        -32602,
        47.into(),
    );
    agent.serves(&root);

    // Just over the limit: refused with its id, never held.
    write_oversized(&mut agent, 48, "tools/call", MCP_LIMIT + 1);
    let refused = agent.response(&48.into());
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    agent.serves(&root);

    // Before `initialize`: an error with the request's id, and the session
    // can still begin.
    let mut early = Peer::face(&sandbox, Proto::Mcp, &root);
    let id = early.id();
    early.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string());
    let answer = early.response(&id.into());
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    early.initialize(&root);
    early.serves(&root);
    // MCP has no `shutdown`: the client closes its end, and the face goes.
    early.close();
    assert_eq!(early.exit_code(), Some(0));

    // A line cut short by the end of the stream: what came is not JSON.
    let mut cut = Peer::ready(&sandbox, Proto::Mcp, &root);
    cut.raw(br#"{"jsonrpc":"2.0","id":7,"method":"tools/li"#);
    cut.close();
    let answers = cut.until_closed();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700, "{answers:?}");
    assert_eq!(cut.exit_code(), Some(0));

    // A client that leaves in the middle of requests with work in them.
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    leave_mid_request(
        &sandbox,
        Proto::Mcp,
        &root,
        &[
            (
                "tools/call",
                call("search_notes", json!({"query": "about"})),
            ),
            (
                "tools/call",
                call("get_links", json!({"path": "b", "direction": "in"})),
            ),
            ("tools/call", call("check_vault", json!({}))),
        ],
    );

    daemon.still_serves(&sandbox, baseline);
    bystander.serves(&root);
    drop((bystander, agent));
    sandbox.stop_daemons();
}

#[test]
fn daemon_socket_garbage_is_refused_and_every_other_client_is_served() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(&vault_text());
    let root = vault.path().canonicalize().unwrap();
    let mut editor = Peer::ready(&sandbox, Proto::Lsp, &root);
    let mut agent = Peer::ready(&sandbox, Proto::Mcp, &root);
    let daemon = Daemon::of(&sandbox);
    let baseline = daemon.sockets();
    assert!(baseline >= 3, "the listener and two clients: {baseline}");
    let lsp = json!({"kind": "lsp", "vault_override": false});
    let mcp = json!({"kind": "mcp", "args": {"read_only": false, "tools": "full"}});

    // Bad hellos: refused, saying why, and hung up on.
    let bad_hellos = [
        (json!("hello"), "a bad hello"),
        (
            json!({"weft": 1, "vault": root, "face": lsp}),
            "a bad hello",
        ),
        (
            json!({"weft": daemon.build, "vault": root, "face": {"kind": "telnet"}}),
            "a bad hello",
        ),
        (
            json!({"weft": "0.0.0-00000000", "vault": root, "face": lsp}),
            "this daemon is weft",
        ),
        (
            daemon.hello(Path::new("/elsewhere"), lsp.clone()),
            "this daemon serves",
        ),
    ];
    for (hello, why) in bad_hellos {
        let (mut peer, welcome) = Peer::socket(&daemon.socket, Proto::Lsp, &hello);
        assert_eq!(welcome["ok"], false, "{hello} → {welcome}");
        assert!(
            welcome["error"].as_str().unwrap().contains(why),
            "{welcome}"
        );
        assert_eq!(peer.until_closed(), Vec::<Value>::new());
    }
    // A hello cut short by the end of the stream, and one without end
    // (just over the bound; refused without being held).
    let mut stream = UnixStream::connect(&daemon.socket).unwrap();
    stream.write_all(br#"{"weft":"#).unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let welcome = read_welcome(&mut BufReader::new(stream));
    assert_eq!(welcome["ok"], false, "{welcome}");
    let stream = UnixStream::connect(&daemon.socket).unwrap();
    let mut writing = stream.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        // The daemon hangs up once it has read its bound: writing fails.
        for _ in 0..17 {
            if writing.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let welcome = read_welcome(&mut BufReader::new(stream));
    assert_eq!(welcome["ok"], false, "{welcome}");
    assert!(
        welcome["error"].as_str().unwrap().contains("longer than"),
        "{welcome}"
    );
    writer.join().unwrap();

    // A query with a command line that is none: answered, code 2.
    for argv in [
        json!([]),
        json!(["weft", "--no-such-flag"]),
        json!(["weft", "daemon", "--idle", "1"]),
        json!(["weft", "query", "backlinks"]),
    ] {
        let hello = daemon.hello(&root, json!({"kind": "query", "argv": argv}));
        let (mut peer, welcome) = Peer::socket(&daemon.socket, Proto::Mcp, &hello);
        assert_eq!(welcome["ok"], true, "{welcome}");
        let answers = peer.until_closed();
        assert_eq!(answers.len(), 1, "{argv} → {answers:?}");
        assert_ne!(answers[0]["code"], 0, "{argv} → {answers:?}");
    }

    // Sessions on the socket itself: the same garbage, the same answers.
    let (mut raw_lsp, welcome) = Peer::socket(
        &daemon.socket,
        Proto::Lsp,
        &daemon.hello(&root, lsp.clone()),
    );
    assert_eq!(welcome["ok"], true, "{welcome}");
    raw_lsp.initialize(&root);
    shapes(&mut raw_lsp, "textDocument/hover");
    raw_lsp.serves(&root);
    let (mut raw_mcp, welcome) = Peer::socket(
        &daemon.socket,
        Proto::Mcp,
        &daemon.hello(&root, mcp.clone()),
    );
    assert_eq!(welcome["ok"], true, "{welcome}");
    raw_mcp.initialize(&root);
    shapes(&mut raw_mcp, "tools/list");
    write_oversized(&mut raw_mcp, 48, "tools/call", MCP_LIMIT + 1);
    assert_eq!(raw_mcp.response(&48.into())["error"]["code"], -32600);
    raw_mcp.serves(&root);
    drop((raw_lsp, raw_mcp));

    // Frames cut short on the socket: that connection ends, alone.
    for cut in [
        &b"Content-Length: 120\r\n"[..],
        b"Content-Length: 120\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,",
        b"Content-Length: many\r\n\r\n{}",
    ] {
        let (mut peer, _) = Peer::socket(
            &daemon.socket,
            Proto::Lsp,
            &daemon.hello(&root, lsp.clone()),
        );
        peer.initialize(&root);
        peer.raw(cut);
        peer.close();
        assert_eq!(peer.until_closed(), Vec::<Value>::new());
    }

    // Clients that leave in the middle of requests with work in them.
    let (mut peer, _) = Peer::socket(
        &daemon.socket,
        Proto::Lsp,
        &daemon.hello(&root, lsp.clone()),
    );
    peer.initialize(&root);
    let b = uri_of(&root, "b.md");
    peer.send(
        &json!({"jsonrpc": "2.0", "id": 90, "method": "textDocument/rename", "params": {
            "textDocument": {"uri": b}, "position": {"line": 0, "character": 2}, "newName": "Bee"}})
        .to_string(),
    );
    drop(peer);
    let (mut peer, _) = Peer::socket(
        &daemon.socket,
        Proto::Mcp,
        &daemon.hello(&root, mcp.clone()),
    );
    peer.initialize(&root);
    peer.send(
        &json!({"jsonrpc": "2.0", "id": 90, "method": "tools/call",
                "params": {"name": "search_notes", "arguments": {"query": "about"}}})
        .to_string(),
    );
    drop(peer);

    daemon.still_serves(&sandbox, baseline);
    editor.serves(&root);
    agent.serves(&root);
    drop((editor, agent));
    sandbox.stop_daemons();
}
