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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use dashmap::DashMap;
use serde_json::Value;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{Location, Position, Uri};

use super::convert::{Encoding, LineIndex, uri_to_path};
use weft_vault::note::is_note_path;
use weft_vault::parse_note;
use weft_vault::query::TextSource;
use weft_workspace::io::relative_path;
use weft_workspace::sync::{lock, read, write};

use super::positions::{POSITION_CACHE_BYTES, Place};
use super::vault::Vault;

/// A hash map keyed by note paths, hashed fast: a reply may place tens of
/// thousands of spans.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

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
    /// `window.workDoneProgress`: loading is reported as `$/progress`.
    pub work_done_progress: bool,
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

/// How long a request that needs a vault's index waits for it to load
/// before it fails saying so: long enough for a cold build of a large
/// vault's notes (a persisted index makes the wait nil).
pub(crate) const INDEX_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

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
    /// How long a request waits for the vault's index ([`INDEX_WAIT`]).
    pub index_wait: Mutex<std::time::Duration>,
    /// Woken whenever a vault finishes loading (or fails to).
    pub loaded: tokio::sync::Notify,
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
            index_wait: Mutex::new(INDEX_WAIT),
            loaded: tokio::sync::Notify::new(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding.get().copied().unwrap_or_default()
    }

    pub fn caps(&self) -> ClientCaps {
        self.caps.get().cloned().unwrap_or_default()
    }

    pub fn vaults(&self) -> Vec<Arc<Vault>> {
        read(&self.vaults).clone()
    }

    /// The vault holding `abs` (the innermost one) and the vault path.
    pub(crate) fn locate_path(&self, abs: &Path) -> Option<Located> {
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
    pub(crate) fn locate(&self, uri: &Uri) -> Option<Located> {
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
    /// one per span in order, `None` where its note cannot be read (gone
    /// since it was indexed). Each note's URI and line index are found
    /// once, cached ones under one lock.
    pub fn locations<P: AsRef<str>>(
        &self,
        vault: &Vault,
        spans: &[(P, std::ops::Range<u32>, u64)],
    ) -> Vec<Option<Location>> {
        let places: Vec<Place<&str>> = spans
            .iter()
            .map(|(path, span, hash)| Place {
                path: path.as_ref(),
                span: span.clone(),
                hash: *hash,
                known: None,
            })
            .collect();
        self.each_place_location(vault, &places)
    }

    /// Locations of places in notes, in order; places in notes that cannot
    /// be read are left out.
    pub(crate) fn place_locations<P: AsRef<str>>(
        &self,
        vault: &Vault,
        places: &[Place<P>],
    ) -> Vec<Location> {
        self.each_place_location(vault, places)
            .into_iter()
            .flatten()
            .collect()
    }

    /// The location of each place, in order (`None`: its note cannot be
    /// read). A place whose position the index already knows needs only
    /// its note's URI; the others need the note's line index (open buffer,
    /// cache, or read once).
    fn each_place_location<P: AsRef<str>>(
        &self,
        vault: &Vault,
        places: &[Place<P>],
    ) -> Vec<Option<Location>> {
        let encoding = self.encoding();
        // Open buffers of this vault (few): their URI and text win.
        let open: FastMap<String, (Uri, Arc<LineIndex>)> = self
            .docs
            .iter()
            .filter(|d| std::ptr::eq(Arc::as_ptr(&d.vault), vault))
            .map(|d| (d.rel.clone(), (d.uri.clone(), Arc::clone(&d.lines))))
            .collect();
        // Per note: its URI, and its line index when some place needs it.
        let mut notes: FastMap<&str, (Option<Uri>, Option<Arc<LineIndex>>)> =
            FastMap::with_capacity_and_hasher(places.len().min(1 << 16), Default::default());
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
            .map(|place| {
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
    pub(crate) fn doc_uri(&self, vault: &Vault, rel: &str) -> Option<Uri> {
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
    pub(crate) fn index_doc(&self, vault: &Vault, rel: &str) {
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
        let mut index = write(vault.index());
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
    pub(crate) fn unindex_doc(&self, vault: &Vault, rel: &str) {
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
        let mut index = write(vault.index());
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
    pub(crate) fn notes_changed(&self, vault: &Vault, changed: &[String]) {
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
    pub(crate) fn schedule_refresh(&self, external: bool) {
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
pub(crate) use weft_vault::note::text_hash;

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
