//! `check_vault`: the vault's health — broken and ambiguous links (kind
//! `ambiguous` also covers `#A#B` fragments several headings fit), missing
//! headings and block ids, parse problems (from `vault::query::check`),
//! orphans, duplicate titles and aliases, tag rules and inconsistent tag
//! spellings — each with a fix hint; by folder, kind, page.
//!
//! An adapter; the orphan, duplicate and rule checks are small pure
//! functions of the index kept here until `vault::query::check` grows them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::{choice, lenient};
use super::common::{cursor_offset, limit, next_cursor, page_line};
use super::format::{Reply, ToolError, ToolResult, code_list, plural};
use super::state::ToolState;
use weft_search::index::tag_key;
use weft_search::names::match_names;
use weft_vault::filter::{FileMeta, Filter, Folder, select};
use weft_vault::headings::heading_path;
use weft_vault::key::name_key;
use weft_vault::query::{Problem, check, outgoing};
use weft_vault::tags;
use weft_vault::{Link, LinkKind, Note, NoteId, VaultIndex};
use weft_workspace::config::TagRule;

choice! {
    pub enum Kind {
        Unresolved = "unresolved" | "broken" | "broken_links" | "missing",
        Ambiguous = "ambiguous",
        Fragment = "fragment" | "fragments" | "heading" | "block",
        Parse = "parse" | "yaml" | "frontmatter",
        Orphan = "orphan" | "orphans",
        Duplicate = "duplicate" | "duplicates",
        Rule = "rule" | "rules" | "tag_rule",
        Tag = "tag" | "tags" | "spelling",
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckVaultArgs {
    /// Folder.
    #[serde(default, alias = "folder", alias = "path")]
    pub path_prefix: Option<String>,
    #[serde(default, alias = "checks", alias = "only")]
    pub kinds: Option<Vec<Kind>>,
    /// Default 50.
    #[serde(default, deserialize_with = "lenient::usize")]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CheckVaultOut {
    pub total: usize,
    /// Issues per kind.
    pub counts: BTreeMap<String, usize>,
    pub issues: Vec<Issue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Issue {
    pub kind: Kind,
    /// The note (vault path without `.md`); absent for vault-wide issues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
    pub fix: String,
    /// An unresolved target whose "did you mean" is looked up only if the
    /// issue is on the page shown (a fuzzy search over every note each).
    #[serde(skip)]
    #[schemars(skip)]
    suggest_for: Option<String>,
}

pub fn run(state: &ToolState, args: CheckVaultArgs) -> ToolResult {
    let policy = state.policy();
    // A folder with its boundary, however it is written (`projects\\`,
    // `/projects/`): the one rule, `vault::filter`.
    let folder = Folder::new(args.path_prefix.as_deref().unwrap_or(""))
        .map_err(|e| ToolError::new(format!("path_prefix: {e}.")))?;
    let prefix = folder.shown().to_string();
    let kinds: Vec<Kind> = match &args.kinds {
        Some(k) if !k.is_empty() => k.clone(),
        _ => Kind::VALUES.iter().map(|v| parse_kind(v)).collect(),
    };
    let limit = limit(args.limit, 50, 500);
    let fingerprint = (folder.key(), &kinds);
    let offset = cursor_offset(args.cursor.as_deref(), &fingerprint)?;
    let index = state.index();
    let sees = |note: &Note| policy.access.sees(&note.path);
    // The notes checked: the folder asked and what the agent may see, as
    // THE note filter.
    let which = Filter::all_of(vec![
        Filter::Folder(folder.clone()),
        Filter::clone(&policy.access.sight(&index)),
    ]);
    let mut issues: Vec<Issue> = Vec::new();
    let wants = |k: Kind| kinds.contains(&k);
    for problem in check(&index, &which) {
        let note = index.note(problem.note());
        let line = Some(problem.line(&index) + 1);
        let path = Some(note.id().to_string());
        match problem {
            Problem::UnresolvedLink { link } if wants(Kind::Unresolved) => {
                let l = index.link(link);
                issues.push(Issue {
                    kind: Kind::Unresolved,
                    path,
                    line,
                    message: format!("{} links to a note that does not exist.", written(l)),
                    fix: format!(
                        "create `{}.md` or point the link at an existing note.",
                        l.target().trim_end_matches(".md")
                    ),
                    suggest_for: Some(l.target().to_string()),
                });
            }
            Problem::AmbiguousLink {
                link,
                candidates,
                chosen,
            } if wants(Kind::Ambiguous) => {
                let l = index.link(link);
                // Candidates the agent may not see are counted, not named.
                let paths: Vec<String> = candidates
                    .iter()
                    .filter(|c| sees(index.note(**c)))
                    .map(|c| index.note(*c).id().to_string())
                    .collect();
                let unseen = candidates.len() - paths.len();
                let listed = match unseen {
                    0 => code_list(&paths),
                    n => format!(
                        "{}{n} outside this agent's access",
                        if paths.is_empty() {
                            String::new()
                        } else {
                            format!("{}, and ", code_list(&paths))
                        }
                    ),
                };
                let resolves = match sees(index.note(chosen)) {
                    true => format!("`{}`", index.note(chosen).id()),
                    false => "a note outside this agent's access".to_string(),
                };
                issues.push(Issue {
                    suggest_for: None,
                    kind: Kind::Ambiguous,
                    path,
                    line,
                    message: format!(
                        "{} matches {} notes ({listed}); it resolves to {resolves}.",
                        written(l),
                        candidates.len(),
                    ),
                    fix: format!(
                        "Write the path: {}.",
                        paths
                            .iter()
                            .map(|p| format!("[[{p}]]"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                });
            }
            // A note the agent may not see: nothing of it is told.
            Problem::BrokenFragment { target, .. } | Problem::AmbiguousFragment { target, .. }
                if !sees(index.note(target)) => {}
            Problem::BrokenFragment { link, target } if wants(Kind::Fragment) => {
                let l = index.link(link);
                let t = index.note(target);
                let fragment = l.fragment().unwrap_or("");
                let fix = if fragment.starts_with('^') {
                    let ids: Vec<String> = t
                        .blocks
                        .iter()
                        .take(10)
                        .map(|b| format!("^{}", b.id))
                        .collect();
                    if ids.is_empty() {
                        format!(
                            "`{}` has no block ids; add `^id` at the end of the paragraph, or drop `#{fragment}`.",
                            t.id()
                        )
                    } else {
                        format!("Block ids in `{}`: {}.", t.id(), ids.join(", "))
                    }
                } else {
                    let mut headings: Vec<String> = Vec::new();
                    for h in &t.headings {
                        if headings.len() < 12 && !headings.iter().any(|x| **x == *h.text) {
                            headings.push(h.text.to_string());
                        }
                    }
                    if headings.is_empty() {
                        format!(
                            "`{}` has no headings; drop `#{fragment}` or add the heading.",
                            t.id()
                        )
                    } else {
                        format!("Headings in `{}`: {}.", t.id(), code_list(&headings))
                    }
                };
                issues.push(Issue {
                    suggest_for: None,
                    kind: Kind::Fragment,
                    path,
                    line,
                    message: format!("{}: `{}` has no `#{fragment}`.", written(l), t.id()),
                    fix,
                });
            }
            Problem::AmbiguousFragment {
                link,
                target,
                candidates,
            } if wants(Kind::Ambiguous) => {
                let l = index.link(link);
                let t = index.note(target);
                let fragment = l.fragment().unwrap_or("");
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
                issues.push(Issue {
                    suggest_for: None,
                    kind: Kind::Ambiguous,
                    path,
                    line,
                    message: format!(
                        "{}: `#{fragment}` fits {} headings of `{}`: {}; it leads to the first.",
                        written(l),
                        candidates.len(),
                        t.id(),
                        places.join(", ")
                    ),
                    fix: format!(
                        "Write the full path of the heading you mean: {}.",
                        full.join(" or ")
                    ),
                });
            }
            Problem::Parse { note: id, index: i } if wants(Kind::Parse) => {
                let d = &index.note(id).diagnostics[i];
                let fix = if d.message.contains("UTF-8") {
                    "Save the file as UTF-8."
                } else if d.message.contains("block id") {
                    "Rename one of the block ids; links use the first."
                } else if d.message.to_lowercase().contains("yaml")
                    || d.message.contains("frontmatter")
                {
                    "Fix the YAML between the `---` lines (quote values with `:` or `#`)."
                } else {
                    "Fix the note at that line."
                };
                issues.push(Issue {
                    suggest_for: None,
                    kind: Kind::Parse,
                    path,
                    line,
                    message: d.message.to_string(),
                    fix: fix.to_string(),
                });
            }
            _ => {}
        }
    }
    let notes: Vec<(NoteId, &Note)> = select(&index, &which, |_| FileMeta::default())
        .into_iter()
        .map(|id| (id, index.note(id)))
        .collect();
    if wants(Kind::Orphan) {
        for (id, note) in &notes {
            let links_out = outgoing(&index, *id)
                .iter()
                .any(|o| o.resolution.note().is_some_and(|t| t != *id));
            if !links_out && index.backlinks(*id).iter().all(|r| r.source == *id) {
                issues.push(Issue {
                    suggest_for: None,
                    kind: Kind::Orphan,
                    path: Some(note.id().to_string()),
                    line: None,
                    message: "No links in or out.".into(),
                    fix: "Link it from a related note (related_notes suggests some), or link it to one.".into(),
                });
            }
        }
    }
    if wants(Kind::Duplicate) {
        issues.extend(duplicates(&index, &notes));
    }
    if wants(Kind::Rule) {
        for (_, note) in &notes {
            issues.extend(rule_issues(note, &state.config().tags.rules));
        }
    }
    if wants(Kind::Tag) && folder.is_root() {
        let seen = super::common::visible_tags(&policy, &index);
        let mut tags: Vec<_> = seen.values().filter(|t| t.spellings.len() > 1).collect();
        tags.sort_by_key(|t| tag_key(t.display()));
        for t in tags {
            let spellings: Vec<String> = t
                .spellings
                .iter()
                .map(|(s, n)| format!("#{s} ({n})"))
                .collect();
            issues.push(Issue {
                suggest_for: None,
                kind: Kind::Tag,
                path: None,
                line: None,
                message: format!("The tag is written {} ways: {}.", t.spellings.len(), spellings.join(", ")),
                fix: format!("Use one spelling everywhere, e.g. #{} (tags match case-insensitively either way).", t.display()),
            });
        }
    }
    issues.sort_by(|a, b| {
        a.path
            .is_none()
            .cmp(&b.path.is_none())
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.line.cmp(&b.line))
    });
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in &issues {
        *counts.entry(i.kind.as_str().to_string()).or_default() += 1;
    }
    let total = issues.len();
    let mut page: Vec<Issue> = issues.into_iter().skip(offset).take(limit).collect();
    for issue in &mut page {
        if let Some(target) = issue.suggest_for.take()
            && let Some(found) = match_names(&index, &target, 3)
                .into_iter()
                .find(|m| sees(index.note(m.note)))
        {
            issue.fix = format!(
                "did you mean [[{}]]? Otherwise {}",
                index.note(found.note).title,
                issue.fix
            );
        }
    }
    drop(index);
    let next = next_cursor(offset, page.len(), total, &fingerprint);
    let out = CheckVaultOut {
        total,
        counts,
        issues: page,
        next_cursor: next,
    };
    Ok(Reply::new(render(&out, offset, &prefix), &out))
}

fn parse_kind(v: &str) -> Kind {
    serde_json::from_value(serde_json::Value::String(v.to_string())).expect("a listed kind")
}

/// The link as written, roughly: `[[target#frag]]` or `[](target#frag)`.
fn written(link: &Link) -> String {
    let frag = link.fragment().map(|f| format!("#{f}")).unwrap_or_default();
    match link.kind {
        LinkKind::Wiki => format!("`[[{}{frag}]]`", link.target()),
        LinkKind::Markdown => format!("`({}{frag})`", link.target()),
    }
}

/// Titles and aliases shared by several notes.
fn duplicates(index: &VaultIndex, notes: &[(NoteId, &Note)]) -> Vec<Issue> {
    let mut by_name: BTreeMap<String, Vec<(&Note, &'static str)>> = BTreeMap::new();
    for (_, note) in notes {
        // A title that is only the file name is not a name of its own.
        if *note.title != *note.stem() {
            by_name
                .entry(name_key(&note.title))
                .or_default()
                .push((note, "title"));
        }
        for alias in &note.aliases {
            by_name
                .entry(name_key(alias))
                .or_default()
                .push((note, "alias"));
        }
    }
    let mut out = Vec::new();
    for (name, mut users) in by_name {
        users.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        users.dedup_by(|a, b| a.0.path == b.0.path);
        if users.len() < 2 {
            continue;
        }
        let listed: Vec<String> = users
            .iter()
            .map(|(n, how)| format!("`{}` ({how})", n.id()))
            .collect();
        let _ = index;
        out.push(Issue {
            suggest_for: None,
            kind: Kind::Duplicate,
            path: Some(users[0].0.id().to_string()),
            line: None,
            message: format!("“{name}” names {} notes: {}.", users.len(), listed.join(", ")),
            fix: "Rename a title or alias so each names one note; links by that name are ambiguous until then.".into(),
        });
    }
    out
}

/// `[[tags.rules]]`: required frontmatter keys and file-name prefixes.
fn rule_issues(note: &Note, rules: &[TagRule]) -> Vec<Issue> {
    let mut out = Vec::new();
    for rule in rules {
        // Tagged with the rule's tag or one nested under it: THE tag rule.
        if !note.tags.iter().any(|t| tags::matches(&rule.tag, &t.name)) {
            continue;
        }
        for key in &rule.require_keys {
            let has = note.frontmatter.as_ref().is_some_and(|f| {
                f.iter()
                    .any(|(k, v)| name_key(k) == name_key(key) && !v.is_null())
            });
            if !has {
                out.push(Issue {
                    suggest_for: None,
                    kind: Kind::Rule,
                    path: Some(note.id().to_string()),
                    line: None,
                    message: format!(
                        "Tagged #{} but has no `{key}` in its frontmatter.",
                        rule.tag
                    ),
                    fix: format!(
                        "Add `{key}:` to the frontmatter, or remove the tag (rule in .weft.toml)."
                    ),
                });
            }
        }
        if let Some(prefix) = &rule.name_prefix
            && !note.stem().starts_with(prefix.as_str())
        {
            out.push(Issue {
                suggest_for: None,
                kind: Kind::Rule,
                path: Some(note.id().to_string()),
                line: None,
                message: format!(
                    "Tagged #{} but its file name does not start with `{prefix}`.",
                    rule.tag
                ),
                fix: format!(
                    "Rename the note to `{prefix}{}`, or remove the tag.",
                    note.stem()
                ),
            });
        }
    }
    out
}

fn render(out: &CheckVaultOut, offset: usize, prefix: &str) -> String {
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
