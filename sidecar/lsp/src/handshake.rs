//! The handshake: the client's capabilities and position encoding, the
//! vault roots it names, our capabilities, then (`initialized`) its
//! settings and file watcher, and the loading of every vault.
//!
//! It must not know what any feature computes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::convert::{Encoding, uri_to_path};

use super::loading::{load, new_vault, refresh_loop};
use super::semantic_tokens;
use super::vault::Vault;
use super::world::{ClientCaps, World, unwrap_settings};
use weft_workspace::sync::{lock, write};

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
    *write(&world.vaults) = vaults;

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
        work_done_progress: capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
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
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::REFACTOR_REWRITE,
                CodeActionKind::EMPTY,
            ]),
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
pub(super) async fn fetch_settings(world: &World) -> Option<Value> {
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
