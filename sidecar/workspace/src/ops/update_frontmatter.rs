//! `update_frontmatter`: set, unset and merge properties, the title, and
//! tags and aliases (replaced, or edited with idempotent add/remove,
//! removals first), keeping the rest of the frontmatter as written. Also
//! the list helpers `write_note` shares. No protocol.

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::OpError;
use super::warning::Warning;
use super::{Change, Ops, Step, WriteOptions, change, lost_links};
use weft_vault::frontmatter::{self, FrontmatterOp};
use weft_vault::key::name_key;
use weft_vault::parse::parse_text;
use weft_vault::tags;

/// A change to one note's frontmatter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpdateFrontmatter {
    /// The note: a vault path (`.md` optional), a title or an alias.
    pub path: String,
    pub change: FrontmatterChange,
    pub options: WriteOptions,
}

/// What to change in a frontmatter. Every field is optional; at least one
/// must be given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontmatterChange {
    /// Keys to rename (key → new key), first; a note's key is found as
    /// names compare (`Status` for `status`).
    pub rename: Vec<(String, String)>,
    /// Properties to set (replacing their values).
    pub set: Map<String, Value>,
    pub unset: Vec<String>,
    /// Objects merged key by key into mapping properties.
    pub merge: Map<String, Value>,
    /// The `title` property; an empty string removes it.
    pub title: Option<String>,
    /// Replaces the tags (an empty list removes them).
    pub tags: Option<Vec<String>>,
    pub add_tags: Vec<String>,
    pub remove_tags: Vec<String>,
    /// Replaces the aliases (an empty list removes them).
    pub aliases: Option<Vec<String>>,
    pub add_aliases: Vec<String>,
    pub remove_aliases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrontmatterReport {
    pub change: Change,
    /// Whether the text changed (adding a tag it has already is not a change).
    pub changed: bool,
    pub dry_run: bool,
    /// The frontmatter after the change.
    pub frontmatter: Map<String, Value>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    /// Things the caller may want to know: a removed tag still used inline,
    /// links that reached the note by a removed alias or title.
    pub warnings: Vec<Warning>,
}

impl Ops<'_> {
    /// Changes a note's frontmatter.
    pub fn update_frontmatter(
        &self,
        request: &UpdateFrontmatter,
    ) -> Result<FrontmatterReport, OpError> {
        self.policy.check_writable()?;
        check_change(&request.change)?;
        let (_writes, rel, current) = self.open_existing(&request.path, &request.options)?;
        let (text, warnings) = self.changed_frontmatter(&rel, &current.text, &request.change)?;
        let changed = text != current.text;
        let dry_run = request.options.dry_run;
        if changed {
            self.perform(
                dry_run,
                "update_frontmatter",
                &rel,
                &[Step::Write {
                    path: rel.clone(),
                    before: Some(current.bytes.clone()),
                    after: text.clone(),
                }],
            )?;
        }
        let after = frontmatter::read(&text).unwrap_or_default();
        Ok(FrontmatterReport {
            change: change(&rel, None, Some(&current.text), Some(&text), dry_run),
            changed,
            dry_run,
            tags: listed(&after, ["tags", "tag"], true),
            aliases: listed(&after, ["aliases", "alias"], false),
            frontmatter: after,
            warnings,
        })
    }

    /// The note `rel`'s `text` with `change` made (the tag policy holds),
    /// and what the caller may want to know: a removed tag still used
    /// inline, links that reached the note by a removed alias or title.
    pub(super) fn changed_frontmatter(
        &self,
        rel: &str,
        text: &str,
        change: &FrontmatterChange,
    ) -> Result<(String, Vec<Warning>), OpError> {
        let fm_error = |error| OpError::Frontmatter {
            path: rel.to_string(),
            error,
        };
        let fm = frontmatter::read(text).map_err(fm_error)?;
        let mut ops = rename_ops(change, &fm);
        ops.extend(property_ops(change)?);
        ops.extend(list_ops(change, &fm)?);
        let new = frontmatter::apply(text, &ops).map_err(fm_error)?;
        let mut warnings = tags_still_inline(change, rel, &new);
        self.check_tags(Some((rel, text)), rel, &new)?;
        if new != text {
            warnings.extend(lost_links(
                &self.index(),
                &|p| self.policy.access.sees(p),
                rel,
                text,
                &new,
            ));
        }
        Ok((new, warnings))
    }
}

/// The renames of a note's keys: each key it writes that compares as a
/// name with a key to rename (`Status` for `status`).
fn rename_ops(change: &FrontmatterChange, fm: &Map<String, Value>) -> Vec<FrontmatterOp> {
    let mut ops = Vec::new();
    for (old, new) in &change.rename {
        for written in fm.keys().filter(|k| name_key(k) == name_key(old)) {
            ops.push(FrontmatterOp::Rename {
                key: written.clone(),
                to: new.clone(),
            });
        }
    }
    ops
}

/// The changes to properties and the title, in the order they apply:
/// unset, set, merge, title.
fn property_ops(request: &FrontmatterChange) -> Result<Vec<FrontmatterOp>, OpError> {
    let mut ops: Vec<FrontmatterOp> = Vec::new();
    for key in &request.unset {
        ops.push(FrontmatterOp::Unset { key: key.clone() });
    }
    for (key, value) in &request.set {
        ops.push(FrontmatterOp::Set {
            key: key.clone(),
            value: value.clone(),
        });
    }
    for (key, value) in &request.merge {
        let Value::Object(map) = value else {
            return Err(OpError::MergeNotObject { key: key.clone() });
        };
        ops.push(FrontmatterOp::Merge {
            key: key.clone(),
            value: map.clone(),
        });
    }
    if let Some(title) = &request.title {
        let title = title.trim();
        ops.push(if title.is_empty() {
            FrontmatterOp::Unset {
                key: "title".into(),
            }
        } else {
            FrontmatterOp::Set {
                key: "title".into(),
                value: Value::String(title.to_string()),
            }
        });
    }
    Ok(ops)
}

/// The changes to the tags and aliases: none for a list left as it is.
fn list_ops(
    request: &FrontmatterChange,
    fm: &Map<String, Value>,
) -> Result<Vec<FrontmatterOp>, OpError> {
    let mut ops = Vec::new();
    for (replace, add, remove, keys, is_tags) in [
        (
            &request.tags,
            &request.add_tags,
            &request.remove_tags,
            ["tags", "tag"],
            true,
        ),
        (
            &request.aliases,
            &request.add_aliases,
            &request.remove_aliases,
            ["aliases", "alias"],
            false,
        ),
    ] {
        if replace.is_none() && add.is_empty() && remove.is_empty() {
            continue;
        }
        let key = list_key(fm, keys);
        let have = listed(fm, keys, is_tags);
        let wanted = match replace {
            Some(list) => clean_names(list, is_tags)?,
            None => edited_list(
                &have,
                &clean_names(remove, is_tags)?,
                &clean_names(add, is_tags)?,
            ),
        };
        if wanted == have {
            continue; // Idempotent: nothing to change.
        }
        ops.push(if wanted.is_empty() {
            FrontmatterOp::Unset { key: key.into() }
        } else {
            FrontmatterOp::Set {
                key: key.into(),
                value: Value::Array(wanted.into_iter().map(Value::String).collect()),
            }
        });
    }
    Ok(ops)
}

/// A list with `remove` taken out and `add` put in, in the user's order:
/// the names added take the places of the names removed, in turn, and the
/// rest go last (a name it has already stays where it is).
fn edited_list(have: &[String], remove: &[String], add: &[String]) -> Vec<String> {
    let mut fresh = add
        .iter()
        .filter(|a| !have.iter().any(|h| same(h, a)) || remove.iter().any(|r| same(r, a)));
    let mut out: Vec<String> = Vec::new();
    for name in have {
        if !remove.iter().any(|r| same(name, r)) {
            out.push(name.clone());
        } else if let Some(replacement) = fresh.next() {
            out.push(replacement.clone());
        }
    }
    merge_lists(&out, &fresh.cloned().collect::<Vec<_>>())
}

/// The tags or aliases of `fm`, under whichever of `keys` it uses.
fn listed(fm: &Map<String, Value>, keys: [&str; 2], is_tags: bool) -> Vec<String> {
    fm.get(list_key(fm, keys))
        .map(|v| string_list(v, is_tags))
        .unwrap_or_default()
}

/// Tags removed from the frontmatter that `text` still has inline.
fn tags_still_inline(request: &FrontmatterChange, rel: &str, text: &str) -> Vec<Warning> {
    let note = parse_text(rel, text);
    let mut warnings = Vec::new();
    for removed in &request.remove_tags {
        let removed = removed.trim().trim_start_matches('#');
        if let Some(inline) = note
            .tags
            .iter()
            .find(|t| !t.in_frontmatter && name_key(&t.name) == name_key(removed))
        {
            warnings.push(Warning::TagStillInline {
                tag: inline.name.to_string(),
                line: inline.line as usize + 1,
            });
        }
    }
    warnings
}

/// Arguments that contradict each other, before anything is read.
pub(super) fn check_change(request: &FrontmatterChange) -> Result<(), OpError> {
    for (replace, add, remove, name) in [
        (
            request.tags.is_some(),
            &request.add_tags,
            &request.remove_tags,
            "tags",
        ),
        (
            request.aliases.is_some(),
            &request.add_aliases,
            &request.remove_aliases,
            "aliases",
        ),
    ] {
        if replace && (!add.is_empty() || !remove.is_empty()) {
            return Err(OpError::Invalid(format!(
                "give either `{name}` (replaces the whole list) or `add_{name}`/`remove_{name}` (edit it), \
                 not both"
            )));
        }
    }
    if let Some((key, _)) = request.rename.iter().find(|(old, new)| old == new) {
        return Err(OpError::Invalid(format!(
            "`rename` renames `{key}` to itself; name a different key"
        )));
    }
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let keys = request
        .rename
        .iter()
        .flat_map(|(old, new)| [(old.as_str(), "rename"), (new.as_str(), "rename")])
        .chain(request.set.keys().map(|k| (k.as_str(), "set")))
        .chain(request.unset.iter().map(|k| (k.as_str(), "unset")))
        .chain(request.merge.keys().map(|k| (k.as_str(), "merge")));
    for (key, from) in keys {
        if let Some((_, other)) = seen.iter().find(|(k, _)| *k == key) {
            return Err(OpError::Invalid(format!(
                "`{key}` is in both `{other}` and `{from}`; give each property once"
            )));
        }
        seen.push((key, from));
        let owner = match key {
            "tags" | "tag"
                if request.tags.is_some()
                    || !request.add_tags.is_empty()
                    || !request.remove_tags.is_empty() =>
            {
                Some("tags")
            }
            "aliases" | "alias"
                if request.aliases.is_some()
                    || !request.add_aliases.is_empty()
                    || !request.remove_aliases.is_empty() =>
            {
                Some("aliases")
            }
            "title" if request.title.is_some() => Some("title"),
            _ => None,
        };
        if let Some(owner) = owner {
            return Err(OpError::Invalid(format!(
                "`{key}` is given both in `{from}` and through the `{owner}` parameters; give it once"
            )));
        }
    }
    let nothing = seen.is_empty()
        && request.title.is_none()
        && request.tags.is_none()
        && request.aliases.is_none()
        && request.add_tags.is_empty()
        && request.remove_tags.is_empty()
        && request.add_aliases.is_empty()
        && request.remove_aliases.is_empty();
    if nothing {
        return Err(OpError::NothingToUpdate);
    }
    Ok(())
}

/// The key a list lives under: the first of `keys` present, else the first.
pub(crate) fn list_key<'k>(fm: &Map<String, Value>, keys: [&'k str; 2]) -> &'k str {
    keys.into_iter()
        .find(|k| fm.contains_key(*k))
        .unwrap_or(keys[0])
}

/// A tags or aliases value as a list, as the parser reads it, without `#`.
pub(crate) fn string_list(value: &Value, is_tags: bool) -> Vec<String> {
    // As the parser reads them (`vault::tags`): a string of tags separated
    // by commas or spaces, or a list whose items are one name each.
    let one = |s: &str| {
        let s = s.trim();
        let s = if is_tags {
            s.trim_start_matches('#')
        } else {
            s
        };
        (!s.is_empty()).then(|| s.to_string())
    };
    match value {
        Value::String(s) if is_tags => tags::frontmatter_pieces(s)
            .into_iter()
            .map(|(_, name)| name.to_string())
            .collect(),
        Value::String(s) => one(s).into_iter().collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => one(s),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Names compare as links do: case-insensitive, Unicode normal form.
fn same(a: &str, b: &str) -> bool {
    name_key(a) == name_key(b)
}

/// Tag or alias names from a caller, checked and de-duplicated.
pub(crate) fn clean_names(input: &[String], is_tags: bool) -> Result<Vec<String>, OpError> {
    let mut out: Vec<String> = Vec::new();
    for raw in input {
        let name = if is_tags {
            tags::checked(raw).map_err(OpError::Invalid)?
        } else {
            raw.trim()
        };
        if !is_tags && (name.is_empty() || name.contains(['\n', '\r', '[', ']', '|'])) {
            return Err(OpError::Invalid(format!(
                "`{raw}` is not a usable alias: it must be non-empty, on one line, without `[`, `]` or `|`"
            )));
        }
        if !out.iter().any(|o| same(o, name)) {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// `have` followed by the names of `add` it does not have yet.
pub(crate) fn merge_lists(have: &[String], add: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in have.iter().chain(add) {
        if !out.iter().any(|o| same(o, name)) {
            out.push(name.clone());
        }
    }
    out
}
