//! `sort by` and `group by` of a ```` ```tasks ```` query, as the Tasks
//! plugin orders and heads them: its comparators (dates without a value
//! last, invalid ones first; priority highest first; urgency highest
//! first…), its default sorts after the user's (status type, urgency, due,
//! priority, path), its group headings (`2024-05-10 Friday`, `No due
//! date`, `High priority`, `#tag`, `(No heading)`…) and their order.

use std::cmp::Ordering;

use super::super::select::{heading_of, tags_of};
use super::super::{DateKind, Priority, Task, TaskSettings};
use super::filter::{DateOf, TextOf, description, text_of};
use crate::date::Date;
use crate::note::{Note, strip_md};

/// What a sort or a group reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// `Todo` before `Done`.
    Status,
    StatusType,
    StatusName,
    Urgency,
    Date(DateOf),
    Priority,
    Description,
    Path,
    Filename,
    Folder,
    Root,
    Backlink,
    Heading,
    /// `sort by tag N`: the Nth tag (1-based); groups: each tag.
    Tag(usize),
    Recurring,
    Recurrence,
    Id,
    Random,
}

/// A sort or group instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub key: Key,
    pub reverse: bool,
}

/// What an instruction name may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Can {
    Sort,
    Group,
    Both,
}

/// The names `sort by` and `group by` take, and what they read.
const KEYS: &[(&str, Key, Can)] = &[
    ("status.type", Key::StatusType, Can::Both),
    ("status.name", Key::StatusName, Can::Both),
    ("status", Key::Status, Can::Both),
    ("urgency", Key::Urgency, Can::Both),
    ("due", Key::Date(DateOf::One(DateKind::Due)), Can::Both),
    (
        "scheduled",
        Key::Date(DateOf::One(DateKind::Scheduled)),
        Can::Both,
    ),
    ("start", Key::Date(DateOf::One(DateKind::Start)), Can::Both),
    ("done", Key::Date(DateOf::One(DateKind::Done)), Can::Both),
    (
        "created",
        Key::Date(DateOf::One(DateKind::Created)),
        Can::Both,
    ),
    (
        "cancelled",
        Key::Date(DateOf::One(DateKind::Cancelled)),
        Can::Both,
    ),
    ("happens", Key::Date(DateOf::Happens), Can::Both),
    ("priority", Key::Priority, Can::Both),
    ("description", Key::Description, Can::Sort),
    ("path", Key::Path, Can::Both),
    ("filename", Key::Filename, Can::Both),
    ("folder", Key::Folder, Can::Group),
    ("root", Key::Root, Can::Group),
    ("backlink", Key::Backlink, Can::Group),
    ("heading", Key::Heading, Can::Both),
    ("tags", Key::Tag(0), Can::Group),
    ("recurring", Key::Recurring, Can::Both),
    ("recurrence", Key::Recurrence, Can::Group),
    ("id", Key::Id, Can::Both),
    ("random", Key::Random, Can::Sort),
];

/// The names one verb takes.
fn names(verb: Can) -> impl Iterator<Item = (&'static str, Key)> {
    KEYS.iter()
        .filter(move |(_, _, can)| *can == verb || *can == Can::Both)
        .map(|(name, key, _)| (*name, *key))
}

/// The plugin's default sorts, after the user's.
pub const DEFAULT_SORTS: [Order; 5] = [
    Order::by(Key::StatusType),
    Order::by(Key::Urgency),
    Order::by(Key::Date(DateOf::One(DateKind::Due))),
    Order::by(Key::Priority),
    Order::by(Key::Path),
];

impl Order {
    const fn by(key: Key) -> Order {
        Order {
            key,
            reverse: false,
        }
    }

    /// `sort by …` (the `sort by ` already taken off, lower case).
    pub fn sort(rest: &str) -> Result<Order, String> {
        if rest.starts_with("function") {
            return Err(
                "`sort by function` runs JavaScript in Obsidian; Weft cannot run it".into(),
            );
        }
        let words: Vec<&str> = rest.split_whitespace().collect();
        let help = || {
            format!(
                "cannot sort by `{rest}`; sort by one of {} (then `reverse`; `tag` may take a \
                 number)",
                names(Can::Sort)
                    .map(|(n, _)| n)
                    .chain(["tag"])
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        match words.as_slice() {
            ["tag", more @ ..] => {
                let (reverse, number) = match more {
                    [] => (false, None),
                    ["reverse"] => (true, None),
                    [n] => (false, Some(*n)),
                    ["reverse", n] => (true, Some(*n)),
                    _ => return Err(help()),
                };
                let n = match number {
                    None => 1,
                    Some(n) => n
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n >= 1)
                        .ok_or_else(help)?,
                };
                Ok(Order {
                    key: Key::Tag(n),
                    reverse,
                })
            }
            [name] | [name, "reverse"] => {
                let key = names(Can::Sort)
                    .find(|(n, _)| n == name)
                    .map(|(_, k)| k)
                    .ok_or_else(help)?;
                Ok(Order {
                    key,
                    reverse: words.len() == 2,
                })
            }
            _ => Err(help()),
        }
    }

    /// `group by …` (the `group by ` already taken off, lower case).
    pub fn group(rest: &str) -> Result<Order, String> {
        if rest.starts_with("function") {
            return Err(
                "`group by function` runs JavaScript in Obsidian; Weft cannot run it".into(),
            );
        }
        let words: Vec<&str> = rest.split_whitespace().collect();
        let (name, reverse) = match words.as_slice() {
            [name] => (*name, false),
            [name, "reverse"] => (*name, true),
            _ => ("", false),
        };
        names(Can::Group)
            .find(|(n, _)| *n == name)
            .map(|(_, key)| Order { key, reverse })
            .ok_or_else(|| {
                format!(
                    "cannot group by `{rest}`; group by one of {} (then `reverse`)",
                    names(Can::Group)
                        .map(|(n, _)| n)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }

    /// As an instruction: `sort by due reverse`.
    pub fn text(self, verb: &str) -> String {
        let name = match self.key {
            Key::Tag(n) if verb == "sort" && n > 1 => format!("tag {n}"),
            Key::Tag(_) if verb == "sort" => "tag".into(),
            key => KEYS
                .iter()
                .find(|(_, k, _)| *k == key)
                .map_or("?", |(n, _, _)| n)
                .to_string(),
        };
        let reverse = if self.reverse { " reverse" } else { "" };
        format!("{verb} by {name}{reverse}")
    }
}

/// What the orders read of one task, worked out once.
pub struct Row<'a> {
    pub note: &'a Note,
    pub task: Task<'a>,
    pub urgency: f64,
}

/// A task's value under one sort, worked out once per task (a sort of
/// many tasks compares each many times).
#[derive(Debug, Clone, PartialEq)]
pub enum SortKey<'a> {
    Num(i64),
    Real(f64),
    /// A rank first, then a text compared as the plugin compares texts.
    Text(u8, std::borrow::Cow<'a, str>),
}

/// A task's key under one sort (its order: smaller first, before
/// `reverse`).
pub fn sort_key<'a>(key: Key, settings: &TaskSettings, today: Date, row: &Row<'a>) -> SortKey<'a> {
    use std::borrow::Cow;
    let (note, task) = (row.note, row.task);
    let text = |of: TextOf| SortKey::Text(0, text_of(of, settings, note, task));
    match key {
        // `Todo` before `Done`.
        Key::Status => SortKey::Num(i64::from(settings.statuses.kind(task.symbol).is_done())),
        Key::StatusType => SortKey::Num(settings.statuses.kind(task.symbol) as i64),
        Key::StatusName => SortKey::Text(
            0,
            Cow::Owned(settings.statuses.of(task.symbol).name.to_string()),
        ),
        // Highest first.
        Key::Urgency => SortKey::Real(-row.urgency),
        Key::Date(of) => {
            let (rank, day) = date_rank(of, task);
            SortKey::Num(i64::from(rank) << 40 | (day + (1 << 39)))
        }
        Key::Priority => SortKey::Num(-(task.priority as i64)),
        Key::Description => SortKey::Text(
            0,
            Cow::Owned(sortable_description(&description(settings, task))),
        ),
        Key::Path => SortKey::Text(0, Cow::Borrowed(&note.path)),
        Key::Filename => text(TextOf::Filename),
        Key::Folder => text(TextOf::Folder),
        Key::Root => text(TextOf::Root),
        Key::Backlink => text(TextOf::Backlink),
        Key::Recurrence => text(TextOf::Recurrence),
        Key::Id => text(TextOf::Id),
        // Tasks without one last.
        Key::Heading => match heading_of(note, task) {
            Some(h) => SortKey::Text(0, Cow::Borrowed(&h.text)),
            None => SortKey::Text(1, Cow::Borrowed("")),
        },
        Key::Tag(n) => match tags_of(note, task).nth(n.max(1) - 1) {
            Some(t) => SortKey::Text(0, Cow::Borrowed(&t.name)),
            None => SortKey::Text(1, Cow::Borrowed("")),
        },
        // Recurring ones first.
        Key::Recurring => SortKey::Num(i64::from(task.recurrence().is_none())),
        Key::Random => SortKey::Num(xxhash_rust::xxh3::xxh3_64_with_seed(
            task.description().as_bytes(),
            today.days() as u64,
        ) as i64),
    }
}

/// A date's place: invalid ones first, then by day, then none.
pub(crate) fn date_rank(of: DateOf, task: Task<'_>) -> (u8, i64) {
    let earliest = of
        .dates(task)
        .filter(|d| d.is_set())
        .min_by_key(|d| (d.is_valid(), d.days().unwrap_or(i64::MIN)));
    match earliest {
        None => (2, 0),
        Some(d) => match d.days() {
            Some(day) => (1, day),
            None => (0, 0),
        },
    }
}

/// The description as the plugin sorts it: a leading link shown by its
/// text, leading emphasis (`**`, `*`, `==`, `__`, `_`) taken off.
fn sortable_description(text: &str) -> String {
    let mut text = text.to_string();
    if let Some(rest) = text.strip_prefix("[[").or_else(|| text.strip_prefix('['))
        && let Some(end) = rest.find(']')
    {
        let inner = &rest[..end];
        let shown = inner.rsplit_once('|').map_or(inner, |(_, s)| s);
        let after = rest[end..].trim_start_matches(']');
        text = format!("{shown}{after}");
    }
    for mark in ["**", "*", "==", "__", "_"] {
        if let Some(rest) = text.strip_prefix(mark)
            && let Some(end) = rest.find(mark)
            && end > 0
        {
            text = format!("{}{}", &rest[..end], &rest[end + mark.len()..]);
        }
    }
    text
}

/// Texts as the plugin compares them (`localeCompare` with numbers read as
/// numbers): any case, runs of digits by their value. Byte by byte where
/// both characters are ASCII (most paths and words), without allocating:
/// a sort calls it millions of times.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // What both share byte for byte compares equal, but for a run of
    // digits it ends in (read whole below) and a character it splits.
    let mut same = x.iter().zip(y).take_while(|(c, d)| c == d).count();
    while same > 0 && (x[same - 1].is_ascii_digit() || !a.is_char_boundary(same)) {
        same -= 1;
    }
    let (mut i, mut j) = (same, same);
    loop {
        let (c, d) = match (x.get(i), y.get(j)) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) => (*c, *d),
        };
        if c.is_ascii_digit() && d.is_ascii_digit() {
            let run = |s: &[u8], at: usize| {
                at + s[at..].iter().take_while(|c| c.is_ascii_digit()).count()
            };
            let (ei, ej) = (run(x, i), run(y, j));
            let zeros = |s: &[u8]| s.iter().take_while(|c| **c == b'0').count();
            let (m, n) = (&x[i..ei], &y[j..ej]);
            let (m, n) = (&m[zeros(m)..], &n[zeros(n)..]);
            let ord = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
            if ord != Ordering::Equal {
                return ord;
            }
            (i, j) = (ei, ej);
        } else if c.is_ascii() && d.is_ascii() {
            let ord = c.to_ascii_lowercase().cmp(&d.to_ascii_lowercase());
            if ord != Ordering::Equal {
                return ord;
            }
            (i, j) = (i + 1, j + 1);
        } else {
            // `i` and `j` stand on character boundaries: ASCII steps one
            // byte, these a character.
            let (Some(c), Some(d)) = (a[i..].chars().next(), b[j..].chars().next()) else {
                return a.cmp(b);
            };
            let ord = c.to_lowercase().cmp(d.to_lowercase());
            if ord != Ordering::Equal {
                return ord;
            }
            (i, j) = (i + c.len_utf8(), j + d.len_utf8());
        }
    }
}

/// Appends to `out` a key whose byte order is [`natural`]'s order of
/// texts: a character as its lower case, a run of digits as its length
/// without leading zeros (one byte from `0`, or `9` and four more) then
/// those digits, then a zero byte and the text itself (`natural`'s last
/// word). `None` for a text holding a NUL character, which the zero byte
/// could not tell from the end. Sorting keys compares bytes, where
/// `natural` compares characters each time: a sort of many texts makes
/// each key once.
pub fn natural_key(text: &str, out: &mut Vec<u8>) -> Option<()> {
    if text.contains('\0') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_digit() {
            let end = at
                + bytes[at..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
            let run = &bytes[at..end];
            let run = &run[run.iter().take_while(|c| **c == b'0').count()..];
            match u8::try_from(run.len()) {
                Ok(n) if n <= 8 => out.push(b'0' + n),
                _ => {
                    out.push(b'9');
                    out.extend_from_slice(&(run.len() as u32).to_be_bytes());
                }
            }
            out.extend_from_slice(run);
            at = end;
        } else if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            at += 1;
        } else {
            let ch = text[at..].chars().next()?;
            if ch == '\u{130}' {
                // Lower case `i` and a combining dot: after `i`, before
                // anything that follows an `i`.
                out.extend_from_slice(&[b'i', 0xFF]);
            } else {
                let mut buf = [0; 4];
                for lower in ch.to_lowercase() {
                    out.extend_from_slice(lower.encode_utf8(&mut buf).as_bytes());
                }
            }
            at += ch.len_utf8();
        }
    }
    out.push(0);
    out.extend_from_slice(bytes);
    Some(())
}

/// Places of texts in an order (0 first; equal texts share one): each
/// text's `prefix` bytes first (a rank worked out by the caller), then the
/// text as [`natural`] orders it.
pub fn natural_places<'t>(texts: impl ExactSizeIterator<Item = (&'t [u8], &'t str)>) -> Vec<u32> {
    let mut keys: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::with_capacity(texts.len());
    let mut plain: Vec<(&[u8], &str)> = Vec::new();
    let mut keyed = true;
    for (prefix, text) in texts {
        plain.push((prefix, text));
        if keyed {
            keys.extend_from_slice(prefix);
            keyed = natural_key(text, &mut keys).is_some();
            ends.push(keys.len());
        }
    }
    let mut order: Vec<u32> = (0..plain.len() as u32).collect();
    let key = |i: u32| {
        let i = i as usize;
        &keys[if i == 0 { 0 } else { ends[i - 1] }..ends[i]]
    };
    let compare = |a: &u32, b: &u32| -> Ordering {
        if keyed {
            key(*a).cmp(key(*b))
        } else {
            let (x, y) = (plain[*a as usize], plain[*b as usize]);
            x.0.cmp(y.0).then_with(|| natural(x.1, y.1))
        }
    };
    order.sort_unstable_by(compare);
    let mut places = vec![0; plain.len()];
    let mut place = 0;
    for at in 0..order.len() {
        if at > 0 && compare(&order[at - 1], &order[at]).is_ne() {
            place += 1;
        }
        places[order[at] as usize] = place;
    }
    places
}

/// A number's bytes in an order that is its order (`total_cmp`'s for
/// reals): for keys compared byte by byte.
pub fn ordered_bytes(value: f64) -> [u8; 8] {
    let bits = value.to_bits();
    let bits = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    bits.to_be_bytes()
}

/// The plugin's urgency score of a task on `today`: due dates weigh most
/// (overdue a week or more: 12; two weeks ahead or more: 2.4; linear
/// between), then a scheduled day reached (5), a start day not reached
/// (-3), and priority (highest 9 … lowest -1.8).
pub fn urgency(task: Task<'_>, today: Date) -> f64 {
    let mut score = 0.0;
    if let Some(due) = task.date(DateKind::Due).days() {
        let overdue = (today.days() - due) as f64;
        let multiplier = if overdue >= 7.0 {
            1.0
        } else if overdue >= -14.0 {
            (overdue + 14.0) * 0.8 / 21.0 + 0.2
        } else {
            0.2
        };
        score += multiplier * 12.0;
    }
    if task
        .date(DateKind::Scheduled)
        .days()
        .is_some_and(|d| today.days() >= d)
    {
        score += 5.0;
    }
    if task
        .date(DateKind::Start)
        .days()
        .is_some_and(|d| today.days() < d)
    {
        score -= 3.0;
    }
    score
        + 6.0
            * match task.priority {
                Priority::Highest => 1.5,
                Priority::High => 1.0,
                Priority::Medium => 0.65,
                Priority::None => 0.325,
                Priority::Low => 0.0,
                Priority::Lowest => -0.3,
            }
}

/// A group a task is in: how the group sorts, and its heading.
pub type GroupName = (GroupRank, String);

/// How groups sort: a number first (dates, types, priorities), then the
/// heading's text as the plugin compares it.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRank(pub f64, pub String);

impl Eq for GroupRank {}

impl Ord for GroupRank {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .total_cmp(&other.0)
            .then_with(|| natural(&self.1, &other.1))
    }
}

impl PartialOrd for GroupRank {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The groups of a task under one `group by` (tags: one a tag).
pub fn groups(key: Key, settings: &TaskSettings, row: &Row) -> Vec<GroupName> {
    let (note, task) = (row.note, row.task);
    let text = |t: String| (GroupRank(0.0, t.clone()), t);
    let ranked = |n: f64, t: String| (GroupRank(n, t.clone()), t);
    let one = match key {
        Key::Status => {
            if settings.statuses.kind(task.symbol).is_done() {
                ranked(1.0, "Done".into())
            } else {
                ranked(0.0, "Todo".into())
            }
        }
        Key::StatusType => {
            let kind = settings.statuses.kind(task.symbol);
            ranked(kind as u8 as f64, kind.name().into())
        }
        Key::StatusName => text(settings.statuses.of(task.symbol).name.to_string()),
        Key::Urgency => ranked(-row.urgency, format!("{:.2}", row.urgency)),
        Key::Date(of) => {
            let name = of.name();
            match date_rank(of, task) {
                (0, _) => ranked(f64::MIN, format!("Invalid {name} date")),
                (1, day) => ranked(
                    day as f64,
                    crate::daily::format_date(Date::from_days(day), "YYYY-MM-DD dddd"),
                ),
                _ => ranked(f64::MAX, format!("No {name} date")),
            }
        }
        Key::Priority => {
            let name = match task.priority {
                Priority::Highest => "Highest priority",
                Priority::High => "High priority",
                Priority::Medium => "Medium priority",
                Priority::None => "Normal priority",
                Priority::Low => "Low priority",
                Priority::Lowest => "Lowest priority",
            };
            ranked(-(task.priority as u8 as f64), name.into())
        }
        Key::Path => text(strip_md(&note.path).to_string()),
        Key::Filename => text(format!(
            "[[{}]]",
            strip_md(note.path.rsplit('/').next().unwrap_or(&note.path))
        )),
        Key::Folder => text(text_of(TextOf::Folder, settings, note, task).into_owned()),
        Key::Root => text(text_of(TextOf::Root, settings, note, task).into_owned()),
        Key::Backlink => text(text_of(TextOf::Backlink, settings, note, task).into_owned()),
        Key::Heading => match heading_of(note, task) {
            Some(h) => text(h.text.to_string()),
            None => ranked(-1.0, "(No heading)".into()),
        },
        Key::Tag(_) => {
            let tags: Vec<GroupName> = tags_of(note, task)
                .map(|t| text(format!("#{}", t.name)))
                .collect();
            if tags.is_empty() {
                return vec![ranked(-1.0, "(No tags)".into())];
            }
            return tags;
        }
        Key::Recurring => {
            if task.recurrence().is_some() {
                ranked(0.0, "Recurring".into())
            } else {
                ranked(1.0, "Not Recurring".into())
            }
        }
        Key::Recurrence => match task.recurrence() {
            Some(_) => text(text_of(TextOf::Recurrence, settings, note, task).into_owned()),
            None => ranked(-1.0, "None".into()),
        },
        Key::Id => match task.id() {
            Some(id) if !id.is_empty() => text(id.to_string()),
            _ => ranked(-1.0, "No id".into()),
        },
        Key::Description | Key::Random => text(String::new()),
    };
    vec![one]
}
