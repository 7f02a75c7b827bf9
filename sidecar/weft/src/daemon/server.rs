//! `weft daemon`: serves one vault to every face of it. Binds the vault's
//! socket (mode 0600 in a private folder), holds the vault's hub for its
//! whole life (so the index stays warm between sessions), checks that each
//! peer is our own user, reads the face's [`Hello`] (bounded in time and
//! size; a bad one is refused with a [`super::Welcome`] saying why) and runs one session
//! per connection: a language server, an MCP server or one query. A face
//! resuming a session (its daemon died) is welcomed once the vault is
//! loaded, so its replayed session does not answer from an empty index.
//!
//! Exits after the idle time with no connection, when its vault folder is
//! gone, or when its socket file was removed or replaced; it then removes
//! its socket and pid file. Logs go to stderr (the face that started it
//! points that at the `.log` file beside the socket).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::{Signal, SignalKind};

use super::place::{Place, build_tag, runtime_dir, uid};
use super::{Face, Hello, WARM_TIMEOUT, Welcome};
use weft_workspace::dirs::cache_dir;
use weft_workspace::hub::Hub;
use weft_workspace::sync::lock;

/// How long a face may take to say hello (it only bounds a broken face).
const HELLO_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest hello read; a longer one is refused unread. A query's
/// command line is the long one, and the system caps it at 2 MiB.
const MAX_HELLO: usize = 16 << 20;

/// How long a stopping daemon waits for the full text's merges in flight.
const SETTLE_BOUND: Duration = Duration::from_secs(10);

/// Runs the daemon of the vault at `vault` until it has nothing to do.
pub fn run(vault: &Path, idle: Duration) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("weft daemon: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(serve(vault, idle));
    runtime.shutdown_timeout(Duration::from_millis(200));
    match result {
        Ok(why) => {
            tracing::info!("weft daemon: exiting: {why}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("weft daemon: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(vault: &Path, idle: Duration) -> Result<&'static str, String> {
    let hub = Hub::get(vault).map_err(|e| e.to_string())?;
    let root = hub.root().to_path_buf();
    let build = build_tag();
    let place = Place::new(&runtime_dir(), &root, &build).map_err(|e| e.to_string())?;
    if UnixStream::connect(&place.socket).await.is_ok() {
        return Ok("another daemon serves this vault");
    }
    let _ = std::fs::remove_file(&place.socket);
    let listener = UnixListener::bind(&place.socket)
        .map_err(|e| format!("cannot listen on {}: {e}", place.socket.display()))?;
    std::fs::set_permissions(&place.socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot protect {}: {e}", place.socket.display()))?;
    let inode = std::fs::metadata(&place.socket)
        .map(|m| m.ino())
        .map_err(|e| e.to_string())?;
    let _ = std::fs::write(&place.pid, format!("{}\n", std::process::id()));
    eprintln!(
        "weft daemon {build}: serving {} on {} (pid {})",
        root.display(),
        place.socket.display(),
        std::process::id()
    );
    if let Some(cache) = cache_dir() {
        hub.persist_in(cache, build.clone());
    }
    hub.start();
    // The notes' load allocates in bursts that mimalloc's delayed purging
    // serves well; what follows must give memory back at once: the
    // full-text build (its writer arenas, about 50 MB, were otherwise kept
    // for the daemon's life: a purge delayed is carried out only when the
    // thread that owes it allocates again), and changes, storms of them.
    let loading = hub.clone();
    tokio::spawn(async move {
        loading.wait_notes().await;
        crate::memory::purge_at_once();
    });
    let active = Arc::new(AtomicUsize::new(0));
    let last_left = Arc::new(std::sync::Mutex::new(Instant::now()));
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    // Asked to stop: leave as after the idle time, files removed.
    let mut terminate = signal(SignalKind::terminate());
    let mut interrupt = signal(SignalKind::interrupt());
    let why = loop {
        tokio::select! {
            Some(()) = recv(&mut terminate) => break "asked to stop (SIGTERM)",
            Some(()) = recv(&mut interrupt) => break "asked to stop (SIGINT)",
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    active.fetch_add(1, Ordering::SeqCst);
                    let (active, last_left) = (active.clone(), last_left.clone());
                    let (root, build) = (root.clone(), build.clone());
                    tokio::spawn(async move {
                        if let Err(error) = connection(stream, &root, &build).await {
                            tracing::warn!("weft daemon: a connection ended badly: {error}");
                        }
                        *lock(&last_left) = Instant::now();
                        active.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                Err(error) => tracing::warn!("weft daemon: accept failed: {error}"),
            },
            _ = tick.tick() => {
                let quiet = lock(&last_left)
                    .elapsed();
                if active.load(Ordering::SeqCst) == 0 && quiet >= idle {
                    break "idle";
                }
                if !root.is_dir() {
                    break "the vault folder is gone";
                }
                if std::fs::symlink_metadata(&place.socket).map(|m| m.ino()).ok() != Some(inode) {
                    break "the socket was removed or replaced";
                }
            }
        }
    };
    if std::fs::symlink_metadata(&place.socket)
        .map(|m| m.ino())
        .ok()
        == Some(inode)
    {
        let _ = std::fs::remove_file(&place.socket);
    }
    let ours = std::fs::read_to_string(&place.pid)
        .is_ok_and(|pid| pid.trim() == std::process::id().to_string());
    if ours {
        let _ = std::fs::remove_file(&place.pid);
    }
    // The full text's merges in flight finish before the process ends, so
    // the cache keeps no half-written segment; one that outlasts the bound
    // is abandoned, and the next open removes its files.
    let resting = hub.clone();
    let _ = tokio::time::timeout(
        SETTLE_BOUND,
        tokio::task::spawn_blocking(move || resting.rest_fulltext()),
    )
    .await;
    if root.is_dir() {
        // The next daemon starts from the index as it is now.
        let saving = hub.clone();
        let _ = tokio::task::spawn_blocking(move || saving.save_snapshot()).await;
    } else {
        // Nobody will ask for a vault that is gone: leave nothing behind.
        let _ = std::fs::remove_file(&place.log);
        let _ = std::fs::remove_file(&place.lock);
    }
    Ok(why)
}

/// One connection: our user only, then the hello, then its session.
async fn connection(stream: UnixStream, root: &Path, build: &str) -> Result<(), String> {
    let peer = stream.peer_cred().map_err(|e| e.to_string())?;
    if peer.uid() != uid() {
        return Err(format!("refused a connection from user {}", peer.uid()));
    }
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let hello = tokio::time::timeout(HELLO_TIMEOUT, read_hello(&mut reader, MAX_HELLO))
        .await
        .map_err(|_| "no hello in time".to_string())?
        .map_err(|e| e.to_string())?;
    let mut refusal = match &hello {
        Err(error) => Some(error.clone()),
        Ok(hello) if hello.weft != build => Some(format!(
            "this daemon is weft {build}, the face is {}",
            hello.weft
        )),
        Ok(hello) if !same_path(&hello.vault, root) => Some(format!(
            "this daemon serves {}, not {}",
            root.display(),
            hello.vault.display()
        )),
        Ok(_) => None,
    };
    // An MCP session's state, made before the welcome to warm it up; an
    // HTTP face's listener, bound before the welcome tells its URL.
    let mut mcp = None;
    let mut http = None;
    if let Ok(hello) = &hello
        && refusal.is_none()
    {
        match &hello.face {
            Face::Mcp { args } => {
                args.offer_model(root);
                match weft_tools::ToolState::open(root, args.profile()) {
                    Ok(state) => {
                        if hello.warm {
                            state.start();
                            let _ = tokio::time::timeout(WARM_TIMEOUT, state.wait_ready()).await;
                        }
                        mcp = Some(state);
                    }
                    Err(error) => refusal = Some(error.to_string()),
                }
            }
            Face::Http { serve, .. } => match tokio::net::TcpListener::bind(serve.listen).await {
                Ok(listener) => http = Some(listener),
                Err(error) => refusal = Some(format!("cannot listen on {}: {error}", serve.listen)),
            },
            Face::Lsp { .. } if hello.warm => {
                if let Ok(hub) = Hub::get(root) {
                    hub.start();
                    let _ = tokio::time::timeout(WARM_TIMEOUT, hub.wait_notes()).await;
                }
            }
            _ => {}
        }
    }
    let welcome = Welcome {
        ok: refusal.is_none(),
        error: refusal.clone(),
        listening: http
            .as_ref()
            .and_then(|l: &tokio::net::TcpListener| l.local_addr().ok()),
    };
    let mut reply = serde_json::to_string(&welcome).map_err(|e| e.to_string())?;
    reply.push('\n');
    write
        .write_all(reply.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    if let Some(refusal) = refusal {
        return Err(refusal);
    }
    let Ok(hello) = hello else { return Ok(()) };
    match hello.face {
        Face::Lsp { vault_override } => {
            weft_lsp::serve(reader, write, vault_override.then(|| root.to_path_buf())).await;
        }
        Face::Mcp { args } => {
            let state = match mcp {
                Some(state) => state,
                None => {
                    args.offer_model(root);
                    weft_tools::ToolState::open(root, args.profile()).map_err(|e| e.to_string())?
                }
            };
            weft_mcp::serve(state, reader, write)
                .await
                .map_err(|e| e.to_string())?;
        }
        Face::Http { args, serve } => {
            let Some(listener) = http else { return Ok(()) };
            serve_http(reader, listener, root, args, serve).await?;
        }
        Face::Query { argv } => {
            let argv = argv.into_iter().map(Into::into).collect();
            let answer = super::answer::answer(argv, root.to_path_buf()).await;
            let mut line = serde_json::to_string(&answer).map_err(|e| e.to_string())?;
            line.push('\n');
            write
                .write_all(line.as_bytes())
                .await
                .map_err(|e| e.to_string())?;
            let _ = write.shutdown().await;
        }
    }
    Ok(())
}

/// Serves MCP over HTTP on `listener` until the face's connection
/// (`reader`) closes: the face is what keeps it running.
async fn serve_http<R: tokio::io::AsyncRead + Unpin>(
    mut reader: R,
    listener: tokio::net::TcpListener,
    root: &Path,
    args: crate::args::McpArgs,
    serve: crate::http::HttpServe,
) -> Result<(), String> {
    args.offer_model(root);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let server = tokio::spawn(weft_mcp::http::serve_http(
        listener,
        root.to_path_buf(),
        args.profile(),
        serve.options(),
        shutdown.clone(),
    ));
    // Nothing is sent after the welcome: a read ends when the face does.
    super::until_closed(&mut reader).await;
    shutdown.cancel();
    server
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// The face's hello line, never holding more than `limit` bytes: `Err`
/// when the connection failed, `Ok(Err)` for a hello to refuse (too long,
/// cut short, not a hello).
async fn read_hello<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Result<Hello, String>> {
    let mut line = Vec::new();
    reader
        .take(limit as u64)
        .read_until(b'\n', &mut line)
        .await?;
    Ok(if line.len() >= limit && !line.ends_with(b"\n") {
        Err(format!("a hello longer than {limit} bytes"))
    } else {
        serde_json::from_slice(&line).map_err(|e| format!("a bad hello: {e}"))
    })
}

fn signal(kind: SignalKind) -> Option<Signal> {
    tokio::signal::unix::signal(kind)
        .inspect_err(|e| tracing::warn!("weft daemon: cannot handle a signal: {e}"))
        .ok()
}

async fn recv(signal: &mut Option<Signal>) -> Option<()> {
    match signal {
        Some(signal) => signal.recv().await,
        None => std::future::pending().await,
    }
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok().as_deref() == Some(b)
}

/// Where a face finds its daemon's files.
pub fn place_for(vault: &Path) -> Result<Place, String> {
    Place::new(&runtime_dir(), vault, &build_tag()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 21): the hello was read whole, however long, so
    /// one connection could make a vault's daemon hold any amount of
    /// memory for as long as it kept sending.
    #[tokio::test]
    async fn a_hello_is_read_within_its_bound_or_refused() {
        let good = serde_json::to_string(&Hello {
            weft: "0.1.0-00000000".into(),
            vault: "/v".into(),
            face: Face::Query {
                argv: vec!["weft".into()],
            },
            warm: false,
        })
        .unwrap();
        let read = |bytes: Vec<u8>| async move {
            let mut reader = &bytes[..];
            read_hello(&mut reader, 1000).await.unwrap()
        };
        let hello = read(format!("{good}\nmore").into_bytes()).await.unwrap();
        assert_eq!(hello.vault, std::path::Path::new("/v"));
        let endless = read(vec![b'x'; 5000]).await.unwrap_err();
        assert!(endless.contains("longer than 1000 bytes"), "{endless}");
        let cut = read(good.as_bytes()[..good.len() / 2].to_vec())
            .await
            .unwrap_err();
        assert!(cut.contains("a bad hello"), "{cut}");
        let wrong = read(b"{\"weft\":1}\n".to_vec()).await.unwrap_err();
        assert!(wrong.contains("a bad hello"), "{wrong}");
    }
}
