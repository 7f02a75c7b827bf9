//! What `check_vault` finds, as data: the domain's link and parse problems
//! of the notes asked for (`vault::query::problems_of`), and its own orphans,
//! duplicate names, tag-rule breaks and tag spellings; sorted, counted and
//! paged. No words: `render` tells them.

use std::collections::BTreeMap;

use super::answer::Kind;
use weft_search::names::match_names;
use weft_vault::filter::{FileMeta, Filter, Folder, select};
use weft_vault::key::name_key;
use weft_vault::props::Types;
use weft_vault::query::{Problem, outgoing, problems_of, property_problems};
use weft_vault::{NoteId, VaultIndex, tags};
use weft_workspace::access::Access;
use weft_workspace::config::TagRule;

/// A `check_vault` request, read and checked.
#[derive(Debug, Clone)]
pub struct Query {
    pub folder: Folder,
    pub kinds: Vec<Kind>,
    pub offset: usize,
    pub limit: usize,
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A link or parse problem, as the domain states it.
    Problem(Problem),
    /// A note with no links in or out.
    Orphan(NoteId),
    /// A title or alias (its name key) several notes use, with each note
    /// and how it uses it, by path.
    Duplicate {
        name: String,
        users: Vec<(NoteId, NameUse)>,
    },
    /// A note tagged with `tag` (or under it) lacking the frontmatter key
    /// a `[[tags.rules]]` requires.
    MissingKey {
        note: NoteId,
        tag: String,
        key: String,
    },
    /// A note tagged with `tag` whose file name lacks the rule's prefix.
    NamePrefix {
        note: NoteId,
        tag: String,
        prefix: String,
    },
    /// A tag (as displayed) written several ways, with each spelling and
    /// how often.
    Spelling {
        tag: String,
        spellings: Vec<(String, u32)>,
    },
}

/// How a note uses a duplicate name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameUse {
    Title,
    Alias,
}

/// One finding with where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub kind: Kind,
    /// The note, absent for vault-wide findings.
    pub note: Option<NoteId>,
    /// 1-based.
    pub line: Option<u32>,
    pub found: Found,
    /// For an unresolved link on the page: the visible note whose name is
    /// closest to its target.
    pub suggestion: Option<NoteId>,
}

/// The answer: every finding counted, one page of them placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub total: usize,
    pub counts: BTreeMap<&'static str, usize>,
    pub page: Vec<Placed>,
}

/// Checks the notes of `query.folder` the agent may see.
pub fn compute(
    index: &VaultIndex,
    access: &Access,
    rules: &[TagRule],
    types: &Types,
    query: &Query,
) -> Checked {
    let which = Filter::all_of(vec![
        Filter::Folder(query.folder.clone()),
        Filter::clone(&access.sight(index)),
    ]);
    let wants = |k: Kind| query.kinds.contains(&k);
    let notes = select(index, &which, |_| FileMeta::default());
    let mut all: Vec<Placed> = notes
        .iter()
        .flat_map(|&id| problems_of(index, id))
        .filter_map(|p| problem(index, access, p))
        .filter(|p| wants(p.kind))
        .collect();
    if wants(Kind::Property) {
        all.extend(
            notes
                .iter()
                .flat_map(|&id| property_problems(index, id, types))
                .filter_map(|p| problem(index, access, p)),
        );
    }
    if wants(Kind::Orphan) {
        all.extend(orphans(index, access, &notes));
    }
    if wants(Kind::Duplicate) {
        all.extend(duplicates(index, &notes));
    }
    if wants(Kind::Rule) {
        all.extend(notes.iter().flat_map(|&id| rule_breaks(index, id, rules)));
    }
    if wants(Kind::Tag) && query.folder.is_root() {
        all.extend(spellings(index, access));
    }
    sort(index, &mut all);
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for p in &all {
        *counts.entry(p.kind.as_str()).or_default() += 1;
    }
    let total = all.len();
    let mut page: Vec<Placed> = all
        .into_iter()
        .skip(query.offset)
        .take(query.limit)
        .collect();
    for p in &mut page {
        p.suggestion = suggestion(index, access, &p.found);
    }
    Checked {
        total,
        counts,
        page,
    }
}

/// A domain problem placed, or `None` for a fragment into a note the agent
/// may not see (nothing of it is told).
fn problem(index: &VaultIndex, access: &Access, problem: Problem) -> Option<Placed> {
    let kind = match &problem {
        Problem::UnresolvedLink { .. } => Kind::Unresolved,
        Problem::AmbiguousLink { .. } => Kind::Ambiguous,
        Problem::BrokenFragment { target, .. } | Problem::AmbiguousFragment { target, .. }
            if !access.sees(&index.note(*target).path) =>
        {
            return None;
        }
        Problem::BrokenFragment { .. } => Kind::Fragment,
        Problem::AmbiguousFragment { .. } => Kind::Ambiguous,
        Problem::Parse { .. } => Kind::Parse,
        Problem::PropertyType { .. } => Kind::Property,
    };
    // The index keeps no property's line.
    let line = (kind != Kind::Property).then(|| problem.line(index) + 1);
    Some(Placed {
        kind,
        note: Some(problem.note()),
        line,
        found: Found::Problem(problem),
        suggestion: None,
    })
}

fn placed(kind: Kind, note: Option<NoteId>, found: Found) -> Placed {
    Placed {
        kind,
        note,
        line: None,
        found,
        suggestion: None,
    }
}

/// Notes with no link to another note and none from one, as the agent
/// sees them: a link to or from a note it may not access is none (saying
/// otherwise would tell that such a note links here).
fn orphans<'a>(
    index: &'a VaultIndex,
    access: &'a Access,
    notes: &'a [NoteId],
) -> impl Iterator<Item = Placed> + 'a {
    let sees = move |id: NoteId| access.sees(&index.note(id).path);
    notes.iter().filter_map(move |&id| {
        let links_out = outgoing(index, id)
            .iter()
            .any(|o| o.resolution.note().is_some_and(|t| t != id && sees(t)));
        let linked = index
            .backlinks(id)
            .iter()
            .any(|r| r.source != id && sees(r.source));
        (!links_out && !linked).then(|| placed(Kind::Orphan, Some(id), Found::Orphan(id)))
    })
}

/// Titles and aliases shared by several notes.
fn duplicates(index: &VaultIndex, notes: &[NoteId]) -> Vec<Placed> {
    let mut by_name: BTreeMap<String, Vec<(NoteId, NameUse)>> = BTreeMap::new();
    for &id in notes {
        let note = index.note(id);
        // A title that is only the file name is not a name of its own.
        if *note.title != *note.stem() {
            by_name
                .entry(name_key(&note.title))
                .or_default()
                .push((id, NameUse::Title));
        }
        for alias in &note.aliases {
            by_name
                .entry(name_key(alias))
                .or_default()
                .push((id, NameUse::Alias));
        }
    }
    let mut out = Vec::new();
    for (name, mut users) in by_name {
        users.sort_by(|a, b| index.note(a.0).path.cmp(&index.note(b.0).path));
        users.dedup_by(|a, b| a.0 == b.0);
        if users.len() >= 2 {
            let first = users[0].0;
            out.push(placed(
                Kind::Duplicate,
                Some(first),
                Found::Duplicate { name, users },
            ));
        }
    }
    out
}

/// `[[tags.rules]]` a note breaks: required frontmatter keys, file-name
/// prefixes.
fn rule_breaks(index: &VaultIndex, id: NoteId, rules: &[TagRule]) -> Vec<Placed> {
    let note = index.note(id);
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
                let found = Found::MissingKey {
                    note: id,
                    tag: rule.tag.clone(),
                    key: key.clone(),
                };
                out.push(placed(Kind::Rule, Some(id), found));
            }
        }
        if let Some(prefix) = &rule.name_prefix
            && !note.stem().starts_with(prefix.as_str())
        {
            let found = Found::NamePrefix {
                note: id,
                tag: rule.tag.clone(),
                prefix: prefix.clone(),
            };
            out.push(placed(Kind::Rule, Some(id), found));
        }
    }
    out
}

/// Tags the agent sees written several ways.
fn spellings(index: &VaultIndex, access: &Access) -> Vec<Placed> {
    let seen = crate::common::visible_tags(access, index);
    let mut tags: Vec<_> = seen.values().filter(|t| t.spellings.len() > 1).collect();
    tags.sort_by_key(|t| weft_search::index::tag_key(t.display()));
    tags.into_iter()
        .map(|t| {
            let found = Found::Spelling {
                tag: t.display().to_string(),
                spellings: t
                    .spellings
                    .iter()
                    .map(|(s, n)| (s.to_string(), *n))
                    .collect(),
            };
            placed(Kind::Tag, None, found)
        })
        .collect()
}

/// By note path, then line; vault-wide findings last. Stable: the order
/// found within one place stays.
fn sort(index: &VaultIndex, all: &mut [Placed]) {
    all.sort_by(|a, b| {
        let path = |p: &Placed| p.note.map(|id| index.note(id).id());
        a.note
            .is_none()
            .cmp(&b.note.is_none())
            .then_with(|| path(a).cmp(&path(b)))
            .then_with(|| a.line.cmp(&b.line))
    });
}

/// The visible note whose name is closest to an unresolved link's target.
fn suggestion(index: &VaultIndex, access: &Access, found: &Found) -> Option<NoteId> {
    let Found::Problem(Problem::UnresolvedLink { link }) = found else {
        return None;
    };
    match_names(index, index.link(*link).target(), 3)
        .into_iter()
        .find(|m| access.sees(&index.note(m.note).path))
        .map(|m| m.note)
}
