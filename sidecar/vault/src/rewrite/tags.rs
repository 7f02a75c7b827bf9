//! Renaming a tag in every note, sub-tags included, inline and in
//! frontmatter, where the parser found each use.
//!
//! It must not decide what a tag is: the one tag rule is `crate::tags`'s,
//! so a rename accepts and matches exactly the names the parser counts.

use super::plan::{Check, Collector, Edit, Plan, RewriteError, error};
use crate::index::{NoteId, VaultIndex};
use crate::query::TextSource;

/// Renames tag `old` to `new` in every note, sub-tags included
/// (`#project/weft` becomes `#work/weft` when `project` becomes `work`).
pub fn rename_tag(
    index: &VaultIndex,
    old: &str,
    new: &str,
    texts: &dyn TextSource,
) -> Result<Plan, RewriteError> {
    let old = old.trim().trim_start_matches('#');
    let new = match crate::tags::checked(new) {
        Ok(new) => new,
        Err(why) => return error(&why),
    };
    let mut notes: Vec<(NoteId, &str)> = index
        .notes()
        .filter(|(_, n)| n.tags.iter().any(|t| crate::tags::matches(old, &t.name)))
        .map(|(id, n)| (id, &*n.path))
        .collect();
    notes.sort_by(|a, b| a.1.cmp(b.1));
    let mut collector = Collector::new(texts);
    let prefix_chars = old.chars().count();
    for (_, path) in notes {
        let Some((text, fresh)) = collector.read(path) else {
            continue;
        };
        // Where each tag is written, as the parser found it: inline ones
        // after their `#`, frontmatter ones inside their YAML value.
        let names: Vec<std::ops::Range<usize>> = fresh
            .tags
            .iter()
            .filter_map(|t| {
                let span = t.span.as_ref()?;
                let start = span.start as usize + usize::from(!t.in_frontmatter);
                Some(start..span.end as usize)
            })
            .collect();
        for range in names {
            let written = &text[range.clone()];
            if !crate::tags::matches(old, written) {
                continue;
            }
            // The old prefix as written (its byte length may differ from
            // `old` when only the case differs).
            let prefix_len = written
                .char_indices()
                .nth(prefix_chars)
                .map_or(written.len(), |(i, _)| i);
            collector.push(
                path,
                &text,
                Edit {
                    range: range.start..range.start + prefix_len,
                    new_text: new.to_string(),
                },
            );
        }
    }
    collector.finish(Vec::new(), Vec::new(), Check::Standing)
}
