//! `get_context`'s evidence as Markdown: what was asked, the filters, then
//! each note with how it was found and its passages quoted.

use super::answer::GetContextOut;
use crate::format::{escape, plural};

/// The evidence as Markdown.
pub(super) fn markdown(out: &GetContextOut) -> String {
    let mut text = String::new();
    for r in &out.remarks {
        text.push_str(&format!("_{r}_\n\n"));
    }
    let subject = match (&out.query, &out.applied_filters.around) {
        (Some(q), Some(a)) => format!("`{q}` around `{a}`"),
        (Some(q), None) => format!("`{q}`"),
        (None, Some(a)) => format!("the neighbourhood of `{a}`"),
        (None, None) => String::new(),
    };
    text.push_str(&format!(
        "Context for {subject}: {}, {} characters",
        plural(out.notes.len(), "note"),
        out.chars
    ));
    let f = &out.applied_filters;
    let mut filters = Vec::new();
    if !f.tags_all.is_empty() {
        filters.push(format!("tags_all={}", f.tags_all.join(",")));
    }
    if !f.tags_any.is_empty() {
        filters.push(format!("tags_any={}", f.tags_any.join(",")));
    }
    if let Some(p) = &f.path_prefix {
        filters.push(format!("path_prefix={p}"));
    }
    if f.around.is_some() {
        filters.push(format!("depth={}", f.depth));
    }
    if !filters.is_empty() {
        text.push_str(&format!(" (filters: {})", filters.join(", ")));
    }
    text.push('.');
    for (i, e) in out.notes.iter().enumerate() {
        let how = match (e.source.as_str(), e.distance) {
            ("links", Some(0)) => "the `around` note".to_string(),
            ("links", Some(d)) => format!("{} from `around`", plural(d as usize, "link step")),
            _ => format!("{}, score {:.2}", e.source, e.score),
        };
        text.push_str(&format!(
            "\n\n### {}. {} (`{}`) — {how}",
            i + 1,
            escape(&e.title),
            e.path
        ));
        for p in &e.passages {
            // The section, unless it is the note's own title.
            let section = p
                .section
                .as_deref()
                .filter(|s| *s != e.title)
                .map(|s| format!("{s} · "))
                .unwrap_or_default();
            text.push_str(&format!("\n_{section}lines {}–{}_", p.lines[0], p.lines[1]));
            for line in p.text.lines() {
                match line {
                    "" => text.push_str("\n>"),
                    line => text.push_str(&format!("\n> {line}")),
                }
            }
        }
    }
    if out.truncated {
        text.push_str(
            "\n\n_The character budget ran out; raise `max_chars` or lower `top_k` for more._",
        );
    }
    text
}
