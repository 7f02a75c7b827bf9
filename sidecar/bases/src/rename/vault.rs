//! A property key renamed everywhere a vault names it, as one plan: the
//! notes' frontmatter and `types.json` (`weft_vault::rewrite::rename_key`),
//! every `.base` file and every ```` ```base ```` block of a note. The one
//! home of a key rename: the editor's rename and the agent's both call it.
//! Texts come from the caller's [`TextSource`] (disk, open buffers).

use weft_vault::VaultIndex;
use weft_vault::query::TextSource;
use weft_vault::rewrite::{self, FileEdits, Plan, RewriteError};

use super::{rename_in_base, rename_in_blocks};
use crate::base::is_base_path;

/// Renames the property `old` to `new` in every note that has it, in
/// `types` (`types.json`'s vault path and text) when it declares it, in
/// every `.base` file and in every ```` ```base ```` block. Any place that
/// cannot be renamed safely refuses the whole rename, naming it.
pub fn plan_key_rename(
    index: &VaultIndex,
    old: &str,
    new: &str,
    texts: &dyn TextSource,
    types: Option<(&str, &str)>,
) -> Result<Plan, RewriteError> {
    let mut plan = rewrite::rename_key(index, old, new, texts, types)?;
    let refused = |path: &str, e: crate::BaseError| {
        RewriteError(format!(
            "`{path}` ({e}): nothing was renamed; rename `{old}` there by hand or fix it first"
        ))
    };
    let mut bases: Vec<&str> = index.attachments().filter(|p| is_base_path(p)).collect();
    bases.sort_unstable();
    for path in bases {
        let Some(text) = texts.text(path) else {
            continue;
        };
        let edits = rename_in_base(&text, old, new).map_err(|e| refused(path, e))?;
        if !edits.is_empty() {
            plan.edits.push(FileEdits {
                path: path.to_string(),
                text,
                edits,
            });
        }
    }
    let mut notes: Vec<&str> = index
        .notes()
        .filter(|(_, n)| n.has_base_block)
        .map(|(_, n)| &*n.path)
        .collect();
    notes.sort_unstable();
    for path in notes {
        // A note whose frontmatter changes too: its blocks are edited in
        // the same text.
        let planned = plan.edits.iter().position(|f| f.path == path);
        let text = match planned {
            Some(i) => plan.edits[i].text.clone(),
            None => match texts.text(path) {
                Some(text) => text,
                None => continue,
            },
        };
        let edits = rename_in_blocks(&text, old, new).map_err(|e| refused(path, e))?;
        if edits.is_empty() {
            continue;
        }
        match planned {
            Some(i) => {
                let file = &mut plan.edits[i];
                if edits.iter().any(|e| {
                    file.edits
                        .iter()
                        .any(|f| f.range.start < e.range.end && e.range.start < f.range.end)
                }) {
                    return Err(RewriteError(format!(
                        "`{path}`: a ```base block overlaps the frontmatter; rename `{old}` there by \
                         hand"
                    )));
                }
                file.edits.extend(edits);
                file.edits.sort_by_key(|e| e.range.start);
            }
            None => plan.edits.push(FileEdits {
                path: path.to_string(),
                text,
                edits,
            }),
        }
    }
    Ok(plan)
}
