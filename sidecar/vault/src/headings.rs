//! Heading paths: which heading a path of heading names picks out. One set
//! of rules for every tool's `section` (`A::B::C`) and every link fragment
//! (`[[N#A#B#C]]`), so that reading, editing, following, renaming and
//! checking agree. Callers split the path into parts ([`section_parts`],
//! [`fragment_parts`]); this module knows no protocol and does no IO.
//!
//! Terms. A heading's *parent* is the nearest heading before it with a
//! lower level (fewer `#`); a heading without one is *top-level*. A
//! heading's *direct children* are the headings whose parent it is,
//! whatever their level numbers (`# A` then `### B`: B is A's direct
//! child) — exactly the headings one step inside its section
//! ([`Note::section_span`]). A heading's *full path* is the text of its
//! top-level ancestor, then of each direct child down to it: `A::B::C`.
//!
//! A part names a heading when it equals the heading's text (Unicode NFC,
//! any case, runs of white space folded) or the text's slug (`my-heading`
//! for `My Heading!`): [`FragmentKey`], wherever heading text is accepted.
//!
//! Parts `P1 … Pn` name heading H by the first of these rules that fits any
//! heading at all (each rule fits every heading the rule before fits):
//!
//! 1. **Exact**: H's full path is `P1 … Pn` — P1 names a top-level heading
//!    and each next part a direct child of the previous one. `A::C` with
//!    `# A / ## B / ### C / ## C` is the `## C`, never the `### C`.
//! 2. **Suffix**: the last n steps of H's full path are `P1 … Pn` (each step
//!    a direct child); for one part, H's text anywhere in the note.
//! 3. **Inside**: Pn names H and H lies inside the sections of headings
//!    named `P1 … Pn-1`, outermost first, at any depth: `A::C` for
//!    `# A / ## B / ### C`. Links written for Obsidian walk headings this
//!    way, so such links keep working.
//!
//! One heading fitting the deciding rule wins. Several are *ambiguous*: a
//! tool refuses and lists every candidate by full path ([`SectionError`]);
//! a link leads to the first in document order and is reported as an
//! ambiguous fragment. No heading fitting any rule: not found.

use std::fmt;

use super::key::FragmentKey;
use super::note::Note;

/// What a heading path names in a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HeadingMatch {
    /// Index into the note's `headings`.
    Found(usize),
    /// Every heading that fits equally well, in document order (two or
    /// more).
    Ambiguous(Vec<usize>),
    Missing,
}

impl HeadingMatch {
    /// The heading a link goes to: the one found, or the first candidate.
    pub fn first(&self) -> Option<usize> {
        match self {
            HeadingMatch::Found(i) => Some(*i),
            HeadingMatch::Ambiguous(candidates) => candidates.first().copied(),
            HeadingMatch::Missing => None,
        }
    }
}

/// Finds the heading `parts` names, by the rules in the module header.
pub(crate) fn find_heading<S: AsRef<str>>(note: &Note, parts: &[S]) -> HeadingMatch {
    // Most fragments are one heading's text: when at most one heading has
    // it, every rule gives the same answer, found without the note's
    // heading tree (resolving every link of a vault asks this per link).
    if let [only] = parts {
        let key = FragmentKey::new(only.as_ref());
        let mut named = (0..note.headings.len()).filter(|&h| key.matches(&note.headings[h].text));
        match (named.next(), named.next()) {
            (None, _) => return HeadingMatch::Missing,
            (Some(h), None) => return HeadingMatch::Found(h),
            _ => {}
        }
    }
    Query::new(note, parts).find()
}

/// The heading each part names on the way to `heading`, by the narrowest
/// rule under which `parts` name it (one index per part, the last being
/// `heading`); `None` when `parts` do not name it under any rule.
pub(crate) fn heading_steps<S: AsRef<str>>(
    note: &Note,
    parts: &[S],
    heading: usize,
) -> Option<Vec<usize>> {
    let query = Query::new(note, parts);
    let mut steps = Vec::new();
    RULES
        .iter()
        .any(|&rule| query.walk(heading, rule, &mut steps))
        .then_some(steps)
}

/// A tool's section path as parts: `Plan::Next` → `Plan`, `Next`. Each
/// part is trimmed of white space and of leading `#` (`## Next` is
/// accepted); empty parts are dropped.
pub fn section_parts(section: &str) -> Vec<&str> {
    section
        .split("::")
        .map(|p| p.trim().trim_start_matches('#').trim())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A link fragment's heading path as parts: `Plan#Next` → `Plan`, `Next`;
/// each trimmed, empty parts dropped.
pub(crate) fn fragment_parts(fragment: &str) -> Vec<&str> {
    fragment
        .split('#')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Each heading's parent: the nearest heading before it of a lower level.
pub fn parents(note: &Note) -> Vec<Option<usize>> {
    let mut stack: Vec<usize> = Vec::new();
    note.headings
        .iter()
        .enumerate()
        .map(|(i, h)| {
            while stack
                .last()
                .is_some_and(|&j| note.headings[j].level >= h.level)
            {
                stack.pop();
            }
            let parent = stack.last().copied();
            stack.push(i);
            parent
        })
        .collect()
}

/// The full path of every heading, its parts joined by `separator`
/// (`::` for tools, `#` for links).
pub fn heading_paths(note: &Note, separator: &str) -> Vec<String> {
    let parents = parents(note);
    let mut out: Vec<String> = Vec::with_capacity(note.headings.len());
    for (i, h) in note.headings.iter().enumerate() {
        let path = match parents[i] {
            Some(p) => format!("{}{separator}{}", out[p], h.text),
            None => h.text.to_string(),
        };
        out.push(path);
    }
    out
}

/// The full path of one heading, its parts joined by `separator`.
pub fn heading_path(note: &Note, heading: usize, separator: &str) -> String {
    let mut chain = vec![&*note.headings[heading].text];
    let mut level = note.headings[heading].level;
    for h in note.headings[..heading].iter().rev() {
        if h.level < level {
            chain.push(&h.text);
            level = h.level;
        }
    }
    chain.reverse();
    chain.join(separator)
}

/// A tool's section, by the rules of the module header; ambiguity and
/// absence are errors that list what the note has.
pub fn resolve_section(note: &Note, section: &str) -> Result<usize, SectionError> {
    let parts = section_parts(section);
    let section = section.trim().to_string();
    match find_heading(note, &parts) {
        HeadingMatch::Found(i) => Ok(i),
        HeadingMatch::Ambiguous(candidates) => Err(SectionError::Ambiguous {
            section,
            candidates: section_refs(note, candidates),
        }),
        HeadingMatch::Missing => Err(SectionError::NotFound {
            section,
            sections: section_refs(note, 0..note.headings.len()),
        }),
    }
}

fn section_refs(note: &Note, headings: impl IntoIterator<Item = usize>) -> Vec<SectionRef> {
    let paths = heading_paths(note, "::");
    headings
        .into_iter()
        .map(|i| SectionRef {
            path: paths[i].clone(),
            line: note.headings[i].line + 1,
        })
        .collect()
}

/// A heading as tools show it: its full path and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionRef {
    /// `A::B::C`.
    pub path: String,
    /// 1-based.
    pub line: u32,
}

impl fmt::Display for SectionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (line {})", self.path, self.line)
    }
}

/// Why a section path names no single heading. The message lists the
/// choices, so that the caller can name one exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SectionError {
    /// No heading fits; `sections` are all the note's headings.
    NotFound {
        section: String,
        sections: Vec<SectionRef>,
    },
    /// Several headings fit equally well, in document order.
    Ambiguous {
        section: String,
        candidates: Vec<SectionRef>,
    },
}

/// How many sections a "not found" message lists.
const LISTED: usize = 30;

impl fmt::Display for SectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SectionError::NotFound { section, sections } if sections.is_empty() => {
                write!(f, "no section `{section}`: the note has no headings")
            }
            SectionError::NotFound { section, sections } => {
                write!(
                    f,
                    "no section `{section}`; the note's sections are {}",
                    list(&sections[..sections.len().min(LISTED)])
                )?;
                if sections.len() > LISTED {
                    write!(f, ", … ({} in all)", sections.len())?;
                }
                f.write_str(". Name one by its heading or its full path `Parent::Child`")
            }
            SectionError::Ambiguous {
                section,
                candidates,
            } => write!(
                f,
                "section `{section}` is ambiguous: {}; name the full path",
                list(candidates)
            ),
        }
    }
}

impl std::error::Error for SectionError {}

fn list(refs: &[SectionRef]) -> String {
    refs.iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Exact,
    Suffix,
    Inside,
}

/// Narrowest first: each rule fits every heading the one before fits.
const RULES: [Rule; 3] = [Rule::Exact, Rule::Suffix, Rule::Inside];

/// A heading path prepared for matching against one note.
struct Query<'a> {
    note: &'a Note,
    parts: Vec<FragmentKey>,
    parents: Vec<Option<usize>>,
}

impl<'a> Query<'a> {
    fn new<S: AsRef<str>>(note: &'a Note, parts: &[S]) -> Self {
        Query {
            note,
            parts: parts.iter().map(|p| FragmentKey::new(p.as_ref())).collect(),
            parents: parents(note),
        }
    }

    fn names(&self, part: usize, heading: usize) -> bool {
        self.parts[part].matches(&self.note.headings[heading].text)
    }

    fn find(&self) -> HeadingMatch {
        let Some(last) = self.parts.len().checked_sub(1) else {
            return HeadingMatch::Missing;
        };
        // Every rule needs the last part to name the heading itself.
        let named: Vec<usize> = (0..self.note.headings.len())
            .filter(|&h| self.names(last, h))
            .collect();
        let mut steps = Vec::new();
        for rule in RULES {
            let fits: Vec<usize> = named
                .iter()
                .copied()
                .filter(|&h| self.walk(h, rule, &mut steps))
                .collect();
            match fits.len() {
                0 => continue,
                1 => return HeadingMatch::Found(fits[0]),
                _ => return HeadingMatch::Ambiguous(fits),
            }
        }
        HeadingMatch::Missing
    }

    /// Whether the parts name `heading` under `rule`; `steps` gets the
    /// heading each part names, outermost first.
    fn walk(&self, heading: usize, rule: Rule, steps: &mut Vec<usize>) -> bool {
        steps.clear();
        let Some(last) = self.parts.len().checked_sub(1) else {
            return false;
        };
        if !self.names(last, heading) {
            return false;
        }
        steps.push(heading);
        let mut above = self.parents[heading];
        for part in (0..last).rev() {
            let found = match rule {
                // The parent itself must be named by the part.
                Rule::Exact | Rule::Suffix => above.filter(|&p| self.names(part, p)),
                // The nearest ancestor the part names.
                Rule::Inside => std::iter::successors(above, |&p| self.parents[p])
                    .find(|&p| self.names(part, p)),
            };
            let Some(step) = found else {
                return false;
            };
            steps.push(step);
            above = self.parents[step];
        }
        if rule == Rule::Exact && above.is_some() {
            return false;
        }
        steps.reverse();
        true
    }
}
