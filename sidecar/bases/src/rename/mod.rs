//! Renaming a note property in a base: the byte edits that make every
//! place naming the property `old` name `new` instead, and nothing else —
//! expressions (filters at any `and`/`or`/`not` depth, formulas, custom
//! summaries), a view's `order`, `sort`, `groupBy`, `summaries` and
//! `columnSize` columns, the properties a view shows as its image or map
//! markers, and `properties:` keys. Keys compare as names do
//! (`weft_vault::key::name_key`). Only the name's bytes change: quoting,
//! comments, layout stay as written. A place that cannot be edited safely
//! is an error naming it, never a rename left half done; the edited text
//! is read again to check that every reference moved.
//!
//! Layout: `yaml` (the tree with its scalars' bytes, and a scalar's text
//! mapped to them); this file what names a property where and the edits;
//! `vault` the plan over every `.base` file and ```` ```base ```` block of
//! a vault, with the notes' frontmatter and `types.json`.

mod vault;
mod yaml;

use std::ops::Range;

use saphyr_parser::ScalarStyle;
use weft_vault::key::name_key;
use weft_vault::rewrite::Edit;

use crate::base::{Base, BaseError, blocks};
use crate::expr::{self, BOUND_NAMES, RESERVED_NAMES, RefForm};
use yaml::{Node, Scalar, double_escaped, mapped, plain_ok, quoted, tree};

pub use vault::plan_key_rename;

/// The view keys whose value names a property (`image: note.cover`).
pub const VIEW_PROPERTY_KEYS: &[&str] = &["image", "coordinates", "markerIcon", "markerColor"];

/// How deeply `and` / `or` / `not` are followed.
const MAX_FILTER_DEPTH: usize = 64;

/// The edits to a base's YAML (a `.base` file's text, or a block's) that
/// rename the note property `old` to `new`, sorted, never overlapping.
pub fn rename_in_base(yaml: &str, old: &str, new: &str) -> Result<Vec<Edit>, BaseError> {
    let old_key = name_key(old.trim());
    let new = new.trim();
    if old_key.is_empty() || new.is_empty() || new.contains(['\n', '\r']) {
        return Err(error("", format!("`{new}` cannot name a property")));
    }
    // A base that does not mention the name has nothing to rename (one
    // with an escape may write it escaped: it is read).
    if !yaml.contains('\\') && !name_key(yaml).contains(&old_key) {
        return Ok(Vec::new());
    }
    let root = tree(yaml).map_err(|(message, at)| {
        error(
            "",
            format!(
                "the base is not YAML that reads ({message}, line {}); it mentions `{old}`: fix \
                 it, or rename it there by hand",
                yaml[..at.min(yaml.len())].matches('\n').count() + 1
            ),
        )
    })?;
    let Some(root) = root else {
        return Ok(Vec::new());
    };
    let mut planner = Planner {
        yaml,
        old,
        old_key: old_key.clone(),
        new,
        write: true,
        found: 0,
        edits: Vec::new(),
    };
    planner.base(&root)?;
    let mut edits = planner.edits;
    if edits.is_empty() {
        return Ok(edits);
    }
    edits.sort_by_key(|e| e.range.start);
    check(yaml, &edits, old, new, planner.found)?;
    Ok(edits)
}

/// The edits to a note's text that rename `old` to `new` in each of its
/// ```` ```base ```` blocks; an error names the block (1-based).
pub fn rename_in_blocks(text: &str, old: &str, new: &str) -> Result<Vec<Edit>, BaseError> {
    let mut out = Vec::new();
    for (i, range) in blocks(text).into_iter().enumerate() {
        let edits = rename_in_base(&text[range.clone()], old, new).map_err(|e| BaseError {
            at: if e.at.is_empty() {
                format!("```base block {}", i + 1)
            } else {
                format!("```base block {}, {}", i + 1, e.at)
            },
            message: e.message,
        })?;
        out.extend(edits.into_iter().map(|e| Edit {
            range: e.range.start + range.start..e.range.end + range.start,
            new_text: e.new_text,
        }));
    }
    Ok(out)
}

fn error(at: &str, message: impl Into<String>) -> BaseError {
    BaseError {
        at: at.to_string(),
        message: message.into(),
    }
}

/// Reads the edited base again: `old` is named nowhere (unless only its
/// case changes) and `new` as often as both were; a base that read still
/// reads.
fn check(
    yaml: &str,
    edits: &[Edit],
    old: &str,
    new: &str,
    renamed: usize,
) -> Result<(), BaseError> {
    let mut after = String::with_capacity(yaml.len());
    let mut at = 0;
    for e in edits {
        after.push_str(&yaml[at..e.range.start]);
        after.push_str(&e.new_text);
        at = e.range.end;
    }
    after.push_str(&yaml[at..]);
    let count = |text: &str, name: &str| -> usize {
        let Ok(Some(root)) = tree(text) else {
            return usize::MAX;
        };
        let mut p = Planner {
            yaml: text,
            old: name,
            old_key: name_key(name),
            new: name,
            write: false,
            found: 0,
            edits: Vec::new(),
        };
        match p.base(&root) {
            Ok(()) => p.found,
            Err(_) => usize::MAX,
        }
    };
    let same = name_key(old) == name_key(new);
    let new_before = if same { 0 } else { count(yaml, new) };
    let old_after = if same { 0 } else { count(&after, old) };
    let new_after = count(&after, new);
    if old_after != 0 || new_after != renamed + new_before {
        return Err(error(
            "",
            format!(
                "renaming `{old}` to `{new}` here does not read back as a rename \
                 ({renamed} place(s) named `{old}`; after the edit {old_after} still do and \
                 {new_after} name `{new}`): rename it by hand"
            ),
        ));
    }
    if Base::parse(yaml).is_ok()
        && let Err(e) = Base::parse(&after)
    {
        return Err(error(
            &e.at,
            format!(
                "after renaming `{old}` to `{new}` the base no longer reads: {}",
                e.message
            ),
        ));
    }
    Ok(())
}

/// Walks a base, finding where `old` is named; with `write`, the edits.
struct Planner<'a> {
    yaml: &'a str,
    old: &'a str,
    old_key: String,
    new: &'a str,
    write: bool,
    /// Places that name `old`.
    found: usize,
    edits: Vec<Edit>,
}

/// What a column's text names: the property's range in it, when `key`.
fn column_ref(column: &str, key: &str) -> Option<Range<usize>> {
    let (start, rest) = match column.strip_prefix("note.") {
        Some(rest) => (5, rest),
        None if column.starts_with("file.") || column.starts_with("formula.") => return None,
        None => (0, column),
    };
    let lead = rest.len() - rest.trim_start().len();
    let name = rest.trim();
    (name_key(name) == key).then(|| start + lead..start + lead + name.len())
}

/// Whether `name` is an identifier of the expression language.
fn identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !["true", "false", "null"].contains(&name)
}

/// `text` as a string literal of the expression language in `quote`s.
fn literal(text: &str, quote: char) -> String {
    let mut out = String::from(quote);
    for c in text.chars() {
        if c == quote || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(quote);
    out
}

impl Planner<'_> {
    fn base(&mut self, root: &Node) -> Result<(), BaseError> {
        let Node::Map(top) = root else {
            return Ok(());
        };
        for (key, value) in top {
            let Some(key) = key.scalar() else { continue };
            match key.value.as_str() {
                "filters" => self.filter("filters", value, 0)?,
                "formulas" | "summaries" => {
                    if let Node::Map(entries) = value {
                        for (name, e) in entries {
                            let name = name.scalar().map_or("", |s| s.value.as_str());
                            self.expression(&format!("{}.{name}", key.value), e)?;
                        }
                    }
                }
                "properties" => self.column_keys("properties", value)?,
                "views" => {
                    if let Node::Seq(views) = value {
                        for (i, view) in views.iter().enumerate() {
                            self.view(&format!("views[{i}]"), view)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn view(&mut self, at: &str, view: &Node) -> Result<(), BaseError> {
        let Node::Map(entries) = view else {
            return Ok(());
        };
        for (key, value) in entries {
            let Some(key) = key.scalar() else { continue };
            let here = format!("{at}.{}", key.value);
            match key.value.as_str() {
                "filters" => self.filter(&here, value, 0)?,
                "order" => {
                    if let Node::Seq(items) = value {
                        for (j, item) in items.iter().enumerate() {
                            self.column(&format!("{here}[{j}]"), item)?;
                        }
                    }
                }
                "sort" => {
                    if let Node::Seq(items) = value {
                        for (j, item) in items.iter().enumerate() {
                            self.sort_key(&format!("{here}[{j}]"), item)?;
                        }
                    }
                }
                "groupBy" => self.sort_key(&here, value)?,
                "summaries" | "columnSize" => self.column_keys(&here, value)?,
                k if VIEW_PROPERTY_KEYS.contains(&k) => self.column(&here, value)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn sort_key(&mut self, at: &str, node: &Node) -> Result<(), BaseError> {
        for field in ["property", "column"] {
            if let Some(v) = node.get(field) {
                self.column(&format!("{at}.{field}"), v)?;
            }
        }
        Ok(())
    }

    fn filter(&mut self, at: &str, node: &Node, depth: usize) -> Result<(), BaseError> {
        if depth > MAX_FILTER_DEPTH {
            return Err(error(at, "filters nest too deeply to rename in"));
        }
        match node {
            Node::Map(entries) => {
                for (key, value) in entries {
                    let key = key.scalar().map_or("?", |s| s.value.as_str());
                    let here = format!("{at}.{key}");
                    match value {
                        Node::Seq(items) => {
                            for (i, item) in items.iter().enumerate() {
                                self.filter(&format!("{here}[{i}]"), item, depth + 1)?;
                            }
                        }
                        other => self.filter(&here, other, depth + 1)?,
                    }
                }
                Ok(())
            }
            other => self.expression(at, other),
        }
    }

    /// A mapping whose keys are columns (`properties`, a view's
    /// `summaries` and `columnSize`). Renaming a key onto one it already
    /// has would write it twice: refused.
    fn column_keys(&mut self, at: &str, node: &Node) -> Result<(), BaseError> {
        let Node::Map(entries) = node else {
            return Ok(());
        };
        let new_key = name_key(self.new);
        let has = |key: &str| {
            entries.iter().any(|(k, _)| {
                k.scalar()
                    .is_some_and(|s| column_ref(&s.value, key).is_some())
            })
        };
        if self.write && new_key != self.old_key && has(&self.old_key) && has(&new_key) {
            return Err(error(
                at,
                format!(
                    "has both `{}` and `{}`; merge them there first",
                    self.old, self.new
                ),
            ));
        }
        for (key, _) in entries {
            let name = key.scalar().map_or("", |s| s.value.as_str());
            self.column(&format!("{at}.{name}"), key)?;
        }
        Ok(())
    }

    /// The scalar where a property may be named (none for a collection).
    /// An alias there is refused: the repeated node is edited where it is
    /// anchored, but not what it means here.
    fn scalar_at<'n>(&self, at: &str, node: &'n Node) -> Result<Option<&'n Scalar>, BaseError> {
        match node {
            Node::Scalar(s) => Ok(Some(s)),
            Node::Alias if self.write => Err(error(
                at,
                format!(
                    "an alias (`*…`) stands where `{}` may be named; rename it there by hand",
                    self.old
                ),
            )),
            _ => Ok(None),
        }
    }

    /// A column: `note.x`, or a bare `x`.
    fn column(&mut self, at: &str, node: &Node) -> Result<(), BaseError> {
        let Some(s) = self.scalar_at(at, node)? else {
            return Ok(());
        };
        let Some(range) = column_ref(&s.value, &self.old_key) else {
            return Ok(());
        };
        self.found += 1;
        let new = self.new.to_string();
        self.edit(at, s, vec![(range, new)])
    }

    /// An expression: every reference to the property renamed.
    fn expression(&mut self, at: &str, node: &Node) -> Result<(), BaseError> {
        let Some(s) = self.scalar_at(at, node)? else {
            return Ok(());
        };
        let source = &s.value;
        let parsed = match expr::parse(source) {
            Ok(e) => e,
            Err(e) if self.write && name_key(source).contains(&self.old_key) => {
                return Err(error(
                    at,
                    format!(
                        "`{source}` does not read as an expression ({}) and may name `{}`: fix \
                         it, or rename it there by hand",
                        e.message, self.old
                    ),
                ));
            }
            Err(_) => return Ok(()),
        };
        let refs: Vec<_> = parsed
            .property_refs()
            .into_iter()
            .filter(|r| name_key(&r.name) == self.old_key)
            .collect();
        if refs.is_empty() {
            return Ok(());
        }
        self.found += refs.len();
        if !self.write {
            return Ok(());
        }
        let new = self.new;
        let member_ok = identifier(new) && !RESERVED_NAMES.contains(&new);
        let bare_ok =
            member_ok && !BOUND_NAMES.contains(&new) && !crate::eval::GLOBALS.contains(&new);
        let mut edits = Vec::with_capacity(refs.len());
        for r in refs {
            match r.form {
                RefForm::Quoted => {
                    let quote = source[r.span.start..].chars().next().unwrap_or('"');
                    edits.push((r.span, literal(new, quote)));
                }
                RefForm::Name => {
                    let before = source[..r.span.start].trim_end();
                    if before.ends_with('.') {
                        if member_ok {
                            edits.push((r.span, new.to_string()));
                        } else {
                            edits.push((
                                before.len() - 1..r.span.end,
                                format!("[{}]", literal(new, '"')),
                            ));
                        }
                    } else if bare_ok {
                        edits.push((r.span, new.to_string()));
                    } else {
                        edits.push((r.span, format!("note[{}]", literal(new, '"'))));
                    }
                }
            }
        }
        self.edit(at, s, edits)
    }

    /// Writes `edits` (ranges of the scalar's value, new text) into the
    /// scalar's bytes, in its style; a plain scalar that would no longer
    /// read back is written whole in quotes.
    fn edit(
        &mut self,
        at: &str,
        s: &Scalar,
        mut edits: Vec<(Range<usize>, String)>,
    ) -> Result<(), BaseError> {
        if !self.write || edits.is_empty() {
            return Ok(());
        }
        edits.sort_by_key(|(r, _)| r.start);
        let Some(map) = mapped(self.yaml, s) else {
            return Err(error(
                at,
                format!(
                    "`{}` is written in a way this rename cannot edit in place (an anchor, a tag, \
                     a folded `>` block or an indentation indicator); rename `{}` there by hand",
                    s.value.trim(),
                    self.old
                ),
            ));
        };
        let encoded = |text: &str| match s.style {
            ScalarStyle::SingleQuoted => text.replace('\'', "''"),
            ScalarStyle::DoubleQuoted => double_escaped(text),
            _ => text.to_string(),
        };
        let raw: Vec<Edit> = edits
            .iter()
            .map(|(range, text)| Edit {
                range: map.raw_range(range),
                new_text: encoded(text),
            })
            .collect();
        if s.style == ScalarStyle::Plain {
            let span = map.raw[0].start..map.raw[map.raw.len() - 1].end;
            let mut written = String::new();
            let mut pos = span.start;
            for e in &raw {
                written.push_str(&self.yaml[pos..e.range.start]);
                written.push_str(&e.new_text);
                pos = e.range.end;
            }
            written.push_str(&self.yaml[pos..span.end]);
            if !written.lines().all(|l| plain_ok(l.trim(), s.flow)) {
                let mut value = s.value.clone();
                for (range, text) in edits.iter().rev() {
                    value.replace_range(range.clone(), text);
                }
                self.edits.push(Edit {
                    range: span,
                    new_text: quoted(&value),
                });
                return Ok(());
            }
        }
        self.edits.extend(raw);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
