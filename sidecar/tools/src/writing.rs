//! What the six write tools share: telling the full-text index
//! and subscribers what changed, turning `ops` reports into readable text
//! and structured content (changes, bounded diffs), and `ops` errors into
//! tool errors that say how to recover.
//!
//! Must not validate or write anything itself: `weft_workspace::ops` does.

use schemars::JsonSchema;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::common::{shown, vault_input};
use super::format::{ToolError, fence};
use super::state::ToolState;
use weft_vault::edit::EditError;
use weft_vault::frontmatter::FrontmatterError;
use weft_vault::headings::SectionError;
use weft_workspace::access::Access;
use weft_workspace::ops::{
    Change, ChangeKind, LISTED_TAGS, LinkEdit, LinksIn, OpError, RuleProblem, Warning, WriteOptions,
};

/// Characters of diff a result carries in all (text and structured alike);
/// the rest is counted, not shown.
const DIFF_BUDGET: usize = 12_000;

/// Link edits and link lists a result shows before it counts the rest.
pub const LISTED: usize = 50;

/// The options every write takes.
pub fn options(expected_sha256: Option<String>, dry_run: Option<bool>) -> WriteOptions {
    WriteOptions {
        expected_sha256: expected_sha256
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
        dry_run: dry_run.unwrap_or(false),
    }
}

/// Tells the full-text index and subscribers about a write's files.
pub fn notify(state: &ToolState, changes: &[Change]) {
    let mut paths: Vec<String> = Vec::new();
    for c in changes {
        paths.push(c.path.clone());
        if let Some(new) = &c.new_path {
            paths.push(new.clone());
        }
    }
    paths.sort();
    paths.dedup();
    state.notify_changed(paths);
}

/// An `ops` failure of `tool` as a tool error; a write that stopped part
/// way still tells the index about what it did.
pub(crate) fn op_error(state: &ToolState, tool: &str, error: OpError) -> ToolError {
    if let OpError::Partial { touched, .. } = &error {
        state.notify_changed(touched.clone());
    }
    shown_error(&error, tool)
}

/// An `ops` failure as the agent reads it: the facts, then the hint.
fn shown_error(error: &OpError, tool: &str) -> ToolError {
    let out = ToolError::new(error.to_string());
    match op_hint(error, tool) {
        Some(hint) => out.hint(hint),
        None => out,
    }
}

/// What the agent can do about an `ops` failure of `tool`, in its tools'
/// terms (the error itself states the facts).
fn op_hint(error: &OpError, tool: &str) -> Option<String> {
    Some(match error {
        OpError::Edit { error, .. } => return edit_hint(error),
        OpError::MergeNotObject { .. } => "Use set to replace a value.".into(),
        OpError::NothingToUpdate => "Give set, unset, merge, title, tags, add_tags, remove_tags, aliases, add_aliases or remove_aliases.".into(),
        OpError::NotFound { linked_from, .. } if *linked_from > 0 => {
            "Create it with write_note, or resolve_note finds notes by partial name.".into()
        }
        OpError::NotFound { suggestions, .. } if suggestions.is_empty() => {
            "resolve_note finds notes by partial name; list_notes and search_notes browse and search.".into()
        }
        OpError::HiddenLinks { .. } if tool == "delete_note" => "Delete with link_policy: keep to leave their links as they are, or ask the user.".into(),
        OpError::HiddenLinks { .. } => "Move with update_links: false to leave their links pointing at the old place, or ask the user.".into(),
        OpError::Exists { .. } if tool == "write_note" => "Choose another path, or pass overwrite: true to replace it (read it first and pass its expected_sha256).".into(),
        OpError::Exists { .. } if tool == "move_note" => "Choose another new_path, or move or delete what is there first.".into(),
        OpError::Exists { .. } => "Choose another path.".into(),
        OpError::Conflict { current: Some(current), .. } => {
            format!("Read the note again, then retry with expected_sha256 = {current}.")
        }
        OpError::Conflict { current: None, .. } => "Omit expected_sha256 to create it.".into(),
        OpError::Unsaved { .. } => "read_note shows the editor's text; ask the user to save (or discard) it, then retry.".into(),
        OpError::Frontmatter { error: FrontmatterError::NotAMapping { .. }, .. } => {
            "Use set to replace the value.".into()
        }
        OpError::Frontmatter { error: FrontmatterError::Malformed(_), .. } => {
            "Fix the frontmatter with edit_note (replace_lines) first.".into()
        }
        OpError::Frontmatter { error: FrontmatterError::Uneditable { .. }, .. } => {
            "Edit the frontmatter with edit_note (replace_lines) instead.".into()
        }
        OpError::TagRule { problems, .. } => {
            let missing = problems
                .iter()
                .filter(|p| matches!(p, RuleProblem::MissingKey { .. }))
                .count();
            match missing {
                0 => return None,
                1 => "Set it with update_frontmatter or the frontmatter parameter.".into(),
                _ => "Set them with update_frontmatter or the frontmatter parameter.".into(),
            }
        }
        OpError::TagPolicy { allowed, .. } if allowed.len() > LISTED_TAGS => {
            "list_tags shows all.".into()
        }
        OpError::FolderSha256 => "Omit expected_sha256.".into(),
        OpError::Partial { done, .. } if !done.is_empty() => {
            "check_vault shows what is broken.".into()
        }
        _ => return None,
    })
}

/// What the agent can do about an edit operation that failed.
fn edit_hint(error: &EditError) -> Option<String> {
    Some(match error {
        EditError::EmptyFind => "Give the exact text to replace in find.".into(),
        EditError::NotUnique { count: 0, .. } => {
            "Read the note again and copy the text exactly.".into()
        }
        EditError::NotUnique { what, .. } if what.contains("find") => {
            "To make it occur once, include more surrounding text; or set replace_all.".into()
        }
        EditError::NotUnique { .. } => {
            "Include more of the line so the anchor occurs on one line only.".into()
        }
        EditError::Section(SectionError::NotFound { sections, .. }) if sections.is_empty() => {
            "Use append or a line operation.".into()
        }
        EditError::Section(_) => "read_note with view: outline lists the note's sections as `A::B` paths; a missing section is never created silently.".into(),
        EditError::LinesOutOfRange { .. } => return None,
    })
}

/// The warnings of an `ops` report as the agent reads them.
pub(crate) fn warning_texts(warnings: &[Warning]) -> Vec<String> {
    warnings.iter().map(warning_text).collect()
}

/// One warning as the agent reads it: the fact (the workspace states it),
/// and what the agent can do about it in its tools' terms, if anything.
fn warning_text(warning: &Warning) -> String {
    let advice = match warning {
        Warning::MoreLinksLost { .. } => " (get_links lists them)",
        Warning::TagStillInline { .. } => "; remove it there with edit_note if it should go",
        Warning::LinkCaptured { .. } => "; update_links would pin it",
        _ => "",
    };
    format!("{warning}{advice}")
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Created,
    Modified,
    Moved,
    Deleted,
}

/// One file's change (in a dry run: what would change).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeOut {
    pub kind: Kind,
    /// Vault path before (notes without `.md`).
    pub path: String,
    /// Moved: the new path; deleted: where it is in the trash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_after: Option<u64>,
    /// sha256 of the new content: pass it as `expected_sha256` next time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Dry runs: the unified diff (left out past the size budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Converts changes, spending the diff budget in order.
pub struct Changes {
    left: usize,
    /// Diffs left out for the budget.
    pub omitted: usize,
}

impl Default for Changes {
    fn default() -> Changes {
        Changes {
            left: DIFF_BUDGET,
            omitted: 0,
        }
    }
}

impl Changes {
    pub fn new() -> Changes {
        Changes::default()
    }

    /// Every change of a write, in order.
    pub fn all(&mut self, changes: &[Change]) -> Vec<ChangeOut> {
        changes.iter().map(|c| self.out(c)).collect()
    }

    pub fn out(&mut self, c: &Change) -> ChangeOut {
        let diff = match &c.diff {
            Some(d) if d.is_empty() => None,
            Some(d) if d.len() <= self.left => {
                self.left -= d.len();
                Some(d.clone())
            }
            Some(_) => {
                self.omitted += 1;
                self.left = 0;
                None
            }
            None => None,
        };
        ChangeOut {
            kind: match c.kind {
                ChangeKind::Created => Kind::Created,
                ChangeKind::Modified => Kind::Modified,
                ChangeKind::Moved => Kind::Moved,
                ChangeKind::Deleted => Kind::Deleted,
            },
            path: shown(&c.path),
            new_path: c.new_path.as_deref().map(|p| {
                if c.kind == ChangeKind::Deleted {
                    p.to_string()
                } else {
                    shown(p)
                }
            }),
            bytes_before: c.bytes_before,
            bytes_after: c.bytes_after,
            sha256: c.sha256.clone(),
            diff,
        }
    }
}

/// One line saying what happened to a file (or would, in a dry run).
pub(crate) fn change_line(c: &ChangeOut, dry_run: bool) -> String {
    let verb = |done: &str, would: &str| {
        if dry_run {
            format!("Would {would}")
        } else {
            done.to_string()
        }
    };
    let sizes = match (c.bytes_before, c.bytes_after) {
        (Some(a), Some(b)) => format!("{a} → {b} bytes"),
        (None, Some(b)) => format!("{b} bytes"),
        _ => String::new(),
    };
    let sha = c
        .sha256
        .as_deref()
        .map(|h| format!(", sha256 `{h}`"))
        .unwrap_or_default();
    let new = c.new_path.as_deref().unwrap_or_default();
    match c.kind {
        Kind::Created => format!("{} `{}` ({sizes}{sha})", verb("Created", "create"), c.path),
        Kind::Modified => format!("{} `{}`: {sizes}{sha}", verb("Changed", "change"), c.path),
        Kind::Moved if c.bytes_before == c.bytes_after && c.diff.is_none() => {
            format!("{} `{}` → `{new}`", verb("Moved", "move"), c.path)
        }
        Kind::Moved => format!(
            "{} `{}` → `{new}` (links inside rewritten: {sizes}{sha})",
            verb("Moved", "move"),
            c.path
        ),
        Kind::Deleted => format!(
            "{} `{}` to the trash: `{new}`",
            verb("Moved", "move"),
            c.path
        ),
    }
}

/// The changes as lines, then their diffs in fenced blocks (dry runs).
pub(crate) fn changes_text(changes: &[ChangeOut], omitted: usize, dry_run: bool) -> String {
    let mut out = String::new();
    if dry_run {
        out.push_str("**Dry run: nothing was written.**\n");
    }
    for c in changes {
        out.push_str(&change_line(c, dry_run));
        out.push('\n');
    }
    for c in changes {
        if let Some(diff) = &c.diff {
            out.push('\n');
            out.push_str(&fenced(diff, "diff"));
        }
    }
    if omitted > 0 {
        out.push_str(&format!(
            "\n({omitted} more diffs left out for size; dry-run a narrower change to see them.)\n"
        ));
    }
    out
}

/// The text of a one-note write: its diff, or `unchanged` followed by the
/// note's sha256 when the write left the text as it was.
pub(crate) fn one_change_text(
    change: &ChangeOut,
    changed: bool,
    omitted: usize,
    dry_run: bool,
    unchanged: &str,
) -> String {
    if changed {
        changes_text(std::slice::from_ref(change), omitted, dry_run)
    } else {
        format!(
            "{unchanged} (sha256 `{}`).\n",
            change.sha256.as_deref().unwrap_or_default()
        )
    }
}

/// `text` in a code fence longer than any backtick run inside it.
pub fn fenced(text: &str, lang: &str) -> String {
    let fence = fence(text);
    let body = text.trim_end_matches(['\n', '\r']);
    format!("{fence}{lang}\n{body}\n{fence}\n")
}

/// A rewritten (or to be rewritten) link.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LinkEditOut {
    /// The note holding the link (path before the move).
    pub path: String,
    /// 1-based.
    pub line: usize,
    pub old: String,
    pub new: String,
}

impl LinkEditOut {
    /// The first [`LISTED`] of `edits`.
    pub fn listed(edits: &[LinkEdit]) -> Vec<LinkEditOut> {
        edits.iter().take(LISTED).map(LinkEditOut::of).collect()
    }

    pub fn of(e: &LinkEdit) -> LinkEditOut {
        LinkEditOut {
            path: shown(&e.path),
            line: e.line,
            old: e.old.clone(),
            new: e.new.clone(),
        }
    }
}

/// Links in one note to a moved or deleted note.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LinksInOut {
    pub path: String,
    pub count: usize,
    /// 1-based.
    pub lines: Vec<usize>,
}

impl LinksInOut {
    pub fn of(l: &LinksIn) -> LinksInOut {
        LinksInOut {
            path: shown(&l.path),
            count: l.count,
            lines: l.lines.clone(),
        }
    }
}

/// Notes with links as answers list them: notes the agent may not see
/// are left out, and counted in a warning.
pub(crate) fn visible_links(
    access: &Access,
    links: &[LinksIn],
    warnings: &mut Vec<String>,
) -> Vec<LinksInOut> {
    let (shown_links, hidden): (Vec<&LinksIn>, Vec<&LinksIn>) =
        links.iter().partition(|l| access.sees(&l.path));
    if !hidden.is_empty() {
        let count: usize = hidden.iter().map(|l| l.count).sum();
        warnings.push(format!(
            "{} in {} outside what this agent may access (`[agent]` allow/deny) {} not listed",
            super::format::plural(count, "link"),
            super::format::plural(hidden.len(), "note"),
            if count == 1 { "is" } else { "are" }
        ));
    }
    shown_links.into_iter().map(LinksInOut::of).collect()
}

/// Lines listing link edits, at most [`LISTED`].
pub(crate) fn link_edits_text(edits: &[LinkEditOut], total: usize) -> String {
    let mut out = String::new();
    for e in edits.iter().take(LISTED) {
        out.push_str(&format!(
            "- `{}` line {}: `{}` → `{}`\n",
            e.path, e.line, e.old, e.new
        ));
    }
    if total > edits.len().min(LISTED) {
        out.push_str(&format!(
            "- … and {} more\n",
            total - edits.len().min(LISTED)
        ));
    }
    out
}

/// Lines listing notes with links, at most [`LISTED`].
pub(crate) fn links_in_text(links: &[LinksInOut]) -> String {
    let mut out = String::new();
    for l in links.iter().take(LISTED) {
        let mut lines: Vec<String> = l.lines.iter().map(|n| n.to_string()).collect();
        // Two links on one line are one line.
        lines.dedup();
        out.push_str(&format!(
            "- `{}`: {} (line{} {})\n",
            l.path,
            super::format::plural(l.count, "link"),
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", ")
        ));
    }
    if links.len() > LISTED {
        out.push_str(&format!("- … and {} more notes\n", links.len() - LISTED));
    }
    out
}

/// Warnings as a list under a heading, or nothing.
pub(crate) fn warnings_text(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nWarnings:\n");
    for w in warnings {
        out.push_str(&format!("- {w}\n"));
    }
    out
}

/// A list of raw JSON values, from an array, one object, or a string
/// holding either (agents send all three).
pub(crate) fn lenient_values<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    let value = Value::deserialize(d)?;
    let value = match value {
        Value::String(s) => serde_json::from_str(&s).map_err(|e| {
            de::Error::custom(format!(
                "expected a list of operation objects, found a string that is not JSON ({e})"
            ))
        })?,
        other => other,
    };
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(_) => Ok(vec![value]),
        other => Err(de::Error::custom(format!(
            "expected a list of operation objects, found {other}"
        ))),
    }
}

/// An object of properties, also when sent as a JSON string.
pub(crate) fn lenient_object<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<serde_json::Map<String, Value>>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    let value = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
        Some(Value::String(s)) => serde_json::from_str(&s).map_err(|e| {
            de::Error::custom(format!(
                "expected an object of properties such as {{\"status\": \"draft\"}}, found a string that is not JSON ({e})"
            ))
        })?,
        Some(other) => other,
    };
    match value {
        Value::Object(map) => Ok(Some(map)),
        other => Err(de::Error::custom(format!(
            "expected an object of properties such as {{\"status\": \"draft\"}}, found {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::frontmatter::FrontmatterError;
    use weft_workspace::ops::{LostBy, Place};

    /// The names of the agent's tools and arguments that the workspace's
    /// facts must not use.
    const TOOL_WORDS: [&str; 22] = [
        "write_note",
        "edit_note",
        "read_note",
        "resolve_note",
        "list_notes",
        "search_notes",
        "get_links",
        "move_note",
        "delete_note",
        "update_frontmatter",
        "update_links",
        "overwrite",
        "expected_sha256",
        "dry_run",
        "replace_lines",
        "link_policy",
        "list_tags",
        "list_tasks",
        "update_task",
        "check_vault",
        "replace_all",
        "new_path",
    ];

    /// Likewise for warnings: the workspace states what it noticed, and the
    /// advice naming a tool or argument is added here, after the fact.
    #[test]
    fn warnings_name_the_tools_and_the_facts_do_not() {
        let advised: Vec<(Warning, &str)> = vec![
            (
                Warning::TagStillInline {
                    tag: "two".into(),
                    line: 9,
                },
                "#two is still used inline on line 9; remove it there with edit_note if it should go",
            ),
            (
                Warning::MoreLinksLost { count: 3 },
                "… and 3 more such links (get_links lists them)",
            ),
            (
                Warning::LinkCaptured {
                    link: "alpha".into(),
                    line: 1,
                    path: "c/src.md".into(),
                    target: Place::Note("a/b/alpha.md".into()),
                    after: Place::Unseen,
                },
                "the link `alpha` on line 1 of `c/src.md` leads to `a/b/alpha.md` and will lead to \
                 a note this agent may not access after the move; update_links would pin it",
            ),
        ];
        let facts_only = vec![
            Warning::LinkLost {
                source: "a.md".into(),
                line: 2,
                by: LostBy::Name("Enn".into()),
            },
            Warning::LinkLost {
                source: "a.md".into(),
                line: 2,
                by: LostBy::Fragment("Plan".into()),
            },
            Warning::UnseenLinksLost { count: 2 },
            Warning::UnreadLinks {
                path: "bin.md".into(),
            },
            Warning::UnseenLinksCaptured { count: 1 },
            Warning::LinkNotPinned {
                link: "alpha".into(),
                line: 1,
                path: "c/src.md".into(),
                target: Place::Note("alpha.md".into()),
                after: Place::Nowhere,
            },
            Warning::FilesLeftBehind {
                folder: "old".into(),
            },
            Warning::LinkFallsToAnother {
                source: "a.md".into(),
                line: 1,
                others: vec![Place::Note("y/same.md".into()), Place::Unseen],
            },
            Warning::LinksNotMarked {
                path: "bin.md".into(),
            },
        ];
        for warning in advised.iter().map(|(w, _)| w).chain(&facts_only) {
            let fact = warning.to_string();
            assert!(
                !TOOL_WORDS.iter().any(|t| fact.contains(t)),
                "the warning names a tool or argument: {fact}"
            );
            assert!(warning_text(warning).starts_with(&fact), "{fact}");
        }
        for (warning, shown) in &advised {
            assert_eq!(warning_text(warning), *shown);
        }
        for warning in &facts_only {
            assert_eq!(warning_text(warning), warning.to_string());
        }
    }

    /// The workspace states what went wrong; what to do about it, in the
    /// agent's tools and arguments, is said here and only here.
    #[test]
    fn hints_name_the_tools_and_the_errors_do_not() {
        let cases: Vec<(OpError, &str)> = vec![
            (
                OpError::NotFound {
                    input: "Ghost".into(),
                    suggestions: Vec::new(),
                    linked_from: 2,
                },
                "write_note",
            ),
            (
                OpError::NotFound {
                    input: "Ghost".into(),
                    suggestions: Vec::new(),
                    linked_from: 0,
                },
                "resolve_note",
            ),
            (
                OpError::HiddenLinks {
                    target: "b".into(),
                    notes: 1,
                },
                "update_links: false",
            ),
            (
                OpError::Exists {
                    path: "a.md".into(),
                },
                "overwrite: true",
            ),
            (
                OpError::Conflict {
                    path: "a.md".into(),
                    expected: "e".into(),
                    current: Some("c".into()),
                },
                "expected_sha256 = c",
            ),
            (
                OpError::Conflict {
                    path: "a.md".into(),
                    expected: "e".into(),
                    current: None,
                },
                "Omit expected_sha256",
            ),
            (
                OpError::Unsaved {
                    path: "a.md".into(),
                },
                "read_note",
            ),
            (
                OpError::Frontmatter {
                    path: "a.md".into(),
                    error: FrontmatterError::Malformed("bad".into()),
                },
                "edit_note (replace_lines)",
            ),
            (
                OpError::Frontmatter {
                    path: "a.md".into(),
                    error: FrontmatterError::Uneditable {
                        key: "k".into(),
                        why: "a key written twice".into(),
                    },
                },
                "edit_note (replace_lines)",
            ),
            (
                OpError::TagRule {
                    path: "n.md".into(),
                    problems: vec![RuleProblem::MissingKey {
                        tag: "project".into(),
                        key: "status".into(),
                    }],
                },
                "update_frontmatter or the frontmatter parameter",
            ),
            (
                OpError::TagPolicy {
                    path: "n.md".into(),
                    tags: vec!["new".into()],
                    allowed: (0..LISTED_TAGS + 3).map(|i| format!("t{i}")).collect(),
                },
                "list_tags",
            ),
            (OpError::FolderSha256, "Omit expected_sha256"),
            (
                OpError::MergeNotObject {
                    key: "status".into(),
                },
                "set",
            ),
            (OpError::NothingToUpdate, "add_tags"),
            (
                OpError::Edit {
                    path: "a.md".into(),
                    op: 0,
                    name: "replace_text",
                    error: EditError::NotUnique {
                        what: "`find`",
                        text: "two".into(),
                        count: 2,
                        lines: vec![1, 2],
                    },
                },
                "replace_all",
            ),
            (
                OpError::Partial {
                    done: vec!["moved `a.md` to `b.md`".into()],
                    failed: "moving `c.md`".into(),
                    message: "disk full".into(),
                    touched: vec!["a.md".into(), "b.md".into()],
                },
                "check_vault",
            ),
        ];
        for (error, hinted) in cases {
            // The advice that depends on the tool is checked below.
            let tool = match error {
                OpError::Exists { .. } => "write_note",
                _ => "move_note",
            };
            let fact = error.to_string();
            assert!(
                !TOOL_WORDS.iter().any(|t| fact.contains(t)),
                "the error names a tool or argument: {fact}"
            );
            let hint = op_hint(&error, tool).unwrap_or_default();
            assert!(hint.contains(hinted), "{error:?}: {hint}");
        }
    }

    /// Where the way out depends on the tool, each tool names its own
    /// arguments, never another tool's.
    #[test]
    fn hints_name_the_arguments_of_the_tool_that_failed() {
        let exists = || OpError::Exists {
            path: "a.md".into(),
        };
        let hidden = || OpError::HiddenLinks {
            target: "b".into(),
            notes: 1,
        };
        let hint = |error: OpError, tool: &str| op_hint(&error, tool).unwrap_or_default();
        assert!(hint(exists(), "write_note").contains("overwrite: true"));
        assert!(hint(exists(), "move_note").contains("new_path"));
        assert!(!hint(exists(), "move_note").contains("overwrite"));
        assert!(!hint(exists(), "daily_note").contains("overwrite"));
        assert!(hint(hidden(), "move_note").contains("update_links: false"));
        assert!(hint(hidden(), "delete_note").contains("link_policy: keep"));
        let frontmatter = OpError::Frontmatter {
            path: "a.md".into(),
            error: FrontmatterError::NotAMapping { key: "k".into() },
        };
        assert!(!frontmatter.to_string().contains("set"), "{frontmatter}");
        assert_eq!(
            hint(frontmatter, "update_frontmatter"),
            "Use set to replace the value."
        );
    }

    /// The advice moved out of the workspace's errors reads as it did,
    /// as one hint after the facts, and only where it applies.
    #[test]
    fn moved_advice_is_shown_after_the_facts() {
        let shown = |error: OpError| shown_error(&error, "move_note").text();
        assert_eq!(
            shown(OpError::FolderSha256),
            "Error: a folder has no sha256\nOmit expected_sha256."
        );
        let partial = |done: Vec<String>| OpError::Partial {
            done,
            failed: "moving `c.md`".into(),
            message: "disk full".into(),
            touched: Vec::new(),
        };
        assert_eq!(
            shown(partial(vec!["moved `a.md` to `b.md`".into()])),
            "Error: stopped part way: moving `c.md` failed (disk full). Already done, and kept: \
             moved `a.md` to `b.md`. Finish by hand\ncheck_vault shows what is broken."
        );
        assert_eq!(
            shown(partial(Vec::new())),
            "Error: stopped part way: moving `c.md` failed (disk full). Nothing was changed"
        );
        let policy = |count: usize| OpError::TagPolicy {
            path: "n.md".into(),
            tags: vec!["new".into()],
            allowed: (0..count).map(|i| format!("t{i}")).collect(),
        };
        let many = shown(policy(LISTED_TAGS + 2));
        assert!(
            many.contains("`t59` and 2 more. Use one of those")
                && many.ends_with("nothing was written\nlist_tags shows all."),
            "{many}"
        );
        assert!(!shown(policy(2)).contains("list_tags"));
    }
}
