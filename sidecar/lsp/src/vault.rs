//! One vault this session serves: a folder over the process's shared hub
//! of it (the index the agent and other editors use), its configuration
//! with the editor's settings, and the session's caches that keep requests
//! proportional to their answer (backlink counts and unresolved targets
//! for ranking, the name table for completion, line indexes of notes).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use tower_lsp_server::ls_types::Uri;

use super::convert::path_to_uri;
use weft_vault::complete::Signals;
use weft_vault::key::path_key;
use weft_vault::symbols::{NameTable, SymbolTable};
use weft_vault::{NoteId, Resolution, VaultIndex};
use weft_workspace::config::Config;
use weft_workspace::hub::Hub;
use weft_workspace::io::LiveVault;
use weft_workspace::sync::{lock, read, write};

use super::positions::PositionCache;

/// Backlink counts and unresolved targets over the whole vault, for ranking
/// completions. Recomputed in the background, so it may lag the index.
#[derive(Debug, Default)]
pub(crate) struct Ranks {
    /// Links resolving to each note slot.
    pub backlinks: Vec<u32>,
    /// Targets linked to but missing: (as first written, link count).
    pub unresolved: Vec<(String, u32)>,
}

/// Vaults from this many notes complete from a name table.
const NAME_TABLE_FROM: usize = 20_000;

/// A symbol table that lags the index is rebuilt at most this often.
const SYMBOLS_REBUILD_EVERY: Duration = Duration::from_secs(5);

/// One vault: a folder served from the process's shared index of it (its
/// hub: the same index the agent and other editor sessions use).
pub(crate) struct Vault {
    /// The folder, canonical when it exists.
    pub root: PathBuf,
    /// The shared state; `None` when the folder cannot be a vault.
    pub hub: Option<Arc<Hub>>,
    /// This session's number in the hub (its open buffers are filed by it).
    pub session: u64,
    /// The root's `file:` URI without a trailing `/`, made once.
    root_uri: OnceLock<String>,
    live: OnceLock<Arc<LiveVault>>,
    /// Until the vault is loaded: an index of the open buffers only.
    pending: Arc<RwLock<VaultIndex>>,
    pub config: RwLock<Config>,
    /// Serialises the adapter's own index updates (buffers), so the last
    /// writer always writes the newest text.
    pub(crate) update: Mutex<()>,
    pub(crate) positions: Mutex<PositionCache>,
    ranks: RwLock<Arc<Ranks>>,
    /// Set when a change may move backlink counts (links or names changed);
    /// typing prose in a buffer does not.
    ranks_dirty: AtomicBool,
    ranks_running: AtomicBool,
    ranks_last: Mutex<Option<(Instant, Duration)>>,
    /// Note names in one buffer, for fast completion on large vaults;
    /// rebuilt in the background when names change (not on every edit).
    names: RwLock<Option<Arc<NameTable>>>,
    names_dirty: AtomicBool,
    names_running: AtomicBool,
    /// Every name, heading and tag in one buffer, for workspace symbols on
    /// large vaults: built once loaded, rebuilt in the background when the
    /// index moved on (searches stay exact meanwhile: see `SymbolTable`).
    symbols: RwLock<Option<(Arc<SymbolTable>, Instant)>>,
    symbols_running: AtomicBool,
    /// Notes opened or edited in this session: the most recent of all.
    touched: Mutex<HashMap<String, Instant>>,
    /// Why loading failed, when it did.
    pub load_error: Mutex<Option<String>>,
}

impl Vault {
    /// The vault at `root`, with the editor's `settings` over its
    /// configuration (a problem with them is reported when it loads).
    pub fn new(root: PathBuf, settings: Option<&serde_json::Value>) -> Vault {
        let hub = Hub::get(&root).ok();
        let config = hub
            .as_ref()
            .map(|h| Config::clone(&h.config()))
            .unwrap_or_default();
        Vault {
            session: hub.as_ref().map_or(0, |h| h.new_session()),
            hub,
            root,
            root_uri: OnceLock::new(),
            live: OnceLock::new(),
            pending: Arc::default(),
            config: RwLock::new(config),
            update: Mutex::new(()),
            positions: Mutex::default(),
            ranks: RwLock::default(),
            ranks_dirty: AtomicBool::new(true),
            ranks_running: AtomicBool::new(false),
            ranks_last: Mutex::new(None),
            names: RwLock::new(None),
            names_dirty: AtomicBool::new(true),
            names_running: AtomicBool::new(false),
            symbols: RwLock::new(None),
            symbols_running: AtomicBool::new(false),
            touched: Mutex::default(),
            load_error: Mutex::new(None),
        }
        .with_settings(settings)
    }

    fn with_settings(self, settings: Option<&serde_json::Value>) -> Vault {
        let _ = self.apply_settings(settings);
        self
    }

    /// The configuration becomes the vault's (as `.weft.toml` reads now)
    /// with the editor's `settings` over it; settings that do not apply are
    /// an error, and the vault's configuration alone is used.
    pub(crate) fn apply_settings(
        &self,
        settings: Option<&serde_json::Value>,
    ) -> Result<(), String> {
        let mut config = self
            .hub
            .as_ref()
            .map(|h| Config::clone(&h.config()))
            .unwrap_or_default();
        let merged = match settings {
            Some(settings) => config.merge_json(settings).map_err(|e| e.to_string()),
            None => Ok(()),
        };
        *write(&self.config) = config;
        merged
    }

    /// Serves from `live` (the hub's index) from now on.
    pub(crate) fn set_live(&self, live: Arc<LiveVault>) {
        let _ = self.live.set(live);
    }

    /// Whether the backlink counts are up to date (nothing that moves them
    /// changed since the last count, and no count is running).
    pub(crate) fn ranks_current(&self) -> bool {
        !self.ranks_dirty.load(Ordering::Acquire) && !self.ranks_running.load(Ordering::Acquire)
    }

    /// Notes the counts may be stale.
    pub(crate) fn ranks_changed(&self) {
        self.ranks_dirty.store(true, Ordering::Release);
    }

    /// Whether background caches are built: on a large vault, the name
    /// and symbol tables.
    pub(crate) fn caches_built(&self) -> bool {
        !self.names_running.load(Ordering::Acquire)
            && !self.symbols_running.load(Ordering::Acquire)
            && (self.read().len() < NAME_TABLE_FROM
                || (read(&self.names).is_some() && read(&self.symbols).is_some()))
    }

    /// Notes the name table may be stale.
    pub(crate) fn names_changed(&self) {
        self.names_dirty.store(true, Ordering::Release);
    }

    /// The name table for completion, on vaults large enough to need one
    /// (smaller ones are scanned directly, never stale). It may lag the
    /// index by one rebuild; a rebuild starts when names changed.
    pub fn names(self: &Arc<Self>) -> Option<Arc<NameTable>> {
        if self.read().len() < NAME_TABLE_FROM {
            return None;
        }
        if self.names_dirty.load(Ordering::Acquire) {
            self.refresh_names();
        }
        read(&self.names).clone()
    }

    fn refresh_names(self: &Arc<Self>) {
        if self.names_running.swap(true, Ordering::AcqRel) {
            return;
        }
        self.names_dirty.store(false, Ordering::Release);
        let vault = Arc::clone(self);
        std::thread::spawn(move || {
            let table = NameTable::build(&vault.read());
            *write(&vault.names) = Some(Arc::new(table));
            vault.names_running.store(false, Ordering::Release);
        });
    }

    /// The symbol table for workspace symbols on vaults large enough to
    /// need one. Its first build starts once the vault is loaded (searches
    /// before it ends scan the index); a
    /// table that lags the index is rebuilt at most every
    /// [`SYMBOLS_REBUILD_EVERY`] (the notes changed since are read from
    /// the index meanwhile).
    pub fn symbol_table(self: &Arc<Self>) -> Option<Arc<SymbolTable>> {
        let (len, generation) = {
            let index = self.read();
            (index.len(), index.generation())
        };
        if len < NAME_TABLE_FROM {
            return None;
        }
        let current = read(&self.symbols).clone();
        let stale = current.as_ref().is_none_or(|(table, built)| {
            table.generation != generation && built.elapsed() >= SYMBOLS_REBUILD_EVERY
        });
        if stale && !self.symbols_running.swap(true, Ordering::AcqRel) {
            let vault = Arc::clone(self);
            std::thread::spawn(move || {
                let table = SymbolTable::build(&vault.read());
                *write(&vault.symbols) = Some((Arc::new(table), Instant::now()));
                vault.symbols_running.store(false, Ordering::Release);
            });
        }
        current.map(|(table, _)| table)
    }

    pub fn live(&self) -> Option<&Arc<LiveVault>> {
        self.live.get()
    }

    pub(crate) fn is_ready(&self) -> bool {
        self.live.get().is_some()
    }

    /// The index requests are answered from.
    pub fn index(&self) -> &Arc<RwLock<VaultIndex>> {
        match self.live.get() {
            Some(live) => &live.index,
            None => &self.pending,
        }
    }

    pub fn read(&self) -> RwLockReadGuard<'_, VaultIndex> {
        read(self.index())
    }

    pub fn config(&self) -> Config {
        read(&self.config).clone()
    }

    pub fn abs(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The `file:` URI of a vault path: the root's URI, then the path
    /// percent-encoded as `Uri::from_file_path` would (without touching the
    /// file system: this runs for every location of a long answer).
    pub fn uri(&self, rel: &str) -> Option<Uri> {
        let root = self.root_uri.get_or_init(|| {
            path_to_uri(&self.root).map_or_else(String::new, |u| {
                u.as_str().trim_end_matches('/').to_string()
            })
        });
        if root.is_empty() {
            return path_to_uri(&self.abs(rel));
        }
        const PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'.')
            .remove(b'_')
            .remove(b'~')
            .remove(b'/');
        format!(
            "{root}/{}",
            percent_encoding::utf8_percent_encode(rel, PATH)
        )
        .parse()
        .ok()
    }

    pub fn touch(&self, rel: &str) {
        lock(&self.touched).insert(rel.to_string(), Instant::now());
    }

    /// The backlink counts, starting a recount in the background when they
    /// may be stale (at most every few seconds).
    pub fn ranks(self: &Arc<Self>) -> Arc<Ranks> {
        if self.ranks_dirty.load(Ordering::Acquire) {
            self.refresh_ranks(false);
        }
        read(&self.ranks).clone()
    }

    /// Recounts backlinks in a background thread unless a recount runs or
    /// ran too recently (`force` ignores the latter).
    pub(crate) fn refresh_ranks(self: &Arc<Self>, force: bool) {
        if let Some((started, took)) = *lock(&self.ranks_last) {
            let pause = (took * 5).max(Duration::from_secs(2));
            if !force && started.elapsed() < took + pause {
                return;
            }
        }
        if self.ranks_running.swap(true, Ordering::AcqRel) {
            return;
        }
        // Changes from now on make the new count stale again.
        self.ranks_dirty.store(false, Ordering::Release);
        let vault = Arc::clone(self);
        std::thread::spawn(move || {
            let started = Instant::now();
            let ranks = count_ranks(vault.index());
            *write(&vault.ranks) = Arc::new(ranks);
            *lock(&vault.ranks_last) = Some((started, started.elapsed()));
            vault.ranks_running.store(false, Ordering::Release);
        });
    }
}

impl Drop for Vault {
    /// The session's buffers close with it (a client that went away without
    /// closing them must not leave its text in the shared index).
    fn drop(&mut self) {
        if let Some(hub) = &self.hub {
            let paths = hub
                .buffers
                .close_session(self.live.get().map(|l| &**l), self.session);
            if !paths.is_empty() {
                hub.buffers_edited(self.session, paths);
            }
        }
    }
}

impl Vault {
    /// Bytes held by the line-index cache.
    pub fn position_cache_bytes(&self) -> usize {
        lock(&self.positions).entries_bytes
    }
}

/// Counts, for every note, the links resolving to it, and the unresolved
/// targets. Works in chunks, releasing the read lock between them, so edits
/// never wait long.
fn count_ranks(index: &RwLock<VaultIndex>) -> Ranks {
    const CHUNK: usize = 2000;
    let mut backlinks: Vec<u32> = Vec::new();
    let mut unresolved: HashMap<String, (String, u32)> = HashMap::new();
    let mut skip = 0;
    loop {
        let guard = read(index);
        let mut seen = 0;
        for (id, note) in guard.notes().skip(skip).take(CHUNK) {
            seen += 1;
            for link in &note.links {
                if link.is_self_link() {
                    continue;
                }
                match guard.resolve_link(id, link) {
                    Resolution::Note(target) | Resolution::Ambiguous { chosen: target, .. } => {
                        if target != id {
                            let slot = target.index();
                            if backlinks.len() <= slot {
                                backlinks.resize(slot + 1, 0);
                            }
                            backlinks[slot] += 1;
                        }
                    }
                    Resolution::Unresolved => {
                        let entry = unresolved
                            .entry(path_key(link.target().trim_start_matches('/')))
                            .or_insert_with(|| (link.target().to_string(), 0));
                        entry.1 += 1;
                    }
                    Resolution::Attachment(_) => {}
                }
            }
        }
        drop(guard);
        if seen < CHUNK {
            break;
        }
        skip += CHUNK;
    }
    let mut unresolved: Vec<(String, u32)> = unresolved.into_values().collect();
    unresolved.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ranks {
        backlinks,
        unresolved,
    }
}

/// Ranking signals for completion, from a vault's caches.
pub(crate) struct VaultSignals<'a> {
    pub vault: &'a Vault,
    pub ranks: &'a Ranks,
    pub now: std::time::SystemTime,
}

impl Signals for VaultSignals<'_> {
    fn backlinks(&self, note: NoteId) -> u32 {
        self.ranks.backlinks.get(note.index()).copied().unwrap_or(0)
    }

    fn age_days(&self, _: NoteId, path: &str) -> Option<f64> {
        if lock(&self.vault.touched).contains_key(path) {
            return Some(0.0);
        }
        let modified = std::fs::metadata(self.vault.abs(path))
            .ok()?
            .modified()
            .ok()?;
        let age = self.now.duration_since(modified).unwrap_or_default();
        Some(age.as_secs_f64() / 86_400.0)
    }

    fn unresolved(&self) -> &[(String, u32)] {
        &self.ranks.unresolved
    }
}
