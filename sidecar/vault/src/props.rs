//! Typed properties: the type of every frontmatter key — declared in
//! `.obsidian/types.json` ([`Types`]), else inferred from the values the
//! vault gives it — and the table the index keeps of each key's use: its
//! spellings, the notes holding it, and its values with the notes holding
//! each ([`Props`]), so "which values does `status` take, in how many
//! notes" is a lookup.
//!
//! The one place that says what type a property is and whether a value
//! fits it. No IO: the workspace reads `types.json` and hands its text to
//! [`Types::parse`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value as Json;

use super::key::{most_written, name_key};
use super::note::Note;

/// Values longer than this (in bytes) are counted as used but not kept as
/// values: a description or an abstract is no value to complete.
pub const MAX_VALUE_BYTES: usize = 120;

/// An inferred type is held against a value only when this many notes
/// give the key a value…
pub const AGREEING_NOTES: u32 = 3;
/// …and this share of them agree on its shape.
pub const AGREEING_SHARE: f64 = 0.8;

/// A property's type, as Obsidian's properties view and `types.json` name
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PropType {
    Text,
    /// A list (`multitext` in `types.json`).
    List,
    Number,
    Checkbox,
    Date,
    DateTime,
    /// Only the `tags` key.
    Tags,
    /// Only the `aliases` key.
    Aliases,
}

impl PropType {
    /// The id `types.json` writes.
    pub fn id(self) -> &'static str {
        match self {
            PropType::Text => "text",
            PropType::List => "multitext",
            PropType::Number => "number",
            PropType::Checkbox => "checkbox",
            PropType::Date => "date",
            PropType::DateTime => "datetime",
            PropType::Tags => "tags",
            PropType::Aliases => "aliases",
        }
    }

    /// The type a `types.json` id names.
    pub fn of_id(id: &str) -> Option<PropType> {
        Some(match id {
            "text" => PropType::Text,
            "multitext" => PropType::List,
            "number" => PropType::Number,
            "checkbox" => PropType::Checkbox,
            "date" => PropType::Date,
            "datetime" => PropType::DateTime,
            "tags" => PropType::Tags,
            "aliases" => PropType::Aliases,
            _ => return None,
        })
    }

    /// The type as a reader names it: `date`, `list`, `checkbox`…
    pub fn name(self) -> &'static str {
        match self {
            PropType::List => "list",
            PropType::DateTime => "date & time",
            other => other.id(),
        }
    }

    /// Whether `value` fits the type. Empty (`key:`) fits every type; a
    /// list type takes a single item too (`tags: one`, as old vaults write
    /// it); text takes any single value.
    pub fn fits(self, value: &Json) -> bool {
        let shape = Shape::of(value);
        match (self, shape) {
            (_, Shape::Empty) => true,
            (PropType::Text, Shape::List | Shape::Object) => false,
            (PropType::Text, _) => true,
            (PropType::List | PropType::Tags | PropType::Aliases, Shape::Object) => false,
            (PropType::List | PropType::Tags | PropType::Aliases, _) => true,
            (PropType::Number, Shape::Number) => true,
            (PropType::Checkbox, Shape::Bool) => true,
            (PropType::Date, Shape::Date) => true,
            (PropType::DateTime, Shape::Date | Shape::DateTime) => true,
            _ => false,
        }
    }

    /// Whether values of the type are text whatever they look like (a
    /// text `zip` of `01234` is not the number 1234).
    pub fn is_textual(self) -> bool {
        matches!(
            self,
            PropType::Text | PropType::List | PropType::Tags | PropType::Aliases
        )
    }

    /// The type of a key Obsidian reserves, whatever its values.
    fn reserved(key: &str) -> Option<PropType> {
        match key {
            "tags" | "tag" => Some(PropType::Tags),
            "aliases" | "alias" => Some(PropType::Aliases),
            "cssclasses" | "cssclass" => Some(PropType::List),
            _ => None,
        }
    }
}

/// What a value is, as YAML wrote it: the facts a type is inferred from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Empty,
    Text,
    Number,
    Bool,
    /// `2026-12-28`.
    Date,
    /// `2026-12-28T09:30` (`:ss` and a space for `T` allowed).
    DateTime,
    List,
    Object,
}

impl Shape {
    const COUNT: usize = 8;

    pub fn of(value: &Json) -> Shape {
        match value {
            Json::Null => Shape::Empty,
            Json::Bool(_) => Shape::Bool,
            Json::Number(_) => Shape::Number,
            Json::String(s) if s.trim().is_empty() => Shape::Empty,
            Json::String(s) => match day_or_moment(s.trim()) {
                Some(true) => Shape::DateTime,
                Some(false) => Shape::Date,
                None => Shape::Text,
            },
            Json::Array(items) if items.is_empty() => Shape::Empty,
            Json::Array(_) => Shape::List,
            Json::Object(_) => Shape::Object,
        }
    }

    fn slot(self) -> usize {
        self as usize
    }

    const ALL: [Shape; Shape::COUNT] = [
        Shape::Empty,
        Shape::Text,
        Shape::Number,
        Shape::Bool,
        Shape::Date,
        Shape::DateTime,
        Shape::List,
        Shape::Object,
    ];

    /// The type a key whose values mostly have this shape is given.
    fn inferred(self) -> PropType {
        match self {
            Shape::Number => PropType::Number,
            Shape::Bool => PropType::Checkbox,
            Shape::Date => PropType::Date,
            Shape::DateTime => PropType::DateTime,
            Shape::List => PropType::List,
            Shape::Empty | Shape::Text | Shape::Object => PropType::Text,
        }
    }
}

/// `Some(false)` for a day (`2026-12-28`), `Some(true)` for a moment of
/// one (`2026-12-28T09:30`, `…:15`, a space for `T`), else `None`.
fn day_or_moment(text: &str) -> Option<bool> {
    // A day is the ten characters of `YYYY-MM-DD`; a moment has a time after.
    date(text).map(|_| text.len() > 10)
}

/// THE rule of what a property's date is: `2026-12-28`, `2026-12-28T09:30`,
/// `2026-12-28 09:30:15` (a day is its midnight). The filter compares by it.
pub fn date(text: &str) -> Option<chrono::NaiveDateTime> {
    use chrono::{NaiveDate, NaiveDateTime};
    if text.len() < 10 || !text.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    if let Ok(day) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return day.and_hms_opt(0, 0, 0);
    }
    [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
}

/// The types `.obsidian/types.json` declares, by key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Types {
    declared: HashMap<Box<str>, PropType>,
}

impl Types {
    /// Reads a `types.json`: `{"types": {"key": "date", …}}`. An id Weft
    /// does not know leaves that key undeclared; text that is not such an
    /// object is an error saying why (the caller reports it and goes on
    /// without declared types).
    pub fn parse(json: &str) -> Result<Types, String> {
        let value: Json = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
        let Some(types) = value.get("types") else {
            return Err("no `types` object at the top".into());
        };
        let Json::Object(types) = types else {
            return Err("`types` is not an object of property names and type ids".into());
        };
        let declared = types
            .iter()
            .filter_map(|(key, id)| Some((name_key(key).into(), PropType::of_id(id.as_str()?)?)))
            .collect();
        Ok(Types { declared })
    }

    /// The edit of `types.json`'s `text` that renames the key `old` to
    /// `new`: the bytes of the key's JSON string, the rest as written.
    /// `None` when it declares no such key; an error when it declares `new`
    /// too, or writes the key in a form this cannot find for sure.
    pub fn renamed(
        text: &str,
        old: &str,
        new: &str,
    ) -> Result<Option<(Range<usize>, String)>, String> {
        let cannot = |why: &str| format!("cannot rename `{old}` in types.json: {why}");
        let value: Json =
            serde_json::from_str(text).map_err(|e| cannot(&format!("not JSON ({e})")))?;
        let Some(Json::Object(types)) = value.get("types") else {
            return Err(cannot("no `types` object at the top"));
        };
        let (old_key, new_key) = (name_key(old), name_key(new));
        let Some((written, declared)) = types.iter().find(|(k, _)| name_key(k) == old_key) else {
            return Ok(None);
        };
        if new_key != old_key && types.keys().any(|k| name_key(k) == new_key) {
            return Err(cannot(&format!(
                "it declares `{new}` too; keep one of them there first"
            )));
        }
        let token = Json::String(written.clone()).to_string();
        let places: Vec<usize> = text
            .match_indices(&token)
            .filter(|(at, _)| text[at + token.len()..].trim_start().starts_with(':'))
            .map(|(at, _)| at)
            .collect();
        let [at] = places[..] else {
            return Err(cannot("the key is not written once as a plain JSON string"));
        };
        let replacement = Json::String(new.to_string()).to_string();
        let out = format!("{}{replacement}{}", &text[..at], &text[at + token.len()..]);
        let read_back: Option<Json> = serde_json::from_str(&out).ok();
        let types_after = read_back.as_ref().and_then(|v| v.get("types"));
        if types_after.and_then(|t| t.get(new)) != Some(declared)
            || types_after.is_some_and(|t| written != new && t.get(written).is_some())
        {
            return Err(cannot("the edited file would not read as the rename"));
        }
        Ok(Some((at..at + token.len(), replacement)))
    }

    /// The type declared for `key`, if any.
    pub fn declared(&self, key: &str) -> Option<PropType> {
        if self.declared.is_empty() {
            return None;
        }
        self.declared.get(name_key(key).as_str()).copied()
    }

    /// The type `key` has whatever its values say: the one Obsidian
    /// reserves it for (`tags`, `aliases`, `cssclasses`: even declared
    /// otherwise), else the declared one.
    pub fn fixed(&self, key: &str) -> Option<PropType> {
        // Every reserved key is short and ASCII: no key is made for others.
        let reserved = match key.len() <= "cssclasses".len() {
            true => PropType::reserved(&name_key(key)),
            false => None,
        };
        reserved.or_else(|| self.declared(key))
    }

    pub fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }
}

/// One key's use across the notes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropStat {
    /// How the key is written, with the notes writing it so.
    pub spellings: Vec<(Box<str>, u32)>,
    /// Notes holding the key.
    notes: u32,
    /// Each value (a list's items one by one) as written, with the notes
    /// holding it; values over [`MAX_VALUE_BYTES`] are not kept.
    values: HashMap<Box<str>, u32>,
    /// Notes by the shape of their value.
    shapes: [u32; Shape::COUNT],
}

impl PropStat {
    /// The key as most often written.
    pub fn display(&self) -> &str {
        most_written(&self.spellings)
    }

    /// Notes holding the key.
    pub fn notes(&self) -> u32 {
        self.notes
    }

    /// The most used values first (ties by text), at most `n`.
    pub fn top_values(&self, n: usize) -> Vec<(&str, u32)> {
        let mut values: Vec<(&str, u32)> = self.values.iter().map(|(v, c)| (&**v, *c)).collect();
        values.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        values.truncate(n);
        values
    }

    /// Distinct values kept.
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// Notes whose value has `shape`.
    pub fn with_shape(&self, shape: Shape) -> u32 {
        self.shapes[shape.slot()]
    }

    /// Whether the values agree enough for their type to be held against a
    /// value that does not fit it: at least [`AGREEING_NOTES`] notes with a
    /// value, [`AGREEING_SHARE`] of them of one shape (a date and a date
    /// with a time agree).
    pub fn agreed(&self) -> bool {
        let given: u32 = Shape::ALL[1..].iter().map(|s| self.with_shape(*s)).sum();
        let dates = self.with_shape(Shape::Date) + self.with_shape(Shape::DateTime);
        let most = Shape::ALL[1..]
            .iter()
            .map(|s| self.with_shape(*s))
            .max()
            .unwrap_or(0)
            .max(dates);
        given >= AGREEING_NOTES && f64::from(most) >= AGREEING_SHARE * f64::from(given)
    }

    /// The type the values say: a reserved key's own, else that of the
    /// shape most notes give it (empty values left out; ties go to the
    /// shape listed first in [`Shape`]).
    pub fn inferred(&self, key: &str) -> PropType {
        if let Some(reserved) = PropType::reserved(&name_key(key)) {
            return reserved;
        }
        let mut best = Shape::Empty;
        for shape in Shape::ALL.into_iter().skip(1) {
            if self.with_shape(shape) > self.with_shape(best) {
                best = shape;
            }
        }
        // Days with some moments among them: a date and time, which a
        // day fits too.
        if best == Shape::Date && self.with_shape(Shape::DateTime) > 0 {
            return PropType::DateTime;
        }
        best.inferred()
    }
}

/// The vault's properties by key (`name_key`), kept by the index as notes
/// come and go: the table of a set of notes whatever order they came in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Props {
    by_key: HashMap<Box<str>, PropStat>,
}

impl Props {
    /// The keys of `notes` with their spellings and notes, their values
    /// left uncounted: what a listing of keys needs, at a fraction of the
    /// cost (a search scope asks it per request).
    pub fn keys_of<'a>(notes: impl Iterator<Item = &'a Note>) -> Props {
        let mut props = Props::default();
        for note in notes {
            props.count(note, Count::Keys);
        }
        props
    }

    pub fn get(&self, key: &str) -> Option<&PropStat> {
        self.by_key.get(name_key(key).as_str())
    }

    /// Every key (as keyed) with its use, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PropStat)> {
        self.by_key.iter().map(|(k, s)| (&**k, s))
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The type of `key`: declared in `types`, else inferred from its
    /// values; `None` for a key no note holds and no type declares.
    pub fn type_of(&self, types: &Types, key: &str) -> Option<PropType> {
        // `tags` declared `multitext` in some vaults is still the tags.
        types
            .fixed(key)
            .or_else(|| self.get(key).map(|stat| stat.inferred(key)))
    }

    /// Counts a note's properties in.
    pub(crate) fn add(&mut self, note: &Note) {
        self.count(note, Count::Add);
    }

    /// Takes back what [`Props::add`] counted of the same note.
    pub(crate) fn remove(&mut self, note: &Note) {
        self.count(note, Count::Remove);
    }

    fn count(&mut self, note: &Note, how: Count) {
        let Some(frontmatter) = &note.frontmatter else {
            return;
        };
        let add = how != Count::Remove;
        let step = |n: &mut u32| {
            *n = if add { *n + 1 } else { n.saturating_sub(1) };
        };
        for (written, value) in frontmatter.iter() {
            let key = name_key(written);
            let stat = match add {
                true => self.by_key.entry(key.as_str().into()).or_default(),
                false => match self.by_key.get_mut(key.as_str()) {
                    Some(stat) => stat,
                    None => continue,
                },
            };
            step(&mut stat.notes);
            match stat.spellings.iter_mut().find(|s| &*s.0 == written) {
                Some(s) => step(&mut s.1),
                None if add => stat.spellings.push((written.as_str().into(), 1)),
                None => {}
            }
            stat.spellings.retain(|s| s.1 > 0);
            if how != Count::Keys {
                step(&mut stat.shapes[Shape::of(value).slot()]);
                count_values(&mut stat.values, value, add);
            }
            if stat.notes == 0 {
                self.by_key.remove(key.as_str());
            }
        }
    }
}

/// What [`Props::count`] does with a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Count {
    Add,
    Remove,
    /// Adds its keys alone.
    Keys,
}

/// Counts (or takes back) a note's value of one key: each distinct text of
/// it once. Looked up before it is stored, so a value the table holds
/// already costs no allocation.
fn count_values(values: &mut HashMap<Box<str>, u32>, value: &Json, add: bool) {
    let texts: Vec<Cow<'_, str>> = value_texts(value).collect();
    for (i, text) in texts.iter().enumerate() {
        if texts[..i].contains(text) {
            continue;
        }
        match values.get_mut(&**text) {
            Some(n) if add => *n += 1,
            Some(n) => {
                *n -= 1;
                if *n == 0 {
                    values.remove(&**text);
                }
            }
            None if add => {
                values.insert((&**text).into(), 1);
            }
            None => {}
        }
    }
}

/// A value's texts as they are kept: a scalar's, or each scalar item's of
/// a list (nested lists and objects are not values to complete).
pub fn value_texts(value: &Json) -> impl Iterator<Item = Cow<'_, str>> {
    let items: Box<dyn Iterator<Item = &Json>> = match value {
        Json::Array(items) => Box::new(items.iter()),
        one => Box::new(std::iter::once(one)),
    };
    items.filter_map(|item| {
        let text = match item {
            Json::String(s) => Cow::Borrowed(s.trim()),
            Json::Number(n) => Cow::Owned(n.to_string()),
            Json::Bool(true) => Cow::Borrowed("true"),
            Json::Bool(false) => Cow::Borrowed("false"),
            _ => return None,
        };
        (!text.is_empty() && text.len() <= MAX_VALUE_BYTES).then_some(text)
    })
}

/// The frontmatter key written at byte `offset` of `text` (on its name):
/// the key, and the range of its name as written.
pub fn key_at(text: &str, offset: usize) -> Option<(String, Range<usize>)> {
    let block = super::frontmatter::block(text)?;
    if !block.yaml.contains(&offset) {
        return None;
    }
    let base = block.yaml.start;
    let layout = super::yaml::layout(&text[block.yaml]).ok()?;
    let at = offset - base;
    layout
        .entries
        .into_iter()
        .find(|e| e.key_span.start <= at && at <= e.key_span.end)
        .map(|e| (e.key, base + e.key_span.start..base + e.key_span.end))
}

impl Mismatch {
    /// The value written so that it fits, when there is only one way to
    /// read it: a number or `true`/`false` in quotes (`"3"` in a number
    /// property, `'true'` in a checkbox). `None` when the fix is a guess.
    pub fn certain_fix(&self) -> Option<String> {
        let written = self.value.trim();
        let unquoted = written
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| {
                written
                    .strip_prefix('\'')
                    .and_then(|v| v.strip_suffix('\''))
            })?
            .trim();
        match self.expected {
            PropType::Number => {
                let number: f64 = unquoted.parse().ok()?;
                // As YAML reads it back: a plain decimal, nothing lost.
                let plain = unquoted
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b"-.".contains(&b));
                (plain && number.is_finite() && !unquoted.ends_with('.'))
                    .then(|| unquoted.to_string())
            }
            PropType::Checkbox => match unquoted.to_ascii_lowercase().as_str() {
                "true" => Some("true".into()),
                "false" => Some("false".into()),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The keys of a note's frontmatter `values` whose value does not fit
/// their property's type (the type `types` declares, or the one the
/// vault's values agree on), with that type and whether it is declared.
/// Reserved keys (`tags`, `aliases`, …) are the parser's business.
pub fn misfits<'v>(
    values: &'v serde_json::Map<String, Json>,
    props: &Props,
    types: &Types,
) -> Vec<(&'v str, PropType, bool)> {
    values
        .iter()
        .filter_map(|(key, value)| {
            let (expected, declared) = match (types.declared(key), props.get(key)) {
                _ if PropType::reserved(&name_key(key)).is_some() => return None,
                (Some(t), _) => (t, true),
                (None, Some(stat)) if stat.agreed() => (stat.inferred(key), false),
                _ => return None,
            };
            (!expected.fits(value)).then_some((key.as_str(), expected, declared))
        })
        .collect()
}

/// A frontmatter value that does not fit its property's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub key: String,
    /// The value as written.
    pub value: String,
    pub expected: PropType,
    /// The type is declared in `types.json` (else inferred from the vault).
    pub declared: bool,
    /// Where the value is written in the text.
    pub span: Range<usize>,
}

/// The values of a note's frontmatter that do not fit their property's
/// type: the type `types` declares, or the one the vault's values agree on
/// ([`PropStat::agreed`]); an empty value fits every type. `values` is the
/// frontmatter of `text` as the index read it; the text is read again, for
/// where the values are written, only when one does not fit.
pub fn mismatches(
    text: &str,
    values: &serde_json::Map<String, Json>,
    props: &Props,
    types: &Types,
) -> Vec<Mismatch> {
    let wrong = misfits(values, props, types);
    if wrong.is_empty() {
        return Vec::new();
    }
    let Some(block) = super::frontmatter::block(text) else {
        return Vec::new();
    };
    let Ok(layout) = super::yaml::layout(&text[block.yaml.clone()]) else {
        return Vec::new();
    };
    let base = block.yaml.start;
    layout
        .entries
        .into_iter()
        .filter(|entry| !entry.value.is_empty())
        .filter_map(|entry| {
            let &(_, expected, declared) = wrong.iter().find(|w| w.0 == entry.key)?;
            let span = base + entry.value.start..base + entry.value.end;
            Some(Mismatch {
                value: text[span.clone()].to_string(),
                key: entry.key,
                expected,
                declared,
                span,
            })
        })
        .collect()
}
