//! What the hub's semantic index is at a moment: its status (for answers
//! and `vault_info`), what the configuration asks for, and the slot
//! holding it; `semantic` starts, fills and follows it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::ModelChoice;
use weft_semantic::SemanticIndex;

/// Where finding by meaning stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SemanticStatus {
    /// No model configured.
    #[default]
    Off,
    /// Fetching a pinned model into `folder` (`[semantic] download =
    /// true`): `done` of `total` bytes.
    Downloading {
        id: String,
        folder: PathBuf,
        done: u64,
        total: u64,
    },
    /// Loading the model, reading the saved vectors, embedding what changed.
    Loading {
        folder: PathBuf,
    },
    Ready {
        folder: PathBuf,
    },
    /// The model cannot be used: why, and what to do.
    Failed {
        folder: PathBuf,
        error: String,
    },
}

impl SemanticStatus {
    /// The model folder this status is about, unless off.
    pub fn folder(&self) -> Option<&PathBuf> {
        match self {
            SemanticStatus::Off => None,
            SemanticStatus::Downloading { folder, .. }
            | SemanticStatus::Loading { folder }
            | SemanticStatus::Ready { folder }
            | SemanticStatus::Failed { folder, .. } => Some(folder),
        }
    }
}

/// What the configuration asks for, as the slot was last started with: a
/// change of any part starts again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Wanted {
    pub(super) model: ModelChoice,
    /// `[semantic] download`, for a pinned model (false otherwise).
    pub(super) download: bool,
    /// Where fetched models are kept, for a pinned model.
    pub(super) models_dir: Option<PathBuf>,
}

/// The hub's semantic state.
#[derive(Default)]
pub(super) struct SemanticSlot {
    /// What it was started for; `None`: off.
    pub(super) wanted: Option<Wanted>,
    /// Failed only because its pinned model is not in the cache yet: it
    /// starts again once it is (`weft model fetch` run meanwhile).
    pub(super) awaits_fetch: bool,
    pub(super) status: SemanticStatus,
    pub(super) index: Option<Arc<SemanticIndex>>,
    /// Changes for the index while it loads, and after.
    pub(super) tx: Option<mpsc::UnboundedSender<Vec<String>>>,
    /// Bumped at each (re)start: a stale loader does not install.
    pub(super) epoch: u64,
}
