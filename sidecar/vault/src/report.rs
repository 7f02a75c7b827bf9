//! How a check problem is told: the one wording of each [`Problem`] — its
//! kind, what is wrong and how to fix it — for every face (the agent's
//! `check_vault`, the command line's `weft check`, the editor's
//! diagnostics). Facts only: what to do with an agent tool is said above.

use super::headings::heading_path;
use super::index::{NoteId, VaultIndex};
use super::note::{Link, LinkKind};
use super::query::Problem;

/// What a face shows of a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    /// What is wrong, in a sentence.
    pub message: String,
    /// How to set it right, in a sentence.
    pub fix: String,
}

/// The kind of a problem as every face names it.
pub fn kind(problem: &Problem) -> &'static str {
    match problem {
        Problem::UnresolvedLink { .. } => "unresolved",
        Problem::AmbiguousLink { .. } | Problem::AmbiguousFragment { .. } => "ambiguous",
        Problem::BrokenFragment { .. } => "fragment",
        Problem::Parse { .. } => "parse",
    }
}

/// The problem told. `shown` says which notes the reader may see: one it
/// may not is counted, never named (a face with no such limit passes
/// `&|_| true`).
pub fn tell(index: &VaultIndex, problem: &Problem, shown: &dyn Fn(NoteId) -> bool) -> Told {
    match problem {
        Problem::UnresolvedLink { link } => {
            let l = index.link(*link);
            Told {
                message: format!("{} links to a note that does not exist.", written(l)),
                fix: format!(
                    "create `{}.md` or point the link at an existing note.",
                    l.target().trim_end_matches(".md")
                ),
            }
        }
        Problem::AmbiguousLink {
            link,
            candidates,
            chosen,
        } => ambiguous_link(
            index,
            written(index.link(*link)),
            candidates,
            *chosen,
            shown,
        ),
        Problem::BrokenFragment { link, target } => {
            broken_fragment(index, index.link(*link), *target)
        }
        Problem::AmbiguousFragment {
            link,
            target,
            candidates,
        } => ambiguous_fragment(index, index.link(*link), *target, candidates),
        Problem::Parse { note, index: i } => {
            let message = index.note(*note).diagnostics[*i].message.to_string();
            let fix = parse_fix(&message);
            Told {
                message,
                fix: fix.to_string(),
            }
        }
    }
}

/// The link as written, roughly: `[[target#frag]]` or `(target#frag)`.
pub fn written(link: &Link) -> String {
    let frag = link.fragment().map(|f| format!("#{f}")).unwrap_or_default();
    match link.kind {
        LinkKind::Wiki => format!("`[[{}{frag}]]`", link.target()),
        LinkKind::Markdown => format!("`({}{frag})`", link.target()),
    }
}

fn code_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn ambiguous_link(
    index: &VaultIndex,
    written: String,
    candidates: &[NoteId],
    chosen: NoteId,
    shown: &dyn Fn(NoteId) -> bool,
) -> Told {
    let paths: Vec<String> = candidates
        .iter()
        .filter(|c| shown(**c))
        .map(|c| index.note(*c).id().to_string())
        .collect();
    let listed = match candidates.len() - paths.len() {
        0 => code_list(&paths),
        n if paths.is_empty() => format!("{n} outside this agent's access"),
        n => format!("{}, and {n} outside this agent's access", code_list(&paths)),
    };
    let resolves = match shown(chosen) {
        true => format!("`{}`", index.note(chosen).id()),
        false => "a note outside this agent's access".to_string(),
    };
    let choices: Vec<String> = paths.iter().map(|p| format!("[[{p}]]")).collect();
    Told {
        message: format!(
            "{written} matches {} notes ({listed}); it resolves to {resolves}.",
            candidates.len(),
        ),
        fix: format!("Write the path: {}.", choices.join(" or ")),
    }
}

fn broken_fragment(index: &VaultIndex, link: &Link, target: NoteId) -> Told {
    let t = index.note(target);
    let fragment = link.fragment().unwrap_or("");
    let fix = if fragment.starts_with('^') {
        let ids: Vec<String> = t
            .blocks
            .iter()
            .take(10)
            .map(|b| format!("^{}", b.id))
            .collect();
        match ids.is_empty() {
            true => format!(
                "`{}` has no block ids; add `^id` at the end of the paragraph, or drop `#{fragment}`.",
                t.id()
            ),
            false => format!("Block ids in `{}`: {}.", t.id(), ids.join(", ")),
        }
    } else {
        let mut headings: Vec<String> = Vec::new();
        for h in &t.headings {
            if headings.len() < 12 && !headings.iter().any(|x| **x == *h.text) {
                headings.push(h.text.to_string());
            }
        }
        match headings.is_empty() {
            true => format!(
                "`{}` has no headings; drop `#{fragment}` or add the heading.",
                t.id()
            ),
            false => format!("Headings in `{}`: {}.", t.id(), code_list(&headings)),
        }
    };
    Told {
        message: format!("{}: `{}` has no `#{fragment}`.", written(link), t.id()),
        fix,
    }
}

fn ambiguous_fragment(
    index: &VaultIndex,
    link: &Link,
    target: NoteId,
    candidates: &[usize],
) -> Told {
    let t = index.note(target);
    let fragment = link.fragment().unwrap_or("");
    let places: Vec<String> = candidates
        .iter()
        .map(|&h| {
            format!(
                "`#{}` (L{})",
                heading_path(t, h, "#"),
                t.headings[h].line + 1
            )
        })
        .collect();
    let full: Vec<String> = candidates
        .iter()
        .map(|&h| format!("`#{}`", heading_path(t, h, "#")))
        .collect();
    Told {
        message: format!(
            "{}: `#{fragment}` fits {} headings of `{}`: {}; it leads to the first.",
            written(link),
            candidates.len(),
            t.id(),
            places.join(", ")
        ),
        fix: format!(
            "Write the full path of the heading you mean: {}.",
            full.join(" or ")
        ),
    }
}

/// What to do about what the parser reported, by what it said.
fn parse_fix(message: &str) -> &'static str {
    if message.contains("UTF-8") {
        "Save the file as UTF-8."
    } else if message.contains("block id") {
        "Rename one of the block ids; links use the first."
    } else if message.to_lowercase().contains("yaml") || message.contains("frontmatter") {
        "Fix the YAML between the `---` lines (quote values with `:` or `#`)."
    } else {
        "Fix the note at that line."
    }
}
