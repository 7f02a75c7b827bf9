//! The server's life after the handshake: its status and shutdown, open
//! buffers (incremental sync), settings and workspace-folder changes, and
//! file events from the client's watcher. The handshake is `handshake`;
//! loading and following a vault `loading`.
//!
//! It must not know what any feature computes; it keeps the index equal to
//! the buffers and the disk, and tells the client when answers changed.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tower_lsp_server::ls_types::*;

use super::convert::{LineIndex, apply_changes, uri_to_path};

use super::handshake::fetch_settings;
use super::loading::{load, new_vault};
use super::vault::Vault;
use super::world::{Doc, Located, World, unwrap_settings};
use weft_workspace::sync::{lock, write};

pub(super) fn shutdown(_world: &World) {}

/// `weft/status`: loading state per vault.
pub(super) fn status(world: &World) -> Value {
    let vaults: Vec<Value> = world
        .vaults()
        .iter()
        .map(|v| {
            json!({
                "root": v.root.display().to_string(),
                "ready": v.is_ready(),
                "ranked": v.is_ready() && v.ranks_current(),
                "warm": v.caches_built(),
                "position_cache_bytes": v.position_cache_bytes(),
                "notes": v.read().len(),
                "error": lock(&v.load_error).clone(),
            })
        })
        .collect();
    let done = |key: &str| {
        vaults
            .iter()
            .all(|v| v[key].as_bool() == Some(true) || !v["error"].is_null())
    };
    json!({
        "ready": done("ready"),
        "ranked": done("ranked"),
        "warm": done("warm"),
        "vaults": vaults,
    })
}

pub(super) fn did_open(world: &World, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    let Some(Located { vault, rel }) = world.locate(&document.uri) else {
        return;
    };
    let lines = Arc::new(LineIndex::new(&document.text));
    world.docs.insert(
        vault.abs(&rel),
        Doc {
            uri: document.uri,
            version: document.version,
            text: Arc::new(document.text),
            lines,
            vault: Arc::clone(&vault),
            rel: rel.clone(),
        },
    );
    world.index_doc(&vault, &rel);
    vault.touch(&rel);
    world.edited(&vault, &rel);
    world.schedule_refresh(false);
}

pub(super) fn did_change(world: &World, params: DidChangeTextDocumentParams) {
    let Some(Located { vault, rel }) = world.locate(&params.text_document.uri) else {
        return;
    };
    let encoding = world.encoding();
    {
        let Some(mut doc) = world.docs.get_mut(&vault.abs(&rel)) else {
            return;
        };
        let mut text = String::clone(&doc.text);
        let changes = params
            .content_changes
            .iter()
            .map(|change| (change.range, change.text.as_str()));
        doc.lines = Arc::new(apply_changes(
            &mut text,
            Some(&doc.lines),
            changes,
            encoding,
        ));
        doc.text = Arc::new(text);
        doc.version = params.text_document.version;
    }
    world.index_doc(&vault, &rel);
    vault.touch(&rel);
    world.edited(&vault, &rel);
    world.schedule_refresh(false);
}

pub(super) fn did_close(world: &World, params: DidCloseTextDocumentParams) {
    let Some(Located { vault, rel }) = world.locate(&params.text_document.uri) else {
        return;
    };
    let abs = vault.abs(&rel);
    world.docs.remove(&abs);
    world.published.remove(&abs);
    world.unindex_doc(&vault, &rel);
    world.edited(&vault, &rel);
    let client = world.client.clone();
    let uri = params.text_document.uri;
    tokio::spawn(async move { client.publish_diagnostics(uri, Vec::new(), None).await });
    world.schedule_refresh(true);
}

pub(super) async fn did_change_configuration(
    world: &Arc<World>,
    params: DidChangeConfigurationParams,
) {
    let settings = match unwrap_settings(params.settings) {
        Some(settings) => Some(settings),
        None if world.caps().configuration => fetch_settings(world).await,
        None => None,
    };
    if let Some(settings) = settings.clone() {
        *lock(&world.settings) = Some(settings);
    }
    let settings = lock(&world.settings).clone();
    for vault in world.vaults() {
        if let Err(error) = vault.apply_settings(settings.as_ref()) {
            world
                .client
                .show_message(MessageType::WARNING, format!("weft: {error}"))
                .await;
        }
    }
    world.schedule_refresh(true);
}

pub(super) fn did_change_workspace_folders(
    world: &Arc<World>,
    params: DidChangeWorkspaceFoldersParams,
) {
    if world.vault_override.is_some() {
        return;
    }
    let removed: Vec<PathBuf> = params
        .event
        .removed
        .iter()
        .filter_map(|f| uri_to_path(&f.uri))
        .map(|p| p.canonicalize().unwrap_or(p))
        .collect();
    let settings = lock(&world.settings).clone();
    let added: Vec<Arc<Vault>> = params
        .event
        .added
        .iter()
        .filter_map(|f| uri_to_path(&f.uri))
        .map(|root| Arc::new(new_vault(root, settings.as_ref())))
        .collect();
    {
        let mut vaults = write(&world.vaults);
        vaults.retain(|v| !removed.contains(&v.root));
        for vault in &added {
            if !vaults.iter().any(|v| v.root == vault.root) {
                vaults.push(Arc::clone(vault));
            }
        }
    }
    for vault in added {
        tokio::spawn(load(Arc::clone(world), vault));
    }
}

/// Parses URIs given as strings (file operations), skipping bad ones.
pub(super) fn parse_uris<'a>(uris: impl Iterator<Item = &'a str>) -> Vec<Uri> {
    uris.filter_map(|u| u.parse().ok()).collect()
}

/// Files changed on disk (the client's watcher, or its file operations):
/// the index follows, then open buffers are put back on top.
pub(super) fn files_changed<'a>(world: &World, uris: impl Iterator<Item = &'a Uri>) {
    let mut by_vault: Vec<(Arc<Vault>, Vec<PathBuf>)> = Vec::new();
    for uri in uris {
        let Some(abs) = uri_to_path(uri) else {
            continue;
        };
        let Some(found) = world.locate_path(&abs) else {
            continue;
        };
        let path = found.vault.abs(&found.rel);
        match by_vault
            .iter_mut()
            .find(|(v, _)| Arc::ptr_eq(v, &found.vault))
        {
            Some((_, paths)) => paths.push(path),
            None => by_vault.push((found.vault, vec![path])),
        }
    }
    let mut any = false;
    for (vault, paths) in by_vault {
        let Some(live) = vault.live().cloned() else {
            continue; // The loading scan will see the disk as it is.
        };
        // Applied before this notification's handler returns, so requests
        // sent after it see the change (file IO for the paths only).
        let changed = blocking(|| live.apply_paths(paths));
        if !changed.is_empty() {
            world.notes_changed(&vault, &changed);
            if let Some(hub) = &vault.hub {
                // Other sessions, the full text and history hear of it too.
                hub.disk_changed(changed, true);
            }
            any = true;
        }
    }
    if any {
        world.schedule_refresh(true);
    }
}

/// Runs blocking work from an async handler: in place on a multi-thread
/// runtime (other tasks move to other workers), inline otherwise.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}
