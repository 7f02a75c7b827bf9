//! No answer from a partial index: a request that needs the vaults' index
//! (every note: to resolve a link, find its backlinks, complete a name)
//! waits until each vault is loaded, then answers from all of it. Past the
//! bound ([`INDEX_WAIT`](super::world::INDEX_WAIT)) it fails, saying how
//! long loading has run, so the editor can retry. With a persisted index
//! there is nothing to wait for. Requests about the open buffer alone
//! (document symbols, folding) never wait.

use std::time::{Duration, Instant};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

use super::world::World;
use weft_workspace::sync::lock;

/// LSP's `RequestFailed`: the request was valid, the server could not
/// answer it now.
const REQUEST_FAILED: i64 = -32803;

/// Waits until every vault is loaded (or failed to, which its error says).
pub(super) async fn loaded(world: &World) -> Result<()> {
    let bound = *lock(&world.index_wait);
    let started = Instant::now();
    loop {
        // Registered before looking, so a load that ends in between wakes it.
        let woken = world.loaded.notified();
        let waiting = world
            .vaults()
            .into_iter()
            .find(|v| !v.is_ready() && lock(&v.load_error).is_none());
        let Some(vault) = waiting else {
            return Ok(());
        };
        if started.elapsed() >= bound {
            let secs = vault
                .hub
                .as_ref()
                .map_or(0.0, |hub| hub.seconds_since_start());
            return Err(Error {
                code: ErrorCode::ServerError(REQUEST_FAILED),
                message: format!(
                    "Still indexing {} ({secs:.0} s so far): nothing is answered from a partial \
                     index; retry in a few seconds.",
                    vault.root.display()
                )
                .into(),
                data: None,
            });
        }
        // Woken when a vault loads or fails to; looked at again at least
        // every 50 ms all the same.
        let _ = tokio::time::timeout(Duration::from_millis(50), woken).await;
    }
}
