//! A note's YAML frontmatter: where it is ([`block`], the one rule for
//! every reader), and edits to it that change only the bytes of the key
//! they change.
//!
//! Keys and values are located with a real YAML parser (`vault::yaml`), so a
//! quoted key holding `:` or `#`, a key containing another key's name, flow
//! and block values, block scalars, comments between keys and anchors are
//! what YAML says they are. `set` replaces the key's value (or its entry's
//! lines when the value spans lines), `unset` removes its lines (the fences
//! too when no line is left, the blank lines after it when it was the
//! first, as a frontmatter cannot start with a blank line), a new key goes
//! after the last one; every other byte stays, and the body starts where
//! it went on (or the edit is refused). Values are written by the YAML crate. Before anything
//! is returned the result is read back with the index's own parser
//! (`serde_norway`): every other key must read exactly as before and the
//! edited key as asked, or the edit is refused with an error naming the key
//! (an alias to an anchor the edit changes, say). No IO, no protocol types.

use std::fmt;
use std::ops::Range;

use serde_json::{Map, Value};

use super::lines::next_line_start;
use super::yaml::{self, LayoutError};

/// One change to the frontmatter.
#[derive(Debug, Clone, PartialEq)]
pub enum FrontmatterOp {
    Set {
        key: String,
        value: Value,
    },
    Unset {
        key: String,
    },
    /// Merge an object into the value at `key` (an object), key by key.
    Merge {
        key: String,
        value: Map<String, Value>,
    },
    /// Write the key `key` as `to`, its value and place as they are
    /// (nothing when the note has no `key`).
    Rename {
        key: String,
        to: String,
    },
}

impl FrontmatterOp {
    /// The key it changes (for a rename, the key as it is now).
    pub fn key(&self) -> &str {
        match self {
            FrontmatterOp::Set { key, .. }
            | FrontmatterOp::Unset { key }
            | FrontmatterOp::Merge { key, .. }
            | FrontmatterOp::Rename { key, .. } => key,
        }
    }

    /// The keys it writes: its key, and a rename's new one.
    fn touches(&self, k: &str) -> bool {
        self.key() == k || matches!(self, FrontmatterOp::Rename { to, .. } if to == k)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterError {
    /// The existing frontmatter is not valid YAML; editing it could lose data.
    Malformed(String),
    /// `merge` into a key whose value is not a mapping.
    NotAMapping {
        key: String,
    },
    Unserializable {
        key: String,
        message: String,
    },
    InvalidKey {
        key: String,
    },
    /// A rename onto a key the note has already.
    KeyTaken {
        key: String,
        to: String,
    },
    /// The frontmatter's layout cannot be edited key by key (a `{…}`
    /// mapping, a complex key, a key written twice).
    Uneditable {
        key: String,
        why: String,
    },
    /// Read back, the edited text would not say what was asked: `other`
    /// reads differently (or, when it is `key`, the edited key does).
    Unverified {
        key: String,
        other: String,
        detail: String,
    },
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrontmatterError::Malformed(e) => write!(
                f,
                "the note's frontmatter is not valid YAML ({e}); it is not changed key by key, \
                 so that no property is lost"
            ),
            FrontmatterError::NotAMapping { key } => {
                write!(f, "cannot merge into `{key}`: its value is not a mapping")
            }
            FrontmatterError::Unserializable { key, message } => {
                write!(f, "cannot write `{key}` as YAML: {message}")
            }
            FrontmatterError::InvalidKey { key } => {
                write!(
                    f,
                    "invalid property name {key:?}: use a non-empty name without line breaks or a leading '#'"
                )
            }
            FrontmatterError::KeyTaken { key, to } => write!(
                f,
                "cannot rename `{key}` to `{to}`: the note has `{to}` already"
            ),
            FrontmatterError::Uneditable { key, why } => write!(
                f,
                "cannot change `{key}` without touching other properties: {why}"
            ),
            FrontmatterError::Unverified { key, other, detail } if other.is_empty() => write!(
                f,
                "refusing to change `{key}`: the frontmatter would no longer be valid YAML \
                 ({detail}); another key may refer to it through an alias (`*name`); nothing was \
                 written"
            ),
            FrontmatterError::Unverified { key, other, detail } if other == key => write!(
                f,
                "refusing to change `{key}`: read back, it would be {detail}, not what was asked; \
                 nothing was written"
            ),
            FrontmatterError::Unverified { key, other, detail } => write!(
                f,
                "refusing to change `{key}`: it would change how `{other}` reads ({detail}), for \
                 example through a YAML alias to it; nothing was written"
            ),
        }
    }
}

impl std::error::Error for FrontmatterError {}

/// Where a note's frontmatter is: a `---` line at the very start (after a
/// byte-order mark), a first line that is neither blank nor a closing
/// fence, and a closing `---` or `...` line (trailing spaces allowed),
/// never indented. The rule pulldown-cmark applies to a YAML metadata
/// block, held to the start of the note: every reader (the parser, edits,
/// the search index) asks here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The YAML between the fences (its last line break included).
    pub yaml: Range<usize>,
    /// Just after the closing fence (before its line break).
    pub fence_end: usize,
    /// Where the body starts: after the closing fence's line break.
    pub body: usize,
}

/// Where the body starts: after the frontmatter block and its line break
/// (after a byte-order mark when there is no frontmatter).
pub fn body_start(text: &str) -> usize {
    match block(text) {
        Some(block) => block.body,
        None if text.starts_with('\u{feff}') => 3,
        None => 0,
    }
}

/// The frontmatter block of `text`, if it has one.
pub fn block(text: &str) -> Option<Block> {
    let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let bytes = text.as_bytes();
    let line_end = |at: usize| next_line_start(bytes, at).unwrap_or(bytes.len());
    let dashes = bytes[base..].iter().take_while(|&&b| b == b'-').count();
    let first_end = line_end(base);
    if dashes != 3
        || !bytes[base + 3..first_end]
            .iter()
            .all(u8::is_ascii_whitespace)
    {
        return None;
    }
    let closing = |at: usize| -> Option<usize> {
        let line = &bytes[at..line_end(at)];
        let fence = line.first().filter(|&&b| b == b'-' || b == b'.')?;
        let count = line.iter().take_while(|&&b| b == *fence).count();
        if count != 3 {
            return None;
        }
        let rest = &line[3..];
        let spaces = rest.iter().take_while(|&&b| b == b' ').count();
        matches!(&rest[spaces..], [] | [b'\n'] | [b'\r'] | [b'\r', b'\n'])
            .then_some(at + 3 + spaces)
    };
    let blank = |at: usize| bytes[at..line_end(at)].iter().all(u8::is_ascii_whitespace);
    let yaml_start = first_end;
    if yaml_start >= bytes.len() || closing(yaml_start).is_some() || blank(yaml_start) {
        return None;
    }
    let mut at = yaml_start;
    while at < bytes.len() {
        if let Some(fence_end) = closing(at) {
            return Some(Block {
                yaml: yaml_start..at,
                fence_end,
                body: line_end(fence_end.min(bytes.len())).min(bytes.len()),
            });
        }
        at = line_end(at);
    }
    None
}

/// The parsed frontmatter of a text (an empty map when there is none).
pub fn read(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    match block(text) {
        Some(fm) => parse_yaml(&text[fm.yaml]),
        None => Ok(Map::new()),
    }
}

/// Applies `ops` in order and returns the new text, verified (see the
/// module's header).
pub fn apply(text: &str, ops: &[FrontmatterOp]) -> Result<String, FrontmatterError> {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let found = block(text);
    let (mut yaml, prefix, suffix) = match &found {
        Some(fm) => (
            text[fm.yaml.clone()].to_string(),
            &text[..fm.yaml.start],
            &text[fm.yaml.end..],
        ),
        None => (String::new(), "", ""),
    };
    let before = parse_yaml(&yaml)?;
    let mut expected = before.clone();
    for op in ops {
        let key = op.key();
        let invalid =
            |k: &str| k.trim().is_empty() || k.contains(['\n', '\r']) || k.starts_with('#');
        if invalid(key) {
            return Err(FrontmatterError::InvalidKey {
                key: key.to_string(),
            });
        }
        let value = match op {
            FrontmatterOp::Unset { .. } => None,
            FrontmatterOp::Set { value, .. } => Some(value.clone()),
            FrontmatterOp::Merge { value, .. } => {
                let mut merged = match expected.get(key) {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => {
                        return Err(FrontmatterError::NotAMapping {
                            key: key.to_string(),
                        });
                    }
                };
                for (k, v) in value {
                    merged.insert(k.clone(), v.clone());
                }
                Some(Value::Object(merged))
            }
            FrontmatterOp::Rename { to, .. } => {
                if invalid(to) {
                    return Err(FrontmatterError::InvalidKey { key: to.clone() });
                }
                if to != key && expected.contains_key(to) {
                    return Err(FrontmatterError::KeyTaken {
                        key: key.to_string(),
                        to: to.clone(),
                    });
                }
                if let Some(value) = expected.remove(key) {
                    rename_key(&mut yaml, key, to)?;
                    expected.insert(to.clone(), value);
                }
                continue;
            }
        };
        edit(&mut yaml, key, value.as_ref(), eol)?;
        match value {
            Some(value) => expected.insert(key.to_string(), value),
            None => expected.remove(key),
        };
    }
    if found.is_none() && yaml.trim().is_empty() {
        return Ok(text.to_string());
    }
    let out = match &found {
        // A frontmatter left without a line is taken out whole: `---` lines
        // with nothing between them are no frontmatter but Markdown (two
        // rules at the top of the body).
        Some(fm) if yaml.trim().is_empty() => {
            let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
            format!("{}{}", &text[..bom], &text[fm.body..])
        }
        Some(_) => {
            // Removing the first entry can leave the blank lines after it
            // on the first line, where they end the block (see
            // [`block`]): they hold nothing in YAML, so they go too.
            drop_leading_blank_lines(&mut yaml);
            format!("{prefix}{yaml}{suffix}")
        }
        None => {
            let at = if text.starts_with('\u{feff}') { 3 } else { 0 };
            format!("{}---{eol}{yaml}---{eol}{}", &text[..at], &text[at..])
        }
    };
    body_kept(&out, text, ops)?;
    verify(&out, &expected, ops)?;
    Ok(out)
}

/// Takes the lines [`block`] calls blank off the start of `yaml`.
fn drop_leading_blank_lines(yaml: &mut String) {
    let mut at = 0;
    while let Some(end) = next_line_start(yaml, at) {
        if !yaml.as_bytes()[at..end].iter().all(u8::is_ascii_whitespace) {
            break;
        }
        at = end;
    }
    yaml.replace_range(..at, "");
}

/// The edited text's body is the old one, where the edit left it: the
/// frontmatter written is read as the block it is, up to the body (its
/// first line blank, it would be none, and the body would begin with its
/// lines), and an emptied one taken out leaves no `---` lines at the top
/// of the body to be read as a frontmatter instead.
fn body_kept(out: &str, text: &str, ops: &[FrontmatterOp]) -> Result<(), FrontmatterError> {
    let body = text.len() - body_start(text);
    if body_start(out) == out.len() - body {
        return Ok(());
    }
    Err(FrontmatterError::Uneditable {
        key: ops.first().map_or(String::new(), |op| op.key().to_string()),
        why: "the note's body would no longer start where it does".into(),
    })
}

/// Sets (`Some`) or removes (`None`) `key` in `yaml`, changing only the
/// bytes of its entry.
fn edit(
    yaml: &mut String,
    key: &str,
    value: Option<&Value>,
    eol: &str,
) -> Result<(), FrontmatterError> {
    let (layout, entry) = editable_entry(yaml, key)?;
    let entry = entry.map(|i| &layout.entries[i]);
    match (entry, value) {
        (None, None) => {}
        (Some(entry), None) => yaml.replace_range(entry.lines.clone(), ""),
        (entry, Some(value)) => {
            // The key as written stays as written.
            let kept_list = match (entry, value) {
                (Some(e), Value::Array(items)) if e.scalar_list => list_edit(yaml, e, items, eol),
                _ => None,
            };
            if let Some((range, text)) = kept_list {
                yaml.replace_range(range, &text);
                return Ok(());
            }
            let written = entry.map(|e| yaml[e.key_span.clone()].to_string());
            let (inline, rendered) = render_entry(key, written.as_deref(), value, eol)?;
            match entry {
                // A one-line value replaced by a one-line value: only its
                // bytes change (a comment after it stays).
                Some(e)
                    if e.inline && !e.value.is_empty() && !yaml[e.value.clone()].contains('\n') =>
                {
                    match inline {
                        Some(value_text) => yaml.replace_range(e.value.clone(), &value_text),
                        None => yaml.replace_range(e.lines.clone(), &rendered),
                    }
                }
                Some(e) => yaml.replace_range(e.lines.clone(), &rendered),
                None => {
                    let at = layout.entries.last().map_or(yaml.len(), |e| e.lines.end);
                    let mut insert = String::new();
                    if at > 0 && !yaml[..at].ends_with('\n') {
                        insert.push_str(eol);
                    }
                    insert.push_str(&rendered);
                    yaml.insert_str(at, &insert);
                }
            }
        }
    }
    Ok(())
}

/// The layout of `yaml` and the entry of `key` in it, to edit: refused
/// when it is not YAML, cannot be edited key by key, or writes `key` twice.
fn editable_entry(
    yaml: &str,
    key: &str,
) -> Result<(yaml::Layout, Option<usize>), FrontmatterError> {
    let uneditable = |why: String| FrontmatterError::Uneditable {
        key: key.to_string(),
        why,
    };
    let layout = yaml::layout(yaml).map_err(|e| match e {
        LayoutError::Syntax { message, .. } => FrontmatterError::Malformed(message),
        other => uneditable(other.to_string()),
    })?;
    if layout.flow {
        return Err(uneditable(
            "the frontmatter is written as one `{…}` mapping".into(),
        ));
    }
    let mut matching = (0..layout.entries.len()).filter(|&i| layout.entries[i].key == key);
    let entry = matching.next();
    if matching.next().is_some() {
        return Err(uneditable(format!("`{key}` is written more than once")));
    }
    Ok((layout, entry))
}

/// Writes the key `key` of `yaml` as `to`: only the key's bytes change.
fn rename_key(yaml: &mut String, key: &str, to: &str) -> Result<(), FrontmatterError> {
    let (layout, entry) = editable_entry(yaml, key)?;
    if let Some(i) = entry {
        yaml.replace_range(layout.entries[i].key_span.clone(), &key_yaml(to));
    }
    Ok(())
}

/// Lists longer than this are written whole rather than aligned item by
/// item (the alignment is quadratic).
const ALIGNED_ITEMS: usize = 1_000;

/// A list of scalars set over a list of scalars, written as the user wrote
/// it: the items kept keep their text (quoting, a comment after them) and
/// order, removed ones go, and new ones are written where they stand in
/// the new list, in the list's style (a block list's dash and indent, a
/// flow list's brackets); an item replaced by another takes its place.
/// The range of `yaml` to replace and its new text, or `None` when the old
/// or new list is not one this can keep (the entry is then written whole).
fn list_edit(
    yaml: &str,
    entry: &yaml::Entry,
    new: &[Value],
    eol: &str,
) -> Option<(Range<usize>, String)> {
    let old = &entry.scalars;
    if old.is_empty() || new.is_empty() || old.len() > ALIGNED_ITEMS || new.len() > ALIGNED_ITEMS {
        return None;
    }
    let written: Vec<String> = new
        .iter()
        .map(|v| match v {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(scalar_yaml(v)),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if written.iter().any(|w| w.is_empty() || w.contains('\n')) {
        return None;
    }
    // What each old item reads as, as the index reads it.
    let reads: Vec<Option<Value>> = old
        .iter()
        .map(|s| {
            parse_mapping(&format!("k: {}", &yaml[s.span.clone()]))
                .ok()??
                .remove("k")
        })
        .collect();
    let steps = align(&reads, new);
    let value_text = &yaml[entry.value.clone()];
    if value_text.starts_with('[') {
        if value_text.contains('\n') || !value_text.ends_with(']') {
            return None;
        }
        let items: Vec<&str> = steps
            .iter()
            .filter_map(|step| match *step {
                Step::Keep(i) => Some(&yaml[old[i].span.clone()]),
                Step::Insert(j) => Some(written[j].as_str()),
                Step::Delete(_) => None,
            })
            .collect();
        // The spacing as written: inside the brackets, between items.
        let (first, last) = (&old[0].span, &old[old.len() - 1].span);
        let lead = &yaml[entry.value.start + 1..first.start];
        let trail = &yaml[last.end..entry.value.end - 1];
        let sep = match old.get(1) {
            Some(second) => &yaml[first.end..second.span.start],
            None => ", ",
        };
        let spaces = |s: &str| s.chars().all(|c| c == ' ');
        let sep_kept = sep.trim() == "," && spaces(sep.trim_start_matches([' ', ',']));
        if !spaces(lead) || !spaces(trail) || !sep_kept {
            return Some((entry.value.clone(), format!("[{}]", items.join(", "))));
        }
        return Some((
            entry.value.clone(),
            format!("[{lead}{}{trail}]", items.join(sep)),
        ));
    }
    // A block list: one item per line, `- ` before it.
    let line_of = |s: &yaml::Scalar| -> Option<Range<usize>> {
        let start = super::lines::line_start_at(yaml, s.span.start);
        let end = next_line_start(yaml, s.span.end.saturating_sub(1)).unwrap_or(yaml.len());
        let lead = &yaml[start..s.span.start];
        (lead.trim() == "-" && !yaml[s.span.clone()].contains('\n')).then_some(start..end)
    };
    let lines: Vec<Range<usize>> = old.iter().map(line_of).collect::<Option<_>>()?;
    if lines.windows(2).any(|w| w[0].end > w[1].start) {
        return None;
    }
    let lead = &yaml[lines[0].start..old[0].span.start];
    let region = lines[0].start..lines[lines.len() - 1].end;
    let gap = |i: usize| match i {
        0 => "",
        _ => &yaml[lines[i - 1].end..lines[i].start],
    };
    let mut out = String::new();
    for step in &steps {
        match *step {
            Step::Keep(i) => {
                out.push_str(gap(i));
                out.push_str(&yaml[lines[i].clone()]);
            }
            Step::Delete(i) => out.push_str(gap(i)),
            Step::Insert(j) => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push_str(eol);
                }
                out.push_str(lead);
                out.push_str(&written[j]);
                out.push_str(eol);
            }
        }
    }
    // The region's last line break is the entry's: kept only if it had one.
    if !yaml[..region.end].ends_with('\n') {
        let trimmed = out.trim_end_matches(['\n', '\r']).len();
        out.truncate(trimmed);
    }
    Some((region, out))
}

/// One step from an old list to a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Old item `i` stays.
    Keep(usize),
    /// Old item `i` goes.
    Delete(usize),
    /// New item `j` is written.
    Insert(usize),
}

/// The old items (as they read; `None`: unreadable, never kept) aligned with
/// the new by their longest common subsequence; at a place where items go
/// and others come, the ones going are listed first, so a replacement takes
/// the place of what it replaces.
fn align(old: &[Option<Value>], new: &[Value]) -> Vec<Step> {
    let (n, m) = (old.len(), new.len());
    // lcs[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut lcs = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i].as_ref() == Some(&new[j]) {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut steps = Vec::with_capacity(n + m);
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && old[i].as_ref() == Some(&new[j]) {
            steps.push(Step::Keep(i));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            steps.push(Step::Delete(i));
            i += 1;
        } else {
            steps.push(Step::Insert(j));
            j += 1;
        }
    }
    steps
}

/// Reads `text` back with the index's parser: every key must read as
/// `expected`, or the edit is refused naming the first key that does not.
fn verify(
    text: &str,
    expected: &Map<String, Value>,
    ops: &[FrontmatterOp],
) -> Result<(), FrontmatterError> {
    let edited = |k: &str| ops.iter().any(|op| op.touches(k));
    let first_key = ops.first().map_or(String::new(), |op| op.key().to_string());
    let after = read(text).map_err(|e| FrontmatterError::Unverified {
        key: first_key.clone(),
        other: String::new(),
        detail: match e {
            FrontmatterError::Malformed(why) => why,
            other => other.to_string(),
        },
    })?;
    let show = |v: Option<&Value>| v.map_or("absent".to_string(), |v| v.to_string());
    let keys = expected.keys().chain(after.keys());
    for k in keys {
        let (want, got) = (expected.get(k), after.get(k));
        if want != got {
            let key = if edited(k) {
                k.clone()
            } else {
                first_key.clone()
            };
            return Err(FrontmatterError::Unverified {
                key,
                other: k.clone(),
                detail: format!("{} instead of {}", show(got), show(want)),
            });
        }
    }
    Ok(())
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, FrontmatterError> {
    match parse_mapping(yaml) {
        Ok(Some(map)) => Ok(map),
        Ok(None) => Err(FrontmatterError::Malformed(
            "it is not a mapping of `key: value` lines".into(),
        )),
        Err((e, _)) => Err(FrontmatterError::Malformed(e)),
    }
}

/// The frontmatter's properties as the index reads them (the one reading:
/// the parser's and the edits' verification), with `serde_norway`: a key
/// that is not a string is written as YAML (`{{date}}` in a template).
/// `Ok(None)`: YAML, but not a mapping; `Err`: why not YAML, and where.
pub(crate) fn parse_mapping(yaml: &str) -> Result<Option<Map<String, Value>>, (String, usize)> {
    if yaml.trim().is_empty() {
        return Ok(Some(Map::new()));
    }
    match serde_norway::from_str::<serde_norway::Value>(yaml) {
        Ok(serde_norway::Value::Mapping(map)) => {
            let mut object = Map::new();
            for (key, value) in map {
                if let Some(key) = key_text(key) {
                    object.insert(key, yaml_to_json(value));
                }
            }
            Ok(Some(object))
        }
        Ok(serde_norway::Value::Null) => Ok(Some(Map::new())),
        Ok(_) => Ok(None),
        Err(error) => {
            let at = error.location().map_or(0, |l| l.index());
            Err((error.to_string(), at))
        }
    }
}

fn key_text(key: serde_norway::Value) -> Option<String> {
    match key {
        serde_norway::Value::String(s) => Some(s),
        other => serde_norway::to_string(&other)
            .ok()
            .map(|s| s.trim().to_string()),
    }
}

/// A YAML value as JSON (recursion bounded: serde_norway nests at most
/// 128 levels).
fn yaml_to_json(value: serde_norway::Value) -> serde_json::Value {
    use serde_json::Value as J;
    use serde_norway::Value as Y;
    match value {
        Y::Null => J::Null,
        Y::Bool(b) => J::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                J::from(i)
            } else if let Some(u) = n.as_u64() {
                J::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(J::Null, J::Number)
            }
        }
        Y::String(s) => J::String(s),
        Y::Sequence(items) => J::Array(items.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => J::Object(
            map.into_iter()
                .filter_map(|(k, v)| Some((key_text(k)?, yaml_to_json(v))))
                .collect(),
        ),
        Y::Tagged(tagged) => yaml_to_json(tagged.value),
    }
}

/// The entry `key: value` as YAML (its lines, with `eol`), with the key as
/// `written` when it exists already; and, when the value fits on the key's
/// line, that value's text alone.
fn render_entry(
    key: &str,
    written: Option<&str>,
    value: &Value,
    eol: &str,
) -> Result<(Option<String>, String), FrontmatterError> {
    let mut map = Map::new();
    map.insert(key.to_string(), value.clone());
    let yaml = serde_norway::to_string(&Value::Object(map)).map_err(|e| {
        FrontmatterError::Unserializable {
            key: key.to_string(),
            message: e.to_string(),
        }
    })?;
    let serialized_key = key_yaml(key);
    // `key:` as serialized, then the value: on the same line or below.
    let value_part = yaml
        .strip_prefix(serialized_key.as_str())
        .and_then(|rest| rest.strip_prefix(':'))
        .unwrap_or("")
        .to_string();
    // Short lists of scalars read best inline: `tags: [a, b]`.
    let value_part = match value {
        Value::Array(items)
            if !items.is_empty() && items.len() <= 8 && items.iter().all(is_plain_scalar) =>
        {
            let inline: Vec<String> = items.iter().map(scalar_yaml).collect();
            let line = format!(" [{}]\n", inline.join(", "));
            if line.len() + key.len() <= 100 {
                line
            } else {
                value_part
            }
        }
        _ => value_part,
    };
    let key_text = written.map_or(serialized_key, str::to_string);
    let entry = format!("{key_text}:{value_part}");
    let one_line = value_part
        .strip_prefix(' ')
        .and_then(|v| v.strip_suffix('\n'))
        .filter(|v| !v.contains('\n'))
        .map(str::to_string);
    let entry = if eol == "\r\n" {
        entry.replace('\n', "\r\n")
    } else {
        entry
    };
    Ok((one_line, entry))
}

/// A key as YAML writes it (quoted when it must be).
pub(crate) fn key_yaml(key: &str) -> String {
    let mut map = Map::new();
    map.insert(key.to_string(), Value::Null);
    serde_norway::to_string(&Value::Object(map))
        .ok()
        .and_then(|s| s.rsplit_once(':').map(|(k, _)| k.to_string()))
        .unwrap_or_else(|| key.to_string())
}

fn is_plain_scalar(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            !s.is_empty() && !s.contains([',', '[', ']', '{', '}', '\n', '#', ':', '"', '\''])
        }
        Value::Number(_) | Value::Bool(_) => true,
        _ => false,
    }
}

fn scalar_yaml(v: &Value) -> String {
    serde_norway::to_string(v)
        .map(|s| s.trim_end().to_string())
        .unwrap_or_default()
}
