//! `delete_note`: to the trash, broken links listed or marked deleted.

use expect_test::expect;

use super::TestVault;
use crate::ops::{ChangeKind, DeleteNote, LinkPolicy, OpError, WriteOptions};

fn delete(path: &str, link_policy: LinkPolicy) -> DeleteNote {
    DeleteNote {
        path: path.into(),
        link_policy,
        options: WriteOptions::default(),
    }
}

fn vault() -> TestVault {
    TestVault::new(&[
        ("f/gone.md", "# Gone\n[[#Gone]]\n"),
        (
            "a.md",
            "[[gone|Alias]] and ![[gone]]\n[text](f/gone.md) [[gone#Gone]] [[f/gone]]\n",
        ),
        ("b.md", "---\nrel: \"[[gone]]\"\n---\nalso [[gone]]\n"),
        ("c.md", "no links\n"),
    ])
}

#[test]
fn a_deleted_note_goes_to_the_trash_and_its_links_are_listed() {
    let v = vault();
    let report = v
        .ops()
        .delete_note(&delete("Gone", LinkPolicy::Keep))
        .expect("deletes");
    assert_eq!(report.trash_path, ".trash/f/gone.md");
    assert_eq!(v.read(".trash/f/gone.md"), "# Gone\n[[#Gone]]\n");
    assert!(!v.exists("f/gone.md"));
    let broken: Vec<(&str, usize)> = report
        .broken
        .iter()
        .map(|b| (b.path.as_str(), b.count))
        .collect();
    assert_eq!(broken, [("a.md", 5), ("b.md", 2)]);
    assert_eq!(report.broken[0].lines, [1, 1, 2, 2, 2]);
    assert_eq!(report.changes.len(), 1);
    assert_eq!(report.changes[0].kind, ChangeKind::Deleted);
    // The index knows at once: the links are unresolved now.
    assert_eq!(v.resolves("a.md", 0), None);
    v.assert_fresh();

    // The same path deleted again gets a free name in the trash.
    super::write_file(v.root(), "f/gone.md", b"second\n");
    v.vault.apply_paths([v.root().join("f/gone.md")]);
    let report = v
        .ops()
        .delete_note(&delete("f/gone", LinkPolicy::Keep))
        .expect("deletes");
    assert_eq!(report.trash_path, ".trash/f/gone 1.md");
    assert_eq!(v.read(".trash/f/gone 1.md"), "second\n");
}

#[test]
fn mark_deleted_rewrites_the_links_keeping_their_text() {
    let v = vault();
    let report = v
        .ops()
        .delete_note(&delete("f/gone.md", LinkPolicy::MarkDeleted))
        .expect("deletes");
    expect![[r#"
        [[gone (deleted)|Alias]] and ![[gone (deleted)]]
        [[gone (deleted)|text]] [[gone (deleted)]] [[gone (deleted)]]
    "#]]
    .assert_eq(&v.read("a.md"));
    expect![[r#"
        ---
        rel: "[[gone (deleted)]]"
        ---
        also [[gone (deleted)]]
    "#]]
    .assert_eq(&v.read("b.md"));
    assert_eq!(report.link_edits.len(), 7);
    assert_eq!(report.changes.len(), 3);
    v.assert_fresh();
}

#[test]
fn a_dry_run_and_failures_change_nothing() {
    let v = vault();
    let report = v.dry(|ops| {
        ops.delete_note(&DeleteNote {
            options: WriteOptions {
                expected_sha256: None,
                dry_run: true,
            },
            ..delete("gone", LinkPolicy::MarkDeleted)
        })
    });
    assert_eq!(report.broken.len(), 2);
    assert_eq!(report.link_edits.len(), 7);
    let diff = report.changes[0].diff.clone().unwrap_or_default();
    assert!(diff.contains("+[[gone (deleted)|Alias]]"), "{diff}");

    let error = v.fails(|ops| ops.delete_note(&delete("gonne", LinkPolicy::Keep)));
    assert!(
        error.to_string().contains("did you mean `f/gone.md`?"),
        "{error}"
    );
    let error = v.fails(|ops| {
        ops.delete_note(&DeleteNote {
            options: WriteOptions {
                expected_sha256: Some("0".repeat(64)),
                dry_run: false,
            },
            ..delete("gone", LinkPolicy::MarkDeleted)
        })
    });
    assert!(matches!(error, OpError::Conflict { .. }), "{error:?}");
}

#[test]
fn an_ambiguous_link_falls_to_the_other_note_and_is_not_broken() {
    let v = TestVault::new(&[
        ("x/same.md", "x"),
        ("y/same.md", "y"),
        ("a.md", "[[same]]\n"),
    ]);
    assert_eq!(v.resolves("a.md", 0).as_deref(), Some("x/same.md"));
    let report = v
        .ops()
        .delete_note(&delete("x/same", LinkPolicy::MarkDeleted))
        .expect("deletes");
    assert!(report.broken.is_empty());
    assert_eq!(report.warnings.len(), 1);
    assert_eq!(v.read("a.md"), "[[same]]\n");
    assert_eq!(v.resolves("a.md", 0).as_deref(), Some("y/same.md"));
}
