//! The MCP server over Streamable HTTP (`weft mcp --http`), for agents that
//! connect by URL: rmcp's Streamable HTTP service under axum, each session
//! a session over the vault's one hub, exactly as a stdio session is.
//!
//! Security is not optional. Every request must carry the bearer token
//! (compared in constant time; 401 otherwise, before anything else runs);
//! `Host` must name an allowed host and a present `Origin` a loopback one
//! (DNS rebinding); a body over [`weft_wire::MAX_MCP_MESSAGE`] is refused
//! (413); a session idle for [`HttpOptions::session_idle`] ends. Where to
//! listen, and the token, are the caller's.
//!
//! Must not know the daemon or the command line.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::boundary::Boundary;
use super::server::Server;
use super::tools;
use super::{Profile, ServeError, ToolState};

/// Where the MCP endpoint is.
pub const PATH: &str = "/mcp";

/// How a [`serve_http`] server admits requests.
#[derive(Clone)]
pub struct HttpOptions {
    /// The bearer token every request must carry.
    pub token: String,
    /// What a request's `Host` may name: `host` (any port) or `host:port`.
    pub allowed_hosts: Vec<String>,
    /// A session with no request for this long ends.
    pub session_idle: Duration,
}

/// The hosts a loopback server answers to.
pub fn loopback_hosts() -> Vec<String> {
    ["localhost", "127.0.0.1", "::1", "[::1]"]
        .map(String::from)
        .to_vec()
}

/// Serves the vault at `root` on `listener` until `shutdown`.
pub async fn serve_http(
    listener: TcpListener,
    root: PathBuf,
    profile: Profile,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config = {
        let mut config = SessionConfig::default();
        config.keep_alive = Some(options.session_idle);
        config
    };
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allowed_hosts.clone())
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .enforce_origin_validation()
        .with_max_request_body_bytes(weft_wire::MAX_MCP_MESSAGE)
        .with_cancellation_token(shutdown.child_token());
    let service = StreamableHttpService::new(
        move || {
            let state = ToolState::open(&root, profile).map_err(std::io::Error::other)?;
            state.start();
            Ok(Boundary::new(Server::new(state, tools::router())))
        },
        Arc::new(sessions),
        config,
    );
    let token: Arc<str> = Arc::from(options.token.as_str());
    let app = Router::new()
        .nest_service(PATH, service)
        .layer(middleware::from_fn_with_state(token, authorize));
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .map_err(|e| ServeError(format!("the HTTP server stopped: {e}")))
}

/// Lets through only requests bearing the token.
async fn authorize(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    if given.is_some_and(|given| same(given.as_bytes(), token.as_bytes())) {
        return next.run(request).await;
    }
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "Weft's MCP server needs its token: send `Authorization: Bearer <token>` \
         (`weft mcp --http` prints it when it starts).\n",
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"weft\""),
    );
    // The request's body is left unread, so the connection cannot carry
    // another request: say so, or a client reusing it races its closing
    // ("server disconnected without sending a response").
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Equal bytes, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"", b"a"));
    }
}
