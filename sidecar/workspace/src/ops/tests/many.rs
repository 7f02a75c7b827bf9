//! Many notes in one call: one frontmatter change over a list of notes,
//! and tags renamed wherever they are written; all or nothing, one log
//! entry, the policies held for every note.

use std::sync::Mutex;

use expect_test::expect;
use serde_json::json;

use super::TestVault;
use crate::ops::{FrontmatterChange, OpError, RenameTags, UpdateMany, WriteLog, Written};

const A: &str = "---\ntags:\n  - project/alpha # first\n  - checklist\nStatus: draft\n---\n# A #project/alpha/sub\n";
const B: &str = "---\r\ntitle: B\r\n---\r\nBody #project/alpha and #projectile\r\n";
const C: &str = "No frontmatter, `#project/alpha` in code.\n";

fn vault() -> TestVault {
    TestVault::new(&[("a.md", A), ("f/b.md", B), ("c.md", C)])
}

fn many(notes: &[&str], change: FrontmatterChange) -> UpdateMany {
    UpdateMany {
        notes: notes.iter().map(|n| n.to_string()).collect(),
        change,
        label: "test".into(),
        declared_too: false,
        dry_run: false,
    }
}

#[derive(Default)]
struct Recorder(Mutex<Vec<(String, usize)>>);

impl WriteLog for Recorder {
    fn record(&self, _actor: &str, _tool: &str, path: &str, written: &[Written]) {
        self.0
            .lock()
            .expect("lock")
            .push((path.to_string(), written.len()));
    }
}

#[test]
fn one_change_to_many_notes_keeps_each_notes_style_and_logs_once() {
    let v = vault();
    let log = Recorder::default();
    let change = FrontmatterChange {
        set: json!({"reviewed": true}).as_object().cloned().unwrap(),
        rename: vec![("status".into(), "state".into())],
        ..FrontmatterChange::default()
    };
    let report = v
        .ops()
        .with_log(&log)
        .update_many(&many(&["a", "B", "c.md", "a.md"], change.clone()))
        .expect("updates");
    assert_eq!(report.changes.len(), 3);
    expect![[r#"
        ---
        tags:
          - project/alpha # first
          - checklist
        state: draft
        reviewed: true
        ---
        # A #project/alpha/sub
    "#]]
    .assert_eq(&v.read("a.md"));
    assert_eq!(
        v.read("f/b.md"),
        "---\r\ntitle: B\r\nreviewed: true\r\n---\r\nBody #project/alpha and #projectile\r\n"
    );
    assert!(
        v.read("c.md")
            .starts_with("---\nreviewed: true\n---\nNo frontmatter")
    );
    // One entry for the batch, holding every note written.
    assert_eq!(*log.0.lock().unwrap(), vec![("test".to_string(), 3)]);
    v.assert_fresh();

    // Again: nothing left to change.
    let again = v
        .ops()
        .update_many(&many(&["a", "B", "c"], change))
        .expect("no-op");
    assert!(again.changes.is_empty());
    assert_eq!(again.unchanged, ["a.md", "c.md", "f/b.md"]);
}

#[test]
fn one_note_that_refuses_the_change_stops_the_whole_batch() {
    let v = TestVault::new(&[
        ("a.md", A),
        ("bad.md", "---\nkey: [unclosed\n---\n"),
        ("taken.md", "---\nstatus: a\nstate: b\n---\n"),
    ]);
    let set = FrontmatterChange {
        set: json!({"x": 1}).as_object().cloned().unwrap(),
        ..FrontmatterChange::default()
    };
    let error = v.fails(|ops| ops.update_many(&many(&["a", "bad"], set.clone())));
    assert!(matches!(error, OpError::Frontmatter { ref path, .. } if path == "bad.md"));
    let rename = FrontmatterChange {
        rename: vec![("status".into(), "state".into())],
        ..FrontmatterChange::default()
    };
    let error = v.fails(|ops| ops.update_many(&many(&["a", "taken"], rename.clone())));
    expect!["`taken.md`: cannot rename `status` to `state`: the note has `state` already"]
        .assert_eq(&error.to_string());
    let error = v.fails(|ops| ops.update_many(&many(&["a", "nowhere"], set.clone())));
    assert!(matches!(error, OpError::NotFound { .. }));
    // A dry run says what would change, with diffs, and writes nothing.
    let dry = v.dry(|ops| {
        ops.update_many(&UpdateMany {
            dry_run: true,
            ..many(&["a"], set)
        })
    });
    assert!(dry.changes[0].diff.as_deref().unwrap().contains("+x: 1"));
}

#[test]
fn a_tag_renamed_everywhere_nested_tags_and_frontmatter_included() {
    let v = vault();
    let log = Recorder::default();
    let report = v
        .ops()
        .with_log(&log)
        .rename_tags(&RenameTags {
            renames: vec![("#project/alpha".into(), "project/apollo".into())],
            within: None,
            dry_run: false,
        })
        .expect("renames");
    assert_eq!(
        report
            .changes
            .iter()
            .map(|c| c.path.as_str())
            .collect::<Vec<_>>(),
        ["a.md", "f/b.md"]
    );
    expect![[r#"
        ---
        tags:
          - project/apollo # first
          - checklist
        Status: draft
        ---
        # A #project/apollo/sub
    "#]]
    .assert_eq(&v.read("a.md"));
    // Line endings, other tags and code stay as written.
    assert_eq!(
        v.read("f/b.md"),
        "---\r\ntitle: B\r\n---\r\nBody #project/apollo and #projectile\r\n"
    );
    assert_eq!(v.read("c.md"), C);
    assert_eq!(log.0.lock().unwrap().len(), 1);
    v.assert_fresh();
}

#[test]
fn tag_renames_are_checked_before_anything_is_read() {
    let v = vault();
    let rename = |pairs: &[(&str, &str)]| RenameTags {
        renames: pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        within: None,
        dry_run: false,
    };
    for (pairs, message) in [
        (
            &[("project", "work"), ("project/alpha", "x")][..],
            "`project/alpha` and `project` are the same tag or one is nested in the other; rename the outer one (its nested tags follow it)",
        ),
        (&[("a", "a")][..], "renaming `#a` to itself changes nothing"),
    ] {
        assert_eq!(
            v.fails(|ops| ops.rename_tags(&rename(pairs))).to_string(),
            message
        );
    }
    assert!(matches!(
        v.fails(|ops| ops.rename_tags(&rename(&[("project", "has space")]))),
        OpError::Invalid(_)
    ));
    // Within a set of notes: only those change.
    let within = RenameTags {
        within: Some(vec!["B".to_string()]),
        ..rename(&[("project", "work")])
    };
    let report = v.ops().rename_tags(&within).expect("renames");
    assert_eq!(report.changes.len(), 1);
    assert!(v.read("a.md").contains("project/alpha # first"));
    assert!(v.read("f/b.md").contains("#work/alpha and #projectile"));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[test]
fn a_batch_over_the_limit_is_refused_before_anything_is_read() {
    let v = vault();
    let notes: Vec<&str> = vec!["a"; crate::ops::BATCH_LIMIT + 1];
    let set = FrontmatterChange {
        set: json!({"x": 1}).as_object().cloned().unwrap(),
        ..FrontmatterChange::default()
    };
    let error = v.fails(|ops| ops.update_many(&many(&notes, set)));
    assert!(matches!(error, OpError::TooMany { limit, .. } if limit == crate::ops::BATCH_LIMIT));
}
