//! What the hub's semantic index is at a moment: its status (for answers
//! and `vault_info`) and the slot holding it; `semantic` starts, fills and
//! follows it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use weft_semantic::SemanticIndex;

/// Where finding by meaning stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SemanticStatus {
    /// No model configured.
    #[default]
    Off,
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

/// The hub's semantic state.
#[derive(Default)]
pub(super) struct SemanticSlot {
    pub(super) status: SemanticStatus,
    pub(super) index: Option<Arc<SemanticIndex>>,
    /// Changes for the index while it loads, and after.
    pub(super) tx: Option<mpsc::UnboundedSender<Vec<String>>>,
    /// Bumped at each (re)start: a stale loader does not install.
    pub(super) epoch: u64,
}
