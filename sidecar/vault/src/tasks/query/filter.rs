//! The filters of a ```` ```tasks ```` query: one line read as the Tasks
//! plugin reads it (its fields tried in its order), what a task must be to
//! pass, and the line explained with its dates expanded. Boolean lines
//! (`(a) OR (b)`) are `boolean.rs`'s, each filter inside read here.
//!
//! The days a date filter names are read by `when.rs` (THE reader of task
//! days), statuses by the settings' statuses, tags by THE tag rule.

use regex::Regex;

use super::super::select::{PriorityTest, When, contains_folded, heading_of, tags_of};
use super::super::status::StatusType;
use super::super::when::{self, Days};
use std::borrow::Cow;

use super::super::{DateKind, Priority, Task, TaskSettings};
use crate::date::Date;
use crate::note::{Note, folder_of, strip_md};

/// A filter: one test, or tests joined.
#[derive(Debug, Clone)]
pub enum Filter {
    Test(Test),
    And(Box<Filter>, Box<Filter>),
    Or(Box<Filter>, Box<Filter>),
    Xor(Box<Filter>, Box<Filter>),
    Not(Box<Filter>),
}

/// One test, as written (`line`), with what it asks.
#[derive(Debug, Clone)]
pub struct Test {
    pub line: String,
    pub ask: Ask,
}

/// The date a date test reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateOf {
    One(DateKind),
    /// Start, scheduled or due (any of them).
    Happens,
}

impl DateOf {
    /// As the plugin names it in instructions: `starts`, `due`, `happens`…
    fn instruction(self) -> &'static str {
        match self {
            DateOf::One(DateKind::Start) => "starts",
            DateOf::One(kind) => kind.name(),
            DateOf::Happens => "happens",
        }
    }

    /// As it names it in `has … date` and explanations.
    pub(crate) fn name(self) -> &'static str {
        match self {
            DateOf::One(kind) => kind.name(),
            DateOf::Happens => "happens",
        }
    }

    /// The plugin's order of trying them.
    const ALL: [DateOf; 7] = [
        DateOf::Happens,
        DateOf::One(DateKind::Cancelled),
        DateOf::One(DateKind::Created),
        DateOf::One(DateKind::Start),
        DateOf::One(DateKind::Scheduled),
        DateOf::One(DateKind::Due),
        DateOf::One(DateKind::Done),
    ];

    /// The days of a task it reads.
    pub(crate) fn dates(self, task: Task<'_>) -> impl Iterator<Item = super::super::TaskDate> {
        let kinds: &[DateKind] = match self {
            DateOf::One(DateKind::Created) => &[DateKind::Created],
            DateOf::One(DateKind::Start) => &[DateKind::Start],
            DateOf::One(DateKind::Scheduled) => &[DateKind::Scheduled],
            DateOf::One(DateKind::Due) => &[DateKind::Due],
            DateOf::One(DateKind::Cancelled) => &[DateKind::Cancelled],
            DateOf::One(DateKind::Done) => &[DateKind::Done],
            DateOf::Happens => &[DateKind::Start, DateKind::Scheduled, DateKind::Due],
        };
        kinds.iter().map(move |k| task.date(*k))
    }
}

/// A text a text test reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOf {
    StatusName,
    Path,
    Folder,
    Root,
    Backlink,
    Description,
    Heading,
    Filename,
    Recurrence,
    Id,
}

impl TextOf {
    const ALL: [(TextOf, &'static str); 10] = [
        (TextOf::StatusName, "status.name"),
        (TextOf::Path, "path"),
        (TextOf::Folder, "folder"),
        (TextOf::Root, "root"),
        (TextOf::Backlink, "backlink"),
        (TextOf::Description, "description"),
        (TextOf::Heading, "heading"),
        (TextOf::Filename, "filename"),
        (TextOf::Recurrence, "recurrence"),
        (TextOf::Id, "id"),
    ];
}

/// How a text is matched.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Holds these words, any case (lower-cased here).
    Includes(String),
    Regex(Regex),
}

impl Matcher {
    pub(crate) fn matches(&self, text: &str) -> bool {
        match self {
            Matcher::Includes(words) => contains_folded(text, words),
            Matcher::Regex(re) => re.is_match(text),
        }
    }
}

/// What a test asks of a task.
#[derive(Debug, Clone)]
pub enum Ask {
    /// `done` (DONE, CANCELLED, NON_TASK) or `not done`.
    Done(bool),
    StatusType {
        kind: StatusType,
        is: bool,
    },
    Recurring(bool),
    Priority(PriorityTest),
    /// A date `when`; `missing` is the answer for a task without the date.
    Date {
        of: DateOf,
        when: When,
        missing: bool,
    },
    Text {
        of: TextOf,
        matcher: Matcher,
        negate: bool,
    },
    Tags {
        matcher: Matcher,
        negate: bool,
    },
    HasTags(bool),
    HasId(bool),
    HasDependsOn(bool),
    Blocked(bool),
    Blocking(bool),
    /// Not indented under another list item.
    NotSubItem,
}

/// What a test may look up beyond its task: the vault's dependencies.
#[derive(Debug, Default)]
pub struct Deps {
    /// Ids held by tasks not done.
    pub open_ids: std::collections::HashSet<Box<str>>,
    /// Ids that tasks not done depend on.
    pub needed: std::collections::HashSet<Box<str>>,
}

/// What a test is run with.
pub struct Env<'a> {
    pub settings: &'a TaskSettings,
    pub today: Date,
    pub deps: &'a Deps,
}

impl Filter {
    /// Whether the filter needs the vault's dependencies.
    pub fn uses_deps(&self) -> bool {
        match self {
            Filter::Test(t) => matches!(t.ask, Ask::Blocked(_) | Ask::Blocking(_)),
            Filter::And(a, b) | Filter::Or(a, b) | Filter::Xor(a, b) => {
                a.uses_deps() || b.uses_deps()
            }
            Filter::Not(a) => a.uses_deps(),
        }
    }

    pub fn matches(&self, env: &Env, note: &Note, task: Task<'_>) -> bool {
        match self {
            Filter::Test(t) => t.ask.matches(env, note, task),
            Filter::And(a, b) => a.matches(env, note, task) && b.matches(env, note, task),
            Filter::Or(a, b) => a.matches(env, note, task) || b.matches(env, note, task),
            Filter::Xor(a, b) => a.matches(env, note, task) != b.matches(env, note, task),
            Filter::Not(a) => !a.matches(env, note, task),
        }
    }

    /// The explanation's lines, indented by `depth` (two spaces a level).
    pub fn explain(&self, today: Date, depth: usize, out: &mut Vec<String>) {
        let pad = "  ".repeat(depth);
        let (name, words, parts): (&str, &str, Vec<&Filter>) = match self {
            Filter::Test(t) => {
                let lines = t.ask.explain(today, &t.line);
                if lines.len() == 1 && lines[0] == t.line {
                    out.push(format!("{pad}{}", t.line));
                } else {
                    out.push(format!("{pad}{} =>", t.line));
                    out.extend(lines.into_iter().map(|l| format!("{pad}  {l}")));
                }
                return;
            }
            Filter::And(..) => (
                "AND",
                "All of",
                self.chain(|f| matches!(f, Filter::And(..))),
            ),
            Filter::Or(..) => (
                "OR",
                "At least one of",
                self.chain(|f| matches!(f, Filter::Or(..))),
            ),
            Filter::Xor(a, b) => ("XOR", "Exactly one of", vec![&**a, &**b]),
            Filter::Not(a) => ("NOT", "None of", vec![&**a]),
        };
        out.push(format!("{pad}{name} ({words}):"));
        for part in parts {
            part.explain(today, depth + 1, out);
        }
    }

    /// The operands of a run of one operator, flattened.
    fn chain(&self, same: impl Fn(&Filter) -> bool + Copy) -> Vec<&Filter> {
        match self {
            Filter::And(a, b) | Filter::Or(a, b) if same(self) => {
                let mut out = a.chain(same);
                out.extend(b.chain(same));
                out
            }
            other => vec![other],
        }
    }
}

impl Ask {
    fn matches(&self, env: &Env, note: &Note, task: Task<'_>) -> bool {
        let kind = || env.settings.statuses.kind(task.symbol);
        match self {
            Ask::Done(done) => kind().is_done() == *done,
            Ask::StatusType { kind: k, is } => (kind() == *k) == *is,
            Ask::Recurring(r) => task.recurrence().is_some() == *r,
            Ask::Priority(test) => test.matches(task.priority),
            Ask::Date { of, when, missing } => match when {
                When::Any => of.dates(task).any(|d| d.is_set()),
                When::None => !of.dates(task).any(|d| d.is_set()),
                _ => {
                    let mut any_set = false;
                    for date in of.dates(task) {
                        any_set |= date.is_set();
                        if date.is_set() && when.matches(date) {
                            return true;
                        }
                    }
                    !any_set && *missing
                }
            },
            Ask::Text {
                of,
                matcher,
                negate,
            } => matcher.matches(&text_of(*of, env.settings, note, task)) != *negate,
            Ask::Tags { matcher, negate } => {
                tags_of(note, task).any(|t| matcher.matches(&format!("#{}", t.name))) != *negate
            }
            Ask::HasTags(has) => tags_of(note, task).next().is_some() == *has,
            Ask::HasId(has) => task.id().is_some_and(|id| !id.is_empty()) == *has,
            Ask::HasDependsOn(has) => task.depends_on().is_empty() != *has,
            Ask::Blocked(blocked) => {
                let is = !kind().is_done()
                    && task
                        .depends_on()
                        .iter()
                        .any(|id| env.deps.open_ids.contains(id));
                is == *blocked
            }
            Ask::Blocking(blocking) => {
                let is = !kind().is_done()
                    && task
                        .id()
                        .is_some_and(|id| !id.is_empty() && env.deps.needed.contains(id));
                is == *blocking
            }
            Ask::NotSubItem => !task.sub_item,
        }
    }

    /// What the test does in words (the line itself when it says it
    /// plainly).
    fn explain(&self, today: Date, line: &str) -> Vec<String> {
        let show = |day: i64| crate::daily::format_date(Date::from_days(day), EXPLAIN_DATE);
        match self {
            Ask::Done(true) => vec!["status type is DONE or CANCELLED or NON_TASK".into()],
            Ask::Done(false) => vec!["status type is TODO or IN_PROGRESS or ON_HOLD".into()],
            Ask::Date { of, when, missing } => {
                let name = match of {
                    DateOf::Happens => "due, start or scheduled",
                    DateOf::One(kind) => kind.name(),
                };
                let or_none = if *missing {
                    format!(" OR no {name} date")
                } else {
                    String::new()
                };
                let one = |how: &str, day: i64| {
                    vec![format!("{name} date is {how} {}{or_none}", show(day))]
                };
                match *when {
                    When::Before(d) => one("before", d.first),
                    When::After(d) => one("after", d.last),
                    When::OnOrBefore(d) => one("on or before", d.last),
                    When::OnOrAfter(d) => one("on or after", d.first),
                    When::In(d) if d.first == d.last => one("on", d.first),
                    When::In(d) => {
                        let mut lines = vec![
                            format!("{name} date is between:"),
                            format!("  {} and", show(d.first)),
                            format!("  {} inclusive", show(d.last)),
                        ];
                        if *missing {
                            lines.push(format!("  OR no {name} date"));
                        }
                        lines
                    }
                    _ => vec![line.to_string()],
                }
            }
            Ask::Text {
                matcher: Matcher::Regex(re),
                ..
            }
            | Ask::Tags {
                matcher: Matcher::Regex(re),
                ..
            } => vec![format!("using regex: '{}'", re.as_str())],
            _ => {
                let _ = today;
                vec![line.to_string()]
            }
        }
    }
}

/// How explanations show a day: `2022-10-22 (Saturday 22nd October 2022)`.
const EXPLAIN_DATE: &str = "YYYY-MM-DD (dddd Do MMMM YYYY)";

/// The text a text test reads, as the plugin gives it: the path with
/// `.md`; the folder with a trailing `/` (`/` at the top); the top folder
/// likewise; the file name with `.md`; the nearest heading above (empty
/// when none); the description without the global filter.
pub(crate) fn text_of<'n>(
    of: TextOf,
    settings: &TaskSettings,
    note: &'n Note,
    task: Task<'n>,
) -> Cow<'n, str> {
    let path = &*note.path;
    let filename = path.rsplit('/').next().unwrap_or(path);
    match of {
        TextOf::StatusName => Cow::Owned(settings.statuses.of(task.symbol).name.to_string()),
        TextOf::Path => Cow::Borrowed(path),
        TextOf::Folder => Cow::Owned(folder_text(path)),
        TextOf::Root => Cow::Owned(root_text(path)),
        TextOf::Filename => Cow::Borrowed(filename),
        TextOf::Heading => Cow::Borrowed(heading_of(note, task).map_or("", |h| &*h.text)),
        TextOf::Backlink => Cow::Owned(match heading_of(note, task) {
            Some(h) => format!("{} > {}", strip_md(filename), h.text),
            None => strip_md(filename).to_string(),
        }),
        TextOf::Description => description(settings, task),
        TextOf::Recurrence => Cow::Owned(task.recurrence().map_or(String::new(), |rule| {
            super::super::recur::Recurrence::parse(rule)
                .map_or_else(|_| rule.to_string(), |r| r.to_text())
        })),
        TextOf::Id => Cow::Borrowed(task.id().unwrap_or("")),
    }
}

/// A note's folder as the plugin writes it: `a/b/`, `/` at the top.
pub(crate) fn folder_text(path: &str) -> String {
    match folder_of(path) {
        "" => "/".into(),
        folder => format!("{folder}/"),
    }
}

/// A note's top folder as the plugin writes it: `a/`, `/` at the top.
pub(crate) fn root_text(path: &str) -> String {
    match path.split_once('/') {
        Some((top, _)) => format!("{top}/"),
        None => "/".into(),
    }
}

/// The description without the global filter, trimmed.
pub(crate) fn description<'n>(settings: &TaskSettings, task: Task<'n>) -> Cow<'n, str> {
    if settings.global_filter.is_empty() {
        return Cow::Borrowed(task.description().trim());
    }
    Cow::Owned(
        task.description()
            .replacen(&*settings.global_filter, "", 1)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Reads one filter line that is not a boolean one, on `today`. `None`:
/// not such a filter (`mod.rs` then tries a boolean line).
pub(super) fn parse_test(line: &str, today: Date) -> Option<Result<Filter, String>> {
    let line = line.trim();
    let lower = line.to_lowercase();
    let test = |ask: Ask| {
        Some(Ok(Filter::Test(Test {
            line: line.to_string(),
            ask,
        })))
    };
    type Make = fn() -> Ask;
    let fixed: &[(&str, Make)] = &[
        ("done", || Ask::Done(true)),
        ("not done", || Ask::Done(false)),
        ("is recurring", || Ask::Recurring(true)),
        ("is not recurring", || Ask::Recurring(false)),
        ("has tags", || Ask::HasTags(true)),
        ("has tag", || Ask::HasTags(true)),
        ("no tags", || Ask::HasTags(false)),
        ("no tag", || Ask::HasTags(false)),
        ("has id", || Ask::HasId(true)),
        ("no id", || Ask::HasId(false)),
        ("has depends on", || Ask::HasDependsOn(true)),
        ("no depends on", || Ask::HasDependsOn(false)),
        ("is blocking", || Ask::Blocking(true)),
        ("is not blocking", || Ask::Blocking(false)),
        ("is blocked", || Ask::Blocked(true)),
        ("is not blocked", || Ask::Blocked(false)),
        ("exclude sub-items", || Ask::NotSubItem),
    ];
    // `status.name` and `status.type` before `done`/`not done`, as the
    // plugin tries them; they cannot be confused with a fixed line.
    if let Some(result) = text_test(line, &lower, TextOf::StatusName, "status.name") {
        return Some(result.map(|(matcher, negate)| {
            Filter::Test(Test {
                line: line.to_string(),
                ask: Ask::Text {
                    of: TextOf::StatusName,
                    matcher,
                    negate,
                },
            })
        }));
    }
    if lower.starts_with("status.type") {
        return Some(status_type(&lower).map(|ask| {
            Filter::Test(Test {
                line: line.to_string(),
                ask,
            })
        }));
    }
    if let Some((_, ask)) = fixed.iter().find(|(text, _)| *text == lower) {
        return test(ask());
    }
    if lower.starts_with("priority") {
        return Some(priority(&lower).map(|ask| {
            Filter::Test(Test {
                line: line.to_string(),
                ask,
            })
        }));
    }
    for of in DateOf::ALL {
        if let Some(result) = date_test(&lower, of, today) {
            return Some(result.map(|ask| {
                Filter::Test(Test {
                    line: line.to_string(),
                    ask,
                })
            }));
        }
    }
    for (of, name) in TextOf::ALL {
        if of == TextOf::StatusName {
            continue;
        }
        if let Some(result) = text_test(line, &lower, of, name) {
            return Some(result.map(|(matcher, negate)| {
                Filter::Test(Test {
                    line: line.to_string(),
                    ask: Ask::Text {
                        of,
                        matcher,
                        negate,
                    },
                })
            }));
        }
    }
    if let Some(result) = tags_test(line, &lower) {
        return Some(result.map(|(matcher, negate)| {
            Filter::Test(Test {
                line: line.to_string(),
                ask: Ask::Tags { matcher, negate },
            })
        }));
    }
    if lower.starts_with("filter by function") {
        return Some(Err(
            "`filter by function` runs JavaScript in Obsidian; Weft cannot run it".into(),
        ));
    }
    None
}

/// `status.type is DONE`, `status.type is not IN_PROGRESS`.
fn status_type(lower: &str) -> Result<Ask, String> {
    let rest = lower["status.type".len()..].trim_start();
    let (is, word) = if let Some(w) = rest.strip_prefix("is not ") {
        (false, w)
    } else if let Some(w) = rest.strip_prefix("is ") {
        (true, w)
    } else {
        return Err(status_type_help());
    };
    let word = word.trim();
    if word.contains(' ') {
        return Err(status_type_help());
    }
    StatusType::parse(word)
        .map(|kind| Ask::StatusType { kind, is })
        .ok_or_else(status_type_help)
}

fn status_type_help() -> String {
    "write `status.type is TYPE` or `status.type is not TYPE`, TYPE one of TODO, IN_PROGRESS, \
     ON_HOLD, DONE, CANCELLED, NON_TASK"
        .into()
}

/// `priority is above medium`, `priority is high`, `priority below none`.
fn priority(lower: &str) -> Result<Ask, String> {
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut rest = &words[1..];
    if rest.first() == Some(&"is") {
        rest = &rest[1..];
    }
    let bad = || {
        "do not understand priority; write `priority is [above|below|not] \
         lowest|low|none|medium|high|highest`"
            .to_string()
    };
    let (make, name): (fn(Priority) -> PriorityTest, &str) = match rest {
        ["above", p] => (PriorityTest::Above, p),
        ["below", p] => (PriorityTest::Below, p),
        ["not", p] => (PriorityTest::Not, p),
        [p] => (PriorityTest::Is, p),
        _ => return Err(bad()),
    };
    Priority::parse(name)
        .map(|p| Ask::Priority(make(p)))
        .ok_or_else(bad)
}

/// A date line of `of`: `has due date`, `no due date`, `due date is
/// invalid`, `due before tomorrow`, `due in next week`, `due 2024-W05`,
/// `starts after 2 weeks ago`. `None`: not about this date.
fn date_test(lower: &str, of: DateOf, today: Date) -> Option<Result<Ask, String>> {
    let name = of.name();
    let date = |when: When| Ask::Date {
        of,
        when,
        missing: false,
    };
    if lower == format!("has {name} date") {
        return Some(Ok(date(When::Any)));
    }
    if lower == format!("no {name} date") {
        return Some(Ok(date(When::None)));
    }
    if of != DateOf::Happens && lower == format!("{name} date is invalid") {
        return Some(Ok(date(When::Invalid)));
    }
    let rest = lower.strip_prefix(of.instruction())?;
    // The field name alone, or followed by a space.
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let rest = rest.trim();
    let bad = |e: String| format!("do not understand {name} date: {e}");
    type Make = fn(Days) -> When;
    const KEYWORDS: [(&str, Make); 9] = [
        ("on or before ", When::OnOrBefore),
        ("in or before ", When::OnOrBefore),
        ("on or after ", When::OnOrAfter),
        ("in or after ", When::OnOrAfter),
        ("before ", When::Before),
        ("after ", When::After),
        ("on ", When::In),
        ("in ", When::In),
        ("", When::In),
    ];
    let missing = of == DateOf::One(DateKind::Start);
    for (keyword, make) in KEYWORDS {
        let Some(phrase) = rest.strip_prefix(keyword) else {
            continue;
        };
        // `in two weeks`: the keyword is part of the day.
        let days = when::days(phrase, today).or_else(|e| {
            if keyword.is_empty() {
                Err(e)
            } else {
                when::days(rest, today).map_err(|_| e)
            }
        });
        return Some(
            days.map(|d| Ask::Date {
                of,
                when: make(d),
                missing,
            })
            .map_err(bad),
        );
    }
    Some(Err(bad(format!("nothing after `{}`", of.instruction()))))
}

/// `FIELD includes|does not include|regex matches|regex does not match
/// VALUE`; `None`: not about this field.
fn text_test(
    line: &str,
    lower: &str,
    of: TextOf,
    name: &str,
) -> Option<Result<(Matcher, bool), String>> {
    let rest = lower.strip_prefix(name)?.strip_prefix(' ')?;
    let at = line.len() - rest.len();
    let ops = [
        "includes ",
        "does not include ",
        "regex matches ",
        "regex does not match ",
    ];
    let _ = of;
    Some(operator(line, rest, at, &ops).unwrap_or_else(|| {
        Err(format!(
            "do not understand query filter ({name}); write `{name} includes TEXT`, \
             `{name} does not include TEXT`, `{name} regex matches /PATTERN/` or \
             `{name} regex does not match /PATTERN/`"
        ))
    }))
}

/// `tags include #x`, `tag includes x`, `tags do not include #x`, `tags
/// regex matches /…/`.
fn tags_test(line: &str, lower: &str) -> Option<Result<(Matcher, bool), String>> {
    let rest = lower
        .strip_prefix("tags ")
        .or_else(|| lower.strip_prefix("tag "))?;
    let at = line.len() - rest.len();
    let ops = [
        "includes ",
        "include ",
        "does not include ",
        "do not include ",
        "regex matches ",
        "regex does not match ",
    ];
    Some(operator(line, rest, at, &ops).unwrap_or_else(|| {
        Err(
            "do not understand query filter (tag/tags); write `tags include #TAG`, `tags do \
             not include #TAG` or `tags regex matches /PATTERN/`"
                .to_string(),
        )
    }))
}

/// The operator `rest` starts with (one of `ops`) and its value (from the
/// original `line`, its case kept, at `at`).
fn operator(
    line: &str,
    rest: &str,
    at: usize,
    ops: &[&str],
) -> Option<Result<(Matcher, bool), String>> {
    let op = ops.iter().find(|op| rest.starts_with(**op))?;
    let value = line.get(at + op.len()..).unwrap_or("").trim();
    let negate = op.contains("not");
    if op.starts_with("regex") {
        let Some((pattern, flags)) = crate::js_regex::split_literal(value) else {
            return Some(Err(format!(
                "a regular expression is written between slashes, flags after: \
                 `/pattern/i`; got `{value}`"
            )));
        };
        return Some(crate::js_regex::build(pattern, flags).map(|re| (Matcher::Regex(re), negate)));
    }
    Some(Ok((Matcher::Includes(value.to_lowercase()), negate)))
}
