//! Edits to a note's YAML frontmatter that keep everything they do not
//! change: key order, comments, quoting and the body stay as written.
//!
//! The frontmatter is split into top-level entries (a `key:` line with its
//! indented continuation); `set` replaces one entry's lines, `unset` drops
//! them, a new key goes at the end. Values are written by the YAML crate,
//! so they round-trip. No IO, no protocol types.

use std::fmt;

use serde_json::{Map, Value};

use super::edit::body_start;

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
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrontmatterError::Malformed(e) => write!(
                f,
                "the note's frontmatter is not valid YAML ({e}); fix it with edit_note (replace_lines) first, \
                 so that no property is lost"
            ),
            FrontmatterError::NotAMapping { key } => {
                write!(
                    f,
                    "cannot merge into `{key}`: its value is not a mapping; use set instead"
                )
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
        }
    }
}

impl std::error::Error for FrontmatterError {}

/// The parsed frontmatter of a text (an empty map when there is none).
pub fn read(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    match split(text) {
        Some(fm) => parse_yaml(&text[fm.yaml.clone()]),
        None => Ok(Map::new()),
    }
}

/// Applies `ops` in order and returns the new text.
pub fn apply(text: &str, ops: &[FrontmatterOp]) -> Result<String, FrontmatterError> {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let (mut entries, prefix, suffix) = match split(text) {
        Some(fm) => {
            parse_yaml(&text[fm.yaml.clone()])?;
            (
                entries_of(&text[fm.yaml.clone()]),
                text[..fm.yaml.start].to_string(),
                text[fm.yaml.end..].to_string(),
            )
        }
        None => {
            let body = body_start(text);
            (
                Vec::new(),
                format!("{}---{eol}", &text[..body]),
                format!("---{eol}{}", &text[body..]),
            )
        }
    };
    let mut current = {
        let yaml: String = entries.iter().map(|e| e.text.as_str()).collect();
        parse_yaml(&yaml)?
    };
    for op in ops {
        let key = match op {
            FrontmatterOp::Set { key, .. }
            | FrontmatterOp::Unset { key }
            | FrontmatterOp::Merge { key, .. } => key,
        };
        if key.trim().is_empty() || key.contains(['\n', '\r']) || key.starts_with('#') {
            return Err(FrontmatterError::InvalidKey { key: key.clone() });
        }
        match op {
            FrontmatterOp::Unset { key } => {
                entries.retain(|e| e.key.as_deref() != Some(key));
                current.remove(key);
            }
            FrontmatterOp::Set { key, value } => {
                let text = render_entry(key, value, eol)?;
                upsert_entry(&mut entries, key, text);
                current.insert(key.clone(), value.clone());
            }
            FrontmatterOp::Merge { key, value } => {
                let mut merged = match current.get(key) {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => return Err(FrontmatterError::NotAMapping { key: key.clone() }),
                };
                for (k, v) in value {
                    merged.insert(k.clone(), v.clone());
                }
                let merged = Value::Object(merged);
                let text = render_entry(key, &merged, eol)?;
                upsert_entry(&mut entries, key, text);
                current.insert(key.clone(), merged);
            }
        }
    }
    let yaml: String = entries.iter().map(|e| e.text.as_str()).collect();
    if yaml.trim().is_empty() && split(text).is_none() {
        return Ok(text.to_string());
    }
    Ok(format!("{prefix}{yaml}{suffix}"))
}

/// A frontmatter block: the YAML between the fences.
struct Split {
    yaml: std::ops::Range<usize>,
}

fn split(text: &str) -> Option<Split> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = &text[start..];
    let first_len = if rest.starts_with("---\r\n") {
        5
    } else if rest.starts_with("---\n") {
        4
    } else {
        return None;
    };
    let yaml_start = start + first_len;
    let mut at = yaml_start;
    while at <= text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let line = text[at..line_end].trim_end_matches(['\n', '\r']);
        if line == "---" || line == "..." {
            return Some(Split {
                yaml: yaml_start..at,
            });
        }
        if line_end == text.len() {
            return None;
        }
        at = line_end;
    }
    None
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_norway::from_str::<Value>(yaml) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(_) => Err(FrontmatterError::Malformed(
            "it is not a mapping of `key: value` lines".into(),
        )),
        Err(e) => Err(FrontmatterError::Malformed(e.to_string())),
    }
}

/// A top-level entry: `key:` and its continuation lines, or a comment or
/// blank line (no key).
struct Entry {
    key: Option<String>,
    text: String,
}

fn entries_of(yaml: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let continuation =
            line.starts_with([' ', '\t', '-']) && entries.last().is_some_and(|e| e.key.is_some());
        if continuation {
            if let Some(last) = entries.last_mut() {
                last.text.push_str(line);
            }
            continue;
        }
        let key = top_level_key(line);
        entries.push(Entry {
            key,
            text: line.to_string(),
        });
    }
    // Make sure the last entry ends with a line break before the fence.
    if let Some(last) = entries.last_mut()
        && !last.text.ends_with('\n')
    {
        last.text.push('\n');
    }
    entries
}

fn top_level_key(line: &str) -> Option<String> {
    if line.trim().is_empty() || line.starts_with('#') {
        return None;
    }
    let colon = line.find(':')?;
    let key = line[..colon].trim();
    let key = key.trim_matches('"').trim_matches('\'');
    (!key.is_empty()).then(|| key.to_string())
}

fn upsert_entry(entries: &mut Vec<Entry>, key: &str, text: String) {
    match entries.iter_mut().find(|e| e.key.as_deref() == Some(key)) {
        Some(entry) => entry.text = text,
        None => {
            // After the last keyed entry, before trailing blank lines.
            let at = entries
                .iter()
                .rposition(|e| e.key.is_some())
                .map_or(entries.len(), |i| i + 1);
            entries.insert(
                at,
                Entry {
                    key: Some(key.to_string()),
                    text,
                },
            );
        }
    }
}

fn render_entry(key: &str, value: &Value, eol: &str) -> Result<String, FrontmatterError> {
    let mut map = Map::new();
    map.insert(key.to_string(), value.clone());
    let yaml = serde_norway::to_string(&Value::Object(map)).map_err(|e| {
        FrontmatterError::Unserializable {
            key: key.to_string(),
            message: e.to_string(),
        }
    })?;
    // Short lists of scalars read best inline: `tags: [a, b]`.
    let yaml = match value {
        Value::Array(items)
            if !items.is_empty() && items.len() <= 8 && items.iter().all(is_plain_scalar) =>
        {
            let inline: Vec<String> = items.iter().map(scalar_yaml).collect();
            let line = format!("{}: [{}]\n", key_yaml(key), inline.join(", "));
            if line.len() <= 100 { line } else { yaml }
        }
        _ => yaml,
    };
    Ok(if eol == "\r\n" {
        yaml.replace('\n', "\r\n")
    } else {
        yaml
    })
}

fn key_yaml(key: &str) -> String {
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
