//! Queries shared by every face (CLI, language server, MCP): finding a note
//! from what a person typed, backlinks with context, outgoing links, graph
//! walks and vault checks.
//!
//! Note text is supplied by the caller through [`TextSource`], so that the
//! domain does no IO and editors can supply unsaved buffers.

use std::borrow::Cow;

use super::filter::{FileMeta, Filter, select};
use super::index::{LinkRef, NoteId, VaultIndex};
use super::key::{name_key, path_key};
use super::note::{Link, Note, Span, text_hash};
use super::parse::parse_text;
use super::props::{PropType, Types, misfits};
use super::resolve::{FragmentLookup, FragmentTarget, Resolution, lookup_fragment};

/// The index's own parse of the note at `path` when it was made from this
/// very `text` (same path, length and hash): what `parse_text(path, text)`
/// would give, without parsing.
pub fn indexed_parse<'i>(index: &'i VaultIndex, path: &str, text: &str) -> Option<&'i Note> {
    let note = index.note(index.id_of(path)?);
    if *note.path != *path || note.len as usize != text.len() {
        return None;
    }
    (note.content_hash == text_hash(text)).then_some(note)
}

/// The links of the note at `path` whose text is `text`: the index's own
/// parse when it was made from this very text ([`indexed_parse`]), else a
/// fresh parse. Saves parsing a thousand notes twice in a large move.
pub fn links_of<'i>(index: &'i VaultIndex, path: &str, text: &str) -> Cow<'i, [Link]> {
    match indexed_parse(index, path, text) {
        Some(note) => Cow::Borrowed(&note.links),
        None => Cow::Owned(parse_text(path, text).links),
    }
}

/// Supplies a note's current text by vault path (disk, or an open buffer).
/// Shared across threads: a large rename reads its notes in parallel.
pub trait TextSource: Sync {
    fn text(&self, path: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String> + Sync> TextSource for F {
    fn text(&self, path: &str) -> Option<String> {
        self(path)
    }
}

/// What a person's name for a note turned out to mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(NoteId),
    /// Several notes fit equally well, sorted by path.
    Ambiguous(Vec<NoteId>),
    /// No note, but links point at this name: a note that does not exist yet.
    Unresolved {
        target: String,
        links: Vec<LinkRef>,
    },
    /// Nothing; the closest names, best first.
    NotFound {
        suggestions: Vec<NoteId>,
    },
}

/// Finds a note from a path (with or without `.md`), a `[[wikilink]]` target,
/// a title or an alias, as the resolver would from the vault root.
pub fn lookup(index: &VaultIndex, input: &str) -> Lookup {
    let input = input.trim().trim_start_matches("[[").trim_end_matches("]]");
    let input = input.split(['|', '#']).next().unwrap_or(input).trim();
    if let Some(id) = index.id_of(input) {
        return Lookup::Found(id);
    }
    match index.resolve("", input, super::note::LinkKind::Wiki) {
        Resolution::Note(id) => return Lookup::Found(id),
        Resolution::Ambiguous { candidates, .. } => return Lookup::Ambiguous(candidates),
        _ => {}
    }
    let links = index.unresolved_links_to(input);
    if !links.is_empty() {
        return Lookup::Unresolved {
            target: input.to_string(),
            links,
        };
    }
    Lookup::NotFound {
        suggestions: suggest(index, input, 5),
    }
}

/// The notes whose stem, title, alias or path is closest to `input`.
pub fn suggest(index: &VaultIndex, input: &str, limit: usize) -> Vec<NoteId> {
    let wanted = path_key(input);
    let mut scored: Vec<(f64, &str, NoteId)> = index
        .notes()
        .map(|(id, note)| {
            let path = path_key(&note.path);
            let stem = path.rsplit('/').next().unwrap_or(&path).to_string();
            let mut best = score(&wanted, &stem).max(score(&wanted, &path));
            best = best.max(score(&wanted, &name_key(&note.title)));
            for alias in &note.aliases {
                best = best.max(score(&wanted, &name_key(alias)));
            }
            (best, &*note.path, id)
        })
        .filter(|(s, _, _)| *s >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, id)| id)
        .collect()
}

/// Notes for name completion: with an empty prefix, the most linked notes;
/// otherwise notes whose stem, title, alias or path starts with or contains
/// the prefix (case- and accent-form-insensitive), prefix matches first,
/// then close names. Ties go to the shorter path.
pub fn complete_names(index: &VaultIndex, prefix: &str, limit: usize) -> Vec<NoteId> {
    let wanted = path_key(prefix.trim());
    if wanted.is_empty() {
        let mut all: Vec<(usize, &str, NoteId)> = index
            .notes()
            .map(|(id, n)| (index.backlinks(id).len(), &*n.path, id))
            .collect();
        all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        return all.into_iter().take(limit).map(|(_, _, id)| id).collect();
    }
    let mut ranked: Vec<(u8, usize, &str, NoteId)> = index
        .notes()
        .filter_map(|(id, note)| {
            let path = path_key(&note.path);
            let stem = path.rsplit('/').next().unwrap_or(&path).to_string();
            let mut names = vec![stem, name_key(&note.title)];
            names.extend(note.aliases.iter().map(|a| name_key(a)));
            let rank = if names.iter().any(|n| n.starts_with(&wanted)) {
                0
            } else if names.iter().any(|n| n.contains(&wanted)) || path.contains(&wanted) {
                1
            } else if names
                .iter()
                .any(|n| strsim::jaro_winkler(&wanted, n) >= 0.85)
            {
                2
            } else {
                return None;
            };
            Some((rank, note.path.len(), &*note.path, id))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then_with(|| a.2.cmp(b.2)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, _, _, id)| id)
        .collect()
}

fn score(wanted: &str, candidate: &str) -> f64 {
    let similarity = strsim::jaro_winkler(wanted, candidate);
    if candidate.contains(wanted) && !wanted.is_empty() {
        similarity.max(0.9)
    } else {
        similarity
    }
}

/// The line holding `span`, trimmed, cut to about `max` characters around it.
pub fn line_context(text: &str, span: &Span, max: usize) -> String {
    let start = (span.start as usize).min(text.len());
    let end = (span.end as usize).clamp(start, text.len());
    let line_start = super::lines::line_start_at(text, start);
    let line_end = super::lines::line_end_at(text, end);
    let line = &text[line_start..line_end];
    if line.chars().count() <= max {
        return line.trim().to_string();
    }
    // Keep the link in view: start a little before it.
    let link_at = start - line_start;
    let mut from = link_at.saturating_sub(max / 3);
    while !line.is_char_boundary(from) {
        from -= 1;
    }
    let rest = &line[from..];
    let cut: String = rest.chars().take(max).collect();
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(cut.trim());
    if cut.len() < rest.len() {
        out.push('…');
    }
    out
}

/// An outgoing link with what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutLink {
    pub link: u32,
    pub resolution: Resolution,
    /// For a link with a fragment into a note: what the fragment names
    /// (for an ambiguous heading path, the first candidate).
    pub fragment: Option<FragmentTarget>,
    /// When the fragment's heading path fits several headings of the
    /// target: all of them, in document order; else empty.
    pub fragment_candidates: Vec<usize>,
}

pub fn outgoing(index: &VaultIndex, source: NoteId) -> Vec<OutLink> {
    let note = index.note(source);
    note.links
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let resolution = index.resolve_link(source, link);
            let (fragment, fragment_candidates) = match fragment_target(index, &resolution, link) {
                Some(found) => (Some(found.target), found.ambiguous),
                None => (None, Vec::new()),
            };
            OutLink {
                link: i as u32,
                resolution,
                fragment,
                fragment_candidates,
            }
        })
        .collect()
}

fn fragment_target(
    index: &VaultIndex,
    resolution: &Resolution,
    link: &Link,
) -> Option<FragmentLookup> {
    let fragment = link.fragment()?;
    let target = resolution.note()?;
    Some(lookup_fragment(index.note(target), fragment))
}

/// A problem `check` found, with where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    UnresolvedLink {
        link: LinkRef,
    },
    AmbiguousLink {
        link: LinkRef,
        candidates: Vec<NoteId>,
        chosen: NoteId,
    },
    BrokenFragment {
        link: LinkRef,
        target: NoteId,
    },
    /// A `#A#B` fragment that several headings of `target` fit equally
    /// well (indices into its `headings`, in document order); the link
    /// leads to the first.
    AmbiguousFragment {
        link: LinkRef,
        target: NoteId,
        candidates: Vec<usize>,
    },
    /// A diagnostic from parsing (invalid UTF-8, malformed YAML, duplicate
    /// block id).
    Parse {
        note: NoteId,
        index: usize,
    },
    /// The value of the property `key` does not fit its type: `expected`,
    /// declared in `types.json` or agreed by the vault's values.
    PropertyType {
        note: NoteId,
        key: Box<str>,
        expected: PropType,
        declared: bool,
    },
}

impl Problem {
    pub fn note(&self) -> NoteId {
        match self {
            Problem::UnresolvedLink { link }
            | Problem::AmbiguousLink { link, .. }
            | Problem::BrokenFragment { link, .. }
            | Problem::AmbiguousFragment { link, .. } => link.source,
            Problem::Parse { note, .. } | Problem::PropertyType { note, .. } => *note,
        }
    }

    /// 0-based line.
    pub fn line(&self, index: &VaultIndex) -> u32 {
        match self {
            Problem::UnresolvedLink { link }
            | Problem::AmbiguousLink { link, .. }
            | Problem::BrokenFragment { link, .. }
            | Problem::AmbiguousFragment { link, .. } => index.link(*link).line,
            Problem::Parse { note, index: i } => index.note(*note).diagnostics[*i].line,
            // Where the frontmatter starts: the index keeps no key's line.
            Problem::PropertyType { .. } => 0,
        }
    }
}

/// Every problem of the notes that pass `which` (THE note filter:
/// [`Filter::All`] for the whole vault, a folder, the agent's sight),
/// sorted by note path and line. The filter is judged on the index alone
/// (a file time it names is unknown here: it fails).
pub fn check(index: &VaultIndex, which: &Filter, types: &Types) -> Vec<Problem> {
    select(index, which, |_| FileMeta::default())
        .into_iter()
        .flat_map(|id| {
            let mut problems = problems_of(index, id);
            problems.extend(property_problems(index, id, types));
            problems
        })
        .collect()
}

/// The properties of note `id` whose value does not fit their type
/// ([`crate::props::misfits`]).
pub fn property_problems(index: &VaultIndex, id: NoteId, types: &Types) -> Vec<Problem> {
    let Some(values) = index.note(id).frontmatter.as_deref() else {
        return Vec::new();
    };
    misfits(values, index.props(), types)
        .into_iter()
        .map(|(key, expected, declared)| Problem::PropertyType {
            note: id,
            key: key.into(),
            expected,
            declared,
        })
        .collect()
}

/// The problems of one note: what the parser reported, then its links in
/// order.
pub fn problems_of(index: &VaultIndex, id: NoteId) -> Vec<Problem> {
    let note = index.note(id);
    let mut problems: Vec<Problem> = (0..note.diagnostics.len())
        .map(|i| Problem::Parse { note: id, index: i })
        .collect();
    for out in outgoing(index, id) {
        let link = LinkRef {
            source: id,
            link: out.link,
        };
        let target = out.resolution.note();
        match out.resolution {
            Resolution::Unresolved => problems.push(Problem::UnresolvedLink { link }),
            Resolution::Ambiguous { chosen, candidates } => problems.push(Problem::AmbiguousLink {
                link,
                candidates,
                chosen,
            }),
            _ => {}
        }
        let Some(target) = target else {
            continue;
        };
        if out.fragment == Some(FragmentTarget::Missing) {
            problems.push(Problem::BrokenFragment { link, target });
        } else if !out.fragment_candidates.is_empty() {
            problems.push(Problem::AmbiguousFragment {
                link,
                target,
                candidates: out.fragment_candidates,
            });
        }
    }
    problems
}

/// Vault-wide counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub notes: usize,
    pub attachments: usize,
    pub bytes: u64,
    pub links: usize,
    pub resolved: usize,
    pub ambiguous: usize,
    pub unresolved: usize,
    pub unresolved_targets: usize,
    pub tags: usize,
    pub headings: usize,
    pub blocks: usize,
    pub orphans: usize,
}

pub fn stats(index: &VaultIndex) -> Stats {
    stats_of(index, None)
}

/// [`stats`] of what the caller `sees` (vault paths; the agent's access
/// rule): its notes, attachments and tags, links from its notes only, and a
/// link to a note it does not see counted as unresolved.
pub fn stats_of(index: &VaultIndex, sees: Option<&dyn Fn(&str) -> bool>) -> Stats {
    let seen = |path: &str| sees.is_none_or(|s| s(path));
    let mut s = Stats {
        attachments: index.attachments().filter(|p| seen(p)).count(),
        ..Stats::default()
    };
    let mut tags = std::collections::HashMap::new();
    let mut unresolved_targets = std::collections::HashSet::new();
    let mut linked: std::collections::HashSet<NoteId> = std::collections::HashSet::new();
    for (id, note) in index.notes().filter(|(_, n)| seen(&n.path)) {
        s.notes += 1;
        s.bytes += u64::from(note.len);
        s.headings += note.headings.len();
        s.blocks += note.blocks.len();
        if sees.is_some() {
            super::index::count_tags(&mut tags, note);
        }
        for out in outgoing(index, id) {
            s.links += 1;
            // A note the caller may not see is no answer to the link.
            let unseen = out
                .resolution
                .note()
                .is_some_and(|t| !seen(&index.note(t).path));
            if unseen || matches!(out.resolution, Resolution::Unresolved) {
                s.unresolved += 1;
                // Only a restricted count needs the targets (the index
                // keeps them for the whole vault).
                if sees.is_some() {
                    unresolved_targets.insert(name_key(note.links[out.link as usize].target()));
                }
                continue;
            }
            match &out.resolution {
                Resolution::Unresolved => {} // counted above
                Resolution::Ambiguous { chosen, .. } => {
                    s.ambiguous += 1;
                    s.resolved += 1;
                    linked.insert(*chosen);
                    linked.insert(id);
                }
                Resolution::Note(target) => {
                    s.resolved += 1;
                    if *target != id {
                        linked.insert(*target);
                        linked.insert(id);
                    }
                }
                Resolution::Attachment(_) => s.resolved += 1,
            }
        }
    }
    s.orphans = s.notes - linked.len();
    match sees {
        None => {
            s.tags = index.tags().len();
            s.unresolved_targets = index.unresolved().len();
        }
        Some(_) => {
            s.tags = tags.len();
            s.unresolved_targets = unresolved_targets.len();
        }
    }
    s
}
