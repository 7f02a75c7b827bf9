//! `list_tags`'s page in words: the structured content and the Markdown
//! list.

use super::answer::{Facet, Item, ListTagsOut};
use super::compute::{Listed, Query};
use crate::common::page_line;
use crate::format::plural;

/// The structured answer of a page.
pub(super) fn out(listed: Listed, query: &Query, next_cursor: Option<String>) -> ListTagsOut {
    ListTagsOut {
        facet: query.facet,
        key: query.key.clone(),
        total: listed.total,
        items: listed
            .page
            .into_iter()
            .map(|t| Item {
                name: t.name,
                notes: t.notes,
                uses: t.uses,
                notes_with_subtags: t.with_subtags,
            })
            .collect(),
        next_cursor,
    }
}

pub(super) fn markdown(out: &ListTagsOut, offset: usize) -> String {
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
