//! What `list_tags` answers: its facets and sort orders, and the page as
//! the structured content the client gets.

use schemars::JsonSchema;
use serde::Serialize;

use crate::args::choice;

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
