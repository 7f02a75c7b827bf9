//! The property table and types: what each key's values are, in how many
//! notes; the type declared or inferred; the table after edits equal to
//! one built afresh.

use expect_test::{Expect, expect};

use super::fixture;
use crate::VaultIndex;
use crate::parse::parse_note;
use crate::props::{PropType, Props, Types};

const VAULT: &str = r#"
//- /a.md
---
status: active
due: 2026-12-01
done: false
rating: 4
tags: [work, home]
related: "[[b]]"
Owner: ana
---
//- /b.md
---
status: active
due: 2026-12-03T09:30
done: true
rating: 5
tags:
  - work
owner: ben
---
//- /c.md
---
status: done
due: soon
done:
rating: "high"
topics: [x, y, x]
summary: a very long summary that goes on and on and on and on and on and on and on and on and on and on and on, past what a value to complete can be
---
//- /d.md
No properties.
"#;

/// Every key with its notes, type and values, sorted.
fn table(props: &Props, types: &Types) -> String {
    let mut keys: Vec<&str> = props.iter().map(|(k, _)| k).collect();
    keys.sort_unstable();
    let mut out = String::new();
    for key in keys {
        let stat = props.get(key).unwrap();
        let values: Vec<String> = stat
            .top_values(10)
            .into_iter()
            .map(|(v, n)| format!("{v}×{n}"))
            .collect();
        out.push_str(&format!(
            "{} ({} notes, {}): {}\n",
            stat.display(),
            stat.notes(),
            props.type_of(types, key).unwrap().id(),
            values.join(" ")
        ));
    }
    out
}

fn check(index: &VaultIndex, types: &Types, expect: Expect) {
    expect.assert_eq(&table(index.props(), types));
}

#[test]
fn each_key_has_its_values_notes_and_inferred_type() {
    check(
        &fixture(VAULT),
        &Types::default(),
        expect![[r#"
        done (3 notes, checkbox): false×1 true×1
        due (3 notes, text): 2026-12-01×1 2026-12-03T09:30×1 soon×1
        Owner (2 notes, text): ana×1 ben×1
        rating (3 notes, number): 4×1 5×1 high×1
        related (1 notes, text): [[b]]×1
        status (3 notes, text): active×2 done×1
        summary (1 notes, text): 
        tags (2 notes, tags): work×2 home×1
        topics (1 notes, multitext): x×1 y×1
    "#]],
    );
}

#[test]
fn types_json_declares_types_and_reserved_keys_keep_theirs() {
    let types = Types::parse(
        r#"{"types": {"due": "date", "rating": "number", "tags": "multitext", "owner": "text", "x": "nonsense"}}"#,
    )
    .unwrap();
    assert_eq!(types.declared("Due"), Some(PropType::Date));
    assert_eq!(types.declared("x"), None);
    let index = fixture(VAULT);
    let type_of = |key: &str| index.props().type_of(&types, key).map(PropType::id);
    // Declared wins over inferred (`due` reads as text by its values).
    assert_eq!(type_of("due"), Some("date"));
    assert_eq!(type_of("rating"), Some("number"));
    // `tags` stays the tags, whatever `types.json` says.
    assert_eq!(type_of("tags"), Some("tags"));
    // Undeclared keys are inferred; a key no note holds has no type.
    assert_eq!(type_of("done"), Some("checkbox"));
    assert_eq!(type_of("nowhere"), None);
    for bad in ["{", "[]", r#"{"types": 3}"#] {
        assert!(Types::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_value_fits_its_type_or_says_it_does_not() {
    let fits = |t: PropType, v: serde_json::Value| t.fits(&v);
    assert!(fits(PropType::Date, "2026-12-01".into()));
    assert!(!fits(PropType::Date, "tomorrow".into()));
    assert!(!fits(PropType::Date, "2026-12-01T10:00".into()));
    assert!(fits(PropType::DateTime, "2026-12-01T10:00".into()));
    assert!(fits(PropType::Checkbox, true.into()));
    assert!(!fits(PropType::Checkbox, "maybe".into()));
    assert!(fits(PropType::Number, 3.5.into()));
    assert!(!fits(PropType::Number, "3".into()));
    assert!(fits(PropType::List, "one".into()));
    assert!(!fits(PropType::Text, serde_json::json!(["a"])));
    for t in [
        PropType::Date,
        PropType::Number,
        PropType::Checkbox,
        PropType::Text,
    ] {
        assert!(fits(t, serde_json::Value::Null), "{t:?}");
    }
}

#[test]
fn the_table_after_edits_is_the_table_built_afresh() {
    let mut index = fixture(VAULT);
    let files = crate::fixture::files(VAULT);
    // Change one note, remove another, add one back changed.
    index.upsert(parse_note(
        "a.md",
        b"---\nstatus: paused\ntags: [home]\n---\n",
    ));
    index.remove("b.md");
    let c = files.iter().find(|f| f.path == "c.md").unwrap();
    index.remove("c.md");
    index.upsert(parse_note("c.md", c.text.as_bytes()));
    let mut fresh = VaultIndex::new();
    for (path, text) in [
        ("a.md", "---\nstatus: paused\ntags: [home]\n---\n"),
        ("c.md", c.text.as_str()),
        ("d.md", "No properties.\n"),
    ] {
        fresh.upsert(parse_note(path, text.as_bytes()));
    }
    assert_eq!(index.props(), fresh.props());
    assert_eq!(index.frontmatter_keys(), fresh.frontmatter_keys());
}

#[test]
fn the_key_under_the_cursor_is_found_by_the_yaml_parser() {
    let text = "---\n\"odd: key\": 1\nstatus: active # a comment: here\n---\nstatus: body\n";
    let key = |needle: &str| {
        let offset = text.find(needle).unwrap();
        crate::props::key_at(text, offset).map(|(k, span)| (k, text[span].to_string()))
    };
    assert_eq!(key("odd"), Some(("odd: key".into(), "\"odd: key\"".into())));
    assert_eq!(
        key("tatus: active"),
        Some(("status".into(), "status".into()))
    );
    // A value, a comment, the body: no key.
    assert_eq!(key("active"), None);
    assert_eq!(key("comment"), None);
    assert_eq!(key("tatus: body"), None);
}

#[test]
fn a_quoted_number_or_boolean_has_a_certain_fix_and_nothing_else_does() {
    let fix = |value: &str, expected| {
        crate::props::Mismatch {
            key: "k".into(),
            value: value.into(),
            expected,
            declared: true,
            span: 0..value.len(),
        }
        .certain_fix()
    };
    assert_eq!(fix("\"3\"", PropType::Number).as_deref(), Some("3"));
    assert_eq!(fix("'-2.5'", PropType::Number).as_deref(), Some("-2.5"));
    assert_eq!(fix("'TRUE'", PropType::Checkbox).as_deref(), Some("true"));
    assert_eq!(
        fix("\"false\"", PropType::Checkbox).as_deref(),
        Some("false")
    );
    for (value, expected) in [
        ("\"3 apples\"", PropType::Number),
        ("\"1e400\"", PropType::Number),
        ("\"0x10\"", PropType::Number),
        ("3", PropType::Number),
        ("maybe", PropType::Checkbox),
        ("\"yes\"", PropType::Checkbox),
        ("tomorrow", PropType::Date),
    ] {
        assert_eq!(fix(value, expected), None, "{value}");
    }
}
