//! The one resolver: what a link target names, used by every feature.
//!
//! Given target text T in a note in folder F (fragment and alias removed,
//! `.md` stripped, NFC, case-insensitive):
//! 1. `./` or `../`: relative to F. A leading `/`: the vault path from the
//!    vault's root, exactly (no suffix, name or title stands in for it).
//!    T with `/`: a vault path, else a unique path suffix. (Markdown links
//!    first try T relative to F, as in HTML.)
//! 2. Else the notes whose file stem is T: one wins; of several, the one in
//!    F, else the shortest path, else the first by path (ambiguous).
//! 3. Else a note whose alias or title is T (same tie-break).
//! 4. Else an attachment with that path or name; else unresolved.
//!
//! A fragment names a block (`#^id`) or a heading path (`#A#B`), resolved
//! by the rules of [`super::headings`], shared with the tools' sections.

use super::headings::{HeadingMatch, find_heading, fragment_parts};
use std::collections::HashMap;

use super::index::{LinkRef, NoteId, VaultIndex, suffix_keys};
use super::key::{join_relative, path_key};
use super::note::{Link, LinkKind, Note, folder_of};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Note(NoteId),
    /// Several notes match; `chosen` is the one the tie-break picks and
    /// `candidates` (sorted by path) includes it.
    Ambiguous {
        chosen: NoteId,
        candidates: Vec<NoteId>,
    },
    /// A non-Markdown file, by its vault path.
    Attachment(Box<str>),
    Unresolved,
}

impl Resolution {
    /// The note the link leads to, ambiguous links included.
    pub fn note(&self) -> Option<NoteId> {
        match self {
            Resolution::Note(id) | Resolution::Ambiguous { chosen: id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// What a fragment (`#Heading`, `#H1#H2`, `#^block`) names in a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentTarget {
    /// Index into the note's `headings`.
    Heading(usize),
    /// Index into the note's `blocks`.
    Block(usize),
    Missing,
}

/// Links as the resolver sends them: backlinks, unresolved links, one
/// link's resolution. The index files links by the keys they could match;
/// which of them lead where is decided here, when asked.
impl VaultIndex {
    /// The notes a bare name with key `key` (a [`path_key`] without `/`)
    /// could lead to: by stem, alias or title; sorted, each once.
    pub fn answering_to(&self, key: &str) -> Vec<NoteId> {
        let mut ids: Vec<NoteId> = [&self.by_stem, &self.by_name]
            .into_iter()
            .filter_map(|map| map.get(key))
            .flatten()
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Every link that resolves to `target`, sorted by source path and offset.
    pub fn backlinks(&self, target: NoteId) -> Vec<LinkRef> {
        self.links_resolving(&Self::note_keys(self.note(target)), Some(target), |found| {
            found.note() == Some(target)
        })
    }

    /// Every link that resolves to the attachment at `path` (a vault
    /// path), sorted as [`VaultIndex::backlinks`] sorts.
    pub fn attachment_backlinks(&self, path: &str) -> Vec<LinkRef> {
        let key = path_key(path);
        let Some(path) = self.attachments.get(key.as_str()) else {
            return Vec::new();
        };
        // An attachment is reached by its path, a path suffix or its file
        // name (`attachment`): every link to it is filed under one of those.
        self.links_resolving(
            &suffix_keys(&key),
            None,
            |found| matches!(found, Resolution::Attachment(p) if **p == **path),
        )
    }

    /// The links filed under `keys` whose resolution `hits`; a link into
    /// its own note counts when that note is `self_target`.
    fn links_resolving(
        &self,
        keys: &[String],
        self_target: Option<NoteId>,
        hits: impl Fn(&Resolution) -> bool,
    ) -> Vec<LinkRef> {
        let mut found = Vec::new();
        // A much-linked note has thousands of links written the same way
        // from a few folders; each distinct (folder, target, kind) is
        // resolved once.
        let mut memo: HashMap<(&str, &str, LinkKind), bool, foldhash::fast::RandomState> =
            HashMap::default();
        for key in keys {
            for &r in self.links_by_key.get(key.as_str()).into_iter().flatten() {
                let source = self.note(r.source);
                let link = &source.links[r.link as usize];
                let hit = if link.is_self_link() {
                    Some(r.source) == self_target
                } else {
                    let folder = source.folder();
                    *memo
                        .entry((folder, link.target(), link.kind))
                        .or_insert_with(|| hits(&self.resolve(folder, link.target(), link.kind)))
                };
                if hit {
                    found.push(r);
                }
            }
        }
        self.sort_refs(&mut found);
        found
    }

    /// Links whose target text has key `key` and that resolve to no note or
    /// attachment: the backlinks of a note that does not exist yet.
    pub fn unresolved_links_to(&self, target_text: &str) -> Vec<LinkRef> {
        let key = path_key(target_text.trim_start_matches('/'));
        let mut found: Vec<LinkRef> = self
            .links_by_key
            .get(key.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&r| matches!(self.resolve_ref(r), Resolution::Unresolved))
            .collect();
        self.sort_refs(&mut found);
        found
    }

    /// Every unresolved link target with the links to it, sorted by key.
    pub fn unresolved(&self) -> Vec<(Box<str>, Vec<LinkRef>)> {
        let mut groups: HashMap<String, Vec<LinkRef>> = HashMap::new();
        for refs in self.links_by_key.values() {
            for &r in refs {
                if matches!(self.resolve_ref(r), Resolution::Unresolved) {
                    let link = self.link(r);
                    let key = Self::link_keys(self.note(r.source).folder(), link)
                        .last()
                        .unwrap_or_default();
                    groups.entry(key).or_default().push(r);
                }
            }
        }
        let mut out: Vec<(Box<str>, Vec<LinkRef>)> = groups
            .into_iter()
            .map(|(k, mut refs)| {
                refs.sort();
                refs.dedup();
                self.sort_refs(&mut refs);
                (k.into(), refs)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Resolves one link of the index.
    pub fn resolve_ref(&self, r: LinkRef) -> Resolution {
        let note = self.note(r.source);
        self.resolve_link(r.source, &note.links[r.link as usize])
    }

    /// Resolves a link standing in note `source`.
    pub fn resolve_link(&self, source: NoteId, link: &Link) -> Resolution {
        if link.is_self_link() {
            return Resolution::Note(source);
        }
        self.resolve(self.note(source).folder(), link.target(), link.kind)
    }
}

impl VaultIndex {
    /// Resolves target text written in a note in `folder`.
    pub fn resolve(&self, folder: &str, target: &str, kind: LinkKind) -> Resolution {
        let target = target.trim();
        if target.is_empty() {
            return Resolution::Unresolved;
        }
        if target.starts_with("./") || target.starts_with("../") {
            return match join_relative(folder, target) {
                Some(path) => self
                    .by_exact_path(folder, &path_key(&path))
                    .unwrap_or(Resolution::Unresolved),
                None => Resolution::Unresolved,
            };
        }
        if let Some(from_root) = target.strip_prefix('/') {
            // `[[/d]]`: the note `d.md` at the vault's root, not a `d`
            // anywhere, as Obsidian reads an absolute path.
            return self
                .by_exact_path(folder, &path_key(from_root.trim_start_matches('/')))
                .unwrap_or(Resolution::Unresolved);
        }
        if kind == LinkKind::Markdown
            && let Some(found) = join_relative(folder, target)
                .and_then(|p| self.by_exact_path(folder, &path_key(&p)))
        {
            return found;
        }
        let key = path_key(target);
        if key.contains('/') {
            if let Some(found) = self.by_exact_path(folder, &key) {
                return found;
            }
            let stem = key.rsplit('/').next().unwrap_or(&key);
            let suffix = format!("/{key}");
            let matches: Vec<NoteId> = self
                .by_stem
                .get(stem)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&id| path_key(&self.note(id).path).ends_with(&suffix))
                .collect();
            if let Some(found) = self.pick(folder, matches) {
                return found;
            }
        } else if let Some(found) = self
            .by_stem
            .get(key.as_str())
            .and_then(|ids| self.pick(folder, ids.clone()))
        {
            return found;
        }
        if let Some(found) = self
            .by_name
            .get(key.as_str())
            .and_then(|ids| self.pick(folder, ids.clone()))
        {
            return found;
        }
        self.attachment(&key).unwrap_or(Resolution::Unresolved)
    }

    /// A note or attachment at exactly this path key.
    fn by_exact_path(&self, folder: &str, key: &str) -> Option<Resolution> {
        if let Some(found) = self
            .by_path
            .get(key)
            .and_then(|ids| self.pick(folder, ids.clone()))
        {
            return Some(found);
        }
        self.attachments
            .get(key)
            .map(|p| Resolution::Attachment(p.clone()))
    }

    /// An attachment by path, path suffix or file name.
    fn attachment(&self, key: &str) -> Option<Resolution> {
        if let Some(path) = self.attachments.get(key) {
            return Some(Resolution::Attachment(path.clone()));
        }
        let name = key.rsplit('/').next().unwrap_or(key);
        let suffix = format!("/{key}");
        self.attachments_by_name
            .get(name)?
            .iter()
            .find(|k| !key.contains('/') || k.ends_with(&suffix))
            .map(|k| Resolution::Attachment(self.attachments[k].clone()))
    }

    /// Applies the tie-break to candidates sorted by path.
    fn pick(&self, folder: &str, mut candidates: Vec<NoteId>) -> Option<Resolution> {
        match candidates.len() {
            0 => None,
            1 => Some(Resolution::Note(candidates[0])),
            _ => {
                candidates.sort_by(|a, b| self.note(*a).path.cmp(&self.note(*b).path));
                let folder_key = path_key(folder);
                let chosen = candidates
                    .iter()
                    .copied()
                    .find(|&id| path_key(folder_of(&self.note(id).path)) == folder_key)
                    .unwrap_or_else(|| {
                        *candidates
                            .iter()
                            .min_by_key(|&&id| self.note(id).path.len())
                            .expect("two or more candidates")
                    });
                Some(Resolution::Ambiguous { chosen, candidates })
            }
        }
    }
}

/// What a fragment names in a note, with every candidate when its heading
/// path fits several headings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FragmentLookup {
    /// Where the link leads: for an ambiguous heading path, the first
    /// candidate in document order.
    pub target: FragmentTarget,
    /// The headings an ambiguous heading path fits, in document order (two
    /// or more); empty otherwise.
    pub ambiguous: Vec<usize>,
}

/// Resolves a fragment inside a note: `^id` to a block; `H1#H2` and
/// `Heading` (text or slug) to a heading by the heading-path rules of
/// [`super::headings`]. An ambiguous heading path leads to its first
/// candidate; [`lookup_fragment`] tells the candidates.
pub fn resolve_fragment(note: &Note, fragment: &str) -> FragmentTarget {
    lookup_fragment(note, fragment).target
}

/// [`resolve_fragment`], with the candidates of an ambiguous heading path.
pub fn lookup_fragment(note: &Note, fragment: &str) -> FragmentLookup {
    let fragment = fragment.trim();
    if let Some(id) = fragment.strip_prefix('^') {
        let target = note
            .blocks
            .iter()
            .position(|b| b.id.eq_ignore_ascii_case(id.trim()))
            .map_or(FragmentTarget::Missing, FragmentTarget::Block);
        return FragmentLookup {
            target,
            ambiguous: Vec::new(),
        };
    }
    match find_heading(note, &fragment_parts(fragment)) {
        HeadingMatch::Found(i) => FragmentLookup {
            target: FragmentTarget::Heading(i),
            ambiguous: Vec::new(),
        },
        HeadingMatch::Ambiguous(candidates) => FragmentLookup {
            target: FragmentTarget::Heading(candidates[0]),
            ambiguous: candidates,
        },
        HeadingMatch::Missing => FragmentLookup {
            target: FragmentTarget::Missing,
            ambiguous: Vec::new(),
        },
    }
}
