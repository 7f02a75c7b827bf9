//! How a check problem is told: the one wording of each [`Problem`] — its
//! kind, what is wrong and how to fix it — for every face (the agent's
//! `check_vault`, the command line's `weft check`, the editor's
//! diagnostics). Facts only: what to do with an agent tool is said above.

use super::headings::heading_path;
use super::index::{NoteId, VaultIndex};
use super::note::{Link, LinkKind, Note};
use super::props::{Mismatch, PropType};
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
        Problem::PropertyType { .. } => "property",
    }
}

/// The problem told. `shown` says which notes the reader may see: one it
/// may not is counted, never named (a face with no such limit passes
/// `&|_| true`).
pub fn tell(index: &VaultIndex, problem: &Problem, shown: &dyn Fn(NoteId) -> bool) -> Told {
    Told {
        message: message(index, problem, shown),
        fix: fix(index, problem, shown),
    }
}

/// What is wrong, in a sentence (a face that shows no fix asks for this
/// alone).
pub fn message(index: &VaultIndex, problem: &Problem, shown: &dyn Fn(NoteId) -> bool) -> String {
    match problem {
        Problem::UnresolvedLink { link } => format!(
            "{} links to a note that does not exist.",
            written(index.link(*link))
        ),
        Problem::AmbiguousLink {
            link,
            candidates,
            chosen,
        } => {
            let paths = shown_paths(index, candidates, shown);
            let listed = match candidates.len() - paths.len() {
                0 => code_list(&paths),
                n if paths.is_empty() => format!("{n} outside this agent's access"),
                n => format!("{}, and {n} outside this agent's access", code_list(&paths)),
            };
            let resolves = match shown(*chosen) {
                true => format!("`{}`", index.note(*chosen).id()),
                false => "a note outside this agent's access".to_string(),
            };
            format!(
                "{} matches {} notes ({listed}); it resolves to {resolves}.",
                written(index.link(*link)),
                candidates.len(),
            )
        }
        Problem::BrokenFragment { link, target } => {
            let link = index.link(*link);
            format!(
                "{}: `{}` has no `#{}`.",
                written(link),
                index.note(*target).id(),
                link.fragment().unwrap_or("")
            )
        }
        Problem::AmbiguousFragment {
            link,
            target,
            candidates,
        } => {
            let link = index.link(*link);
            let t = index.note(*target);
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
            format!(
                "{}: `#{}` fits {} headings of `{}`: {}; it leads to the first.",
                written(link),
                link.fragment().unwrap_or(""),
                candidates.len(),
                t.id(),
                places.join(", ")
            )
        }
        Problem::Parse { note, index: i } => index.note(*note).diagnostics[*i].message.to_string(),
        Problem::PropertyType {
            note,
            key,
            expected,
            declared,
        } => {
            let value = index
                .note(*note)
                .frontmatter
                .as_deref()
                .and_then(|fm| fm.get(&**key));
            let value = match value {
                // Quoted as written when it would read as another type.
                Some(serde_json::Value::String(s))
                    if s.trim().parse::<f64>().is_ok()
                        || ["true", "false"].contains(&s.trim().to_ascii_lowercase().as_str()) =>
                {
                    format!("\"{s}\"")
                }
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            misfit(key, &value, *expected, *declared)
        }
    }
}

/// How to set it right, in a sentence.
pub fn fix(index: &VaultIndex, problem: &Problem, shown: &dyn Fn(NoteId) -> bool) -> String {
    match problem {
        Problem::UnresolvedLink { link } => format!(
            "create `{}.md` or point the link at an existing note.",
            index.link(*link).target().trim_end_matches(".md")
        ),
        Problem::AmbiguousLink { candidates, .. } => {
            let choices: Vec<String> = shown_paths(index, candidates, shown)
                .iter()
                .map(|p| format!("[[{p}]]"))
                .collect();
            format!("Write the path: {}.", choices.join(" or "))
        }
        Problem::BrokenFragment { link, target } => fragment_fix(
            index.note(*target),
            index.link(*link).fragment().unwrap_or(""),
        ),
        Problem::AmbiguousFragment {
            target, candidates, ..
        } => {
            let t = index.note(*target);
            let full: Vec<String> = candidates
                .iter()
                .map(|&h| format!("`#{}`", heading_path(t, h, "#")))
                .collect();
            format!(
                "Write the full path of the heading you mean: {}.",
                full.join(" or ")
            )
        }
        Problem::Parse { note, index: i } => {
            parse_fix(&index.note(*note).diagnostics[*i].message).to_string()
        }
        Problem::PropertyType { key, expected, .. } => format!(
            "Write {} there, or give `{key}` another type in Obsidian's property settings \
             (.obsidian/types.json).",
            expected_value(*expected)
        ),
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

/// Items in backticks, joined by commas.
pub fn code_list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The paths of the candidates the reader may see.
fn shown_paths(
    index: &VaultIndex,
    candidates: &[NoteId],
    shown: &dyn Fn(NoteId) -> bool,
) -> Vec<String> {
    candidates
        .iter()
        .filter(|c| shown(**c))
        .map(|c| index.note(*c).id().to_string())
        .collect()
}

/// What a link to a missing `#fragment` of `t` can lead to instead.
fn fragment_fix(t: &Note, fragment: &str) -> String {
    if fragment.starts_with('^') {
        let ids: Vec<String> = t
            .blocks
            .iter()
            .take(10)
            .map(|b| format!("^{}", b.id))
            .collect();
        return match ids.is_empty() {
            true => format!(
                "`{}` has no block ids; add `^id` at the end of the paragraph, or drop `#{fragment}`.",
                t.id()
            ),
            false => format!("Block ids in `{}`: {}.", t.id(), ids.join(", ")),
        };
    }
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

/// A property value that does not fit its type, in a sentence.
pub fn mismatch(m: &Mismatch) -> String {
    misfit(&m.key, &m.value, m.expected, m.declared)
}

/// The value `value` of property `key` does not fit `expected` (declared
/// in `types.json`, or what the vault's values agree on), in a sentence.
fn misfit(key: &str, value: &str, expected: PropType, declared: bool) -> String {
    let why = match declared {
        true => "as .obsidian/types.json declares it",
        false => "as the vault's values of it are",
    };
    let value: String = value.chars().take(60).collect();
    format!(
        "`{key}` is a {} property ({why}); `{value}` is not {}.",
        expected.name(),
        expected_value(expected)
    )
}

/// What a value of type `t` is, in words.
fn expected_value(t: PropType) -> &'static str {
    match t {
        PropType::Date => "a date (YYYY-MM-DD)",
        PropType::DateTime => "a date and time (YYYY-MM-DDTHH:MM)",
        PropType::Number => "a number",
        PropType::Checkbox => "true or false",
        PropType::Text => "one value, not a list or a mapping",
        PropType::List | PropType::Tags | PropType::Aliases => "a list of values",
    }
}
