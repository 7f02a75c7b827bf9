//! How a face reaches its session's other end: the vault's daemon, found
//! or started (under a lock file, so faces starting at once start one) and
//! greeted, or, when no daemon can serve, a session in this process. What
//! flows over the connection once it is made is `face`'s business.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::mpsc;

use super::place::Place;
use super::server::place_for;
use super::{Face, Hello, Welcome, idle_from_env};
use weft_tools::ToolState;
use weft_wire::{Framing, MAX_SERVER_MESSAGE};

/// How long a face waits for a daemon it started to listen. It only
/// bounds a failure (a face then serves in-process), so it is generous: a
/// cold start of a large binary on a loaded machine takes a while.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Daemon restarts tried before serving in-process.
const RESTARTS: u32 = 3;
/// What a face serves: which vault, which session.
#[derive(Clone)]
pub(super) struct Target {
    pub(super) vault: PathBuf,
    pub(super) face: Face,
    pub(super) framing: Framing,
}

/// A session's other end: the daemon, or a session in this process.
pub(super) struct Conn {
    pub(super) writer: Box<dyn AsyncWrite + Unpin + Send>,
    /// Messages from the server; closed when it is gone.
    pub(super) messages: mpsc::Receiver<Vec<u8>>,
}

impl Conn {
    fn new<R>(reader: R, writer: Box<dyn AsyncWrite + Unpin + Send>, framing: Framing) -> Conn
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
    {
        let (tx, messages) = mpsc::channel(64);
        tokio::spawn(async move {
            let mut reader = BufReader::new(reader);
            while let Ok(Some(body)) = framing.read(&mut reader, MAX_SERVER_MESSAGE).await {
                if tx.send(body).await.is_err() {
                    break;
                }
            }
        });
        Conn { writer, messages }
    }
}

/// The vault's daemon (started if needed, tried again after a failure),
/// else a session in this process.
pub(super) async fn connect(target: &Target, restart: u32) -> Conn {
    let hello = Hello {
        weft: super::place::build_tag(),
        vault: target.vault.clone(),
        face: target.face.clone(),
        warm: restart > 0,
    };
    if weft_workspace::hub::check_root(&target.vault).is_err() {
        // Not a vault: the session itself says why, in-process.
        return in_process(target);
    }
    let tries = if restart == 0 { 1 } else { RESTARTS };
    let mut reason = String::new();
    for attempt in 0..tries {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
        }
        match open_daemon(&target.vault, &hello).await {
            Ok((stream, _)) => {
                let (read, write) = stream.into_split();
                return Conn::new(read, Box::new(write), target.framing);
            }
            Err(why) => reason = why,
        }
    }
    eprintln!("weft: no index daemon ({reason}); serving in-process");
    in_process(target)
}

/// A session of this process, over a pipe.
pub(super) fn in_process(target: &Target) -> Conn {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(theirs);
    let vault = target.vault.clone();
    match target.face.clone() {
        Face::Lsp { vault_override } => {
            let vault_override = vault_override.then_some(vault);
            tokio::spawn(weft_lsp::serve(server_read, server_write, vault_override));
        }
        Face::Mcp { args } => {
            tokio::spawn(async move {
                args.offer_model(&vault);
                match ToolState::open(&vault, args.profile()) {
                    Ok(state) => {
                        if let Err(error) = weft_mcp::serve(state, server_read, server_write).await
                        {
                            eprintln!("weft mcp: {error}");
                        }
                    }
                    Err(error) => eprintln!("weft mcp: {error}"),
                }
            });
        }
        // Served by their own faces.
        Face::Query { .. } | Face::Http { .. } => {}
    }
    let (read, write) = tokio::io::split(ours);
    Conn::new(read, Box::new(write), target.framing)
}

/// Connects to the vault's daemon, starting it when nothing answers, and
/// says hello. A daemon that hangs up before answering is on its way out
/// (idle): the next try starts another. Returns the connection and the
/// daemon's welcome.
pub(super) async fn open_daemon(
    vault: &Path,
    hello: &Hello,
) -> Result<(UnixStream, Welcome), String> {
    let place = place_for(vault)?;
    let mut reason = String::new();
    for attempt in 0..3 {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let stream = match UnixStream::connect(&place.socket).await {
            Ok(stream) => stream,
            Err(_) => start_daemon(vault, &place).await?,
        };
        match greet(stream, hello).await {
            Ok(stream) => return Ok(stream),
            Err(Greeting::Refused(why)) => return Err(why),
            Err(Greeting::Gone(why)) => reason = why,
        }
    }
    Err(reason)
}

/// Why a hello failed.
enum Greeting {
    /// The daemon answered no (another build, another vault, a bad hello).
    Refused(String),
    /// It went away or said nothing.
    Gone(String),
}

async fn greet(stream: UnixStream, hello: &Hello) -> Result<(UnixStream, Welcome), Greeting> {
    let mut line = serde_json::to_string(hello).map_err(|e| Greeting::Refused(e.to_string()))?;
    line.push('\n');
    // A resuming face is welcomed once the vault is loaded.
    let patience = match hello.warm {
        true => super::WARM_TIMEOUT + Duration::from_secs(10),
        false => Duration::from_secs(30),
    };
    let mut stream = stream;
    stream
        .write_all(line.as_bytes())
        .await
        .map_err(|e| Greeting::Gone(format!("the daemon hung up: {e}")))?;
    // Read the welcome byte by byte: what follows belongs to the session.
    let mut welcome = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        use tokio::io::AsyncReadExt;
        let n = tokio::time::timeout(patience, stream.read(&mut byte))
            .await
            .map_err(|_| Greeting::Gone("the daemon did not answer in time".into()))?
            .map_err(|e| Greeting::Gone(format!("the daemon hung up: {e}")))?;
        if n == 0 {
            return Err(Greeting::Gone("the daemon hung up".into()));
        }
        if welcome.len() > 64 << 10 {
            return Err(Greeting::Refused("the daemon's welcome is too long".into()));
        }
        if byte[0] == b'\n' {
            break;
        }
        welcome.push(byte[0]);
    }
    let welcome: Welcome = serde_json::from_slice(&welcome)
        .map_err(|e| Greeting::Refused(format!("a bad welcome: {e}")))?;
    match welcome.error.clone() {
        None if welcome.ok => Ok((stream, welcome)),
        error => Err(Greeting::Refused(error.unwrap_or_else(|| "refused".into()))),
    }
}

/// Starts the vault's daemon unless another face just did (one at a time,
/// under the lock file), clearing a stale socket; waits until it listens.
async fn start_daemon(vault: &Path, place: &Place) -> Result<UnixStream, String> {
    let lock_path = place.lock.clone();
    let lock = tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        file.lock()?;
        Ok::<_, std::io::Error>(file)
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| format!("cannot take {}: {e}", place.lock.display()))?;
    if let Ok(stream) = UnixStream::connect(&place.socket).await {
        return Ok(stream); // Another face started it meanwhile.
    }
    // Nothing answers: whatever is there is stale.
    let _ = std::fs::remove_file(&place.socket);
    let exe = std::env::current_exe().map_err(|e| format!("cannot find weft itself: {e}"))?;
    if std::fs::metadata(&place.log).is_ok_and(|m| m.len() > 1 << 20) {
        let _ = std::fs::remove_file(&place.log);
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&place.log)
        .map_err(|e| format!("cannot open {}: {e}", place.log.display()))?;
    const EAGER_COMMIT: &str = "MIMALLOC_ARENA_EAGER_COMMIT";
    let mut command = std::process::Command::new(exe);
    command
        .arg("--vault")
        .arg(vault)
        .arg("daemon")
        .arg("--idle")
        .arg(idle_from_env().as_secs().to_string())
        .env_remove("WEFT_NO_DAEMON")
        // Paths are absolute; the daemon must not pin the face's folder.
        .current_dir("/")
        .env(
            "WEFT_RUNTIME_DIR",
            place.socket.parent().unwrap_or(Path::new("/")),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    if std::env::var_os(EAGER_COMMIT).is_none() {
        // The daemon lives long and its loads free much of what they
        // allocate: mimalloc gives that back only from arenas not committed
        // eagerly (its default where the system overcommits). Read before
        // `main`, so set here. 56 against 92 MiB resident at 15k notes.
        command.env(EAGER_COMMIT, "0");
    }
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start the daemon: {e}"))?;
    // Waited for (no zombie when it ends before this face does).
    let (ended_tx, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = ended_tx.send(child.wait());
    });
    let started = Instant::now();
    loop {
        if let Ok(stream) = UnixStream::connect(&place.socket).await {
            drop(lock);
            return Ok(stream);
        }
        if let Ok(status) = ended.try_recv() {
            let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
            return Err(format!(
                "the daemon stopped at once ({status}; see {})",
                place.log.display()
            ));
        }
        if started.elapsed() > START_TIMEOUT {
            return Err(format!(
                "the daemon did not start listening within {} s (see {})",
                START_TIMEOUT.as_secs(),
                place.log.display()
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
