use serde_json::json;

use crate::frontmatter::{FrontmatterError, FrontmatterOp, apply, block, read};

fn set(key: &str, value: serde_json::Value) -> FrontmatterOp {
    FrontmatterOp::Set {
        key: key.into(),
        value,
    }
}

#[test]
fn set_keeps_order_comments_and_other_entries() {
    let text = "---\n# my comment\ntitle: \"Old\"   # the value changes, this stays\nstatus: draft # stays\naliases:\n  - A\n  - B\ncreated: 2024-01-01\n---\nBody [[link]]\n";
    let out = apply(
        text,
        &[set("title", json!("New")), set("tags", json!(["x", "y/z"]))],
    )
    .unwrap();
    assert_eq!(
        out,
        "---\n# my comment\ntitle: New   # the value changes, this stays\nstatus: draft # stays\naliases:\n  - A\n  - B\ncreated: 2024-01-01\ntags: [x, y/z]\n---\nBody [[link]]\n"
    );
}

#[test]
fn unset_merge_and_round_trip() {
    let text = "---\na: 1\nnested:\n  x: 1\nb: two\n---\nbody\n";
    let merge = FrontmatterOp::Merge {
        key: "nested".into(),
        value: json!({"y": 2}).as_object().unwrap().clone(),
    };
    let out = apply(text, &[FrontmatterOp::Unset { key: "a".into() }, merge]).unwrap();
    assert_eq!(
        read(&out).unwrap(),
        *json!({"nested": {"x": 1, "y": 2}, "b": "two"})
            .as_object()
            .unwrap()
    );
    assert!(out.ends_with("---\nbody\n"));
    assert!(out.starts_with("---\nnested:\n"), "{out}");
}

#[test]
fn creates_frontmatter_when_missing_and_keeps_crlf() {
    assert_eq!(
        apply("# Title\n", &[set("tags", json!(["a"]))]).unwrap(),
        "---\ntags: [a]\n---\n# Title\n"
    );
    assert_eq!(
        apply(
            "---\r\na: 1\r\n---\r\nbody\r\n",
            &[set("b", json!("text: with colon"))]
        )
        .unwrap(),
        "---\r\na: 1\r\nb: 'text: with colon'\r\n---\r\nbody\r\n"
    );
    // Unsetting a key of a note without frontmatter changes nothing.
    assert_eq!(
        apply("body\n", &[FrontmatterOp::Unset { key: "x".into() }]).unwrap(),
        "body\n"
    );
}

#[test]
fn refuses_malformed_yaml_and_bad_keys() {
    let err = apply("---\na: [unclosed\n---\n", &[set("b", json!(1))]).unwrap_err();
    assert!(err.to_string().contains("not valid YAML"), "{err}");
    let err = apply("---\na: 1\n---\n", &[set("", json!(1))]).unwrap_err();
    assert!(err.to_string().contains("invalid property name"), "{err}");
    let err = apply(
        "---\na: 1\n---\n",
        &[FrontmatterOp::Merge {
            key: "a".into(),
            value: serde_json::Map::new(),
        }],
    )
    .unwrap_err();
    assert!(err.to_string().contains("not a mapping"), "{err}");
}

#[test]
fn values_round_trip_through_yaml() {
    let values = [
        json!("plain"),
        json!("needs: quoting"),
        json!("#hash"),
        json!(42),
        json!(true),
        json!(null),
        json!(["a", "b, c"]),
        json!({"k": [1, 2]}),
        json!("[[Wiki Link]]"),
        json!("multi\nline"),
    ];
    for value in values {
        let out = apply("---\nx: 0\n---\n", &[set("key", value.clone())]).unwrap();
        assert_eq!(read(&out).unwrap()["key"], value, "{out}");
    }
}

/// Regression (issue 15): keys were found by the text before the first `:`
/// of a line, so `"a:b"` was filed as `a` and setting `a` overwrote it; the
/// tags key was found with `find("tags:")`, which `subtags:` matches too.
/// Each case: the edit changes its own key's bytes and no other byte.
#[test]
fn edits_touch_only_their_own_key_whatever_the_yaml() {
    let cases: &[(&str, &str, serde_json::Value, &str)] = &[
        // Quoted keys holding `:` and `#`.
        (
            "\"a:b\": 1\n'c#d': 2\n",
            "a",
            json!(3),
            "\"a:b\": 1\n'c#d': 2\na: 3\n",
        ),
        (
            "\"a:b\": 1\n'c#d': 2\n",
            "c#d",
            json!(5),
            "\"a:b\": 1\n'c#d': 5\n",
        ),
        // A key holding another key's name.
        (
            "subtags: [s]\ntags_old: x\n",
            "tags",
            json!(["t"]),
            "subtags: [s]\ntags_old: x\ntags: [t]\n",
        ),
        (
            "subtags: [s]\ntags: [t]\n",
            "tags",
            json!(["u"]),
            "subtags: [s]\ntags: [u]\n",
        ),
        // Flow mappings and sequences as values.
        (
            "m: {x: 1, y: [2, 3]}\nn: 1\n",
            "n",
            json!(2),
            "m: {x: 1, y: [2, 3]}\nn: 2\n",
        ),
        (
            "m: {x: 1, y: [2, 3]}\nn: 1\n",
            "m",
            json!({"x": 9}),
            "m:\n  x: 9\nn: 1\n",
        ),
        // Block and multi-line scalars.
        (
            "d: |\n  one\n  two\ne: >\n  folded\n  text\nf: 1\n",
            "f",
            json!(2),
            "d: |\n  one\n  two\ne: >\n  folded\n  text\nf: 2\n",
        ),
        (
            "d: |\n  one\n  two\nf: 1\n",
            "d",
            json!("short"),
            "d: short\nf: 1\n",
        ),
        (
            "p: a plain\n  scalar on two lines\nq: 1\n",
            "q",
            json!(2),
            "p: a plain\n  scalar on two lines\nq: 2\n",
        ),
        // Comments between keys stay.
        (
            "a: 1\n# about b\nb: 2 # two\n\n# end\n",
            "b",
            json!(3),
            "a: 1\n# about b\nb: 3 # two\n\n# end\n",
        ),
        (
            "a: 1\n# about b\nb: 2 # two\n\n# end\n",
            "c",
            json!(4),
            "a: 1\n# about b\nb: 2 # two\nc: 4\n\n# end\n",
        ),
        // Anchors and aliases: a change elsewhere keeps them.
        (
            "base: &b {x: 1}\nother: *b\nn: 1\n",
            "n",
            json!(2),
            "base: &b {x: 1}\nother: *b\nn: 2\n",
        ),
    ];
    for (yaml, key, value, want) in cases {
        let text = format!("---\n{yaml}---\nBody with a: colon\n");
        let out = apply(&text, &[set(key, value.clone())])
            .unwrap_or_else(|e| panic!("{key} in {yaml:?}: {e}"));
        assert_eq!(
            out,
            format!("---\n{want}---\nBody with a: colon\n"),
            "{key} in {yaml:?}"
        );
        // Read back: the edited key as asked, every other key as before.
        let (before, after) = (read(&text).unwrap(), read(&out).unwrap());
        assert_eq!(after[*key], *value);
        for (k, v) in &before {
            if k != key {
                assert_eq!(after.get(k), Some(v), "{k} in {yaml:?}");
            }
        }
    }
    // Unset removes the entry's own lines only.
    let text = "---\na: 1\n# about b\nb:\n  - x\n  - y\nc: 3\n---\n";
    assert_eq!(
        apply(text, &[FrontmatterOp::Unset { key: "b".into() }]).unwrap(),
        "---\na: 1\n# about b\nc: 3\n---\n"
    );
}

/// An edit that would change another key is refused, naming it: the alias
/// of an anchor the edit rewrites.
#[test]
fn an_edit_that_would_change_another_key_is_refused() {
    let text = "---\nbase: &b {x: 1}\nother: *b\n---\n";
    let error = apply(text, &[set("base", json!({"x": 2}))]).unwrap_err();
    assert!(
        matches!(&error, FrontmatterError::Unverified { key, .. } if key == "base")
            || matches!(&error, FrontmatterError::Malformed(_)),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("nothing was written")
            || error.to_string().contains("not valid YAML"),
        "{error}"
    );
    // Layouts that cannot be edited key by key say so.
    let error = apply("---\n{a: 1, b: 2}\n---\n", &[set("a", json!(3))]).unwrap_err();
    assert!(error.to_string().contains("`{…}` mapping"), "{error}");
    let error = apply("---\na: 1\nb: 2\na: 3\n---\n", &[set("a", json!(4))]).unwrap_err();
    assert!(
        error.to_string().contains("not valid YAML")
            || error.to_string().contains("more than once"),
        "{error}"
    );
}

/// The frontmatter is where the parser says it is (regression: edits found
/// it by their own rule, and took a `---` rule followed by prose for one).
#[test]
fn the_block_is_found_by_one_rule() {
    for (text, yaml) in [
        ("---\na: 1\n---\nbody", Some("a: 1\n")),
        ("---   \na: 1\n...  \nbody", Some("a: 1\n")),
        ("\u{feff}---\na: 1\n---\n", Some("a: 1\n")),
        ("---\n\nNote: call Bob.\n\n---\nBody", None),
        ("---\n---\nbody", None),
        ("----\na: 1\n----\n", None),
        ("text\n---\na: 1\n---\n", None),
        ("# T\n\n---\na: 1\n---\nbody", None),
        ("---\na: 1\n  ---\n", None),
        ("---\na: 1\n", None),
    ] {
        let found = block(text).map(|b| &text[b.yaml]);
        assert_eq!(found, yaml, "{text:?}");
        // The parser agrees.
        let note = crate::parse::parse_text("n.md", text);
        assert_eq!(note.frontmatter_span.is_some(), yaml.is_some(), "{text:?}");
    }
    // Prose after a `---` rule is never edited as YAML.
    let text = "---\n\nNote: call Bob.\n\n---\nBody\n";
    let out = apply(text, &[set("a", json!(1))]).unwrap();
    assert_eq!(out, format!("---\na: 1\n---\n{text}"));
}

/// Templates write `created: {{date}}`, which YAML reads as a mapping with a
/// mapping for key: the edits read it as the index does, and other keys can
/// still be changed (regression: every edit of such a note was refused).
#[test]
fn template_placeholders_read_as_the_index_reads_them() {
    let text = "---\ncreated: {{date}}\ntags: [a]\n---\n# {{title}}\n";
    let out = apply(text, &[set("status", json!("draft"))]).unwrap();
    assert_eq!(
        out,
        "---\ncreated: {{date}}\ntags: [a]\nstatus: draft\n---\n# {{title}}\n"
    );
    let note = crate::parse::parse_text("t.md", text);
    assert_eq!(
        note.frontmatter
            .as_deref()
            .map(|f| f.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["created".to_string(), "tags".to_string()])
    );
}

/// Regression (found by the `frontmatter_edit` fuzz target): unsetting the
/// last key left `---\n---\n`, which is no frontmatter but two rules at the
/// top of the body; the emptied frontmatter now goes whole.
#[test]
fn unsetting_the_last_key_takes_the_frontmatter_out() {
    let unset = |key: &str| FrontmatterOp::Unset { key: key.into() };
    assert_eq!(
        apply("---\na: 1\n---\nbody\n", &[unset("a")]).unwrap(),
        "body\n"
    );
    assert_eq!(
        apply("\u{feff}---\r\na: 1\r\n\r\n---\r\n# T\r\n", &[unset("a")]).unwrap(),
        "\u{feff}# T\r\n"
    );
    assert_eq!(apply("---\na:\n---", &[unset("a")]).unwrap(), "");
    // A comment is a line: the frontmatter stays.
    assert_eq!(
        apply("---\n# c\na: 1\n---\nbody\n", &[unset("a")]).unwrap(),
        "---\n# c\n---\nbody\n"
    );
}

/// Regression (found by the `frontmatter_edit` fuzz target): unsetting the
/// first key left the blank line after it first in the frontmatter, which
/// then was none: its fences and remaining lines (a comment here) read as
/// the body's. The blank lines go with the first key; and whatever the
/// edit, the body starts where it went on, or nothing is written.
#[test]
fn unsetting_the_first_key_keeps_a_frontmatter() {
    let unset = |key: &str| FrontmatterOp::Unset { key: key.into() };
    assert_eq!(
        apply("---\ne:\n\n#\n---", &[unset("e")]).unwrap(),
        "---\n#\n---"
    );
    let text = "---\r\na: 1\r\n \r\n\r\nb: 2 # two\r\n---\r\nbody\r\n";
    let out = apply(text, &[unset("a")]).unwrap();
    assert_eq!(out, "---\r\nb: 2 # two\r\n---\r\nbody\r\n");
    assert_eq!(read(&out).unwrap(), *json!({"b": 2}).as_object().unwrap());
    // Taking the emptied frontmatter out would make the `---` lines at the
    // top of the body a frontmatter: refused.
    let text = "---\na: 1\n---\n---\n# c\n---\nbody\n";
    assert!(matches!(
        apply(text, &[unset("a")]),
        Err(FrontmatterError::Uneditable { key, .. }) if key == "a"
    ));
}

/// A list set over a list keeps the list as written: its style (block or
/// flow), the items kept with their quoting and comments, in their order;
/// a replaced item takes its predecessor's place, new items go last.
#[test]
fn lists_keep_their_style_their_order_and_their_quoting() {
    let cases = [
        // Block list: one item replaced (in place), one added (last).
        (
            "---\ntags:\n  - project/alpha   # the first\n  - 'checklist'\nstatus: x\n---\nB\n",
            json!(["project/apollo", "checklist", "new one"]),
            "---\ntags:\n  - project/apollo\n  - 'checklist'\n  - new one\nstatus: x\n---\nB\n",
        ),
        // Block list at the end, no indent, a comment line between items,
        // CRLF line endings; an item removed.
        (
            "---\r\ntags:\r\n- a\r\n# about b\r\n- b\r\n- c\r\n---\r\nB\r\n",
            json!(["a", "c", "d"]),
            "---\r\ntags:\r\n- a\r\n# about b\r\n- c\r\n- d\r\n---\r\nB\r\n",
        ),
        // Flow list: kept items keep their quotes, a new one needing quotes
        // gets them.
        (
            "---\ntags: [\"a\", b]  # mine\n---\n",
            json!(["a", "b", "#c"]),
            "---\ntags: [\"a\", b, '#c']  # mine\n---\n",
        ),
        // Numbers and booleans compare as what they read as.
        (
            "---\nn:\n  - 1\n  - '2'\n---\n",
            json!([1, "2", true]),
            "---\nn:\n  - 1\n  - '2'\n  - true\n---\n",
        ),
        // Every item replaced: the list stays a block list.
        (
            "---\naliases:\n    -   Old\n---\n",
            json!(["New", "Newer"]),
            "---\naliases:\n    -   New\n    -   Newer\n---\n",
        ),
    ];
    for (text, list, want) in cases {
        let key = text
            .trim_start_matches("---")
            .trim_start()
            .split(':')
            .next()
            .unwrap()
            .to_string();
        let out = apply(text, &[set(&key, list.clone())]).unwrap();
        assert_eq!(out, want, "setting {key} to {list}");
    }
    // A list of lists, or a value that is no list, is written whole.
    assert_eq!(
        apply("---\nm:\n  - [1]\n---\n", &[set("m", json!(["x"]))]).unwrap(),
        "---\nm: [x]\n---\n"
    );
    assert_eq!(
        apply("---\nt: a\n---\n", &[set("t", json!(["a", "b"]))]).unwrap(),
        "---\nt: [a, b]\n---\n"
    );
}

fn rename(key: &str, to: &str) -> FrontmatterOp {
    FrontmatterOp::Rename {
        key: key.into(),
        to: to.into(),
    }
}

#[test]
fn a_renamed_key_keeps_its_value_place_and_comment() {
    let text = "---\r\ntitle: T\r\nStatus: 'draft' # why\r\ntopics:\r\n  - a\r\n---\r\nbody\r\n";
    assert_eq!(
        apply(
            text,
            &[rename("Status", "state"), rename("topics", "my topics")]
        )
        .unwrap(),
        "---\r\ntitle: T\r\nstate: 'draft' # why\r\nmy topics:\r\n  - a\r\n---\r\nbody\r\n"
    );
    // A key it does not have: nothing changes; a case-only rename is one.
    assert_eq!(apply(text, &[rename("absent", "x")]).unwrap(), text);
    assert!(
        apply(text, &[rename("Status", "status")])
            .unwrap()
            .contains("\nstatus: 'draft'")
    );
    // Onto a key it has: refused, naming both.
    assert_eq!(
        apply(text, &[rename("Status", "title")]),
        Err(FrontmatterError::KeyTaken {
            key: "Status".into(),
            to: "title".into()
        })
    );
    assert!(matches!(
        apply(text, &[rename("Status", "")]),
        Err(FrontmatterError::InvalidKey { .. })
    ));
    // A new key YAML must quote is quoted.
    let out = apply(text, &[rename("title", "a: b")]).unwrap();
    assert_eq!(read(&out).unwrap()["a: b"], json!("T"));
}

#[test]
fn a_flow_list_keeps_its_spacing() {
    let set = |v| set("tags", v);
    for (text, value, expected) in [
        (
            "---\ntags: [a,b]\n---\n",
            json!(["a", "b", "c"]),
            "---\ntags: [a,b,c]\n---\n",
        ),
        (
            "---\ntags: [ a , b ]\n---\n",
            json!(["b", "c"]),
            "---\ntags: [ b , c ]\n---\n",
        ),
        (
            "---\ntags: [a]\n---\n",
            json!(["a", "c"]),
            "---\ntags: [a, c]\n---\n",
        ),
    ] {
        assert_eq!(apply(text, &[set(value)]).unwrap(), expected, "{text:?}");
    }
}
