//! The auto-context block (opt-in with `[tags] auto_context_tag`): the
//! notes tagged with it, each with its frontmatter `description` (or a
//! request to add one), and the tags in use. Sent once per session with
//! the first answer, and always available from `vault_info` and the
//! `context` prompt.
//!
//! Must not know when or how the block is delivered.

use super::common::visible_tags;
use super::state::ToolState;
use weft_search::index::tag_key;
use weft_vault::filter::{FileMeta, Filter, select};

/// How many tags the block lists before pointing at `list_tags`.
const MAX_TAGS: usize = 150;

/// The block, or `None` when auto-context is not configured.
pub fn auto_context(state: &ToolState) -> Option<String> {
    let policy = state.policy();
    let config = state.config();
    let tag = config.tags.auto_context_tag.as_deref()?;
    let index = state.index();
    // The notes tagged with it (or a tag nested under it) that the agent
    // may see: THE note filter.
    let which = Filter::all_of(vec![
        Filter::Tag(tag.trim_start_matches('#').into()),
        Filter::clone(&policy.access.sight(&index)),
    ]);
    let mut notes: Vec<(String, String, Option<String>)> =
        select(&index, &which, |_| FileMeta::default())
            .into_iter()
            .map(|id| {
                let n = index.note(id);
                let description = n
                    .frontmatter
                    .as_ref()
                    .and_then(|f| f.get("description"))
                    .and_then(|d| d.as_str())
                    .map(|d| d.trim().to_string())
                    .filter(|d| !d.is_empty());
                (n.title.to_string(), n.id().to_string(), description)
            })
            .collect();
    notes.sort_by(|a, b| a.1.cmp(&b.1));
    let mut out = format!("## Your personal notes (#{tag})\n");
    if notes.is_empty() {
        out.push_str(&format!(
            "No note is tagged #{tag} yet. Tag a note with #{tag} and give it a `description` in its frontmatter \
             (when to read it) to have it offered to agents here.\n"
        ));
    } else {
        out.push_str("Read a note with read_note when its description applies to the task:\n");
        for (title, path, description) in &notes {
            let description = description.clone().unwrap_or_else(|| {
                "⚠️ No description. Please add a `description` field to this note's frontmatter saying when to read it \
                 (ask the user what it should say)."
                    .into()
            });
            out.push_str(&format!("- \"{title}\" (`{path}`) — {description}\n"));
        }
    }
    // The tags the agent may see: one only unseen notes carry is none.
    let mut tags: Vec<(String, u32)> = visible_tags(&policy.access, &index)
        .values()
        .map(|t| (t.display().to_string(), t.notes))
        .collect();
    tags.sort_by_key(|a| tag_key(&a.0));
    out.push_str("\n## Allowed tags\n");
    if tags.is_empty() {
        out.push_str("The vault has no tags yet; ask the user before introducing one.");
    } else {
        let shown: Vec<String> = tags
            .iter()
            .take(MAX_TAGS)
            .map(|(t, _)| format!("#{t}"))
            .collect();
        out.push_str("Use only these tags; never create a new tag without the user's permission: ");
        out.push_str(&shown.join(" "));
        if tags.len() > MAX_TAGS {
            out.push_str(&format!(
                " … and {} more (list_tags shows them all).",
                tags.len() - MAX_TAGS
            ));
        }
    }
    Some(out)
}
