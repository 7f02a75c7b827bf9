//! `check_vault`'s findings in words: the domain's one wording of each link
//! and parse problem (`vault::report`), this tool's own for the rest, and
//! the page as Markdown.

use std::collections::BTreeMap;

use super::answer::{CheckVaultOut, Issue};
use super::compute::{Checked, Found, NameUse, Placed};
use crate::common::page_line;
use crate::format::plural;
use weft_vault::VaultIndex;
use weft_vault::report::{Told, tell};
use weft_workspace::access::Access;

/// The structured answer of a page.
pub(super) fn out(
    index: &VaultIndex,
    access: &Access,
    checked: Checked,
    next_cursor: Option<String>,
) -> CheckVaultOut {
    let counts: BTreeMap<String, usize> = checked
        .counts
        .iter()
        .map(|(k, n)| (k.to_string(), *n))
        .collect();
    CheckVaultOut {
        total: checked.total,
        counts,
        issues: checked
            .page
            .iter()
            .map(|p| issue(index, access, p))
            .collect(),
        next_cursor,
    }
}

fn issue(index: &VaultIndex, access: &Access, p: &Placed) -> Issue {
    let Told { message, mut fix } = told(index, access, &p.found);
    if let Some(s) = p.suggestion {
        fix = format!("did you mean [[{}]]? Otherwise {fix}", index.note(s).title);
    }
    Issue {
        kind: p.kind,
        path: p.note.map(|id| index.note(id).id().to_string()),
        line: p.line,
        message,
        fix,
    }
}

fn told(index: &VaultIndex, access: &Access, found: &Found) -> Told {
    match found {
        Found::Problem(problem) => tell(index, problem, &|id| access.sees(&index.note(id).path)),
        Found::Orphan(_) => Told {
            message: "No links in or out.".into(),
            fix: "Link it from a related note (related_notes suggests some), or link it to one."
                .into(),
        },
        Found::Duplicate { name, users } => {
            let listed: Vec<String> = users
                .iter()
                .map(|(id, how)| {
                    let how = match how {
                        NameUse::Title => "title",
                        NameUse::Alias => "alias",
                    };
                    format!("`{}` ({how})", index.note(*id).id())
                })
                .collect();
            Told {
                message: format!("“{name}” names {} notes: {}.", users.len(), listed.join(", ")),
                fix: "Rename a title or alias so each names one note; links by that name are ambiguous until then.".into(),
            }
        }
        Found::MissingKey { tag, key, .. } => Told {
            message: format!("Tagged #{tag} but has no `{key}` in its frontmatter."),
            fix: format!(
                "Add `{key}:` to the frontmatter, or remove the tag (rule in .weft.toml)."
            ),
        },
        Found::NamePrefix { note, tag, prefix } => Told {
            message: format!("Tagged #{tag} but its file name does not start with `{prefix}`."),
            fix: format!(
                "Rename the note to `{prefix}{}`, or remove the tag.",
                index.note(*note).stem()
            ),
        },
        Found::Spelling { tag, spellings } => {
            let listed: Vec<String> = spellings
                .iter()
                .map(|(s, n)| format!("#{s} ({n})"))
                .collect();
            Told {
                message: format!(
                    "The tag is written {} ways: {}.",
                    spellings.len(),
                    listed.join(", ")
                ),
                fix: format!(
                    "Use one spelling everywhere, e.g. #{tag} (tags match case-insensitively either way)."
                ),
            }
        }
    }
}

/// The page as Markdown.
pub(super) fn markdown(out: &CheckVaultOut, offset: usize, prefix: &str) -> String {
    let scope = if prefix.is_empty() {
        "the vault".to_string()
    } else {
        format!("`{prefix}/`")
    };
    if out.total == 0 {
        return format!("No issues found in {scope}.");
    }
    let counts: Vec<String> = out.counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut text = format!(
        "{} in {scope} ({}):",
        plural(out.total, "issue"),
        counts.join(", ")
    );
    for i in &out.issues {
        let place = match (&i.path, i.line) {
            (Some(p), Some(l)) => format!("`{p}` L{l}"),
            (Some(p), None) => format!("`{p}`"),
            _ => "vault".to_string(),
        };
        text.push_str(&format!(
            "\n- [{}] {place}: {}\n  Fix: {}",
            i.kind.as_str(),
            i.message,
            i.fix
        ));
    }
    let page = page_line(
        offset,
        out.issues.len(),
        out.total,
        out.next_cursor.as_deref(),
    );
    if !page.is_empty() {
        text.push_str(&format!("\n\n{page}"));
    }
    text
}
