//! The prefilter of a run: from a base's and a view's filters, the one note
//! filter ([`Filter`]) that passes every note that can pass them — a
//! superset, never fewer — and which attachments can. `run` evaluates the
//! full expressions only on those: the answer is the same as evaluating
//! every row, and a view over a few tagged notes of a large vault does not
//! evaluate every note.
//!
//! "Can pass" counts a row whose filter fails with an error as passing: it
//! is counted in the table's errors, so the prefilter must keep it. A part
//! of an `and` is therefore used only while the parts before it cannot
//! fail; a part that may fail ends what the prefilter reads of that `and`.
//!
//! What translates (each infallible, on a literal): `file.hasTag("a",
//! "b")` → tags; `file.inFolder("x")` → folder; `file.hasProperty("k")`, a
//! bare or `note.` property as a condition, or compared with `<` `<=` `>`
//! `>=` → has the property; `prop == "text"` → property equals, only where
//! the filter's typing agrees with the engine's equality (else has the
//! property); `prop == true` → equals; `prop == 3` → has the property;
//! `file.name == "x"` → name; `and` / `&&` of these; `or` / `||` when every
//! branch translates. `not` / `!` and everything else pass every note.
//!
//! The domain only: no IO.

use std::sync::Arc;

use weft_vault::filter::{Filter, Folder, Test, Value as FilterValue};
use weft_vault::key::name_key;
use weft_vault::{NoteId, VaultIndex};

use crate::base::{Base, FilterNode, View};
use crate::eval::dates::parse_date;
use crate::eval::value::{LinkValue, Place, Row, link_place};
use crate::expr::{BinOp, Expr, Kind, MAX_DEPTH};

/// The fields of a file that never fail (`file.x`).
const FILE_FIELDS: &[&str] = &[
    "name",
    "basename",
    "path",
    "folder",
    "ext",
    "size",
    "mtime",
    "ctime",
    "file",
    "properties",
    "tags",
    "links",
    "embeds",
    "backlinks",
];

/// The names that are no property when bare.
const NOT_PROPERTIES: &[&str] = &["file", "note", "this", "formula"];

/// Which rows a run evaluates: the notes `notes` passes, and the
/// attachments [`Plan::file_may_pass`] lets through.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Passes every note that passes the base's and the view's filters, or
    /// fails on them.
    pub notes: Filter,
}

impl Plan {
    /// The plan of `view` of `base` on `index` (the filters' literals are
    /// typed as the vault types their keys).
    pub fn of(base: &Base, view: &View, index: &VaultIndex) -> Plan {
        let t = Translator { index };
        // The base's filters, then the view's: an `and` of the two.
        let parts = [base.filters.as_ref(), view.filters.as_ref()]
            .into_iter()
            .flatten()
            .map(|f| t.node(f, 0));
        Plan {
            notes: and(parts).filter,
        }
    }

    /// Whether the note `id` may pass.
    pub fn note_may_pass(&self, index: &VaultIndex, id: NoteId) -> bool {
        self.notes.is_all() || self.notes.matches(index, id, &Default::default())
    }

    /// Whether the file at `path`, which is no note, may pass: it has no
    /// tags and no properties; its folder and name are read as the engine
    /// reads them.
    pub fn file_may_pass(&self, path: &str) -> bool {
        file_passes(&self.notes, path, 0)
    }
}

/// [`Plan::file_may_pass`] of one filter (bounded as the filter is).
fn file_passes(filter: &Filter, path: &str, depth: usize) -> bool {
    if depth > weft_vault::filter::MAX_DEPTH {
        return true;
    }
    match filter {
        Filter::And(all) => all.iter().all(|f| file_passes(f, path, depth + 1)),
        Filter::Or(any) => any.iter().any(|f| file_passes(f, path, depth + 1)),
        Filter::Folder(folder) => folder.contains(path),
        Filter::Tag(_) | Filter::Property(..) => false,
        // `file.name` of a file that is no note keeps its extension.
        Filter::Name(name) => name_key(path.rsplit('/').next().unwrap_or(path)) == name_key(name),
        _ => true,
    }
}

/// What a part of the filters tells of the rows that may pass it.
#[derive(Debug)]
struct Part {
    /// Passes every note for which the part is true or fails.
    filter: Filter,
    /// Whether evaluating the part can fail (then it is an error, not false).
    infallible: bool,
}

impl Part {
    fn all(infallible: bool) -> Part {
        Part {
            filter: Filter::All,
            infallible,
        }
    }

    fn exact(filter: Filter) -> Part {
        Part {
            filter,
            infallible: true,
        }
    }
}

/// Every one of `parts`, evaluated in order until one is false: a part
/// after one that may fail is not read (a row that fails there, however
/// the later parts answer, is an error to keep).
fn and(parts: impl IntoIterator<Item = Part>) -> Part {
    let mut kept = Vec::new();
    let mut infallible = true;
    for part in parts {
        if infallible {
            kept.push(part.filter);
        }
        infallible &= part.infallible;
    }
    Part {
        filter: Filter::all_of(kept),
        infallible,
    }
}

/// At least one of `parts`: a row passes (or fails) at the first part that
/// does, so one translated filter per part covers it — when every part
/// translates.
fn or(parts: impl IntoIterator<Item = Part>) -> Part {
    let mut filters = Vec::new();
    let mut infallible = true;
    let mut every = true;
    for part in parts {
        infallible &= part.infallible;
        every &= part.filter != Filter::All;
        filters.push(part.filter);
    }
    Part {
        filter: if every && !filters.is_empty() {
            Filter::any_of(filters)
        } else {
            Filter::All
        },
        infallible,
    }
}

struct Translator<'a> {
    index: &'a VaultIndex,
}

impl Translator<'_> {
    /// A node of `filters:`, at the depth the engine evaluates it.
    fn node(&self, node: &FilterNode, depth: usize) -> Part {
        if depth >= MAX_DEPTH {
            return Part::all(false);
        }
        match node {
            FilterNode::Expr(w) => self.condition(&w.expr, depth),
            FilterNode::All(items) => and(items.iter().map(|f| self.node(f, depth + 1))),
            FilterNode::Any(items) => or(items.iter().map(|f| self.node(f, depth + 1))),
            // A superset cannot be negated.
            FilterNode::None(items) => {
                Part::all(items.iter().all(|f| self.node(f, depth + 1).infallible))
            }
        }
    }

    /// An expression read as a condition (its truth).
    fn condition(&self, e: &Expr, depth: usize) -> Part {
        if depth >= MAX_DEPTH {
            return Part::all(false);
        }
        let d = depth + 1;
        match &e.kind {
            Kind::Binary(BinOp::And, a, b) => and([self.condition(a, d), self.condition(b, d)]),
            Kind::Binary(BinOp::Or, a, b) => or([self.condition(a, d), self.condition(b, d)]),
            Kind::Binary(BinOp::Eq, a, b) => self.equality(a, b, d),
            // A comparison with a missing property (null) is false.
            Kind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, a, b) => {
                match (property(a), property(b)) {
                    (Some(key), _) if infallible(b, d) => exists(key),
                    (_, Some(key)) if infallible(a, d) => exists(key),
                    _ => Part::all(infallible(a, d) && infallible(b, d)),
                }
            }
            Kind::Method(object, name, _, args) if is_file(object) => {
                self.file_method(name, args, d)
            }
            // A missing property is null, which is false.
            _ => match property(e) {
                Some(key) => exists(key),
                None => Part::all(infallible(e, depth)),
            },
        }
    }

    /// `file.hasTag(…)`, `file.inFolder(…)`, `file.hasProperty(…)`.
    fn file_method(&self, name: &str, args: &[Expr], d: usize) -> Part {
        let texts: Option<Vec<&str>> = args
            .iter()
            .map(|a| match &a.kind {
                Kind::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        match (name, texts.as_deref()) {
            ("hasTag", Some(tags)) if !tags.is_empty() => Part::exact(Filter::any_of(
                tags.iter().map(|t| Filter::Tag((*t).into())).collect(),
            )),
            ("inFolder", Some([folder])) => match Folder::new(folder) {
                Ok(folder) => Part::exact(Filter::Folder(folder)),
                Err(_) => Part::all(false),
            },
            ("hasProperty", Some([key])) => exists(key),
            _ => Part::all(file_method_infallible(name, args, d)),
        }
    }

    /// `a == b`.
    fn equality(&self, a: &Expr, b: &Expr, d: usize) -> Part {
        let fallback = || Part::all(infallible(a, d) && infallible(b, d));
        let (subject, literal) = match (&a.kind, &b.kind) {
            (_, Kind::Str(_) | Kind::Number(_) | Kind::Bool(_)) => (a, &b.kind),
            (Kind::Str(_) | Kind::Number(_) | Kind::Bool(_), _) => (b, &a.kind),
            _ => return fallback(),
        };
        if let Some(key) = property(subject) {
            return match literal {
                Kind::Str(s) => match self.text_equals(key, s) {
                    Some(value) => Part::exact(Filter::Property(key.into(), Test::Equals(value))),
                    None => exists(key),
                },
                Kind::Bool(b) => Part::exact(Filter::Property(
                    key.into(),
                    Test::Equals(FilterValue::Bool(*b)),
                )),
                // Null equals no literal; the filter's numbers are not the
                // engine's (`3.0` as text, a text that reads as one).
                _ => exists(key),
            };
        }
        if let (Kind::Member(object, field, _), Kind::Str(s)) = (&subject.kind, literal)
            && field == "name"
            && is_file(object)
            && !ends_with_md(s)
        {
            // A note's `file.name` is its stem when its path ends in `.md`;
            // one ending in `.MD` keeps it, and so would the literal.
            return Part::exact(Filter::Name(s.as_str().into()));
        }
        fallback()
    }

    /// The filter's value equal to the text `s` wherever the engine's
    /// `key == s` holds, when it is sure: `s` is plain text to both (no
    /// date, number, yes/no or link to the filter; no date or number to the
    /// engine), trimmed, and no attachment's name (the engine's link equal
    /// to it would be; the filter compares such links by their text).
    fn text_equals(&self, key: &str, s: &str) -> Option<FilterValue> {
        if s.is_empty() || s.trim() != s || parse_date(s).is_some() || s.parse::<f64>().is_ok() {
            return None;
        }
        let want = FilterValue::of_text_as(s, self.index.types().fixed(key));
        if want != FilterValue::Text(s.into()) {
            return None;
        }
        let named = LinkValue {
            target: s.to_string(),
            display: None,
            from: String::new(),
        };
        match link_place(self.index, &named) {
            Place::Row(Row::File(_)) => None,
            _ => Some(want),
        }
    }
}

fn exists(key: &str) -> Part {
    Part::exact(Filter::Property(key.into(), Test::Exists))
}

fn ends_with_md(s: &str) -> bool {
    s.len() >= 3 && s.as_bytes()[s.len() - 3..].eq_ignore_ascii_case(b".md")
}

fn is_file(e: &Expr) -> bool {
    matches!(&e.kind, Kind::Name(n) if n == "file")
}

/// The note property `e` reads (a bare name, `note.key`), null when the
/// note has none.
fn property(e: &Expr) -> Option<&str> {
    match &e.kind {
        Kind::Name(n) if !NOT_PROPERTIES.contains(&n.as_str()) => Some(n),
        Kind::Member(object, key, _) if matches!(&object.kind, Kind::Name(n) if n == "note") => {
            Some(key)
        }
        _ => None,
    }
}

/// Whether evaluating `e` (at `depth`) never fails, whatever the row: a
/// conservative reading (false when unsure).
fn infallible(e: &Expr, depth: usize) -> bool {
    if depth >= MAX_DEPTH {
        return false;
    }
    let d = depth + 1;
    match &e.kind {
        Kind::Null | Kind::Bool(_) | Kind::Number(_) | Kind::Str(_) => true,
        Kind::Regex { .. } => false,
        Kind::List(items) => items.iter().all(|i| infallible(i, d)),
        Kind::Object(entries) => entries.iter().all(|(_, v)| infallible(v, d)),
        Kind::Name(n) => n != "formula",
        Kind::Member(object, field, _) => match &object.kind {
            Kind::Name(n) if n == "note" || n == "this" => true,
            Kind::Name(n) if n == "file" => FILE_FIELDS.contains(&field.as_str()),
            _ => false,
        },
        Kind::Index(object, key) => infallible(object, d) && infallible(key, d),
        Kind::Call(name, args) => args.is_empty() && (name == "now" || name == "today"),
        Kind::Method(object, name, _, args) => {
            is_file(object) && file_method_infallible(name, args, d)
        }
        Kind::Unary(_, inner) => infallible(inner, d),
        Kind::Binary(_, a, b) => infallible(a, d) && infallible(b, d),
    }
}

/// Whether the file method `name` with `args` never fails.
fn file_method_infallible(name: &str, args: &[Expr], d: usize) -> bool {
    let args_ok = args.iter().all(|a| infallible(a, d));
    match name {
        "hasTag" | "hasProperty" | "hasLink" => args_ok,
        "inFolder" => {
            matches!(args, [a] if matches!(&a.kind, Kind::Str(s) if Folder::new(s).is_ok()))
        }
        _ => false,
    }
}

/// The rows a run evaluates: the notes the plan passes (in the index's
/// order), then the attachments it may pass.
pub fn candidates(plan: Option<&Plan>, index: &VaultIndex) -> Vec<Row> {
    // A tag every passing note must have: only its notes are read (the
    // index's posting list), the rest of the plan judged on them.
    // The posting list holds every note the tag filter passes (its keys are
    // the more lenient), so the rest of the plan need not ask for the tag
    // again.
    let tagged = plan.and_then(|p| required_tag(&p.notes));
    let mut rows: Vec<Row> = match tagged {
        Some((tag, rest)) => index
            .notes_tagged(tag)
            .into_iter()
            .filter(|id| rest.is_all() || rest.matches(index, *id, &Default::default()))
            .map(Row::Note)
            .collect(),
        None => index
            .notes()
            .filter(|(id, _)| plan.is_none_or(|p| p.note_may_pass(index, *id)))
            .map(|(id, _)| Row::Note(id))
            .collect(),
    };
    rows.extend(
        index
            .attachments()
            .filter(|path| plan.is_none_or(|p| p.file_may_pass(path)))
            .map(|path| Row::File(Arc::from(path))),
    );
    rows
}

/// A tag `filter` requires of every note it passes (itself, or the first
/// tag among the parts of an `and`), and the filter without it.
fn required_tag(filter: &Filter) -> Option<(&str, Filter)> {
    match filter {
        Filter::Tag(tag) => Some((tag, Filter::All)),
        Filter::And(parts) => {
            let at = parts.iter().position(|p| matches!(p, Filter::Tag(_)))?;
            let Filter::Tag(tag) = &parts[at] else {
                unreachable!("found above")
            };
            let mut rest = parts.clone();
            rest.remove(at);
            Some((tag, Filter::all_of(rest)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::parse::parse_text;

    /// The plan's note filter of a base whose `filters:` is `yaml`.
    fn plan(yaml: &str) -> Filter {
        let mut index = VaultIndex::new();
        index.upsert(parse_text("N.md", "---\nstatus: done\n---\n"));
        index.add_attachment("A/cover.png");
        let base = Base::parse(&format!(
            "filters: {yaml}\nviews: [{{type: table, name: V}}]"
        ))
        .expect("the base reads");
        Plan::of(&base, &base.view(None).expect("a view"), &index).notes
    }

    fn tag(t: &str) -> Filter {
        Filter::Tag(t.into())
    }

    fn has(k: &str) -> Filter {
        Filter::Property(k.into(), Test::Exists)
    }

    #[test]
    fn what_translates() {
        assert_eq!(
            plan(r#"'file.hasTag("a", "b")'"#),
            Filter::Or(vec![tag("a"), tag("b")])
        );
        assert_eq!(
            plan(r#"'file.inFolder("A")'"#),
            Filter::Folder(Folder::new("A").unwrap())
        );
        assert_eq!(plan(r#"'file.hasProperty("k")'"#), has("k"));
        assert_eq!(plan("'note.k'"), has("k"));
        assert_eq!(plan("'k > 2'"), has("k"));
        assert_eq!(plan("'2 >= note.k'"), has("k"));
        assert_eq!(plan("'k == 3'"), has("k"));
        assert_eq!(
            plan(r#"'k == "done"'"#),
            Filter::Property("k".into(), Test::Equals(FilterValue::Text("done".into())))
        );
        assert_eq!(
            plan("'k == true'"),
            Filter::Property("k".into(), Test::Equals(FilterValue::Bool(true)))
        );
        assert_eq!(plan(r#"'file.name == "N"'"#), Filter::Name("N".into()));
        assert_eq!(
            plan(r#"'file.hasTag("a") && k'"#),
            Filter::And(vec![tag("a"), has("k")])
        );
        assert_eq!(
            plan(r#"{or: ['file.hasTag("a")', 'k']}"#),
            Filter::Or(vec![tag("a"), has("k")])
        );
    }

    #[test]
    fn what_is_left_to_the_evaluator() {
        // Text the filter types otherwise, or that the engine compares as
        // a date or number: the property only.
        for literal in ["2024-01-05", "3", " done", "[[N]]", "true", ""] {
            assert_eq!(plan(&format!("'k == {literal:?}'")), has("k"), "{literal}");
        }
        // An attachment's name: links to it compare by where they lead.
        assert_eq!(plan(r#"'k == "cover.png"'"#), has("k"));
        assert_eq!(plan(r#"'file.name == "N.md"'"#), Filter::All);
        assert_eq!(plan("'k == null'"), Filter::All);
        assert_eq!(plan("'k != 3'"), Filter::All);
        assert_eq!(plan("'!k'"), Filter::All);
        assert_eq!(plan(r#"{not: ['file.hasTag("a")']}"#), Filter::All);
        assert_eq!(
            plan(r#"'file.hasTag("a") || file.ext == "md"'"#),
            Filter::All
        );
        assert_eq!(plan(r#"'file.inFolder("..")'"#), Filter::All);
        // A part that may fail ends what an `and` reads: the rows that
        // fail there are errors to keep, whatever follows.
        assert_eq!(
            plan(r#"'k.lower() == "a" && file.hasTag("a")'"#),
            Filter::All
        );
        assert_eq!(
            plan(r#"{and: ['file.hasTag("a")', 'formula.f', 'k']}"#),
            tag("a")
        );
        assert_eq!(
            plan(r#"{and: ['file.hasTag("a")', 'file.ext == "md"', 'k']}"#),
            Filter::And(vec![tag("a"), has("k")])
        );
    }

    #[test]
    fn which_attachments_may_pass() {
        let plan = |f: Filter| Plan { notes: f };
        assert!(plan(Filter::All).file_may_pass("A/cover.png"));
        assert!(plan(Filter::Folder(Folder::new("A").unwrap())).file_may_pass("A/cover.png"));
        assert!(!plan(Filter::Folder(Folder::new("B").unwrap())).file_may_pass("A/cover.png"));
        assert!(!plan(tag("a")).file_may_pass("A/cover.png"));
        assert!(!plan(has("k")).file_may_pass("A/cover.png"));
        assert!(plan(Filter::Name("cover.png".into())).file_may_pass("A/cover.png"));
        assert!(!plan(Filter::Name("cover".into())).file_may_pass("A/cover.png"));
        assert!(
            plan(Filter::Or(vec![
                tag("a"),
                Filter::Folder(Folder::new("A").unwrap())
            ]))
            .file_may_pass("A/cover.png")
        );
        assert!(
            !plan(Filter::And(vec![
                tag("a"),
                Filter::Folder(Folder::new("A").unwrap())
            ]))
            .file_may_pass("A/cover.png")
        );
    }
}
