//! `list_tags`: tags with note counts and hierarchical roll-up (`a` counts
//! the notes of `a/b`), or frontmatter keys, one key's values, or
//! typed-link keys (`facet`); prefix filter, sort, paging.
//!
//! An adapter over the vault index (no full text needed).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::{choice, lenient};
use super::common::{cursor_offset, limit, next_cursor, page_line};
use super::format::{Reply, ToolError, ToolResult, plural};
use super::state::ToolState;
use weft_search::index::tag_key;
use weft_vault::key::name_key;
use weft_vault::tags;

choice! {
    pub enum Facet {
        Tags = "tags" | "tag",
        Keys = "keys" | "frontmatter" | "properties" | "fields",
        Values = "values" | "value",
        Rels = "rels" | "rel" | "relations" | "typed_links",
    }
}

choice! {
    pub enum TagSort {
        Count = "count" | "notes" | "frequency" | "usage",
        Name = "name" | "alpha",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTagsArgs {
    /// Name prefix.
    #[serde(default, alias = "tag", alias = "query")]
    pub prefix: Option<String>,
    #[serde(default)]
    pub facet: Option<Facet>,
    /// For facet values.
    #[serde(default, alias = "field")]
    pub key: Option<String>,
    #[serde(default, alias = "order_by")]
    pub sort: Option<TagSort>,
    /// Default 100.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ListTagsOut {
    pub facet: Facet,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub total: usize,
    pub items: Vec<Item>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Item {
    /// The tag (without `#`), key or value, as most often written.
    pub name: String,
    /// Notes using it directly.
    pub notes: usize,
    /// Uses (tag occurrences, typed links); notes for keys and values.
    pub uses: usize,
    /// Tags: notes with it or any tag below it (`a` counts `a/b`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes_with_subtags: Option<usize>,
}

/// Counts per key: the most used spelling, notes, uses.
#[derive(Default)]
struct Count {
    spellings: HashMap<String, usize>,
    notes: BTreeSet<u32>,
    uses: usize,
    rolled: BTreeSet<u32>,
}

impl Count {
    fn name(&self, fallback: &str) -> String {
        self.spellings
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map_or_else(|| fallback.to_string(), |s| s.0.clone())
    }
}

pub fn run(state: &ToolState, args: ListTagsArgs) -> ToolResult {
    let policy = state.policy();
    let facet = args.facet.unwrap_or(Facet::Tags);
    let sort = args.sort.unwrap_or(TagSort::Count);
    let limit = limit(args.limit, 100, 1000);
    let prefix = args
        .prefix
        .as_deref()
        .map(|p| name_key(p.trim().trim_start_matches('#')))
        .unwrap_or_default();
    let key = args
        .key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    if facet == Facet::Values && key.is_none() {
        return Err(ToolError::new(
            "facet `values` needs `key`: the frontmatter key whose values to list.",
        )
        .hint("facet `keys` lists the keys in use."));
    }
    let fingerprint = (facet, sort, &prefix, &key);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let index = state.index();
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    for (i, (_, note)) in index.notes().enumerate() {
        if !policy.access.sees(&note.path) {
            continue;
        }
        let i = i as u32;
        match facet {
            Facet::Tags => {
                for tag in &note.tags {
                    let k = tag_key(&tag.name);
                    let c = counts.entry(k.clone()).or_default();
                    *c.spellings
                        .entry(tag.name.trim_start_matches('#').to_string())
                        .or_default() += 1;
                    c.notes.insert(i);
                    c.uses += 1;
                    // The tag and those it is nested under roll up.
                    for ancestor in tags::ancestors(&tag.name).into_iter().chain([k]) {
                        let written = spelled_prefix(&tag.name, &ancestor);
                        let a = counts.entry(ancestor).or_default();
                        a.rolled.insert(i);
                        a.spellings.entry(written).or_default();
                    }
                }
            }
            Facet::Keys => {
                for k in note.frontmatter.iter().flat_map(|f| f.keys()) {
                    let c = counts.entry(name_key(k)).or_default();
                    *c.spellings.entry(k.clone()).or_default() += 1;
                    c.notes.insert(i);
                    c.uses += 1;
                }
            }
            Facet::Values => {
                let wanted = name_key(key.as_deref().unwrap_or_default());
                let value = note.frontmatter.as_ref().and_then(|f| {
                    f.iter()
                        .find(|(k, _)| name_key(k) == wanted)
                        .map(|(_, v)| v)
                });
                let values: Vec<String> = match value {
                    Some(Value::Array(items)) => items.iter().map(text).collect(),
                    Some(Value::Null) | None => Vec::new(),
                    Some(v) => vec![text(v)],
                };
                for v in values {
                    let c = counts.entry(name_key(&v)).or_default();
                    *c.spellings.entry(v).or_default() += 1;
                    c.notes.insert(i);
                    c.uses += 1;
                }
            }
            Facet::Rels => {
                for link in &note.links {
                    if let Some(rel) = &link.rel() {
                        let c = counts.entry(name_key(rel)).or_default();
                        *c.spellings.entry(rel.to_string()).or_default() += 1;
                        c.notes.insert(i);
                        c.uses += 1;
                    }
                }
            }
        }
    }
    drop(index);
    let mut items: Vec<Item> = counts
        .iter()
        .filter(|(k, _)| prefix.is_empty() || k.starts_with(&prefix))
        .map(|(k, c)| Item {
            name: c.name(k),
            notes: c.notes.len(),
            uses: c.uses,
            notes_with_subtags: (facet == Facet::Tags && c.rolled.len() > c.notes.len())
                .then_some(c.rolled.len()),
        })
        .collect();
    match sort {
        TagSort::Count => items.sort_by(|a, b| {
            b.notes_with_subtags
                .unwrap_or(b.notes)
                .cmp(&a.notes_with_subtags.unwrap_or(a.notes))
                .then_with(|| name_key(&a.name).cmp(&name_key(&b.name)))
        }),
        TagSort::Name => items.sort_by_key(|a| name_key(&a.name)),
    }
    let total = items.len();
    let page: Vec<Item> = items.into_iter().skip(offset).take(limit).collect();
    let next = next_cursor(offset, page.len(), total, &fingerprint);
    let out = ListTagsOut {
        facet,
        key,
        total,
        items: page,
        next_cursor: next,
    };
    Ok(Reply::new(render(&out, offset), &out))
}

/// `Project/Weft/x` with ancestor key `project/weft` → `Project/Weft`.
fn spelled_prefix(tag: &str, ancestor: &str) -> String {
    let tag = tag.trim_start_matches('#');
    let parts = ancestor.matches('/').count() + 1;
    tag.split('/').take(parts).collect::<Vec<_>>().join("/")
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn render(out: &ListTagsOut, offset: usize) -> String {
    let what = match out.facet {
        Facet::Tags => "Tags".to_string(),
        Facet::Keys => "Frontmatter keys".to_string(),
        Facet::Values => format!("Values of `{}`", out.key.as_deref().unwrap_or("")),
        Facet::Rels => "Typed-link keys".to_string(),
    };
    if out.total == 0 {
        return format!("{what}: none.");
    }
    let mut text = format!("{what} ({}):", out.total);
    for item in &out.items {
        let name = match out.facet {
            Facet::Tags => format!("#{}", item.name),
            _ => format!("`{}`", item.name),
        };
        let mut line = format!("\n- {name} — {}", plural(item.notes, "note"));
        if out.facet == Facet::Tags && item.uses != item.notes {
            line.push_str(&format!(", {}", plural(item.uses, "use")));
        }
        if out.facet == Facet::Rels {
            line.push_str(&format!(", {}", plural(item.uses, "link")));
        }
        if let Some(rolled) = item.notes_with_subtags {
            line.push_str(&format!(" ({rolled} with subtags)"));
        }
        text.push_str(&line);
    }
    let page = page_line(
        offset,
        out.items.len(),
        out.total,
        out.next_cursor.as_deref(),
    );
    if !page.is_empty() {
        text.push_str(&format!("\n\n{page}"));
    }
    text
}
