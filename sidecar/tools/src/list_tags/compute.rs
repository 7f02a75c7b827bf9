//! What `list_tags` counts, as data: per tag, frontmatter key, value of one
//! key or typed-link key (by its name key), the notes the agent may see
//! that use it, its uses and its most used spelling; tags roll up into
//! those they are nested under. Filtered by prefix, sorted and paged. No
//! words: `render` tells them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use super::answer::{Facet, TagSort};
use weft_search::index::tag_key;
use weft_vault::key::name_key;
use weft_vault::note::Note;
use weft_vault::{NoteId, VaultIndex, tags};
use weft_workspace::access::Access;

/// A `list_tags` request, read and checked.
#[derive(Debug, Clone)]
pub struct Query {
    pub facet: Facet,
    pub sort: TagSort,
    /// A name key; empty for all.
    pub prefix: String,
    /// For facet values: the frontmatter key.
    pub key: Option<String>,
    pub offset: usize,
    pub limit: usize,
}

/// One tag, key or value counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// As most often written (a tag without `#`).
    pub name: String,
    /// Notes using it directly.
    pub notes: usize,
    /// Tag occurrences, typed links; notes for keys and values.
    pub uses: usize,
    /// Tags: the notes with it or a tag below it, when more than `notes`.
    pub with_subtags: Option<usize>,
}

/// A page of tallies and the count of all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub page: Vec<Tally>,
    pub total: usize,
}

/// Counts per key: the spellings, notes, uses, notes below.
#[derive(Default)]
struct Count {
    spellings: HashMap<String, usize>,
    notes: BTreeSet<NoteId>,
    uses: usize,
    rolled: BTreeSet<NoteId>,
}

impl Count {
    /// The most used spelling (the first by order on a tie).
    fn name(&self, fallback: &str) -> String {
        self.spellings
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map_or_else(|| fallback.to_string(), |s| s.0.clone())
    }

    /// One use of `written` by note `id`.
    fn add(&mut self, written: String, id: NoteId) {
        *self.spellings.entry(written).or_default() += 1;
        self.notes.insert(id);
        self.uses += 1;
    }
}

/// The page of what the query lists.
pub fn compute(index: &VaultIndex, access: &Access, query: &Query) -> Listed {
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    for (id, note) in index.notes() {
        if !access.sees(&note.path) {
            continue;
        }
        match query.facet {
            Facet::Tags => count_tags(&mut counts, id, note),
            Facet::Keys => {
                for k in note.frontmatter.iter().flat_map(|f| f.keys()) {
                    counts.entry(name_key(k)).or_default().add(k.clone(), id);
                }
            }
            Facet::Values => {
                for v in values(note, query.key.as_deref().unwrap_or_default()) {
                    counts.entry(name_key(&v)).or_default().add(v, id);
                }
            }
            Facet::Rels => {
                for rel in note.links.iter().filter_map(|l| l.rel()) {
                    counts
                        .entry(name_key(rel))
                        .or_default()
                        .add(rel.to_string(), id);
                }
            }
        }
    }
    let mut items: Vec<Tally> = counts
        .iter()
        .filter(|(k, _)| query.prefix.is_empty() || k.starts_with(&query.prefix))
        .map(|(k, c)| Tally {
            name: c.name(k),
            notes: c.notes.len(),
            uses: c.uses,
            with_subtags: (query.facet == Facet::Tags && c.rolled.len() > c.notes.len())
                .then_some(c.rolled.len()),
        })
        .collect();
    match query.sort {
        TagSort::Count => items.sort_by(|a, b| {
            b.with_subtags
                .unwrap_or(b.notes)
                .cmp(&a.with_subtags.unwrap_or(a.notes))
                .then_with(|| name_key(&a.name).cmp(&name_key(&b.name)))
        }),
        TagSort::Name => items.sort_by_key(|a| name_key(&a.name)),
    }
    let total = items.len();
    let page = items
        .into_iter()
        .skip(query.offset)
        .take(query.limit)
        .collect();
    Listed { page, total }
}

/// The tags of a note, each also rolling up into those it is nested under.
fn count_tags(counts: &mut BTreeMap<String, Count>, id: NoteId, note: &Note) {
    for tag in &note.tags {
        let k = tag_key(&tag.name);
        let written = tag.name.trim_start_matches('#').to_string();
        counts.entry(k.clone()).or_default().add(written, id);
        for ancestor in tags::ancestors(&tag.name).into_iter().chain([k]) {
            let written = spelled_prefix(&tag.name, &ancestor);
            let a = counts.entry(ancestor).or_default();
            a.rolled.insert(id);
            a.spellings.entry(written).or_default();
        }
    }
}

/// `Project/Weft/x` with ancestor key `project/weft` → `Project/Weft`.
fn spelled_prefix(tag: &str, ancestor: &str) -> String {
    let tag = tag.trim_start_matches('#');
    let parts = ancestor.matches('/').count() + 1;
    tag.split('/').take(parts).collect::<Vec<_>>().join("/")
}

/// The values of frontmatter `key` (by name key) in a note, as text.
fn values(note: &Note, key: &str) -> Vec<String> {
    let wanted = name_key(key);
    let value = note.frontmatter.as_ref().and_then(|f| {
        f.iter()
            .find(|(k, _)| name_key(k) == wanted)
            .map(|(_, v)| v)
    });
    match value {
        Some(Value::Array(items)) => items.iter().map(text).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![text(v)],
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
