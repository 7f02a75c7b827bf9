//! `weft-bench style`: property edits tried on every note with frontmatter
//! under the folders given (real vaults), checking that each edit changes
//! the edited entry alone and keeps the user's YAML: every line outside
//! it stays byte for byte, a list stays the list it was (block or flow),
//! and what the note says afterwards is what was asked. Prints counts per
//! kind of edit and the first cases that broke the rule; judges nothing.

use std::path::Path;

use serde_json::{Map, Value};
use weft_vault::frontmatter::{self, FrontmatterOp};
use weft_vault::yaml;

/// The kinds of edit tried on each note.
const KINDS: [&str; 7] = [
    "change a value",
    "rename a key",
    "add a key",
    "remove a key",
    "set a list to itself",
    "add a tag",
    "remove a tag",
];

/// Counts of one kind of edit.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub tried: usize,
    pub applied: usize,
    /// Refused with an error (the note is left as it was).
    pub refused: usize,
    /// Applied, but a line outside the edited entry changed, a list changed
    /// style, or the note reads differently than asked.
    pub broken: usize,
    /// Lines changed in all (removed + added), over the applied edits.
    pub lines_changed: usize,
}

#[derive(Debug, Default)]
pub struct StyleReport {
    pub notes: usize,
    pub with_frontmatter: usize,
    pub tallies: Vec<(&'static str, Tally)>,
    /// The first broken cases: note, kind, why.
    pub examples: Vec<String>,
    /// Why edits were refused, with counts.
    pub refusals: Vec<(String, usize)>,
}

/// Tries the edits on every note under `dirs`.
pub fn style_check(dirs: &[std::path::PathBuf]) -> std::io::Result<StyleReport> {
    let mut report = StyleReport {
        tallies: KINDS.iter().map(|k| (*k, Tally::default())).collect(),
        ..StyleReport::default()
    };
    for dir in dirs {
        let walk = ignore::WalkBuilder::new(dir).hidden(false).build();
        for path in crate::generate::markdown_files(walk) {
            let path = path.as_path();
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            report.notes += 1;
            check_note(path, &text, &mut report);
        }
    }
    report.refusals.sort_by_key(|r| std::cmp::Reverse(r.1));
    Ok(report)
}

fn check_note(path: &Path, text: &str, report: &mut StyleReport) {
    let Some(block) = frontmatter::block(text) else {
        return;
    };
    let Ok(before) = frontmatter::read(text) else {
        return;
    };
    report.with_frontmatter += 1;
    let yaml_text = &text[block.yaml.clone()];
    let Ok(layout) = yaml::layout(yaml_text) else {
        return;
    };
    for (kind, edit) in edits(&before) {
        let Some((key, op)) = edit else { continue };
        let slot = KINDS.iter().position(|k| *k == kind).expect("a kind");
        report.tallies[slot].1.tried += 1;
        let out = match frontmatter::apply(text, std::slice::from_ref(&op)) {
            Ok(out) => out,
            Err(e) => {
                report.tallies[slot].1.refused += 1;
                let why = e.to_string();
                if report.examples.len() < 20 {
                    report
                        .examples
                        .push(format!("{}: {kind} `{key}` refused: {why}", path.display()));
                }
                let why = why.split(':').next().unwrap_or(&why).to_string();
                match report.refusals.iter_mut().find(|r| r.0 == why) {
                    Some(r) => r.1 += 1,
                    None => report.refusals.push((why, 1)),
                }
                continue;
            }
        };
        report.tallies[slot].1.applied += 1;
        let entry = layout.entries.iter().find(|e| e.key == key);
        let problem = judge(text, &out, block.yaml.start, entry, &op, &before);
        let (removed, added) = changed_lines(text, &out);
        report.tallies[slot].1.lines_changed += removed + added;
        if let Some(why) = problem {
            report.tallies[slot].1.broken += 1;
            if report.examples.len() < 20 {
                report
                    .examples
                    .push(format!("{}: {kind} `{key}`: {why}", path.display()));
            }
        }
    }
}

/// The edits of each kind this note allows (`None`: it has nothing to try
/// that kind on).
fn edits(fm: &Map<String, Value>) -> Vec<(&'static str, Option<(String, FrontmatterOp)>)> {
    let set = |key: &str, value: Value| {
        Some((
            key.to_string(),
            FrontmatterOp::Set {
                key: key.to_string(),
                value,
            },
        ))
    };
    let scalar = fm.iter().find_map(|(k, v)| {
        let changed = match v {
            Value::String(s) => Value::String(format!("{s} (edited)")),
            Value::Number(n) => Value::from(n.as_f64().unwrap_or(0.0).floor() as i64 + 1),
            Value::Bool(b) => Value::Bool(!b),
            _ => return None,
        };
        Some((k.clone(), changed))
    });
    let list = fm
        .iter()
        .find(|(_, v)| matches!(v, Value::Array(items) if !items.is_empty()));
    let tags = fm
        .get("tags")
        .and_then(Value::as_array)
        .filter(|t| t.iter().all(Value::is_string));
    vec![
        ("change a value", scalar.and_then(|(k, v)| set(&k, v))),
        (
            "rename a key",
            fm.keys().next().map(|k| {
                (
                    k.clone(),
                    FrontmatterOp::Rename {
                        key: k.clone(),
                        to: format!("weft-renamed-{k}"),
                    },
                )
            }),
        ),
        ("add a key", set("weft-style-check", Value::from("added"))),
        (
            "remove a key",
            fm.keys()
                .next_back()
                .map(|k| (k.clone(), FrontmatterOp::Unset { key: k.clone() })),
        ),
        (
            "set a list to itself",
            list.and_then(|(k, v)| set(k, v.clone())),
        ),
        (
            "add a tag",
            tags.and_then(|t| {
                let mut t = t.clone();
                t.push(Value::from("weft-style-check"));
                set("tags", Value::Array(t))
            }),
        ),
        (
            "remove a tag",
            tags.filter(|t| t.len() > 1)
                .and_then(|t| set("tags", Value::Array(t[1..].to_vec()))),
        ),
    ]
}

/// Why `out` breaks the rule, if it does: the text before and after the
/// edited entry (`entry`, at `base` in the note) must stay, a list must
/// keep its style, and the note must read as asked.
fn judge(
    text: &str,
    out: &str,
    base: usize,
    entry: Option<&yaml::Entry>,
    op: &FrontmatterOp,
    before: &Map<String, Value>,
) -> Option<String> {
    // The last key removed takes the fences with it: the body is left.
    if matches!(op, FrontmatterOp::Unset { .. }) && before.len() == 1 {
        let body = frontmatter::body_start(text);
        let bom = if text.starts_with('\u{feff}') {
            "\u{feff}"
        } else {
            ""
        };
        return (out != format!("{bom}{}", &text[body..]))
            .then(|| "removing the last key left more than the body".into());
    }
    let (head, tail) = match entry {
        Some(e) => (&text[..base + e.lines.start], &text[base + e.lines.end..]),
        // A new key goes after the last one: everything else stays.
        None => {
            let block = frontmatter::block(text)?;
            (&text[..block.yaml.end], &text[block.yaml.end..])
        }
    };
    let head_kept = match entry {
        Some(_) => out.starts_with(head),
        // A new key may add a line break to a last line without one.
        None => out.starts_with(head.trim_end_matches(['\n', '\r'])),
    };
    if !head_kept || !out.ends_with(tail) {
        return Some("a line outside the edited entry changed".into());
    }
    if let (Some(e), FrontmatterOp::Set { value, .. }) = (entry, op) {
        let old_entry = &text[base + e.lines.start..base + e.lines.end];
        let new_entry = &out[head.len()..out.len() - tail.len()];
        let block_list = |s: &str| s.lines().skip(1).any(|l| l.trim_start().starts_with("- "));
        let flow_list = |s: &str| {
            s.split_once(':')
                .is_some_and(|(_, v)| v.trim_start().starts_with('['))
        };
        if value.is_array() && e.scalar_list {
            if block_list(old_entry) != block_list(new_entry)
                || flow_list(old_entry) != flow_list(new_entry)
            {
                return Some(format!(
                    "the list changed style: {old_entry:?} → {new_entry:?}"
                ));
            }
            if old_entry != new_entry && before.get(&e.key) == Some(value) {
                return Some(format!(
                    "a list set to itself changed: {old_entry:?} → {new_entry:?}"
                ));
            }
        }
    }
    let mut expected = before.clone();
    match op {
        FrontmatterOp::Set { key, value } => {
            expected.insert(key.clone(), value.clone());
        }
        FrontmatterOp::Unset { key } => {
            expected.remove(key);
        }
        FrontmatterOp::Rename { key, to } => {
            if let Some(value) = expected.remove(key) {
                expected.insert(to.clone(), value);
            }
        }
        FrontmatterOp::Merge { .. } => {}
    }
    match frontmatter::read(out) {
        Ok(after) if after == expected => None,
        Ok(_) => Some("the note does not read as asked".into()),
        Err(e) => Some(format!("the result does not read: {e}")),
    }
}

/// Lines of `old` not in `new`, and of `new` not in `old` (as multisets).
fn changed_lines(old: &str, new: &str) -> (usize, usize) {
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for l in old.lines() {
        *counts.entry(l).or_default() += 1;
    }
    for l in new.lines() {
        *counts.entry(l).or_default() -= 1;
    }
    let removed = counts
        .values()
        .filter(|c| **c > 0)
        .map(|c| *c as usize)
        .sum();
    let added = counts
        .values()
        .filter(|c| **c < 0)
        .map(|c| -*c as usize)
        .sum();
    (removed, added)
}

impl StyleReport {
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "{} notes, {} with frontmatter\n\n| edit | tried | applied | refused | broken | lines changed per edit |\n|---|---:|---:|---:|---:|---:|\n",
            self.notes, self.with_frontmatter
        );
        for (kind, t) in &self.tallies {
            out.push_str(&format!(
                "| {kind} | {} | {} | {} | {} | {:.2} |\n",
                t.tried,
                t.applied,
                t.refused,
                t.broken,
                t.lines_changed as f64 / t.applied.max(1) as f64
            ));
        }
        if !self.refusals.is_empty() {
            out.push_str("\nRefused:\n");
            for (why, n) in &self.refusals {
                out.push_str(&format!("- {n}× {why}\n"));
            }
        }
        if !self.examples.is_empty() {
            out.push_str("\nBroken or refused:\n");
            for e in &self.examples {
                out.push_str(&format!("- {e}\n"));
            }
        }
        out
    }
}
