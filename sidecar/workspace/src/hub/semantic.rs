//! The hub's semantic index, when `[semantic] model` names a model folder
//! or a pinned model id (fetched first, once, into the user's cache when
//! `[semantic] download = true`; else it must be there already): the model
//! loaded and the saved vectors read back (when the hub persists and they
//! are of this model), then every note whose text changed since embedded
//! again, in the background once the notes are loaded; then kept in step
//! with every change, and saved beside the index snapshot.
//!
//! A configured model that cannot be loaded is a status (`Failed`, with
//! the reason and the fix), never an error of the vault: everything else
//! works by words as without one. A changed `model` starts again.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::semantic_state::{SemanticStatus, Wanted};
use super::{Hub, batch};
use crate::config::ModelChoice;
use crate::dirs;
use crate::io::LiveVault;
use crate::io::snapshot;
use crate::sync::{lock, read};
use weft_semantic::{Model, PinnedModel, SemanticIndex, fetch, pinned};
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
    /// the semantic index; needs the notes loaded and a runtime. A pinned
    /// model not in the cache is fetched first when `download` allows it;
    /// nothing is fetched otherwise.
    pub(super) fn follow_semantic_config(self: &Arc<Self>) {
        let Some(live) = self.live.get().cloned() else {
            return;
        };
        let semantic = self.semantic_config();
        let wanted = semantic.model(&self.root).map(|model| {
            let pinned = matches!(model, ModelChoice::Pinned(_));
            Wanted {
                model,
                download: pinned && semantic.download,
                models_dir: if pinned { dirs::models_dir() } else { None },
            }
        });
        let mut slot = lock(&self.semantic);
        if slot.wanted == wanted && !(slot.awaits_fetch && fetched(wanted.as_ref())) {
            return;
        }
        slot.wanted = wanted.clone();
        slot.awaits_fetch = false;
        slot.epoch += 1;
        slot.index = None;
        slot.tx = None;
        let Some(wanted) = wanted else {
            slot.status = SemanticStatus::Off;
            return;
        };
        let Plan { folder, fetch } = match plan(&wanted) {
            Ok(plan) => plan,
            Err(unusable) => {
                tracing::warn!("semantic index off: {:?}", unusable.status);
                slot.status = unusable.status;
                slot.awaits_fetch = unusable.awaits_fetch;
                return;
            }
        };
        slot.status = match fetch {
            Some((model, _)) => SemanticStatus::Downloading {
                id: model.id.to_string(),
                folder: folder.clone(),
                done: 0,
                total: model.total_size(),
            },
            None => SemanticStatus::Loading {
                folder: folder.clone(),
            },
        };
        let (tx, rx) = mpsc::unbounded_channel();
        slot.tx = Some(tx);
        let epoch = slot.epoch;
        drop(slot);
        let hub = self.clone();
        tokio::spawn(async move {
            if let Some((model, models_dir)) = fetch {
                let fetching = hub.clone();
                let fetched = tokio::task::spawn_blocking(move || {
                    fetching.fetch_model(epoch, model, &models_dir)
                })
                .await;
                let error = match fetched {
                    Ok(Ok(())) => None,
                    Ok(Err(error)) => Some(error),
                    Err(e) => Some(format!("fetching the semantic model failed: {e}")),
                };
                if let Some(error) = error {
                    hub.install_semantic(epoch, folder, Ok(Err(error)));
                    // A `weft model fetch` that succeeds meanwhile is taken up.
                    let mut slot = lock(&hub.semantic);
                    if slot.epoch == epoch {
                        slot.awaits_fetch = true;
                    }
                    return;
                }
                let mut slot = lock(&hub.semantic);
                if slot.epoch != epoch {
                    return;
                }
                slot.status = SemanticStatus::Loading {
                    folder: folder.clone(),
                };
            }
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

    /// Starts the semantic index again when it waits only for its pinned
    /// model to be fetched (`weft model fetch` in a terminal, or a failed
    /// background fetch) and the model is now in the cache. One lock when
    /// it does not wait; needs a runtime.
    pub fn follow_fetched_model(self: &Arc<Self>) {
        let awaits_fetch = lock(&self.semantic).awaits_fetch;
        if awaits_fetch {
            self.follow_semantic_config();
        }
    }

    /// Fetches `model` into `models_dir`, its progress in the status while
    /// this start is current; stops when a newer start replaced it.
    /// Blocking.
    fn fetch_model(
        &self,
        epoch: u64,
        model: &'static PinnedModel<'static>,
        models_dir: &std::path::Path,
    ) -> Result<(), String> {
        let mirror = fetch::mirror();
        tracing::info!(
            "fetching the semantic model {} ({} bytes) from {mirror} into {}",
            model.id,
            model.total_size(),
            models_dir.display()
        );
        let started = Instant::now();
        fetch::fetch(model, models_dir, &mirror, &mut |progress| {
            let mut slot = lock(&self.semantic);
            if slot.epoch != epoch {
                return ControlFlow::Break(());
            }
            if let SemanticStatus::Downloading { done, total, .. } = &mut slot.status {
                *done = progress.done;
                *total = progress.total;
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| e.to_string())?;
        tracing::info!(
            "semantic model {} fetched and verified in {} ms",
            model.id,
            started.elapsed().as_millis()
        );
        Ok(())
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
            (
                SemanticStatus::Ready { .. }
                | SemanticStatus::Loading { .. }
                | SemanticStatus::Downloading { .. },
                _,
            ) => {
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
                    Some(id) if *notes.note(id).path == **p => wanted.push(weft_semantic::Wanted {
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

/// What a start does: fetch a pinned model into its models folder first
/// (`fetch`), then load `folder`.
struct Plan {
    folder: PathBuf,
    fetch: Option<(&'static PinnedModel<'static>, PathBuf)>,
}

/// Why nothing can be loaded: a `Failed` status saying what to do, and
/// whether only a fetch is missing.
struct Unusable {
    status: SemanticStatus,
    awaits_fetch: bool,
}

fn plan(wanted: &Wanted) -> Result<Plan, Unusable> {
    let failed = |folder: PathBuf, error: String, awaits_fetch: bool| Unusable {
        status: SemanticStatus::Failed { folder, error },
        awaits_fetch,
    };
    let model = match &wanted.model {
        ModelChoice::Folder(folder) => {
            return Ok(Plan {
                folder: folder.clone(),
                fetch: None,
            });
        }
        ModelChoice::Unknown { id, folder } => {
            let error = format!(
                "`{id}` is not a model folder, nor a model Weft knows by id ({}); set \
                 `[semantic] model` in .weft.toml to one of those ids, or download the model \
                 yourself and set it to its folder (config.json, tokenizer.json, \
                 model.safetensors)",
                pinned::known_ids()
            );
            return Err(failed(folder.clone(), error, false));
        }
        ModelChoice::Pinned(model) => *model,
    };
    let Some(models_dir) = &wanted.models_dir else {
        let error = format!(
            "the model {} is kept in the user's cache folder, and none is known: set \
             XDG_CACHE_HOME or HOME, or set `[semantic] model` to a model folder",
            model.id
        );
        return Err(failed(PathBuf::from(model.id), error, false));
    };
    let folder = model.folder_in(models_dir);
    if model.is_present(models_dir) {
        return Ok(Plan {
            folder,
            fetch: None,
        });
    }
    if !wanted.download {
        let error = format!(
            "the model {id} is not in the cache yet ({}): run `weft model fetch {id}`, or set \
             `download = true` under [semantic] in .weft.toml to let Weft fetch it once ({} MB, \
             verified against its pinned checksums)",
            folder.display(),
            model.total_size().div_ceil(1_000_000),
            id = model.id,
        );
        return Err(failed(folder, error, true));
    }
    Ok(Plan {
        folder,
        fetch: Some((model, models_dir.clone())),
    })
}

/// Whether `wanted` is a pinned model now in the cache.
fn fetched(wanted: Option<&Wanted>) -> bool {
    match wanted {
        Some(Wanted {
            model: ModelChoice::Pinned(model),
            models_dir: Some(dir),
            ..
        }) => model.is_present(dir),
        _ => false,
    }
}

/// Every note as indexed now, with its fingerprint.
fn wanted_all(live: &LiveVault) -> Vec<weft_semantic::Wanted> {
    let index = read(&live.index);
    index
        .notes()
        .map(|(_, n)| weft_semantic::Wanted {
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
