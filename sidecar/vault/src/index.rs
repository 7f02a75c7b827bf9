//! The vault index: every note's parse, name tables for the resolver, and an
//! inverse index of links by lookup key, from which backlinks are derived.
//!
//! Invariant: the index is a pure function of the set of (path, note) pairs
//! and attachment paths it holds. Inserting or removing one note touches only
//! that note's own entries (names, link keys, tags), never other notes, so
//! incremental updates equal a full rebuild by construction. Link resolution
//! is not cached: it is a few hash lookups, done when asked.

use std::collections::HashMap;
use std::hash::BuildHasher;

use rayon::prelude::*;

/// The index's tables: hashed with foldhash, several times faster than the
/// standard SipHash on short keys and still seeded per process.
type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

use super::key::{join_relative, most_written, path_key};
use super::note::{Link, LinkKind, Note, folder_of, strip_md};
use super::props::{Props, Types};

/// A note's slot in the index; stable while the note stays at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NoteId(pub(crate) u32);

impl NoteId {
    /// A dense number for tables kept beside the index (one slot per note
    /// id, ids reused after removals).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One link: the note it stands in and its index in that note's `links`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkRef {
    pub source: NoteId,
    pub link: u32,
}

/// Per tag or frontmatter key (by key): how it is spelled, used and spread.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagStat {
    /// Spellings with their use counts; the most used one is displayed.
    pub spellings: Vec<(Box<str>, u32)>,
    pub uses: u32,
    pub notes: u32,
}

/// Adds a note's tags to tag counts keyed as [`VaultIndex::tags`] keys them.
pub(crate) fn count_tags(tags: &mut HashMap<Box<str>, TagStat>, note: &Note) {
    count_names(tags, tag_names(note));
}

/// A note's tags: (key, as written).
fn tag_names(note: &Note) -> impl Iterator<Item = (String, &str)> {
    note.tags
        .iter()
        .map(|t| (super::tags::key(&t.name), &*t.name))
}

/// A note's distinct tag keys.
fn tag_keys(note: &Note) -> Vec<String> {
    let mut keys: Vec<String> = tag_names(note).map(|(key, _)| key).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Counts names (key, as written): one use per name, one note per key.
fn count_names<'a>(
    stats: &mut HashMap<Box<str>, TagStat>,
    names: impl Iterator<Item = (String, &'a str)>,
) {
    let mut seen: Vec<String> = Vec::new();
    for (key, written) in names {
        let stat = stats.entry(key.as_str().into()).or_default();
        stat.uses += 1;
        match stat.spellings.iter_mut().find(|s| &*s.0 == written) {
            Some(s) => s.1 += 1,
            None => stat.spellings.push((written.into(), 1)),
        }
        if !seen.contains(&key) {
            stat.notes += 1;
            seen.push(key);
        }
    }
}

/// Takes back what [`count_names`] counted of the same names.
fn uncount_names<'a>(
    stats: &mut HashMap<Box<str>, TagStat>,
    names: impl Iterator<Item = (String, &'a str)>,
) {
    let mut seen: Vec<String> = Vec::new();
    for (key, written) in names {
        let Some(stat) = stats.get_mut(key.as_str()) else {
            continue;
        };
        stat.uses -= 1;
        if let Some(s) = stat.spellings.iter_mut().find(|s| &*s.0 == written) {
            s.1 -= 1;
        }
        stat.spellings.retain(|s| s.1 > 0);
        if !seen.contains(&key) {
            stat.notes -= 1;
            seen.push(key.clone());
        }
        if stat.uses == 0 {
            stats.remove(key.as_str());
        }
    }
}

/// The displayed spelling of every property key, ordered by key.
fn key_displays(props: &Props) -> Vec<String> {
    let mut out: Vec<(&str, &str)> = props.iter().map(|(k, s)| (k, s.display())).collect();
    out.sort_unstable();
    out.into_iter().map(|(_, d)| d.to_string()).collect()
}

impl TagStat {
    pub fn display(&self) -> &str {
        most_written(&self.spellings)
    }
}

#[derive(Default)]
pub struct VaultIndex {
    notes: Vec<Option<Note>>,
    free: Vec<u32>,
    /// Exact vault path (with `.md`) → note: a note's identity. Holds ids
    /// only, hashed by their note's path: the paths are not kept twice.
    by_exact: hashbrown::HashTable<NoteId>,
    hasher: foldhash::fast::RandomState,
    /// Path key (no `.md`, case-folded) → notes, sorted by path. Two notes
    /// may share a key (`A.md` and `a.md` on a case-sensitive disk).
    pub(super) by_path: Map<Box<str>, Vec<NoteId>>,
    /// File stem key → notes, sorted by path.
    pub(super) by_stem: Map<Box<str>, Vec<NoteId>>,
    /// Alias and title keys → notes, sorted by path.
    pub(super) by_name: Map<Box<str>, Vec<NoteId>>,
    /// Attachment path key (with extension) → path as on disk.
    pub(super) attachments: Map<Box<str>, Box<str>>,
    /// Attachment file name key → path keys.
    pub(super) attachments_by_name: Map<Box<str>, Vec<Box<str>>>,
    /// Lookup key of a link target → the links with that key.
    pub(super) links_by_key: Map<Box<str>, Vec<LinkRef>>,
    tags: HashMap<Box<str>, TagStat>,
    /// Tag key → the notes tagged so (each once): which notes a tag
    /// selects, without reading every note.
    tagged: Map<Box<str>, Vec<NoteId>>,
    /// Frontmatter keys in use with their values.
    props: Props,
    /// The types `.obsidian/types.json` declares: how the filter compares
    /// those keys' values (set by the vault's owner as its configuration
    /// changes).
    types: Types,
    generation: u64,
    /// By note slot: the generation at which a note was last filed in it
    /// or removed from it, so a cache built at generation `g` knows which
    /// slots changed since without reading a note.
    stamps: Vec<u64>,
}

impl std::fmt::Debug for VaultIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VaultIndex")
            .field("notes", &self.len())
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl VaultIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// The note at exactly `path`.
    fn exact(&self, path: &str) -> Option<NoteId> {
        let hash = self.hasher.hash_one(path);
        self.by_exact
            .find(hash, |id| path_in(&self.notes, *id) == path)
            .copied()
    }

    /// Bumped on every change; caches built on the index compare it.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn len(&self) -> usize {
        self.by_exact.len()
    }

    /// By note slot (`NoteId.0`): the generation at which its note was last
    /// filed or removed. A slot whose stamp is at most `g` holds what it
    /// held at generation `g` (a note, or none).
    pub fn stamps(&self) -> &[u64] {
        &self.stamps
    }

    /// The note in slot `id`, if one is there.
    pub fn get(&self, id: NoteId) -> Option<&Note> {
        self.notes.get(id.0 as usize)?.as_ref()
    }

    fn stamp(&mut self, id: NoteId) {
        let slot = id.0 as usize;
        if self.stamps.len() <= slot {
            self.stamps.resize(slot + 1, 0);
        }
        self.stamps[slot] = self.generation;
    }

    pub fn is_empty(&self) -> bool {
        self.by_exact.is_empty()
    }

    pub fn note(&self, id: NoteId) -> &Note {
        self.notes[id.0 as usize].as_ref().expect("a live NoteId")
    }

    /// Every note, in no particular order.
    /// Every note with its id, split for threads (in id order, as
    /// [`VaultIndex::notes`]).
    pub fn par_notes(&self) -> impl IndexedParallelIterator<Item = (NoteId, Option<&Note>)> {
        self.notes
            .par_iter()
            .enumerate()
            .map(|(i, n)| (NoteId(i as u32), n.as_ref()))
    }

    pub fn notes(&self) -> impl Iterator<Item = (NoteId, &Note)> {
        self.notes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.as_ref().map(|n| (NoteId(i as u32), n)))
    }

    /// The note at a vault path, with or without `.md`: the exact path
    /// first, else the one note whose path matches ignoring case and
    /// Unicode normal form.
    pub fn id_of(&self, path: &str) -> Option<NoteId> {
        if let Some(id) = self.exact(path) {
            return Some(id);
        }
        if let Some(id) = self.exact(&format!("{path}.md")) {
            return Some(id);
        }
        match self.by_path.get(path_key(path).as_str()).map(Vec::as_slice) {
            Some([id]) => Some(*id),
            _ => None,
        }
    }

    pub fn link(&self, r: LinkRef) -> &Link {
        &self.note(r.source).links[r.link as usize]
    }

    /// The attachment at `path` (as paths compare: case, `\\`), by its
    /// path on disk.
    pub fn attachment_at(&self, path: &str) -> Option<&str> {
        self.attachments.get(path_key(path).as_str()).map(|p| &**p)
    }

    pub fn attachments(&self) -> impl Iterator<Item = &str> {
        self.attachments.values().map(|p| &**p)
    }

    pub fn tags(&self) -> &HashMap<Box<str>, TagStat> {
        &self.tags
    }

    /// The notes tagged `wanted` or a tag nested under it (`project` takes
    /// `project/weft`), each once, in the index's order: every note
    /// `Filter::Tag(wanted)` passes, found without reading the others.
    pub fn notes_tagged(&self, wanted: &str) -> Vec<NoteId> {
        let key = super::tags::key(wanted);
        let nested = format!("{key}/");
        let mut out: Vec<NoteId> = self
            .tagged
            .iter()
            .filter(|(k, _)| ***k == *key || k.starts_with(&nested))
            .flat_map(|(_, notes)| notes.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// [`VaultIndex::tags`] counted over the notes the caller `sees` (the
    /// agent's access rule).
    pub fn tags_of(&self, sees: &dyn Fn(&Note) -> bool) -> HashMap<Box<str>, TagStat> {
        let mut tags = HashMap::new();
        for (_, note) in self.notes().filter(|(_, n)| sees(n)) {
            count_tags(&mut tags, note);
        }
        tags
    }

    /// The frontmatter keys in use, each as most often written, ordered
    /// by key.
    pub fn frontmatter_keys(&self) -> Vec<String> {
        key_displays(&self.props)
    }

    /// The properties in use: each key's spellings, notes and values.
    pub fn props(&self) -> &Props {
        &self.props
    }

    /// The property types the vault declares (`.obsidian/types.json`).
    pub fn types(&self) -> &Types {
        &self.types
    }

    /// Takes the vault's declared property types; whether they changed
    /// (then the generation moves on: what a filter selects may have).
    pub fn set_types(&mut self, types: &Types) -> bool {
        if self.types == *types {
            return false;
        }
        self.types = types.clone();
        self.generation += 1;
        true
    }

    /// [`VaultIndex::frontmatter_keys`] of the notes the caller `sees`
    /// (the agent's access rule).
    pub fn frontmatter_keys_of(&self, sees: &dyn Fn(&Note) -> bool) -> Vec<String> {
        key_displays(&Props::keys_of(
            self.notes().map(|(_, n)| n).filter(|n| sees(n)),
        ))
    }

    /// Adds or replaces the note at `note.path` (exact); returns its id.
    pub fn upsert(&mut self, note: Note) -> NoteId {
        let entries = Entries::of(&note);
        self.file(note, entries)
    }

    /// What `notes` will file in the tables, worked out on every core and
    /// without the index (so without its lock): [`VaultIndex::extend`]
    /// then files them.
    pub fn prepare(notes: Vec<Note>) -> Prepared {
        Prepared(
            notes
                .into_par_iter()
                .map(|note| {
                    let entries = Entries::of(&note);
                    (note, entries)
                })
                .collect(),
        )
    }

    /// How many notes the table holds room for (free slots included).
    #[cfg(test)]
    pub(crate) fn room(&self) -> usize {
        self.notes.capacity()
    }

    /// Adds or replaces prepared notes, as [`VaultIndex::upsert`] one by
    /// one would.
    pub fn extend(&mut self, Prepared(mut prepared): Prepared) {
        // Free slots are taken first: a batch that removed as many notes as
        // it adds (a folder renamed) must not double the table for good.
        self.notes
            .reserve(prepared.len().saturating_sub(self.free.len()));
        // Into an empty index (a vault loaded, a snapshot read), ids are
        // positions unless a path comes twice; where they are, the links
        // (most of the work) are filed on another core while the notes are.
        let positions = self.notes.is_empty() && {
            let mut seen = Map::default();
            prepared
                .iter()
                .all(|(note, _)| seen.insert(&*note.path, ()).is_none())
        };
        if !positions {
            for (note, entries) in prepared {
                self.file(note, entries);
            }
            return;
        }
        let links: Vec<Vec<(u32, String)>> = prepared
            .iter_mut()
            .map(|(_, entries)| std::mem::take(&mut entries.links))
            .collect();
        let mut by_key = std::mem::take(&mut self.links_by_key);
        rayon::join(
            || {
                for (note, entries) in prepared {
                    self.file(note, entries);
                }
            },
            || {
                for (id, links) in links.into_iter().enumerate() {
                    let source = NoteId(id as u32);
                    for (link, key) in links {
                        by_key
                            .entry(key.into_boxed_str())
                            .or_default()
                            .push(LinkRef { source, link });
                    }
                }
            },
        );
        self.links_by_key = by_key;
    }

    /// Files a note with its entries, replacing the one at its exact path.
    fn file(&mut self, note: Note, entries: Entries) -> NoteId {
        self.generation += 1;
        if let Some(id) = self.exact(&note.path) {
            let old = self.notes[id.0 as usize].take().expect("a live NoteId");
            self.unlink_entries(id, &old);
            self.link_entries(id, &note, entries);
            self.notes[id.0 as usize] = Some(note);
            self.stamp(id);
            return id;
        }
        let id = match self.free.pop() {
            Some(slot) => NoteId(slot),
            None => {
                self.notes.push(None);
                NoteId(self.notes.len() as u32 - 1)
            }
        };
        self.link_entries(id, &note, entries);
        let hash = self.hasher.hash_one(&*note.path);
        self.notes[id.0 as usize] = Some(note);
        self.stamp(id);
        let (notes, hasher) = (&self.notes, &self.hasher);
        self.by_exact
            .insert_unique(hash, id, |id| hasher.hash_one(path_in(notes, *id)));
        id
    }

    /// Removes the note at exactly `path`; returns it if there was one.
    pub fn remove(&mut self, path: &str) -> Option<Note> {
        let hash = self.hasher.hash_one(path);
        let notes = &self.notes;
        let (id, _) = self
            .by_exact
            .find_entry(hash, |id| path_in(notes, *id) == path)
            .ok()?
            .remove();
        self.generation += 1;
        let note = self.notes[id.0 as usize].take().expect("a live NoteId");
        self.stamp(id);
        self.unlink_entries(id, &note);
        self.free.push(id.0);
        Some(note)
    }

    pub fn add_attachment(&mut self, path: &str) {
        let key: Box<str> = path_key(path).into();
        if self.attachments.insert(key.clone(), path.into()).is_none() {
            self.generation += 1;
            let name = key.rsplit('/').next().unwrap_or(&key).into();
            let list = self.attachments_by_name.entry(name).or_default();
            let at = list.partition_point(|k| *k < key);
            list.insert(at, key);
        }
    }

    pub fn add_attachments(&mut self, paths: &[String]) {
        for path in paths {
            self.add_attachment(path);
        }
    }

    pub fn remove_attachment(&mut self, path: &str) -> bool {
        let key = path_key(path);
        if self.attachments.remove(key.as_str()).is_none() {
            return false;
        }
        self.generation += 1;
        let name = key.rsplit('/').next().unwrap_or(&key);
        remove_from(&mut self.attachments_by_name, name, |k| **k == *key);
        true
    }

    /// The keys a link is filed under in the inverse index: the keys of the
    /// notes it could resolve to (none, one, or a relative one and then the
    /// plain one), made without a list for each of a vault's links.
    pub(super) fn link_keys(source_folder: &str, link: &Link) -> impl Iterator<Item = String> {
        let (first, second) = Self::link_key_pair(source_folder, link);
        first.into_iter().chain(second)
    }

    fn link_key_pair(source_folder: &str, link: &Link) -> (Option<String>, Option<String>) {
        let target = link.target().trim();
        if target.is_empty() {
            return (None, None);
        }
        if target.starts_with("./") || target.starts_with("../") {
            return (
                join_relative(source_folder, target).map(|p| path_key(&p)),
                None,
            );
        }
        let plain = path_key(target.trim_start_matches('/'));
        if link.kind == LinkKind::Markdown
            && !target.starts_with('/')
            && let Some(joined) = join_relative(source_folder, target).map(|p| path_key(&p))
            && joined != plain
        {
            return (Some(joined), Some(plain));
        }
        (Some(plain), None)
    }

    /// The keys under which links to `note` are filed: every suffix of its
    /// path, its aliases and its title.
    pub(super) fn note_keys(note: &Note) -> Vec<String> {
        let mut keys = suffix_keys(&path_key(&note.path));
        keys.extend(note.aliases.iter().map(|a| path_key(a)));
        keys.push(path_key(&note.title));
        keys.sort();
        keys.dedup();
        keys
    }

    /// Sorts `refs` by source path, then link, each once. Numbers are
    /// compared first: paths only once per source, each looked up once.
    pub(super) fn sort_refs(&self, refs: &mut Vec<LinkRef>) {
        refs.sort_unstable();
        refs.dedup();
        // Runs of one source, ordered by that source's path.
        let mut runs: Vec<(&str, usize, usize)> = Vec::new();
        for (i, r) in refs.iter().enumerate() {
            match runs.last_mut() {
                Some((_, _, end)) if refs[*end - 1].source == r.source => *end = i + 1,
                _ => runs.push((&self.note(r.source).path, i, i + 1)),
            }
        }
        if runs.windows(2).all(|w| w[0].0 <= w[1].0) {
            return;
        }
        runs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let sorted: Vec<LinkRef> = runs
            .iter()
            .flat_map(|&(_, start, end)| refs[start..end].iter().copied())
            .collect();
        *refs = sorted;
    }

    fn link_entries(&mut self, id: NoteId, note: &Note, entries: Entries) {
        let Entries {
            path,
            stem,
            names,
            links,
        } = entries;
        // Lists of ids stay sorted by path, so tie-breaks need no sorting.
        let notes = &self.notes;
        let path_of = |n: &NoteId| -> &str {
            if *n == id {
                &note.path
            } else {
                path_in(notes, *n)
            }
        };
        insert_sorted(list_for(&mut self.by_path, path), id, path_of);
        insert_sorted(list_for(&mut self.by_stem, stem), id, path_of);
        for name in names {
            insert_sorted(list_for(&mut self.by_name, name), id, path_of);
        }
        for (link, key) in links {
            list_for(&mut self.links_by_key, key).push(LinkRef { source: id, link });
        }
        count_tags(&mut self.tags, note);
        for key in tag_keys(note) {
            self.tagged
                .entry(key.into_boxed_str())
                .or_default()
                .push(id);
        }
        self.props.add(note);
    }

    fn unlink_entries(&mut self, id: NoteId, note: &Note) {
        let path = path_key(&note.path);
        let stem = path.rsplit('/').next().unwrap_or(&path);
        remove_from(&mut self.by_path, &path, |n| *n == id);
        remove_from(&mut self.by_stem, stem, |n| *n == id);
        for name in name_keys(note) {
            remove_from(&mut self.by_name, &name, |n| *n == id);
        }
        // One pass per distinct key, however many links share it.
        let folder = folder_of(&note.path);
        let mut keys: Vec<String> = note
            .links
            .iter()
            .flat_map(|l| Self::link_keys(folder, l))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            remove_from(&mut self.links_by_key, &key, |r| r.source == id);
        }
        uncount_names(&mut self.tags, tag_names(note));
        for key in tag_keys(note) {
            if let Some(notes) = self.tagged.get_mut(key.as_str()) {
                notes.retain(|n| *n != id);
                if notes.is_empty() {
                    self.tagged.remove(key.as_str());
                }
            }
        }
        self.props.remove(note);
    }
}

/// Alias and title keys of a note (the title only when it is not the stem).
/// Notes with what they file in the index, from [`VaultIndex::prepare`].
pub struct Prepared(Vec<(Note, Entries)>);

impl Prepared {
    /// How many notes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What a note files in the index's tables: its path and stem keys, its
/// name keys, and each link's keys. Computed apart from the index, so many
/// notes' entries can be worked out in parallel.
struct Entries {
    path: String,
    stem: String,
    names: Vec<String>,
    /// (link number, key), a link once per key.
    links: Vec<(u32, String)>,
}

impl Entries {
    fn of(note: &Note) -> Entries {
        let path = path_key(&note.path);
        let stem = path.rsplit('/').next().unwrap_or(&path).to_string();
        let folder = folder_of(&note.path);
        let links = note
            .links
            .iter()
            .enumerate()
            .flat_map(|(i, link)| {
                VaultIndex::link_keys(folder, link).map(move |key| (i as u32, key))
            })
            .collect();
        Entries {
            path,
            stem,
            names: name_keys(note),
            links,
        }
    }
}

/// A file's path key and every suffix of it after a `/`: the keys of the
/// links that name the file by path, partial path or name.
pub(super) fn suffix_keys(path: &str) -> Vec<String> {
    std::iter::once(path.to_string())
        .chain(
            path.match_indices('/')
                .map(|(i, _)| path[i + 1..].to_string()),
        )
        .collect()
}

/// The list filed under `key`, made when missing (one lookup; the key's
/// text is kept only then).
fn list_for<T>(map: &mut Map<Box<str>, Vec<T>>, key: String) -> &mut Vec<T> {
    map.entry(key.into_boxed_str()).or_default()
}

fn name_keys(note: &Note) -> Vec<String> {
    let mut keys: Vec<String> = note.aliases.iter().map(|a| path_key(a)).collect();
    let stem = strip_md(&note.path).rsplit('/').next().unwrap_or_default();
    if *note.title != *stem {
        keys.push(path_key(&note.title));
    }
    keys.sort();
    keys.dedup();
    keys
}

fn insert_sorted<'a, T: PartialEq + Copy>(list: &mut Vec<T>, item: T, key: impl Fn(&T) -> &'a str) {
    let k = key(&item);
    let at = list.partition_point(|x| key(x) < k);
    if list[at..]
        .iter()
        .take_while(|x| key(x) == k)
        .any(|x| *x == item)
    {
        return;
    }
    list.insert(at, item);
}

fn remove_from<T>(map: &mut Map<Box<str>, Vec<T>>, key: &str, pred: impl Fn(&T) -> bool) {
    if let Some(list) = map.get_mut(key) {
        list.retain(|x| !pred(x));
        if list.is_empty() {
            map.remove(key);
        }
    }
}

/// The path of note `id` in `notes` (`""` for a free slot).
fn path_in(notes: &[Option<Note>], id: NoteId) -> &str {
    notes[id.0 as usize].as_ref().map_or("", |n| &n.path)
}
