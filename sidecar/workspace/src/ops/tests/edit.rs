//! `edit_note`: ordered all-or-nothing operations, counts and sizes, the
//! guard hash, dry runs, line endings, permissions, and every error path.

use expect_test::expect;

use super::TestVault;
use crate::ops::{EditNote, OpError, WriteOptions, sha256_hex};
use weft_vault::edit::EditOp;

fn edit(path: &str, ops: Vec<EditOp>) -> EditNote {
    EditNote {
        path: path.into(),
        ops,
        options: WriteOptions::default(),
    }
}

const PLAN: &str = "---\ntitle: Plan\n---\n# Plan\nintro\n## Next\n- one\n\n## Done\n- old\n";

#[test]
fn operations_apply_in_order_and_report_counts_sizes_and_hash() {
    let v = TestVault::new(&[("plan.md", PLAN), ("b.md", "# B\n")]);
    let report = v
        .ops()
        .edit_note(&edit(
            "Plan", // by title
            vec![
                EditOp::AppendSection {
                    section: "Plan::Next".into(),
                    content: "- two, see [[b]]".into(),
                },
                EditOp::ReplaceText {
                    find: "o".into(),
                    replace: "0".into(),
                    replace_all: true,
                },
                EditOp::Append {
                    content: "end".into(),
                },
            ],
        ))
        .expect("edits");
    let text = v.read("plan.md");
    expect![[r#"
        ---
        title: Plan
        ---
        # Plan
        intr0
        ## Next
        - 0ne
        - tw0, see [[b]]

        ## D0ne
        - 0ld
        end
    "#]]
    .assert_eq(&text);
    let counts: Vec<(&str, usize)> = report.ops.iter().map(|o| (o.op, o.count)).collect();
    assert_eq!(
        counts,
        [("append_section", 1), ("replace_text", 5), ("append", 1)]
    );
    assert_eq!(report.change.bytes_before, Some(PLAN.len() as u64));
    assert_eq!(report.change.bytes_after, Some(text.len() as u64));
    assert_eq!(report.change.sha256, Some(sha256_hex(text.as_bytes())));
    assert!(report.changed);
    // The new link is indexed before the call returns.
    assert_eq!(v.backlinks("b.md"), ["plan.md"]);
    v.assert_fresh();
}

#[test]
fn every_failed_edit_leaves_the_note_untouched() {
    let v = TestVault::new(&[
        ("plan.md", PLAN),
        ("dup.md", "# A\n## X\n# B\n## X\n"),
        ("x/same.md", "1"),
        ("y/same.md", "2"),
    ]);
    let append = EditOp::Append {
        content: "applied?".into(),
    };
    let cases: Vec<(&str, EditOp, &str)> = vec![
        (
            "plan",
            EditOp::AppendSection {
                section: "Missing".into(),
                content: "x".into(),
            },
            "the note's sections are `Plan` (line 4), `Plan::Next` (line 6), `Plan::Done` (line 9)",
        ),
        (
            "dup",
            EditOp::ReplaceSection {
                section: "X".into(),
                content: "x".into(),
            },
            "section `X` is ambiguous: `A::X` (line 2), `B::X` (line 4)",
        ),
        (
            "plan",
            EditOp::ReplaceText {
                find: "absent".into(),
                replace: "x".into(),
                replace_all: false,
            },
            "does not occur",
        ),
        (
            "plan",
            EditOp::ReplaceText {
                find: "- ".into(),
                replace: "* ".into(),
                replace_all: false,
            },
            "occurs 2 times (lines 7, 10)",
        ),
        (
            "plan",
            EditOp::InsertAfter {
                anchor: "nowhere".into(),
                content: "x".into(),
            },
            "does not occur",
        ),
        (
            "plan",
            EditOp::DeleteLines { from: 5, to: 99 },
            "which has 11 lines",
        ),
    ];
    for (path, op, words) in cases {
        // The failing operation comes second: the first is not applied either.
        let error = v.fails(|ops| ops.edit_note(&edit(path, vec![append.clone(), op.clone()])));
        let message = error.to_string();
        assert!(matches!(error, OpError::Edit { op: 1, .. }), "{error:?}");
        assert!(message.contains(words), "{message}");
        assert!(message.contains("operation 2"), "{message}");
    }

    let error = v.fails(|ops| ops.edit_note(&edit("plan", vec![])));
    assert!(error.to_string().contains("`ops` is empty"), "{error}");
    let error = v.fails(|ops| ops.edit_note(&edit("plna", vec![append.clone()])));
    assert!(
        matches!(&error, OpError::NotFound { suggestions, .. } if suggestions == &["plan.md"]),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("did you mean `plan.md`?"),
        "{error}"
    );
    let error = v.fails(|ops| ops.edit_note(&edit("same", vec![append.clone()])));
    assert_eq!(
        error,
        OpError::Ambiguous {
            input: "same".into(),
            candidates: vec!["x/same.md".into(), "y/same.md".into()]
        }
    );
}

#[test]
fn a_stale_hash_is_a_conflict_that_names_the_current_one() {
    let v = TestVault::new(&[("n.md", "text\n")]);
    let request = EditNote {
        options: WriteOptions {
            expected_sha256: Some(sha256_hex(b"what the caller read")),
            dry_run: false,
        },
        ..edit(
            "n",
            vec![EditOp::Append {
                content: "x".into(),
            }],
        )
    };
    let error = v.fails(|ops| ops.edit_note(&request));
    let current = sha256_hex(b"text\n");
    assert_eq!(
        error,
        OpError::Conflict {
            path: "n.md".into(),
            expected: sha256_hex(b"what the caller read"),
            current: Some(current.clone()),
        }
    );
    let request = EditNote {
        options: WriteOptions {
            expected_sha256: Some(current.to_uppercase()),
            dry_run: false,
        },
        ..request
    };
    v.ops()
        .edit_note(&request)
        .expect("the right hash, in any case");
    assert_eq!(v.read("n.md"), "text\nx\n");
}

#[test]
fn a_dry_run_returns_the_diff_and_writes_nothing() {
    let v = TestVault::new(&[("n.md", "a\nb\nc\n")]);
    let report = v.dry(|ops| {
        ops.edit_note(&EditNote {
            options: WriteOptions {
                expected_sha256: None,
                dry_run: true,
            },
            ..edit(
                "n",
                vec![EditOp::ReplaceLines {
                    from: 2,
                    to: 2,
                    content: "B".into(),
                }],
            )
        })
    });
    assert!(report.dry_run);
    expect![[r#"
        --- a/n.md
        +++ b/n.md
        @@ -1,3 +1,3 @@
         a
        -b
        +B
         c
    "#]]
    .assert_eq(report.change.diff.as_deref().unwrap_or_default());
}

#[test]
fn crlf_notes_stay_crlf() {
    let v = TestVault::new(&[("w.md", "---\r\ntags: [a]\r\n---\r\n# W\r\nline\r\n")]);
    v.ops()
        .edit_note(&edit(
            "w",
            vec![
                EditOp::AppendSection {
                    section: "W".into(),
                    content: "added\nand more".into(),
                },
                EditOp::Prepend {
                    content: "top".into(),
                },
            ],
        ))
        .expect("edits");
    let text = v.read("w.md");
    assert_eq!(
        text,
        "---\r\ntags: [a]\r\n---\r\ntop\r\n# W\r\nline\r\nadded\r\nand more\r\n"
    );
    assert_eq!(text.matches('\n').count(), text.matches("\r\n").count());
}

#[cfg(unix)]
#[test]
fn permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let v = TestVault::new(&[("n.md", "x\n")]);
    let path = v.root().join("n.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    v.ops()
        .edit_note(&edit(
            "n",
            vec![EditOp::Append {
                content: "y".into(),
            }],
        ))
        .expect("edits");
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[test]
fn notes_that_are_not_utf8_are_not_edited() {
    let v = TestVault::new(&[]);
    super::write_file(v.root(), "bad.md", b"ok \xff\xfe bytes\n");
    v.vault.apply_paths([v.root().join("bad.md")]);
    let error = v.fails(|ops| {
        ops.edit_note(&edit(
            "bad",
            vec![EditOp::Append {
                content: "x".into(),
            }],
        ))
    });
    assert_eq!(
        error,
        OpError::NotUtf8 {
            path: "bad.md".into(),
            at: 3
        }
    );
}

#[test]
fn read_only_refuses_edits() {
    let v = TestVault::new(&[(".weft.toml", "[agent]\nread_only = true\n"), ("n.md", "x")]);
    let error = v.fails(|ops| {
        ops.edit_note(&edit(
            "n",
            vec![EditOp::Append {
                content: "y".into(),
            }],
        ))
    });
    assert_eq!(error, OpError::ReadOnly);
}

#[test]
fn a_note_created_outside_and_not_yet_indexed_is_found() {
    let v = TestVault::new(&[]);
    super::write_file(v.root(), "fresh.md", b"x\n");
    v.ops()
        .edit_note(&edit(
            "fresh",
            vec![EditOp::Append {
                content: "y".into(),
            }],
        ))
        .expect("found on disk");
    assert_eq!(v.read("fresh.md"), "x\ny\n");
    v.assert_fresh();
}

#[test]
fn an_edit_that_removes_a_linked_heading_or_block_says_so() {
    let v = TestVault::new(&[
        ("n.md", "# N\n## Plan\nx ^blk\n"),
        ("a.md", "[[n#Plan]] [[n#^blk]] [[n]]\n"),
    ]);
    let report = v
        .ops()
        .edit_note(&edit(
            "n",
            vec![
                EditOp::ReplaceText {
                    find: "## Plan".into(),
                    replace: "## Roadmap".into(),
                    replace_all: false,
                },
                EditOp::ReplaceText {
                    find: " ^blk".into(),
                    replace: String::new(),
                    replace_all: false,
                },
            ],
        ))
        .expect("edits");
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(
        report.warnings[0].to_string().contains("at `#Plan`"),
        "{}",
        report.warnings[0]
    );
    assert!(
        report.warnings[1].to_string().contains("at `#^blk`"),
        "{}",
        report.warnings[1]
    );
}
