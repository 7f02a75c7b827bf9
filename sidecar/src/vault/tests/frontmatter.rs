use serde_json::json;

use crate::vault::frontmatter::{FrontmatterOp, apply, read};

fn set(key: &str, value: serde_json::Value) -> FrontmatterOp {
    FrontmatterOp::Set {
        key: key.into(),
        value,
    }
}

#[test]
fn set_keeps_order_comments_and_other_entries() {
    let text = "---\n# my comment\ntitle: \"Old\"   # keep me? no: this entry changes\nstatus: draft # stays\naliases:\n  - A\n  - B\ncreated: 2024-01-01\n---\nBody [[link]]\n";
    let out = apply(
        text,
        &[set("title", json!("New")), set("tags", json!(["x", "y/z"]))],
    )
    .unwrap();
    assert_eq!(
        out,
        "---\n# my comment\ntitle: New\nstatus: draft # stays\naliases:\n  - A\n  - B\ncreated: 2024-01-01\ntags: [x, y/z]\n---\nBody [[link]]\n"
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
