//! `weft mcp --http`, the parts that are the command line's: where to
//! listen (loopback unless `--allow-remote`), which Host names to answer,
//! and the bearer token (given, or kept in the user's config folder, mode
//! 0600, made on first use); and serving in this process where no daemon
//! serves it. The HTTP server itself is `weft_mcp::http`'s.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::args::{HttpArgs, McpArgs};
use weft_mcp::http::{HttpOptions, PATH, loopback_hosts, serve_http};

/// A token given by hand must be at least this long (a short one can be
/// guessed).
const MIN_TOKEN: usize = 16;

/// What an HTTP face asks for: resolved from the command line, sent to the
/// daemon in the hello.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HttpServe {
    pub listen: SocketAddr,
    pub token: String,
    pub allowed_hosts: Vec<String>,
    pub session_idle_secs: u64,
}

impl HttpServe {
    /// Checks `args` and finds the token.
    pub fn from_args(args: &HttpArgs) -> Result<HttpServe, String> {
        let ip: IpAddr = match args.host.as_str() {
            "localhost" => IpAddr::from([127, 0, 0, 1]),
            host => host.parse().map_err(|_| {
                format!("--host {host} is not an IP address (127.0.0.1, ::1, 0.0.0.0, …)")
            })?,
        };
        if !ip.is_loopback() && !args.allow_remote {
            return Err(format!(
                "refusing to listen on {ip}, which other machines may reach: pass --allow-remote \
                 if you mean it (every request still needs the token)"
            ));
        }
        let mut allowed_hosts = loopback_hosts();
        if !ip.is_loopback() && !ip.is_unspecified() {
            allowed_hosts.push(ip.to_string());
        }
        allowed_hosts.extend(args.allow_hosts.iter().cloned());
        let token = match &args.token {
            Some(token) if token.trim().len() < MIN_TOKEN => {
                return Err(format!(
                    "the token must be at least {MIN_TOKEN} characters long"
                ));
            }
            Some(token) => token.trim().to_string(),
            None => kept_token()?,
        };
        Ok(HttpServe {
            listen: SocketAddr::new(ip, args.port),
            token,
            allowed_hosts,
            session_idle_secs: args.session_idle.max(1) * 60,
        })
    }

    pub fn options(&self) -> HttpOptions {
        HttpOptions {
            token: self.token.clone(),
            allowed_hosts: self.allowed_hosts.clone(),
            session_idle: Duration::from_secs(self.session_idle_secs),
        }
    }

    /// The endpoint's URL once bound to `bound`.
    pub fn url(bound: SocketAddr) -> String {
        let host = match bound.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!("http://{host}:{}{PATH}", bound.port())
    }
}

/// Tells the user where the server is and how to reach it (stdout, one
/// line each, so a script can read them).
pub fn announce(vault: &Path, url: &str, token: &str) {
    println!(
        "Weft serves the MCP server of {} over Streamable HTTP",
        vault.display()
    );
    println!("URL: {url}");
    println!("Token: {token}");
    println!("Send `Authorization: Bearer <token>` with every request; stop with Ctrl-C.");
    use std::io::Write;
    let _ = std::io::stdout().flush();
}

/// The user's token file: `$XDG_CONFIG_HOME/weft/http-token` (or
/// `~/.config/weft/http-token`; `%APPDATA%\weft\http-token` on Windows).
pub fn token_path() -> Option<PathBuf> {
    let dir = match std::env::var_os("APPDATA") {
        Some(appdata) if cfg!(windows) => PathBuf::from(appdata).join("weft"),
        _ => weft_workspace::dirs::user_dir("XDG_CONFIG_HOME", ".config")?,
    };
    Some(dir.join("http-token"))
}

/// The kept token, made (and kept, readable by this user only) when there
/// is none.
fn kept_token() -> Result<String, String> {
    let path = token_path().ok_or("no config folder to keep the token in: pass --token")?;
    if let Ok(text) = std::fs::read_to_string(&path) {
        let token = text.trim().to_string();
        if token.len() >= MIN_TOKEN {
            private(&path);
            return Ok(token);
        }
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("cannot make a token: {e}"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let temp = path.with_extension("tmp");
    write_private(&temp, &token).map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    std::fs::rename(&temp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(token)
}

#[cfg(unix)]
fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(format!("{token}\n").as_bytes())?;
    file.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    std::fs::write(path, format!("{token}\n"))
}

/// A kept token file others can read is made private again.
fn private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "weft mcp: {} was readable by others; it is now readable by you only",
                path.display()
            );
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Serves HTTP in this process until stopped (no daemon, or none wanted).
pub fn serve_here(vault: PathBuf, args: McpArgs, serve: HttpServe) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("weft mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(serve.listen).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("weft mcp: cannot listen on {}: {e}", serve.listen);
                return ExitCode::from(2);
            }
        };
        let url = listener
            .local_addr()
            .map_or_else(|_| serve.listen.to_string(), HttpServe::url);
        announce(&vault, &url, &serve.token);
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            stopped().await;
            stop.cancel();
        });
        args.offer_model(&vault);
        match serve_http(listener, vault, args.profile(), serve.options(), shutdown).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("weft mcp: {e}");
                ExitCode::FAILURE
            }
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(200));
    code
}

/// Resolves when the user asks the process to stop (Ctrl-C, SIGTERM).
pub async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
