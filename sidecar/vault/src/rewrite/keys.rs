//! Renaming a property key in every note's frontmatter (keys compare as
//! names do: `Status` is `status`), and in `types.json` when it declares
//! the key's type. Only the key's bytes change: its value, place, comment
//! and the rest of the YAML stay as written.
//!
//! It must not decide what a frontmatter is or where a key is written:
//! `crate::frontmatter::block` and `crate::yaml::layout` do.

use super::plan::{Check, Collector, Edit, FileEdits, Plan, RewriteError, error};
use crate::frontmatter::{block, key_yaml};
use crate::index::VaultIndex;
use crate::key::name_key;
use crate::props::Types;
use crate::query::TextSource;
use crate::yaml::layout;

/// Renames the property `old` to `new` in every note that has it, and in
/// `types` (`types.json`'s vault path and text) when that declares it. A
/// note that has both keys is refused, naming it: their values would have
/// to be merged by hand.
pub fn rename_key(
    index: &VaultIndex,
    old: &str,
    new: &str,
    texts: &dyn TextSource,
    types: Option<(&str, &str)>,
) -> Result<Plan, RewriteError> {
    let new = new.trim();
    if new.is_empty() || new.contains(['\n', '\r']) || new.starts_with('#') {
        return error(format!(
            "`{new}` cannot name a property: use a name without line breaks or a leading `#`"
        ));
    }
    let (old_key, new_key) = (name_key(old), name_key(new));
    let mut notes: Vec<&str> = index
        .notes()
        .filter(|(_, n)| {
            n.frontmatter
                .as_ref()
                .is_some_and(|fm| fm.keys().any(|k| name_key(k) == old_key))
        })
        .map(|(_, n)| &*n.path)
        .collect();
    notes.sort_unstable();
    let mut collector = Collector::new(texts);
    collector.prefetch(&notes);
    let written = key_yaml(new);
    for path in notes {
        let Some((text, _)) = collector.read(path) else {
            continue;
        };
        let Some(fm) = block(&text) else { continue };
        let Ok(layout) = layout(&text[fm.yaml.clone()]) else {
            continue;
        };
        let renamed: Vec<_> = layout
            .entries
            .iter()
            .filter(|e| name_key(&e.key) == old_key)
            .collect();
        if renamed.is_empty() {
            continue;
        }
        let taken = layout
            .entries
            .iter()
            .any(|e| name_key(&e.key) == new_key && name_key(&e.key) != old_key);
        if taken || renamed.len() > 1 {
            return error(format!(
                "`{path}` has both `{old}` and `{new}` (or `{old}` twice); merge them in that \
                 note first"
            ));
        }
        let span = &renamed[0].key_span;
        collector.push(
            path,
            &text,
            Edit {
                range: fm.yaml.start + span.start..fm.yaml.start + span.end,
                new_text: written.clone(),
            },
        );
    }
    let mut plan = collector.finish(Vec::new(), Vec::new(), Check::Standing)?;
    if let Some((path, text)) = types
        && let Some((range, new_text)) = Types::renamed(text, old, new).map_err(RewriteError)?
    {
        plan.edits.push(FileEdits {
            path: path.to_string(),
            text: text.to_string(),
            edits: vec![Edit { range, new_text }],
        });
    }
    Ok(plan)
}
