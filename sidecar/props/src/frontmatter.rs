//! `frontmatter_edit`: set, unset, merge and rename on any note, its frontmatter
//! any YAML. Either a clear error, or a text whose frontmatter reads as
//! the old one with the asked changes made (every other key as before),
//! whose note parser reads the same properties, and in which nothing
//! outside the frontmatter's YAML changed (a new frontmatter goes before
//! the whole old text, after a byte-order mark).

use arbitrary::Arbitrary;
use serde_json::{Map, Number, Value};
use weft_vault::frontmatter::{FrontmatterOp, apply, block, read};
use weft_vault::parse::parse_text;

use crate::input::{Pick, choices, nth, split};

/// Keys notes often have, so that edits meet existing keys.
const KEYS: &[&str] = &["title", "tags", "aliases", "status", "date", "a", "nested"];

#[derive(Debug, Arbitrary)]
enum Key {
    /// One of the note's own keys.
    Existing(u8),
    Common(u8),
    Any(Pick),
}

#[derive(Debug, Arbitrary)]
enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(Pick),
}

#[derive(Debug, Arbitrary)]
enum Val {
    Scalar(Scalar),
    List(Vec<Scalar>),
    Map(Vec<(Key, Scalar)>),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Set(Key, Val),
    Unset(Key),
    Merge(Key, Vec<(Key, Scalar)>),
    Rename(Key, Key),
}

pub fn frontmatter_edit(data: &[u8]) {
    let (text, mut u) = split(data);
    let before = read(&text);
    let own: Vec<String> = before.iter().flat_map(|m| m.keys().cloned()).collect();
    let key = |k: &Key| match k {
        Key::Existing(i) => nth(&own, *i).cloned().unwrap_or_default(),
        Key::Common(i) => nth(KEYS, *i).map(|k| k.to_string()).unwrap_or_default(),
        Key::Any(pick) => pick.get(&text),
    };
    let scalar = |s: &Scalar| match s {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(*b),
        Scalar::Int(i) => Value::from(*i),
        Scalar::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Scalar::Text(pick) => Value::String(pick.get(&text)),
    };
    let map = |entries: &[(Key, Scalar)]| -> Map<String, Value> {
        entries.iter().map(|(k, v)| (key(k), scalar(v))).collect()
    };
    let ops: Vec<FrontmatterOp> = choices::<Op>(&mut u, 3)
        .iter()
        .map(|op| match op {
            Op::Set(k, v) => FrontmatterOp::Set {
                key: key(k),
                value: match v {
                    Val::Scalar(s) => scalar(s),
                    Val::List(items) => Value::Array(items.iter().map(scalar).collect()),
                    Val::Map(entries) => Value::Object(map(entries)),
                },
            },
            Op::Unset(k) => FrontmatterOp::Unset { key: key(k) },
            Op::Merge(k, entries) => FrontmatterOp::Merge {
                key: key(k),
                value: map(entries),
            },
            Op::Rename(k, to) => FrontmatterOp::Rename {
                key: key(k),
                to: key(to),
            },
        })
        .collect();

    let out = match apply(&text, &ops) {
        Ok(out) => out,
        Err(error) => {
            assert!(!error.to_string().is_empty(), "an error without a message");
            return;
        }
    };
    let before = before.expect("an edit succeeded on a frontmatter that does not read");
    let after = read(&out).expect("the edited frontmatter reads back");
    assert!(
        after == expected(before, &ops),
        "the frontmatter reads otherwise than asked:\nops {ops:?}\nbefore {text:?}\nafter  {out:?}"
    );
    if !after.is_empty() {
        let parsed = parse_text("fuzz.md", &out).frontmatter;
        assert!(
            parsed.as_deref() == Some(&after),
            "the note parser reads other properties than the edit wrote: {parsed:?} vs {after:?}"
        );
    }
    outside_unchanged(&text, &out);
}

/// The properties after `ops`, worked out on the map.
fn expected(mut map: Map<String, Value>, ops: &[FrontmatterOp]) -> Map<String, Value> {
    for op in ops {
        match op {
            FrontmatterOp::Set { key, value } => {
                map.insert(key.clone(), value.clone());
            }
            FrontmatterOp::Unset { key } => {
                map.remove(key);
            }
            FrontmatterOp::Merge { key, value } => {
                let mut merged = match map.get(key) {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(old)) => old.clone(),
                    Some(other) => panic!("merge into `{key}`, which is {other}, succeeded"),
                };
                merged.extend(value.clone());
                map.insert(key.clone(), Value::Object(merged));
            }
            FrontmatterOp::Rename { key, to } => {
                if let Some(value) = map.remove(key) {
                    assert!(
                        to == key || !map.contains_key(to),
                        "renaming `{key}` onto `{to}`, which the note has, succeeded"
                    );
                    map.insert(to.clone(), value);
                }
            }
        }
    }
    map
}

/// Only the frontmatter's YAML changed, or a new frontmatter was put
/// before the text, or an emptied one was taken out whole: the body
/// starts where the old text's body goes on.
fn outside_unchanged(text: &str, out: &str) {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let (head, tail, body) = match block(text) {
        Some(fm) => (&text[..fm.yaml.start], &text[fm.yaml.end..], fm.body),
        None if out == text => return,
        None => (&text[..bom], &text[bom..], bom),
    };
    let new_body = block(out).map(|fm| fm.body);
    if new_body.is_none() && read(out).is_ok_and(|map| map.is_empty()) {
        assert!(
            out.len() == bom + text.len() - body
                && out.starts_with(&text[..bom])
                && out.ends_with(&text[body..]),
            "an emptied frontmatter was not taken out whole:\nbefore {text:?}\nafter  {out:?}"
        );
        return;
    }
    assert!(
        out.len() >= head.len() + tail.len() && out.starts_with(head) && out.ends_with(tail),
        "bytes outside the frontmatter changed:\nbefore {text:?}\nafter  {out:?}"
    );
    assert_eq!(
        new_body,
        Some(out.len() - (text.len() - body)),
        "the body does not start where the old one goes on:\nbefore {text:?}\nafter  {out:?}"
    );
}
