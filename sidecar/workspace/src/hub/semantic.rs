//! The hub's semantic index, when `[semantic] model` names a model folder:
//! the model loaded and the saved vectors read back (when the hub persists
//! and they are of this model), then every note whose text changed since
//! embedded again, in the background once the notes are loaded; then kept
//! in step with every change, and saved beside the index snapshot.
//!
//! A configured model that cannot be loaded is a status (`Failed`, with
//! the reason and the fix), never an error of the vault: everything else
//! works by words as without one. A changed `model` starts again.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::semantic_state::SemanticStatus;
use super::{Hub, batch};
use crate::io::LiveVault;
use crate::io::snapshot;
use crate::sync::{lock, read};
use weft_semantic::{Model, SemanticIndex, Wanted};
use weft_vault::note::is_note_path;

impl Hub {
    /// The semantic index, once ready.
    pub fn semantic(&self) -> Option<Arc<SemanticIndex>> {
        let slot = lock(&self.semantic);
        match slot.status {
            SemanticStatus::Ready { .. } => slot.index.clone(),
            _ => None,
        }
    }

    pub fn semantic_status(&self) -> SemanticStatus {
        lock(&self.semantic).status.clone()
    }

    /// The model a face asks for (`weft mcp --semantic-model`, which the
    /// Zed extension passes from the context server's settings): the
    /// vault's model while its `.weft.toml` names none. The index is the
    /// vault's, shared by every face, so the last face to name one wins;
    /// a face that names none changes nothing.
    pub fn set_semantic_default(self: &Arc<Self>, model: &str) {
        let model = model.trim();
        if model.is_empty() {
            return;
        }
        {
            let mut slot = lock(&self.semantic_default);
            if slot.as_deref() == Some(model) {
                return;
            }
            tracing::info!("semantic model from the editor's settings: {model}");
            *slot = Some(model.to_string());
        }
        // Without a runtime (a face starting), the start follows it.
        if tokio::runtime::Handle::try_current().is_ok()
            && self
                .wants_fulltext
                .load(std::sync::atomic::Ordering::SeqCst)
        {
            self.follow_semantic_config();
        }
    }

    /// What `[semantic]` says, with a face's model when it names none.
    fn semantic_config(&self) -> crate::config::SemanticConfig {
        let mut semantic = self.config().semantic.clone();
        if semantic
            .model
            .as_deref()
            .is_none_or(|m| m.trim().is_empty())
        {
            semantic.model = lock(&self.semantic_default).clone();
        }
        semantic
    }

    /// Starts (or restarts, when the configured model changed, or stops)
    /// the semantic index; needs the notes loaded and a runtime.
    pub(super) fn follow_semantic_config(self: &Arc<Self>) {
        let Some(live) = self.live.get().cloned() else {
            return;
        };
        let wanted = self.semantic_config().model_folder(&self.root);
        let mut slot = lock(&self.semantic);
        let current = match &slot.status {
            SemanticStatus::Off => None,
            SemanticStatus::Loading { folder }
            | SemanticStatus::Ready { folder }
            | SemanticStatus::Failed { folder, .. } => Some(folder.clone()),
        };
        if current == wanted {
            return;
        }
        slot.epoch += 1;
        slot.index = None;
        slot.tx = None;
        let Some(folder) = wanted else {
            slot.status = SemanticStatus::Off;
            return;
        };
        slot.status = SemanticStatus::Loading {
            folder: folder.clone(),
        };
        let (tx, rx) = mpsc::unbounded_channel();
        slot.tx = Some(tx);
        let epoch = slot.epoch;
        drop(slot);
        let hub = self.clone();
        tokio::spawn(async move {
            let loading = hub.clone();
            let folder_ = folder.clone();
            let loaded =
                tokio::task::spawn_blocking(move || loading.load_semantic(&folder_, &live)).await;
            if !hub.install_semantic(epoch, folder, loaded) {
                return;
            }
            let saver = hub.clone();
            let _ = tokio::task::spawn_blocking(move || saver.save_vectors()).await;
            tokio::spawn(follow(Arc::downgrade(&hub), rx, epoch));
        });
    }

    /// Installs what a load gave, unless a newer start replaced it; whether
    /// the index is now ready.
    fn install_semantic(
        &self,
        epoch: u64,
        folder: PathBuf,
        loaded: Result<Result<SemanticIndex, String>, tokio::task::JoinError>,
    ) -> bool {
        let mut slot = lock(&self.semantic);
        if slot.epoch != epoch {
            return false;
        }
        let error = match loaded {
            Ok(Ok(index)) => {
                slot.index = Some(Arc::new(index));
                slot.status = SemanticStatus::Ready { folder };
                return true;
            }
            Ok(Err(error)) => error,
            Err(e) => format!("loading the semantic model failed: {e}"),
        };
        tracing::warn!("semantic index off: {error}");
        slot.status = SemanticStatus::Failed { folder, error };
        slot.tx = None;
        false
    }

    /// The model, the saved vectors when they are this model's, then every
    /// note in step. Blocking.
    fn load_semantic(
        &self,
        folder: &std::path::Path,
        live: &LiveVault,
    ) -> Result<SemanticIndex, String> {
        let started = Instant::now();
        let model = Model::load(folder).map_err(|e| e.to_string())?;
        let saved = self
            .vectors_path()
            .and_then(|path| Some((std::fs::read(&path).ok()?, path)));
        let (index, reused) = match saved {
            Some((bytes, path)) => match SemanticIndex::from_bytes(model, &bytes) {
                Ok(index) => (index, true),
                Err((model, why)) => {
                    tracing::warn!("saved vectors {} not used: {why}", path.display());
                    (SemanticIndex::new(model), false)
                }
            },
            None => (SemanticIndex::new(model), false),
        };
        let wanted = wanted_all(live);
        let synced = index.sync(&wanted, &[], true, &self.files);
        let (notes, chunks, bytes) = index.stats();
        tracing::info!(
            "semantic index ({}, {} dimensions): {notes} notes, {chunks} passages, {} KiB; \
             {} notes embedded ({} passages){} in {} ms",
            folder.display(),
            index.model().dim,
            bytes / 1024,
            synced.embedded,
            synced.chunks,
            if reused { ", the rest saved" } else { "" },
            started.elapsed().as_millis()
        );
        Ok(index)
    }

    /// Brings the semantic index in step for `paths` (vault paths that
    /// changed): now when it is ready and `now` (a tool's own write, seen
    /// before the tool answers), else queued for its follower.
    pub(super) fn update_semantic(&self, paths: &[String], now: bool) {
        let slot = lock(&self.semantic);
        match (&slot.status, &slot.index) {
            (SemanticStatus::Ready { .. }, Some(index)) if now => {
                let index = index.clone();
                drop(slot);
                self.sync_semantic(&index, paths);
            }
            (SemanticStatus::Ready { .. } | SemanticStatus::Loading { .. }, _) => {
                if let Some(tx) = &slot.tx {
                    let _ = tx.send(paths.to_vec());
                }
            }
            _ => {}
        }
    }

    fn sync_semantic(&self, index: &SemanticIndex, paths: &[String]) {
        let Some(live) = self.live.get() else { return };
        let (wanted, gone) = {
            let notes = read(&live.index);
            let mut wanted = Vec::new();
            let mut gone = Vec::new();
            for p in paths.iter().filter(|p| is_note_path(p)) {
                match notes.id_of(p) {
                    Some(id) if *notes.note(id).path == **p => wanted.push(Wanted {
                        path: p.as_str().into(),
                        text_hash: notes.note(id).content_hash,
                    }),
                    _ => gone.push(p.clone()),
                }
            }
            (wanted, gone)
        };
        index.sync(&wanted, &gone, false, &self.files);
    }

    fn vectors_path(&self) -> Option<PathBuf> {
        let persist = self.persist.get()?;
        Some(snapshot::vectors_path_for(&persist.cache, &self.root))
    }

    /// Saves the vectors when they changed since the last save (and the
    /// hub persists). Blocking.
    pub(super) fn save_vectors(&self) {
        let (Some(path), Some(index)) = (self.vectors_path(), self.semantic()) else {
            return;
        };
        if !index.dirty() {
            return;
        }
        let started = Instant::now();
        let bytes = index.to_bytes();
        match snapshot::write(&path, &bytes) {
            Ok(()) => {
                index.saved();
                tracing::info!(
                    "vectors {}: {} bytes saved in {} ms",
                    path.display(),
                    bytes.len(),
                    started.elapsed().as_millis()
                );
            }
            Err(e) => tracing::warn!("vectors {} not saved: {e}", path.display()),
        }
    }
}

/// Every note as indexed now, with its fingerprint.
fn wanted_all(live: &LiveVault) -> Vec<Wanted> {
    let index = read(&live.index);
    index
        .notes()
        .map(|(_, n)| Wanted {
            path: n.path.clone(),
            text_hash: n.content_hash,
        })
        .collect()
}

/// Applies changed paths to the semantic index as they come (those queued
/// while it loaded first), in batches; ends with the hub or when the index
/// is replaced.
async fn follow(
    hub: std::sync::Weak<Hub>,
    mut rx: mpsc::UnboundedReceiver<Vec<String>>,
    epoch: u64,
) {
    while let Some(first) = rx.recv().await {
        let paths = batch(first, &mut rx);
        let Some(hub) = hub.upgrade() else { return };
        let index = {
            let slot = lock(&hub.semantic);
            if slot.epoch != epoch {
                return;
            }
            slot.index.clone()
        };
        let Some(index) = index else { return };
        let _ = tokio::task::spawn_blocking(move || hub.sync_semantic(&index, &paths)).await;
    }
}
