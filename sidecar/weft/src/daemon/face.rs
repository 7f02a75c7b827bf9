//! The faces' side: reach the vault's daemon (found or started by
//! `connect`), then forward stdin and stdout message by message (one too
//! large or not JSON-RPC is answered here, as the session's guard would).
//! When the daemon goes away mid-session the
//! face answers the requests in flight with an error, starts a new daemon
//! and replays the session into it ([`Replay`]); a face that cannot reach
//! or start a daemon serves in-process (saying so on stderr), the same way.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::answer::Answer;
use super::connect::{Conn, Target, connect, open_daemon};
use super::replay::{Replay, Verdict, is_response};
use super::{Face, Hello};
use crate::args::McpArgs;
use weft_wire::{Frame, Framing};

/// A session that keeps dying is given up.
const MAX_RESTARTS_PER_MINUTE: usize = 5;

/// `weft lsp`. The vault is `vault` (`--vault`), else the first workspace
/// folder (or root) of the client's `initialize`, else the working folder.
pub fn lsp(vault: Option<PathBuf>) -> ExitCode {
    run(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        let first = loop {
            match Framing::Lsp
                .read_frame(&mut stdin, Framing::Lsp.client_limit())
                .await
            {
                Ok(Some(Frame::Message(first))) => match weft_wire::check(&first) {
                    Ok(()) => break first,
                    // Answered here: a message that is none names no vault.
                    Err(malformed) => {
                        refuse(Framing::Lsp, &malformed, &mut tokio::io::stdout()).await
                    }
                },
                Ok(Some(Frame::TooLarge(too_large))) => {
                    tracing::warn!("{}", too_large.describe());
                    if let Some(answer) = too_large.answer() {
                        let _ = Framing::Lsp.write(&mut tokio::io::stdout(), &answer).await;
                    }
                }
                _ => return ExitCode::SUCCESS,
            }
        };
        let root = vault
            .clone()
            .or_else(|| root_of_initialize(&first))
            .or_else(|| std::env::current_dir().ok())
            .map(|r| r.canonicalize().unwrap_or(r))
            .unwrap_or_default();
        let target = Target {
            vault: root,
            face: Face::Lsp {
                vault_override: vault.is_some(),
            },
            framing: Framing::Lsp,
        };
        forward(target, stdin, vec![first]).await
    })
}

/// `weft mcp` on the vault at `vault` (already resolved by the caller).
pub fn mcp(vault: PathBuf, args: McpArgs) -> ExitCode {
    run(async move {
        let target = Target {
            vault: vault.canonicalize().unwrap_or(vault),
            face: Face::Mcp { args },
            framing: Framing::Mcp,
        };
        forward(target, BufReader::new(tokio::io::stdin()), Vec::new()).await
    })
}

/// `weft mcp --http` on the vault at `vault`: the daemon serves HTTP for
/// as long as this face stays connected. When the daemon dies, another is
/// started and serves the same address (clients start new sessions);
/// when none can be had, this process serves.
pub fn http(vault: PathBuf, args: McpArgs, serve: crate::http::HttpServe) -> ExitCode {
    let vault = vault.canonicalize().unwrap_or(vault);
    match block_on(http_face(vault.clone(), args.clone(), serve.clone())) {
        Ok(Some(code)) | Err(code) => code,
        // No daemon could be had: this process serves.
        Ok(None) => crate::http::serve_here(vault, args, serve),
    }
}

async fn http_face(
    vault: PathBuf,
    args: McpArgs,
    mut serve: crate::http::HttpServe,
) -> Option<ExitCode> {
    let mut restarts: Vec<Instant> = Vec::new();
    let mut announced = false;
    loop {
        let hello = Hello {
            weft: super::place::build_tag(),
            vault: vault.clone(),
            face: Face::Http {
                args: args.clone(),
                serve: serve.clone(),
            },
            warm: false,
        };
        let (mut stream, welcome) = match open_daemon(&vault, &hello).await {
            Ok(opened) => opened,
            Err(why) if why.starts_with("cannot listen") => {
                eprintln!("weft mcp: {why}");
                return Some(ExitCode::from(2));
            }
            Err(why) => {
                eprintln!("weft: no index daemon ({why}); serving in-process");
                return None;
            }
        };
        let bound = welcome.listening.unwrap_or(serve.listen);
        let url = crate::http::HttpServe::url(bound);
        if !announced {
            crate::http::announce(&vault, &url, &serve.token);
            announced = true;
            // A daemon started after this one dies serves the same port.
            serve.listen = bound;
        }
        tokio::select! {
            () = crate::http::stopped() => return Some(ExitCode::SUCCESS),
            () = super::until_closed(&mut stream) => {}
        }
        restarts.retain(|t| t.elapsed() < Duration::from_secs(60));
        if restarts.len() >= MAX_RESTARTS_PER_MINUTE {
            eprintln!("weft mcp: the index daemon keeps dying; giving up");
            return Some(ExitCode::FAILURE);
        }
        restarts.push(Instant::now());
        eprintln!("weft mcp: the index daemon went away; starting another for {url}");
    }
}

/// A `weft query|stats|check` command line answered by the vault's daemon
/// (started if needed); `Err` says why none could answer.
pub fn query(argv: Vec<String>, vault: &Path) -> Result<Answer, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let vault = vault.to_path_buf();
    runtime.block_on(async move {
        let hello = Hello {
            weft: super::place::build_tag(),
            vault: vault.clone(),
            face: Face::Query { argv },
            warm: false,
        };
        let (stream, _) = open_daemon(&vault, &hello).await?;
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .await
            .map_err(|e| format!("the daemon did not answer: {e}"))?;
        serde_json::from_str(&line).map_err(|e| format!("the daemon's answer is unreadable: {e}"))
    })
}

fn run(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    block_on(work).unwrap_or_else(|code| code)
}

/// Runs `work` on a face's runtime; `Err` when there is none to run it on.
fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T, ExitCode> {
    // Two workers: a session served in-process (the fallback) blocks in
    // place on multi-thread runtimes only.
    match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => {
            let result = runtime.block_on(work);
            runtime.shutdown_timeout(Duration::from_millis(100));
            Ok(result)
        }
        Err(error) => {
            eprintln!("weft: cannot start the async runtime: {error}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// Forwards the client's messages (`first`, then stdin) to the server and
/// back until the client is done, restarting the server when it dies.
async fn forward(
    target: Target,
    stdin: BufReader<tokio::io::Stdin>,
    first: Vec<Vec<u8>>,
) -> ExitCode {
    let framing = target.framing;
    let (client_tx, mut client) = mpsc::channel::<Frame>(64);
    tokio::spawn(async move {
        let mut stdin = stdin;
        while let Ok(Some(frame)) = framing.read_frame(&mut stdin, framing.client_limit()).await {
            if client_tx.send(frame).await.is_err() {
                break;
            }
        }
    });
    let conn = connect(&target, 0).await;
    let mut pump = Pump {
        framing,
        stdout: tokio::io::stdout(),
        replay: Replay::new(framing),
        conn,
        client_done: false,
        resuming: None,
        warming: None,
        poll: None,
        waiting: Vec::new(),
        restarts: Vec::new(),
    };
    for body in first {
        pump.on_client(Frame::Message(body)).await;
    }
    loop {
        let poll = pump.poll;
        tokio::select! {
            from_client = client.recv(), if !pump.client_done => match from_client {
                Some(body) => pump.on_client(body).await,
                None => {
                    pump.client_done = true;
                    if !pump.holding() {
                        let _ = pump.conn.writer.shutdown().await;
                    }
                }
            },
            from_server = pump.conn.messages.recv() => match from_server {
                Some(body) => {
                    if pump.on_server(body).await.is_err() {
                        return ExitCode::SUCCESS; // The client is gone.
                    }
                }
                None if pump.replay.ending || (pump.client_done && !pump.holding()) => {
                    return ExitCode::SUCCESS;
                }
                None => {
                    if let Err(code) = pump.restart(&target).await {
                        return code;
                    }
                }
            },
            () = sleep_until(poll), if poll.is_some() => {
                pump.poll = None;
                let status = pump.replay.status_request();
                let _ = framing.write(&mut pump.conn.writer, &status).await;
            }
        }
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// One face's forwarding: the session as seen so far, and what waits.
struct Pump {
    framing: Framing,
    stdout: tokio::io::Stdout,
    replay: Replay,
    conn: Conn,
    /// The client closed its end.
    client_done: bool,
    /// While a new session has not answered its replayed handshake: the
    /// rest of the replay, to send once it has.
    resuming: Option<Vec<Vec<u8>>>,
    /// While a new LSP session is loading its vaults (since when).
    warming: Option<Instant>,
    /// When to ask it again.
    poll: Option<tokio::time::Instant>,
    /// The client's messages the server has not got: held back while
    /// resuming or warming, or whose sending failed (the server is gone).
    waiting: Vec<Vec<u8>>,
    restarts: Vec<Instant>,
}

impl Pump {
    /// Whether the client's messages are held back from the server.
    fn holding(&self) -> bool {
        self.resuming.is_some() || self.warming.is_some() || !self.waiting.is_empty()
    }

    async fn on_client(&mut self, frame: Frame) {
        let body = match frame {
            Frame::Message(body) => body,
            Frame::TooLarge(too_large) => {
                // Answered here: the server never sees it.
                tracing::warn!("{}", too_large.describe());
                if let Some(answer) = too_large.answer() {
                    let _ = self.send_client(&answer).await;
                }
                return;
            }
        };
        if let Err(malformed) = weft_wire::check(&body) {
            // Answered here too: the session, and its replay, never see it.
            refuse(self.framing, &malformed, &mut self.stdout).await;
            return;
        }
        if self.replay.client(&body) != Verdict::Forward {
            return;
        }
        // Answers to the server's requests go through while a new session
        // loads (it may be asking for the client's settings).
        if self.holding() && !(self.resuming.is_none() && is_response(&body)) {
            self.waiting.push(body);
        } else {
            self.deliver(body).await;
        }
    }

    /// Sends one of the client's messages to the server. One it could not
    /// take (it is gone) waits for the next server: a failed write means
    /// the server never got the whole message, so even a write tool may run
    /// it again. Anything else that failed shows as the server's end.
    async fn deliver(&mut self, body: Vec<u8>) {
        if self
            .framing
            .write(&mut self.conn.writer, &body)
            .await
            .is_err()
            && self.replay.unsend(&body)
        {
            self.waiting.push(body);
        }
    }

    /// `Err` when the client is gone.
    async fn on_server(&mut self, body: Vec<u8>) -> Result<(), ()> {
        match self.replay.server(&body) {
            Verdict::Forward => self.send_client(&body).await?,
            Verdict::Drop => {}
            Verdict::Resume { forward } => {
                if forward {
                    self.send_client(&body).await?;
                }
                for body in self.resuming.take().unwrap_or_default() {
                    let _ = self.framing.write(&mut self.conn.writer, &body).await;
                }
                if self.framing == Framing::Lsp && !forward {
                    // Hold on until the session has loaded its vaults, or
                    // it would answer from an empty index.
                    self.warming = Some(Instant::now());
                    let status = self.replay.status_request();
                    let _ = self.framing.write(&mut self.conn.writer, &status).await;
                } else {
                    self.flush().await;
                }
            }
            Verdict::Status { ready } => {
                let started = self.warming.unwrap_or_else(Instant::now);
                if ready || started.elapsed() > super::WARM_TIMEOUT {
                    self.warming = None;
                    self.flush().await;
                } else {
                    self.poll = Some(tokio::time::Instant::now() + Duration::from_millis(20));
                }
            }
        }
        Ok(())
    }

    async fn send_client(&mut self, body: &[u8]) -> Result<(), ()> {
        self.framing
            .write(&mut self.stdout, body)
            .await
            .map_err(|_| ())
    }

    /// Sends what waited; closes the server's input when the client has.
    async fn flush(&mut self) {
        for body in std::mem::take(&mut self.waiting) {
            self.deliver(body).await;
        }
        if self.client_done && !self.holding() {
            let _ = self.conn.writer.shutdown().await;
        }
    }

    /// The server went away: answer what it will never answer, start
    /// another and bring it to where the old one stood. `Err` gives up.
    async fn restart(&mut self, target: &Target) -> Result<(), ExitCode> {
        self.restarts
            .retain(|t| t.elapsed() < Duration::from_secs(60));
        if self.restarts.len() >= MAX_RESTARTS_PER_MINUTE {
            eprintln!(
                "weft: the index daemon stopped {MAX_RESTARTS_PER_MINUTE} times within a minute; giving up"
            );
            return Err(ExitCode::FAILURE);
        }
        self.restarts.push(Instant::now());
        tracing::warn!("weft: the index daemon went away; starting another");
        // Requests the server never got go to the next one; the rest of
        // what was held back is in the replay.
        let replay = &mut self.replay;
        self.waiting.retain(|body| replay.unsend(body));
        self.resuming = None;
        self.warming = None;
        self.poll = None;
        for error in self.replay.orphaned() {
            if self.send_client(&error).await.is_err() {
                return Err(ExitCode::SUCCESS);
            }
        }
        self.conn = connect(target, 1).await;
        let (now, later) = self.replay.replay();
        if now.is_empty() {
            for body in later {
                let _ = self.framing.write(&mut self.conn.writer, &body).await;
            }
            self.flush().await;
        } else {
            self.resuming = Some(later);
            for body in now {
                let _ = self.framing.write(&mut self.conn.writer, &body).await;
            }
        }
        Ok(())
    }
}

/// Answers a message that is not JSON-RPC (when an answer is due).
async fn refuse(
    framing: Framing,
    malformed: &weft_wire::Malformed,
    stdout: &mut tokio::io::Stdout,
) {
    tracing::warn!("a client's message refused: {}", malformed.describe());
    if let Some(answer) = malformed.answer() {
        let _ = framing.write(stdout, &answer).await;
    }
}

/// The vault an `initialize` request names: its first workspace folder,
/// else its root URI, else its root path.
fn root_of_initialize(body: &[u8]) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let params = &message["params"];
    let uri = params["workspaceFolders"][0]["uri"]
        .as_str()
        .or_else(|| params["rootUri"].as_str());
    if let Some(uri) = uri {
        let uri: tower_lsp_server::ls_types::Uri = uri.parse().ok()?;
        return weft_lsp::convert::uri_to_path(&uri);
    }
    params["rootPath"].as_str().map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vault_comes_from_the_initialize_request() {
        let folders = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///b","workspaceFolders":[{"uri":"file:///a%20b/c","name":"c"}]}}"#;
        assert_eq!(root_of_initialize(folders), Some(PathBuf::from("/a b/c")));
        let root = br#"{"id":1,"method":"initialize","params":{"rootUri":"file:///r"}}"#;
        assert_eq!(root_of_initialize(root), Some(PathBuf::from("/r")));
        let path = br#"{"id":1,"method":"initialize","params":{"rootPath":"/p"}}"#;
        assert_eq!(root_of_initialize(path), Some(PathBuf::from("/p")));
        assert_eq!(root_of_initialize(b"{}"), None);
        assert_eq!(root_of_initialize(b"junk"), None);
    }
}
