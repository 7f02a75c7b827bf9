//! The language server's state: the vaults it serves (one per workspace
//! folder, each over the process's shared hub of it), the open buffers (the
//! truth for their notes, in the shared index for every session), the
//! client's capabilities, and caches that keep requests
//! proportional to their answer (line indexes of other notes, backlink
//! counts for ranking).
//!
//! It knows the domain, the disk edge (`io`) and protocol types only as
//! far as a `Client`, `Uri` and the negotiated encoding; features never
//! talk to the client themselves.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use serde_json::Value;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{Location, Position, Uri};

use super::convert::{Encoding, LineIndex, path_to_uri, uri_to_path};
use weft_vault::complete::Signals;
use weft_vault::key::path_key;
use weft_vault::note::is_note_path;
use weft_vault::query::TextSource;
use weft_vault::symbols::NameTable;
use weft_vault::{NoteId, Resolution, VaultIndex, parse_note};
use weft_workspace::config::Config;
use weft_workspace::hub::Hub;
use weft_workspace::io::{LiveVault, relative_path};

/// What the client said it can do, as far as features care.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientCaps {
    pub watch_dynamic: bool,
    pub configuration: bool,
    pub document_changes: bool,
    pub create_files: bool,
    pub rename_files: bool,
    pub semantic_refresh: bool,
    pub code_lens_refresh: bool,
    pub related_information: bool,
}

/// An open buffer.
#[derive(Clone)]
pub(crate) struct Doc {
    pub uri: Uri,
    pub version: i32,
    pub text: Arc<String>,
    pub lines: Arc<LineIndex>,
    pub vault: Arc<Vault>,
    /// The note's vault path.
    pub rel: String,
}

/// Backlink counts and unresolved targets over the whole vault, for ranking
/// completions. Recomputed in the background, so it may lag the index.
#[derive(Debug, Default)]
pub(crate) struct Ranks {
    /// Links resolving to each note slot.
    pub backlinks: Vec<u32>,
    /// Targets linked to but missing: (as first written, link count).
    pub unresolved: Vec<(String, u32)>,
}

/// Line indexes of notes that are not open, by vault path, with the hash
/// of the text they were built from.
#[derive(Default)]
struct PositionCache {
    /// Vault path → (content hash, line index, URI).
    map: HashMap<String, (u64, Arc<LineIndex>, Uri)>,
    entries_bytes: usize,
}

impl PositionCache {
    fn insert(&mut self, rel: &str, hash: u64, lines: Arc<LineIndex>, uri: Uri) {
        let size = |lines: &LineIndex, uri: &Uri| {
            lines.heap_bytes() + rel.len() + uri.as_str().len() + POSITION_ENTRY_OVERHEAD
        };
        let added = size(&lines, &uri);
        if let Some((_, old_lines, old_uri)) = self.map.insert(rel.to_string(), (hash, lines, uri))
        {
            self.entries_bytes = self
                .entries_bytes
                .saturating_sub(size(&old_lines, &old_uri));
        }
        self.entries_bytes += added;
    }
}

/// The cache's budget. Warming stops at it; a miss past it drops the cache
/// whole (simple, and rebuilt lazily). The index itself takes about 1.6 ×
/// the Markdown bytes, so this stays small.
const POSITION_CACHE_BYTES: usize = 32 << 20;

/// A span in a note, to be shown to the client as a location.
pub struct Place<P> {
    /// The note's vault path.
    pub path: P,
    pub span: std::ops::Range<u32>,
    /// The note's content hash, which a cached line index must match.
    pub hash: u64,
    /// Where the span is, when the index knows (links on one line).
    pub known: Option<Known>,
}

/// A span on one line whose columns the index knows in both encodings.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    pub line: u32,
    /// Bytes from the line start; and the span's length in bytes.
    pub col8: u32,
    pub len8: u32,
    /// The same in UTF-16 code units.
    pub col16: u32,
    pub len16: u32,
}

impl Known {
    /// The place of a link, unless it spans lines.
    pub fn of_link(link: &weft_vault::Link) -> Option<Known> {
        Known::of(link.line, &link.span, link.col, link.col16, link.len16)
    }

    /// The place of a tag, unless it spans lines.
    pub fn of_tag(tag: &weft_vault::note::TagUse) -> Option<Known> {
        Known::of(tag.line, tag.span.as_ref()?, tag.col, tag.col16, tag.len16)
    }

    fn of(
        line: u32,
        span: &std::ops::Range<u32>,
        col8: u32,
        col16: u32,
        len16: u16,
    ) -> Option<Known> {
        (len16 != u16::MAX).then(|| Known {
            line,
            col8,
            len8: span.end - span.start,
            col16,
            len16: u32::from(len16),
        })
    }

    fn range(&self, encoding: Encoding) -> tower_lsp_server::ls_types::Range {
        let (col, len) = match encoding {
            Encoding::Utf8 => (self.col8, self.len8),
            Encoding::Utf16 => (self.col16, self.len16),
        };
        tower_lsp_server::ls_types::Range::new(
            Position::new(self.line, col),
            Position::new(self.line, col + len),
        )
    }
}

/// Vaults from this many notes complete from a name table.
const NAME_TABLE_FROM: usize = 20_000;

/// Bookkeeping bytes of one cache entry besides its line index.
const POSITION_ENTRY_OVERHEAD: usize = 96;

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
    update: Mutex<()>,
    positions: Mutex<PositionCache>,
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
    pub fn apply_settings(&self, settings: Option<&serde_json::Value>) -> Result<(), String> {
        let mut config = self
            .hub
            .as_ref()
            .map(|h| Config::clone(&h.config()))
            .unwrap_or_default();
        let merged = match settings {
            Some(settings) => config.merge_json(settings).map_err(|e| e.to_string()),
            None => Ok(()),
        };
        *self.config.write().unwrap_or_else(PoisonError::into_inner) = config;
        merged
    }

    /// Serves from `live` (the hub's index) from now on.
    pub fn set_live(&self, live: Arc<LiveVault>) {
        let _ = self.live.set(live);
    }

    /// Whether the backlink counts are up to date (nothing that moves them
    /// changed since the last count, and no count is running).
    pub fn ranks_current(&self) -> bool {
        !self.ranks_dirty.load(Ordering::Acquire) && !self.ranks_running.load(Ordering::Acquire)
    }

    /// Notes the counts may be stale.
    pub fn ranks_changed(&self) {
        self.ranks_dirty.store(true, Ordering::Release);
    }

    /// Whether background caches are built: on a large vault, the name
    /// table.
    pub fn caches_built(&self) -> bool {
        !self.names_running.load(Ordering::Acquire)
            && (self.read().len() < NAME_TABLE_FROM
                || self
                    .names
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .is_some())
    }

    /// Notes the name table may be stale.
    pub fn names_changed(&self) {
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
        self.names
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn refresh_names(self: &Arc<Self>) {
        if self.names_running.swap(true, Ordering::AcqRel) {
            return;
        }
        self.names_dirty.store(false, Ordering::Release);
        let vault = Arc::clone(self);
        std::thread::spawn(move || {
            let table = NameTable::build(&vault.read());
            *vault.names.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(table));
            vault.names_running.store(false, Ordering::Release);
        });
    }

    pub fn live(&self) -> Option<&Arc<LiveVault>> {
        self.live.get()
    }

    pub fn is_ready(&self) -> bool {
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
        self.index().read().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn config(&self) -> Config {
        self.config
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
        self.ranks
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Recounts backlinks in a background thread unless a recount runs or
    /// ran too recently (`force` ignores the latter).
    pub fn refresh_ranks(self: &Arc<Self>, force: bool) {
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
            *vault.ranks.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(ranks);
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
        let guard = index.read().unwrap_or_else(PoisonError::into_inner);
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
                            .entry(path_key(link.target.trim_start_matches('/')))
                            .or_insert_with(|| (link.target.to_string(), 0));
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

/// Where a document is: its vault and its vault path.
#[derive(Clone)]
pub(crate) struct Located {
    pub vault: Arc<Vault>,
    pub rel: String,
}

/// A place to answer from: a note, its current text and the cursor.
pub(crate) struct Here {
    pub vault: Arc<Vault>,
    pub rel: String,
    pub text: Arc<String>,
    pub lines: Arc<LineIndex>,
    pub offset: usize,
}

/// The whole server state.
pub(crate) struct World {
    pub client: Client,
    pub vault_override: Option<PathBuf>,
    pub encoding: OnceLock<Encoding>,
    pub caps: OnceLock<ClientCaps>,
    pub vaults: RwLock<Vec<Arc<Vault>>>,
    /// Open buffers by absolute path (under their vault's root).
    pub docs: DashMap<PathBuf, Doc>,
    /// Editor settings (`initializationOptions`, then `workspace/configuration`).
    pub settings: Mutex<Option<Value>>,
    /// Wakes the task that republishes diagnostics; `true` when notes
    /// other than the open buffers changed (so lenses and tokens may too).
    refresh_tx: tokio::sync::mpsc::UnboundedSender<bool>,
    pub refresh_rx: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<bool>>>,
    /// Hash of the diagnostics last published per open document.
    pub published: DashMap<PathBuf, u64>,
}

impl World {
    pub fn new(client: Client, vault_override: Option<PathBuf>) -> World {
        let (refresh_tx, refresh_rx) = tokio::sync::mpsc::unbounded_channel();
        World {
            client,
            vault_override,
            encoding: OnceLock::new(),
            caps: OnceLock::new(),
            vaults: RwLock::default(),
            docs: DashMap::new(),
            settings: Mutex::default(),
            refresh_tx,
            refresh_rx: Mutex::new(Some(refresh_rx)),
            published: DashMap::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding.get().copied().unwrap_or_default()
    }

    pub fn caps(&self) -> ClientCaps {
        self.caps.get().cloned().unwrap_or_default()
    }

    pub fn vaults(&self) -> Vec<Arc<Vault>> {
        self.vaults
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The vault holding `abs` (the innermost one) and the vault path.
    pub fn locate_path(&self, abs: &Path) -> Option<Located> {
        let vaults = self.vaults();
        let find = |path: &Path| {
            vaults
                .iter()
                .filter_map(|v| Some((v, relative_path(&v.root, path)?)))
                .filter(|(_, rel)| !rel.is_empty())
                .max_by_key(|(v, _)| v.root.as_os_str().len())
                .map(|(v, rel)| Located {
                    vault: Arc::clone(v),
                    rel,
                })
        };
        if let Some(found) = find(abs) {
            return Some(found);
        }
        // Through a symlink: canonicalize the deepest existing ancestor.
        let mut existing = abs;
        let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
        while !existing.exists() {
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
        let mut canonical = existing.canonicalize().ok()?;
        for part in rest.into_iter().rev() {
            canonical.push(part);
        }
        find(&canonical)
    }

    /// The note a URI names, if it is a Markdown file in a served vault and
    /// not in a hidden folder.
    pub fn locate(&self, uri: &Uri) -> Option<Located> {
        let found = self.locate_path(&uri_to_path(uri)?)?;
        let hidden = found.rel.split('/').any(|p| p.starts_with('.'));
        (is_note_path(&found.rel) && !hidden).then_some(found)
    }

    /// The text of a note: its open buffer, else the file (invalid UTF-8
    /// replaced).
    pub fn text(&self, vault: &Vault, rel: &str) -> Option<Arc<String>> {
        let abs = vault.abs(rel);
        if let Some(doc) = self.docs.get(&abs) {
            return Some(Arc::clone(&doc.text));
        }
        let bytes = std::fs::read(&abs).ok()?;
        Some(Arc::new(match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }))
    }

    /// The line index and URI of a note that is not open, from the cache
    /// while its content hash stays `expected`, else read and cached.
    fn cached_note(
        &self,
        vault: &Vault,
        rel: &str,
        expected: Option<u64>,
    ) -> Option<(Arc<LineIndex>, Uri)> {
        {
            let cache = lock(&vault.positions);
            if let Some((hash, lines, uri)) = cache.map.get(rel)
                && expected.is_none_or(|e| e == *hash)
            {
                return Some((Arc::clone(lines), uri.clone()));
            }
        }
        let text = self.text(vault, rel)?;
        let hash = text_hash(&text);
        let lines = Arc::new(LineIndex::new(&text));
        let uri = vault.uri(rel)?;
        let mut cache = lock(&vault.positions);
        if cache.entries_bytes > POSITION_CACHE_BYTES {
            cache.map.clear();
            cache.entries_bytes = 0;
        }
        cache.insert(rel, hash, Arc::clone(&lines), uri.clone());
        Some((lines, uri))
    }

    /// Locations of byte spans in notes: (vault path, span, content hash),
    /// in order. Each note's URI and line index are found once, cached ones
    /// under one lock; notes that cannot be read are left out.
    pub fn locations<P: AsRef<str>>(
        &self,
        vault: &Vault,
        spans: &[(P, std::ops::Range<u32>, u64)],
    ) -> Vec<Location> {
        let places: Vec<Place<&str>> = spans
            .iter()
            .map(|(path, span, hash)| Place {
                path: path.as_ref(),
                span: span.clone(),
                hash: *hash,
                known: None,
            })
            .collect();
        self.place_locations(vault, &places)
    }

    /// Locations of places in notes, in order. A place whose position the
    /// index already knows needs only its note's URI; the others need the
    /// note's line index (open buffer, cache, or read once). Notes that
    /// cannot be read are left out.
    pub fn place_locations<P: AsRef<str>>(
        &self,
        vault: &Vault,
        places: &[Place<P>],
    ) -> Vec<Location> {
        let encoding = self.encoding();
        // Open buffers of this vault (few): their URI and text win.
        let open: HashMap<String, (Uri, Arc<LineIndex>)> = self
            .docs
            .iter()
            .filter(|d| std::ptr::eq(Arc::as_ptr(&d.vault), vault))
            .map(|d| (d.rel.clone(), (d.uri.clone(), Arc::clone(&d.lines))))
            .collect();
        // Per note: its URI, and its line index when some place needs it.
        let mut notes: HashMap<&str, (Option<Uri>, Option<Arc<LineIndex>>)> = HashMap::new();
        let mut missing: Vec<(&str, u64)> = Vec::new();
        {
            let cache = lock(&vault.positions);
            for place in places {
                let rel = place.path.as_ref();
                let needs_lines = place.known.is_none();
                if let Some((_, lines)) = notes.get(rel)
                    && (lines.is_some() || !needs_lines)
                {
                    continue;
                }
                let entry = match open.get(rel) {
                    Some((uri, lines)) => (Some(uri.clone()), Some(Arc::clone(lines))),
                    None => match cache.map.get(rel) {
                        Some((cached, lines, uri)) if *cached == place.hash => {
                            (Some(uri.clone()), Some(Arc::clone(lines)))
                        }
                        _ if needs_lines => {
                            missing.push((rel, place.hash));
                            (None, None)
                        }
                        _ => (vault.uri(rel), None),
                    },
                };
                notes.insert(rel, entry);
            }
        }
        for (rel, hash) in missing {
            let found = self
                .cached_note(vault, rel, Some(hash))
                .map(|(lines, uri)| (Some(uri), Some(lines)));
            notes.insert(rel, found.unwrap_or((None, None)));
        }
        places
            .iter()
            .filter_map(|place| {
                let (uri, lines) = notes.get(place.path.as_ref())?;
                let uri = uri.as_ref()?;
                let range = match (place.known, lines) {
                    (Some(known), _) => known.range(encoding),
                    (None, Some(lines)) => lines.span(&place.span, encoding),
                    (None, None) => return None,
                };
                Some(Location::new(uri.clone(), range))
            })
            .collect()
    }

    /// The URI to name a note by: the client's own for an open buffer.
    pub fn doc_uri(&self, vault: &Vault, rel: &str) -> Option<Uri> {
        match self.docs.get(&vault.abs(rel)) {
            Some(doc) => Some(doc.uri.clone()),
            None => vault.uri(rel),
        }
    }

    /// The open document at `uri` with the cursor at `position`; a note
    /// that is not open is read from disk.
    pub fn here(&self, uri: &Uri, position: Position) -> Option<Here> {
        let Located { vault, rel } = self.locate(uri)?;
        let (text, lines) = match self.docs.get(&vault.abs(&rel)) {
            Some(doc) => (Arc::clone(&doc.text), Arc::clone(&doc.lines)),
            None => {
                let text = self.text(&vault, &rel)?;
                let lines = Arc::new(LineIndex::new(&text));
                (text, lines)
            }
        };
        let offset = lines.offset(position, self.encoding());
        Some(Here {
            vault,
            rel,
            text,
            lines,
            offset,
        })
    }

    /// Parses an open buffer and puts it in its vault's index: the shared
    /// one (for every session) once loaded, else the session's own.
    pub fn index_doc(&self, vault: &Vault, rel: &str) {
        let _update = lock(&vault.update);
        let Some(text) = self.docs.get(&vault.abs(rel)).map(|d| Arc::clone(&d.text)) else {
            return;
        };
        if let Some(hub) = &vault.hub {
            let live = vault.live().map(|l| &**l);
            let reshaped = hub.buffers.set(live, vault.session, rel, Arc::clone(&text));
            if live.is_some() {
                if reshaped.links {
                    vault.ranks_changed();
                }
                if reshaped.names {
                    vault.names_changed();
                }
                return;
            }
        }
        let note = weft_vault::parse::parse_text(rel, &text);
        let mut index = vault
            .index()
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let old = index.id_of(rel).map(|id| index.note(id));
        let same_names = old.is_some_and(|old| old.same_names(&note));
        let same_shape = same_names && old.is_some_and(|old| old.same_links(&note));
        index.upsert(note);
        drop(index);
        if !same_shape {
            vault.ranks_changed();
        }
        if !same_names {
            vault.names_changed();
        }
    }

    /// After a buffer closed: the disk (or another session's buffer) is
    /// the truth again for its note.
    pub fn unindex_doc(&self, vault: &Vault, rel: &str) {
        let _update = lock(&vault.update);
        let abs = vault.abs(rel);
        if let Some(hub) = &vault.hub {
            let live = vault.live().map(|l| &**l);
            hub.buffers.close(live, vault.session, rel);
            if live.is_some() {
                vault.ranks_changed();
                vault.names_changed();
                return;
            }
        }
        let mut index = vault
            .index()
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        match std::fs::read(&abs) {
            Ok(bytes) => {
                index.upsert(parse_note(rel, &bytes));
            }
            Err(_) => {
                index.remove(rel);
            }
        }
    }

    /// After notes changed elsewhere (the disk, another session's buffer):
    /// caches of names and backlink counts may be stale. (The hub puts open
    /// buffers back on top of what it takes from the disk.)
    pub fn notes_changed(&self, vault: &Vault, changed: &[String]) {
        if !changed.is_empty() {
            vault.ranks_changed();
            vault.names_changed();
        }
    }

    /// Tells the vault's other sessions that this session's buffer of `rel`
    /// changed (opened, edited or closed).
    pub fn edited(&self, vault: &Vault, rel: &str) {
        if let Some(hub) = &vault.hub {
            hub.buffers_edited(vault.session, vec![rel.to_string()]);
        }
    }

    /// Asks the background task to republish diagnostics (`external`:
    /// notes other than open buffers changed).
    pub fn schedule_refresh(&self, external: bool) {
        let _ = self.refresh_tx.send(external);
    }

    /// A [`TextSource`] over open buffers and the disk of `vault`.
    pub fn texts<'a>(&'a self, vault: &'a Vault) -> Texts<'a> {
        Texts { world: self, vault }
    }
}

/// Note texts for the domain: open buffers first, else the disk.
pub(crate) struct Texts<'a> {
    world: &'a World,
    vault: &'a Vault,
}

impl TextSource for Texts<'_> {
    fn text(&self, path: &str) -> Option<String> {
        self.world.text(self.vault, path).map(|t| String::clone(&t))
    }
}

/// The content hash the parser gives a text (see `Note::content_hash`).
pub(crate) fn text_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Settings from the editor may come wrapped in `{"weft": {...}}`.
pub(crate) fn unwrap_settings(value: Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Object(mut map)
            if map.len() == 1 && map.get("weft").is_some_and(Value::is_object) =>
        {
            map.remove("weft")
        }
        other => Some(other),
    }
}
