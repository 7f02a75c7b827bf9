//! The `LanguageServer` implementation: each handler converts in, calls the
//! domain through one feature module and converts out. No logic lives here.
//!
//! It must not know how features work, only which module answers which
//! method.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{ClientSocket, LanguageServer, LspService};

use super::world::World;
use super::{
    code_action, code_lens, completion, definition, document_link, folding, handshake, hover,
    lifecycle, ready, references, rename, semantic_tokens, symbols,
};
use weft_workspace::sync::lock;

/// The language server: shared state behind an `Arc`, so background tasks
/// (loading, diagnostics) can hold it too.
pub struct Server {
    world: Arc<World>,
}

/// A language service whose requests cannot take the session down: a
/// handler that panics answers its request with an internal error (logged
/// with the method and id), and the session goes on with the next one.
/// Once `shutdown` was asked, every request is answered InvalidRequest, as
/// the specification says (the library does so only for the methods it
/// knows; an unknown one got "method not found").
pub(crate) struct CatchPanics<S> {
    inner: S,
    shut_down: bool,
}

impl<S> CatchPanics<S> {
    pub(crate) fn new(inner: S) -> CatchPanics<S> {
        CatchPanics {
            inner,
            shut_down: false,
        }
    }
}

impl<S> tower_service::Service<Request> for CatchPanics<S>
where
    S: tower_service::Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = std::result::Result<Option<Response>, S::Error>> + Send>,
    >;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::result::Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method().to_string();
        let id = request.id().cloned();
        if self.shut_down
            && let Some(id) = id.clone()
        {
            let error = Error {
                code: ErrorCode::InvalidRequest,
                message: format!("`{method}` after `shutdown`: the server is shutting down").into(),
                data: None,
            };
            return Box::pin(std::future::ready(Ok(Some(Response::from_error(
                id, error,
            )))));
        }
        if method == "shutdown" && id.is_some() {
            self.shut_down = true;
        }
        let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            weft_wire::fault_point(&method);
            self.inner.call(request)
        }));
        let future = match call {
            Ok(future) => future,
            Err(payload) => {
                return Box::pin(std::future::ready(Ok(answer_panic(method, id, &*payload))));
            }
        };
        Box::pin(async move {
            match std::panic::AssertUnwindSafe(future).catch_unwind().await {
                Ok(answer) => answer,
                Err(payload) => Ok(answer_panic(method, id, &*payload)),
            }
        })
    }
}

/// The error answer for a request whose handler panicked (nothing for a
/// notification), after logging it.
fn answer_panic(
    method: String,
    id: Option<Id>,
    payload: &(dyn std::any::Any + Send),
) -> Option<Response> {
    let why = weft_wire::panic_text(payload);
    let which = id.as_ref().map_or_else(
        || "a notification".to_string(),
        |id| format!("request {id}"),
    );
    tracing::error!(
        "weft lsp: a panic while handling `{method}` ({which}): {why}; that message failed, the session goes on"
    );
    let id = id?;
    Some(Response::from_error(
        id,
        Error {
            code: ErrorCode::InternalError,
            message: format!(
                "weft failed while answering `{method}`: {why}. This is a bug in Weft: that request did \
                 nothing, other requests still work. Please report it."
            )
            .into(),
            data: None,
        },
    ))
}

/// The service and its client socket, with Weft's custom methods.
pub(crate) fn service(
    vault_override: Option<PathBuf>,
    index_wait: std::time::Duration,
) -> (LspService<Server>, ClientSocket) {
    LspService::build(|client| {
        let world = World::new(client, vault_override);
        *lock(&world.index_wait) = index_wait;
        Server {
            world: Arc::new(world),
        }
    })
    .custom_method("weft/status", Server::status)
    .finish()
}

impl Server {
    /// `weft/status`: whether every vault is loaded, and how many notes.
    async fn status(&self) -> Result<Value> {
        Ok(lifecycle::status(&self.world))
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        Ok(handshake::initialize(&self.world, params))
    }

    async fn initialized(&self, _: InitializedParams) {
        handshake::initialized(&self.world);
    }

    async fn shutdown(&self) -> Result<()> {
        lifecycle::shutdown(&self.world);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        lifecycle::did_open(&self.world, params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        lifecycle::did_change(&self.world, params);
    }

    async fn did_save(&self, _: DidSaveTextDocumentParams) {}

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        lifecycle::did_close(&self.world, params);
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        lifecycle::did_change_configuration(&self.world, params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        lifecycle::did_change_workspace_folders(&self.world, params);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let paths = params.changes.iter().map(|c| &c.uri);
        lifecycle::files_changed(&self.world, paths);
    }

    async fn did_create_files(&self, params: CreateFilesParams) {
        let uris = lifecycle::parse_uris(params.files.iter().map(|f| f.uri.as_str()));
        lifecycle::files_changed(&self.world, uris.iter());
    }

    async fn did_rename_files(&self, params: RenameFilesParams) {
        let uris = params
            .files
            .iter()
            .flat_map(|f| [f.old_uri.as_str(), f.new_uri.as_str()]);
        let uris = lifecycle::parse_uris(uris);
        lifecycle::files_changed(&self.world, uris.iter());
    }

    async fn did_delete_files(&self, params: DeleteFilesParams) {
        let uris = lifecycle::parse_uris(params.files.iter().map(|f| f.uri.as_str()));
        lifecycle::files_changed(&self.world, uris.iter());
    }

    async fn will_rename_files(&self, params: RenameFilesParams) -> Result<Option<WorkspaceEdit>> {
        ready::loaded(&self.world).await?;
        rename::will_rename_files(&self.world, params)
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        ready::loaded(&self.world).await?;
        Ok(completion::completion(&self.world, params))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        ready::loaded(&self.world).await?;
        Ok(definition::goto_definition(&self.world, params))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        ready::loaded(&self.world).await?;
        Ok(references::references(&self.world, params))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        ready::loaded(&self.world).await?;
        Ok(hover::hover(&self.world, params))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        ready::loaded(&self.world).await?;
        Ok(code_action::code_actions(&self.world, params))
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        ready::loaded(&self.world).await?;
        Ok(rename::prepare_rename(&self.world, params))
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        ready::loaded(&self.world).await?;
        rename::rename(&self.world, params)
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        Ok(symbols::document_symbols(&self.world, params))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        ready::loaded(&self.world).await?;
        Ok(symbols::workspace_symbols(&self.world, params))
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        ready::loaded(&self.world).await?;
        Ok(document_link::document_links(&self.world, params))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        Ok(folding::folding_ranges(&self.world, params))
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        ready::loaded(&self.world).await?;
        Ok(semantic_tokens::full(&self.world, params))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        ready::loaded(&self.world).await?;
        Ok(code_lens::code_lenses(&self.world, params))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        ready::loaded(&self.world).await?;
        Ok(code_lens::execute_command(&self.world, params))
    }
}
