//! The server's life: the handshake (capabilities, position encoding,
//! vault roots, settings), loading vaults (the process's shared hubs) in
//! the background, following files (the client's watcher, and the hub's:
//! its watcher, agents' writes, other editors' buffers), open buffers
//! (incremental sync), settings changes, and the task that republishes
//! diagnostics.
//!
//! It must not know what any feature computes; it keeps the index equal to
//! the buffers and the disk, and tells the client when answers changed.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, Weak};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tower_lsp_server::ls_types::*;

use super::convert::{Encoding, LineIndex, uri_to_path};
use tokio::sync::broadcast;

use super::world::{ClientCaps, Doc, Located, Vault, World, lock, unwrap_settings};
use super::{diagnostics, semantic_tokens};
use weft_workspace::hub::Phase;

/// How long to wait for `workspace/configuration` before loading anyway
/// (through a face and on a loaded machine an answer can take a while).
const CONFIGURATION_TIMEOUT: Duration = Duration::from_secs(5);

pub(super) fn initialize(world: &World, params: InitializeParams) -> InitializeResult {
    let capabilities = &params.capabilities;
    let encoding = Encoding::negotiate(
        capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref()),
    );
    let _ = world.encoding.set(encoding);
    let _ = world.caps.set(client_caps(capabilities));
    let settings = params
        .initialization_options
        .clone()
        .and_then(unwrap_settings);
    *lock(&world.settings) = settings.clone();

    let roots: Vec<PathBuf> = match &world.vault_override {
        Some(root) => vec![root.clone()],
        None => workspace_roots(&params),
    };
    let vaults: Vec<Arc<Vault>> = roots
        .into_iter()
        .map(|root| Arc::new(new_vault(root, settings.as_ref())))
        .collect();
    *world.vaults.write().unwrap_or_else(PoisonError::into_inner) = vaults;

    InitializeResult {
        capabilities: capabilities_for(encoding),
        server_info: Some(ServerInfo {
            name: "weft".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    }
}

#[allow(deprecated)] // root_uri and root_path: older clients send only those.
fn workspace_roots(params: &InitializeParams) -> Vec<PathBuf> {
    if let Some(folders) = &params.workspace_folders
        && !folders.is_empty()
    {
        return folders.iter().filter_map(|f| uri_to_path(&f.uri)).collect();
    }
    if let Some(path) = params.root_uri.as_ref().and_then(uri_to_path) {
        return vec![path];
    }
    params
        .root_path
        .as_ref()
        .map(PathBuf::from)
        .into_iter()
        .collect()
}

fn new_vault(root: PathBuf, settings: Option<&Value>) -> Vault {
    let root = root.canonicalize().unwrap_or(root);
    Vault::new(root, settings)
}

fn client_caps(capabilities: &ClientCapabilities) -> ClientCaps {
    let workspace = capabilities.workspace.as_ref();
    let edit = workspace.and_then(|w| w.workspace_edit.as_ref());
    let resource = |kind: ResourceOperationKind| {
        edit.and_then(|e| e.resource_operations.as_ref())
            .is_some_and(|ops| ops.contains(&kind))
    };
    let text = capabilities.text_document.as_ref();
    ClientCaps {
        watch_dynamic: workspace
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|c| c.dynamic_registration)
            .unwrap_or(false),
        configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
        // Resource operations exist only inside `documentChanges`, so a
        // client offering them (Neovim does, without the flag) takes those.
        document_changes: edit.and_then(|e| e.document_changes).unwrap_or(false)
            || edit
                .and_then(|e| e.resource_operations.as_ref())
                .is_some_and(|ops| !ops.is_empty()),
        create_files: resource(ResourceOperationKind::Create),
        rename_files: resource(ResourceOperationKind::Rename),
        semantic_refresh: workspace
            .and_then(|w| w.semantic_tokens.as_ref())
            .and_then(|s| s.refresh_support)
            .unwrap_or(false),
        code_lens_refresh: workspace
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false),
        related_information: text
            .and_then(|t| t.publish_diagnostics.as_ref())
            .and_then(|p| p.related_information)
            .unwrap_or(false),
    }
}

fn capabilities_for(encoding: Encoding) -> ServerCapabilities {
    let all_files = vec![FileOperationFilter {
        scheme: Some("file".into()),
        pattern: FileOperationPattern {
            glob: "**/*".into(),
            matches: None,
            options: None,
        },
    }];
    let files = Some(FileOperationRegistrationOptions { filters: all_files });
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(false)),
                ..Default::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(
                ["[", "#", "^", "(", "/"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
            ),
            resolve_provider: Some(false),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::EMPTY]),
            resolve_provider: Some(false),
            work_done_progress_options: Default::default(),
        })),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: Some(false),
            work_done_progress_options: Default::default(),
        }),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: semantic_tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: Some(false),
                work_done_progress_options: Default::default(),
            },
        )),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![super::code_lens::SHOW_REFERENCES.into()],
            work_done_progress_options: Default::default(),
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: Some(WorkspaceFileOperationsServerCapabilities {
                will_rename: files.clone(),
                did_rename: files.clone(),
                did_create: files.clone(),
                did_delete: files,
                ..Default::default()
            }),
        }),
        ..Default::default()
    }
}

/// After the handshake: settings from `workspace/configuration`, the file
/// watcher registration, the diagnostics task, then every vault loads.
pub(super) fn initialized(world: &Arc<World>) {
    let rx = lock(&world.refresh_rx).take();
    if let Some(rx) = rx {
        tokio::spawn(refresh_loop(Arc::downgrade(world), rx));
    }
    let world = Arc::clone(world);
    tokio::spawn(async move {
        let caps = world.caps();
        if caps.configuration
            && let Some(settings) = fetch_settings(&world).await
        {
            *lock(&world.settings) = Some(settings);
        }
        if caps.watch_dynamic {
            register_watcher(&world).await;
        }
        for vault in world.vaults() {
            tokio::spawn(load(Arc::clone(&world), vault));
        }
    });
}

/// Asks the client for the `weft` settings section.
async fn fetch_settings(world: &World) -> Option<Value> {
    let item = ConfigurationItem {
        scope_uri: None,
        section: Some("weft".into()),
    };
    let answer = tokio::time::timeout(
        CONFIGURATION_TIMEOUT,
        world.client.configuration(vec![item]),
    )
    .await
    .ok()?
    .ok()?;
    answer.into_iter().next().and_then(unwrap_settings)
}

async fn register_watcher(world: &World) {
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![FileSystemWatcher {
            glob_pattern: GlobPattern::String("**/*.md".into()),
            kind: None,
        }],
    };
    let registration = Registration {
        id: "weft-watched-files".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(options).ok(),
    };
    if let Err(error) = world.client.register_capability(vec![registration]).await {
        tracing::warn!("the client refused to watch files for Weft: {error}");
    }
}

/// Loads a vault (its shared hub: at once when another session of the
/// process loaded it already), then serves from it and follows what other
/// sessions and the disk change.
async fn load(world: Arc<World>, vault: Arc<Vault>) {
    let settings = lock(&world.settings).clone();
    let started = Instant::now();
    let Some(hub) = vault.hub.clone() else {
        let message = format!(
            "weft: cannot open the vault {}: it is not a folder",
            vault.root.display()
        );
        *lock(&vault.load_error) = Some(message.clone());
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
    loop {
        hub.start();
        let Phase::Failed(error) = hub.wait_notes().await else {
            break;
        };
        let message = format!("weft: {error}");
        *lock(&vault.load_error) = Some(message.clone());
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
        let mut lines = Arc::clone(&doc.lines);
        for (i, change) in params.content_changes.into_iter().enumerate() {
            match change.range {
                Some(range) => {
                    if i > 0 {
                        lines = Arc::new(LineIndex::new(&text));
                    }
                    let bytes = lines.byte_range(range, encoding);
                    text.replace_range(bytes, &change.text);
                }
                None => text = change.text,
            }
        }
        doc.lines = Arc::new(LineIndex::new(&text));
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
        let mut vaults = world.vaults.write().unwrap_or_else(PoisonError::into_inner);
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

/// Republishes diagnostics when asked (coalescing bursts of edits), and
/// asks the client to refresh lenses and tokens when other notes changed.
async fn refresh_loop(world: Weak<World>, mut rx: tokio::sync::mpsc::UnboundedReceiver<bool>) {
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

/// Runs blocking work from an async handler: in place on a multi-thread
/// runtime (other tasks move to other workers), inline otherwise.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}
