//! Loading a vault (the process's shared hub of it) in the background and
//! following it: the hub's watcher, agents' writes, other editors'
//! buffers and configuration changes reach this session here; and the task
//! that republishes diagnostics when answers changed.
//!
//! It must not know what any feature computes; it keeps this session's
//! caches in step with the index and tells the client when to ask again.

use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use tokio::sync::broadcast;

use super::diagnostics;
use super::vault::Vault;
use super::world::World;
use weft_workspace::hub::Phase;
use weft_workspace::sync::lock;

pub(super) fn new_vault(root: PathBuf, settings: Option<&Value>) -> Vault {
    let root = root.canonicalize().unwrap_or(root);
    Vault::new(root, settings)
}

/// Loads a vault (its shared hub: at once when another session of the
/// process loaded it already), then serves from it and follows what other
/// sessions and the disk change.
pub(super) async fn load(world: Arc<World>, vault: Arc<Vault>) {
    let settings = lock(&world.settings).clone();
    let started = Instant::now();
    let Some(hub) = vault.hub.clone() else {
        let message = format!(
            "weft: cannot open the vault {}: it is not a folder",
            vault.root.display()
        );
        *lock(&vault.load_error) = Some(message.clone());
        world.loaded.notify_waiters();
        world.client.show_message(MessageType::ERROR, message).await;
        return;
    };
    // The settings as the client gave them by now (`workspace/configuration`
    // may have answered since `initialize`); the index is the hub's.
    if let Err(error) = vault.apply_settings(settings.as_ref()) {
        world
            .client
            .show_message(
                MessageType::WARNING,
                format!("weft: {error}; using .weft.toml only"),
            )
            .await;
    }
    report_loading(&world, &vault);
    loop {
        hub.start();
        let Phase::Failed(error) = hub.wait_notes().await else {
            break;
        };
        let message = format!("weft: {error}");
        *lock(&vault.load_error) = Some(message.clone());
        world.loaded.notify_waiters();
        world.client.show_message(MessageType::ERROR, message).await;
        if hub.config_error().is_none() {
            return;
        }
        // A `.weft.toml` that does not load: served once it is fixed.
        hub.wait_unfailed().await;
        *lock(&vault.load_error) = None;
        if let Err(error) = vault.apply_settings(settings.as_ref()) {
            tracing::warn!("{error}");
        }
    }
    let Some(live) = hub.live().cloned() else {
        return;
    };
    vault.set_live(live);
    world.loaded.notify_waiters();
    // Buffers opened while loading are the truth for their notes.
    let open: Vec<String> = world
        .docs
        .iter()
        .filter(|d| Arc::ptr_eq(&d.vault, &vault))
        .map(|d| d.rel.clone())
        .collect();
    for rel in &open {
        world.index_doc(&vault, rel);
    }
    tokio::spawn(follow_hub(
        Arc::downgrade(&world),
        Arc::downgrade(&vault),
        hub.subscribe_changes(),
        hub.subscribe_edits(),
        hub.live_config().subscribe(),
    ));
    vault.refresh_ranks(true);
    vault.names();
    vault.symbol_table();
    let notes = vault.read().len();
    world
        .client
        .log_message(
            MessageType::INFO,
            format!(
                "weft: {} notes indexed in {} ms ({})",
                notes,
                started.elapsed().as_millis(),
                vault.root.display()
            ),
        )
        .await;
    world.schedule_refresh(true);
}

/// What changes elsewhere reaches this session: notes changed on disk (the
/// hub's watcher, an agent's write, another editor's file operation),
/// other sessions' buffers, and the vault's configuration (`.weft.toml`
/// edited: applied, or its error shown). Diagnostics are republished.
async fn follow_hub(
    world: Weak<World>,
    vault: Weak<Vault>,
    mut changes: broadcast::Receiver<weft_workspace::hub::Changed>,
    mut edits: broadcast::Receiver<weft_workspace::hub::Edited>,
    mut config: tokio::sync::watch::Receiver<u64>,
) {
    use broadcast::error::RecvError;
    loop {
        let paths = tokio::select! {
            changed = config.changed() => {
                if changed.is_err() {
                    return;
                }
                let (Some(world), Some(vault)) = (world.upgrade(), vault.upgrade()) else {
                    return;
                };
                config_changed(&world, &vault).await;
                world.schedule_refresh(true);
                continue;
            },
            changed = changes.recv() => match changed {
                Ok(paths) => Some(paths),
                Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return,
            },
            edited = edits.recv() => match edited {
                Ok(edited) => {
                    let own = vault.upgrade().is_some_and(|v| v.session == edited.session);
                    if own {
                        continue;
                    }
                    Some(edited.paths)
                }
                Err(RecvError::Lagged(_)) => None,
                Err(RecvError::Closed) => return,
            },
        };
        let (Some(world), Some(vault)) = (world.upgrade(), vault.upgrade()) else {
            return;
        };
        match paths {
            Some(paths) => world.notes_changed(&vault, &paths),
            // Missed some: everything may have changed.
            None => {
                vault.ranks_changed();
                vault.names_changed();
            }
        }
        world.schedule_refresh(true);
    }
}

/// The vault's configuration changed (or stopped loading): the editor's
/// settings go over it again, and a file that no longer loads is shown.
async fn config_changed(world: &Arc<World>, vault: &Arc<Vault>) {
    let settings = lock(&world.settings).clone();
    let mut problems = Vec::new();
    if let Some(error) = vault.hub.as_ref().and_then(|h| h.config_error()) {
        problems.push(format!(
            "weft: {error}; keeping the last configuration that loaded"
        ));
    }
    if let Err(error) = vault.apply_settings(settings.as_ref()) {
        problems.push(format!("weft: {error}; using .weft.toml only"));
    }
    for problem in problems {
        world
            .client
            .show_message(MessageType::WARNING, problem)
            .await;
    }
}

/// Republishes diagnostics when asked (coalescing bursts of edits), and
/// asks the client to refresh lenses and tokens when other notes changed.
pub(super) async fn refresh_loop(
    world: Weak<World>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<bool>,
) {
    let mut last_refresh: Option<Instant> = None;
    let mut pending_external = false;
    while let Some(mut external) = rx.recv().await {
        tokio::time::sleep(Duration::from_millis(30)).await;
        while let Ok(more) = rx.try_recv() {
            external |= more;
        }
        let Some(world) = world.upgrade() else { break };
        diagnostics::publish_all(&world).await;
        pending_external |= external;
        if pending_external && last_refresh.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
            pending_external = false;
            last_refresh = Some(Instant::now());
            let caps = world.caps();
            let client = world.client.clone();
            tokio::spawn(async move {
                if caps.semantic_refresh {
                    let _ = client.semantic_tokens_refresh().await;
                }
                if caps.code_lens_refresh {
                    let _ = client.code_lens_refresh().await;
                }
            });
        }
    }
}

/// While a vault is read cold (no persisted index: not loaded yet when its
/// session starts), tells a client that shows work-done progress how long
/// it has run, every half second, until loading ends; requests wait for it
/// meanwhile ([`super::ready`]). Runs beside the load, never delaying it.
fn report_loading(world: &Arc<World>, vault: &Arc<Vault>) {
    let Some(hub) = vault.hub.clone() else {
        return;
    };
    if !world.caps().work_done_progress || hub.live().is_some() {
        return;
    }
    let client = world.client.clone();
    let root = vault.root.display().to_string();
    tokio::spawn(async move {
        let token = ProgressToken::String(format!("weft/loading/{root}"));
        if client
            .create_work_done_progress(token.clone())
            .await
            .is_err()
        {
            return;
        }
        let progress = client
            .progress(token, "Weft: indexing the vault")
            .with_message(root)
            .begin()
            .await;
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        tick.tick().await;
        while hub.live().is_none() && !matches!(hub.phase(), Phase::Failed(_)) {
            tick.tick().await;
            progress
                .report(format!(
                    "reading the notes ({:.1} s)",
                    hub.seconds_since_start()
                ))
                .await;
        }
        progress.finish().await;
    });
}
