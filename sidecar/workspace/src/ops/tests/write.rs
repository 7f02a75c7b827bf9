//! `write_note`: create, overwrite, frontmatter merging, templates, names
//! from titles, link reports, path and policy errors.

use expect_test::expect;
use serde_json::json;

use super::TestVault;
use crate::ops::{ChangeKind, OpError, WriteNote, WriteOptions, sha256_hex};

fn note(path: &str, content: &str) -> WriteNote {
    WriteNote {
        path: Some(path.into()),
        content: content.into(),
        ..WriteNote::default()
    }
}

#[test]
fn creates_a_note_reports_its_links_and_indexes_it_at_once() {
    let v = TestVault::new(&[("a.md", "# A\nSee [[New note]].\n")]);
    let report = v
        .ops()
        .write_note(&note(
            "notes/New note",
            "Back to [[a]], on to [[missing]] and [[#Top]].\n",
        ))
        .expect("writes");
    assert_eq!(report.change.kind, ChangeKind::Created);
    assert_eq!(report.change.path, "notes/New note.md");
    let text = v.read("notes/New note.md");
    assert_eq!(text, "Back to [[a]], on to [[missing]] and [[#Top]].\n");
    assert_eq!(
        report.change.sha256.as_deref(),
        Some(sha256_hex(text.as_bytes()).as_str())
    );
    assert_eq!(report.change.bytes_before, None);
    assert_eq!(report.change.bytes_after, Some(text.len() as u64));
    assert_eq!(report.unresolved, ["missing"]);
    assert_eq!(report.links[0].resolved.as_deref(), Some("a.md"));
    assert_eq!(report.links[1].line, 1);
    // A read right after the write sees it: `[[New note]]` in a.md resolves.
    assert_eq!(v.backlinks("notes/New note.md"), ["a.md"]);
    assert_eq!(v.resolves("a.md", 0).as_deref(), Some("notes/New note.md"));
    v.assert_fresh();
}

#[test]
fn a_title_names_the_file_in_the_folder_for_new_notes() {
    let v = TestVault::new(&[(".weft.toml", "new_notes_folder = \"inbox\"\n")]);
    let request = WriteNote {
        title: Some("Q3: plans/ideas?".into()),
        content: "Body\n".into(),
        ..WriteNote::default()
    };
    let report = v.ops().write_note(&request).expect("writes");
    assert_eq!(report.change.path, "inbox/Q3 plans ideas.md");
    // The title differs from the file name, so it goes in the frontmatter.
    expect![[r#"
        ---
        title: 'Q3: plans/ideas?'
        ---
        Body
    "#]]
    .assert_eq(&v.read("inbox/Q3 plans ideas.md"));

    // A title equal to the file name adds nothing; `folder` wins.
    let request = WriteNote {
        title: Some("Plain".into()),
        folder: Some("elsewhere".into()),
        content: "# Plain\n".into(),
        ..WriteNote::default()
    };
    let report = v.ops().write_note(&request).expect("writes");
    assert_eq!(report.change.path, "elsewhere/Plain.md");
    assert_eq!(v.read("elsewhere/Plain.md"), "# Plain\n");

    let error = v.fails(|ops| ops.write_note(&WriteNote::default()));
    assert!(error.to_string().contains("give `path`"), "{error}");
    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            title: Some("???".into()),
            ..WriteNote::default()
        })
    });
    assert!(matches!(error, OpError::InvalidName { .. }), "{error}");
}

#[test]
fn an_existing_note_is_replaced_only_when_asked_and_as_read() {
    let v = TestVault::new(&[("a.md", "old\n")]);
    let error = v.fails(|ops| ops.write_note(&note("a", "new\n")));
    assert_eq!(
        error,
        OpError::Exists {
            path: "a.md".into()
        }
    );
    assert!(error.to_string() == "`a.md` already exists", "{error}");
    // Same note under another case: never a second file beside it.
    let error = v.fails(|ops| ops.write_note(&note("A.md", "new\n")));
    assert_eq!(
        error,
        OpError::Exists {
            path: "a.md".into()
        }
    );

    let stale = WriteNote {
        overwrite: true,
        options: WriteOptions {
            expected_sha256: Some(sha256_hex(b"something else")),
            dry_run: false,
        },
        ..note("a", "new\n")
    };
    let error = v.fails(|ops| ops.write_note(&stale));
    let current = sha256_hex(b"old\n");
    assert!(
        matches!(&error, OpError::Conflict { current: Some(c), .. } if *c == current),
        "{error:?}"
    );
    assert!(error.to_string().contains(&current), "{error}");

    let good = WriteNote {
        overwrite: true,
        options: WriteOptions {
            expected_sha256: Some(current),
            dry_run: false,
        },
        ..note("a", "new\n")
    };
    let report = v.ops().write_note(&good).expect("overwrites");
    assert!(report.overwritten);
    assert_eq!(report.change.kind, ChangeKind::Modified);
    assert_eq!(report.change.bytes_before, Some(4));
    assert_eq!(v.read("a.md"), "new\n");

    // Creating with an expected hash is a conflict: there is nothing yet.
    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            options: WriteOptions {
                expected_sha256: Some(sha256_hex(b"x")),
                dry_run: false,
            },
            ..note("b", "b\n")
        })
    });
    assert!(
        matches!(error, OpError::Conflict { current: None, .. }),
        "{error:?}"
    );
    v.assert_fresh();
}

#[test]
fn frontmatter_merges_content_and_explicit_values_keeping_comments() {
    let v = TestVault::new(&[]);
    let request = WriteNote {
        path: Some("n".into()),
        content: "---\n# kept comment\ntags: [a]\nstatus: draft\n---\nBody\n".into(),
        tags: vec!["b".into(), "#a".into()],
        aliases: vec!["Other name".into()],
        frontmatter: json!({"status": "done", "rating": 3})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        ..WriteNote::default()
    };
    v.ops().write_note(&request).expect("writes");
    expect![[r#"
        ---
        # kept comment
        tags: [a, b]
        status: done
        rating: 3
        aliases: [Other name]
        ---
        Body
    "#]]
    .assert_eq(&v.read("n.md"));
    // The alias resolves at once.
    let found = v.ops().find_note("Other name").expect("alias");
    assert_eq!(found, "n.md");

    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            tags: vec!["two words".into()],
            ..note("m", "x")
        })
    });
    assert!(error.to_string().contains("is not a tag"), "{error}");
}

#[test]
fn templates_fill_variables_and_merge_the_content() {
    let v = TestVault::new(&[(
        "templates/meeting.md",
        "---\ntags: [meeting]\n---\n# {{title}}\nYear: {{date:YYYY}}\n## Notes\n",
    )]);
    let request = WriteNote {
        title: Some("Standup".into()),
        template: Some("meeting".into()),
        content: "---\ntags: [team]\n---\nDiscussed the plan.\n".into(),
        ..WriteNote::default()
    };
    v.ops().write_note(&request).expect("writes");
    let year = weft_search::dates::Now::read(weft_search::dates::Zone::System)
        .today()
        .year;
    assert_eq!(
        v.read("Standup.md"),
        format!(
            "---\ntags: [meeting, team]\n---\n# Standup\nYear: {year}\n## Notes\nDiscussed the plan.\n"
        )
    );

    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            template: Some("missing".into()),
            ..note("x", "")
        })
    });
    assert!(error.to_string().contains("`meeting`"), "{error}");
}

#[test]
fn bad_paths_change_nothing() {
    let v = TestVault::new(&[("a.md", "a")]);
    for (path, word) in [
        ("../out", "`..`"),
        ("/etc/x", "absolute"),
        (".obsidian/x", "hidden"),
        ("a\0b", "NUL"),
        ("notes/CON", "reserved"),
        ("bad [name]", "cannot contain"),
        ("a|b", "cannot contain"),
    ] {
        let error = v.fails(|ops| ops.write_note(&note(path, "x")));
        assert!(error.to_string().contains(word), "{path:?}: {error}");
    }
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_refused() {
    let v = TestVault::new(&[("a.md", "a")]);
    let outside = tempfile::tempdir().expect("dir");
    std::os::unix::fs::symlink(outside.path(), v.root().join("out")).expect("link");
    let error = v.fails(|ops| ops.write_note(&note("out/x", "x")));
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert!(
        std::fs::read_dir(outside.path())
            .expect("dir")
            .next()
            .is_none()
    );
}

#[test]
fn a_dry_run_writes_nothing_and_shows_the_diff() {
    let v = TestVault::new(&[("a.md", "one\n")]);
    let report = v.dry(|ops| {
        ops.write_note(&WriteNote {
            overwrite: true,
            options: WriteOptions {
                expected_sha256: None,
                dry_run: true,
            },
            ..note("a", "two\n")
        })
    });
    expect![[r#"
        --- a/a.md
        +++ b/a.md
        @@ -1 +1 @@
        -one
        +two
    "#]]
    .assert_eq(report.change.diff.as_deref().unwrap_or_default());
    let report = v.dry(|ops| {
        ops.write_note(&WriteNote {
            options: WriteOptions {
                expected_sha256: None,
                dry_run: true,
            },
            ..note("new", "hello\n")
        })
    });
    assert!(
        report
            .change
            .diff
            .unwrap_or_default()
            .starts_with("--- /dev/null\n+++ b/new.md\n")
    );
}

#[test]
fn the_tag_policy_and_tag_rules_hold_for_new_notes() {
    let v = TestVault::new(&[
        (
            ".weft.toml",
            "[tags]\npolicy = \"existing\"\n[[tags.rules]]\ntag = \"project\"\nrequire_keys = [\"status\"]\n\
             [[tags.rules]]\ntag = \"person\"\nname_prefix = \"@\"\n",
        ),
        (
            "a.md",
            "---\ntags: [project/weft, person]\n---\n#Inline-Tag\n",
        ),
    ]);
    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            tags: vec!["brand-new".into()],
            ..note("n", "x\n")
        })
    });
    let message = error.to_string();
    assert!(matches!(error, OpError::TagPolicy { .. }), "{error:?}");
    assert!(message.contains("`brand-new`"), "{message}");
    assert!(
        message.contains("Allowed tags: `Inline-Tag`, `person`, `project/weft`"),
        "{message}"
    );
    assert!(message.contains("ask the user"), "{message}");
    // Inline tags in the content count too.
    let error = v.fails(|ops| ops.write_note(&note("n", "About #unknown-tag\n")));
    assert!(matches!(error, OpError::TagPolicy { .. }), "{error:?}");

    // `project` is in use as the parent of `project/weft`; its rule needs
    // `status`.
    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            tags: vec!["project".into()],
            ..note("n", "x\n")
        })
    });
    assert!(
        error
            .to_string()
            .contains("needs the frontmatter key `status`"),
        "{error}"
    );
    v.ops()
        .write_note(&WriteNote {
            tags: vec!["project".into()],
            frontmatter: json!({"status": "active"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..note("n", "x\n")
        })
        .expect("complies");

    let error = v.fails(|ops| {
        ops.write_note(&WriteNote {
            tags: vec!["person".into()],
            ..note("Ada", "x\n")
        })
    });
    assert!(error.to_string().contains("starting with `@`"), "{error}");
    v.ops()
        .write_note(&WriteNote {
            tags: vec!["person".into()],
            ..note("@Ada", "x\n")
        })
        .expect("complies");
}

#[test]
fn read_only_and_path_lists_refuse_writes() {
    let v = TestVault::new(&[(".weft.toml", "[agent]\nread_only = true\n")]);
    let error = v.fails(|ops| ops.write_note(&note("n", "x")));
    assert_eq!(error, OpError::ReadOnly);

    let v = TestVault::new(&[(
        ".weft.toml",
        "[agent]\nallow = [\"inbox/\", \"daily/**\"]\ndeny = [\"inbox/private/\"]\n",
    )]);
    let error = v.fails(|ops| ops.write_note(&note("elsewhere/n", "x")));
    assert!(
        error.to_string().contains("none of the allowed patterns"),
        "{error}"
    );
    let error = v.fails(|ops| ops.write_note(&note("inbox/private/n", "x")));
    assert!(
        error.to_string().contains("deny pattern `inbox/private/`"),
        "{error}"
    );
    v.ops().write_note(&note("inbox/n", "x")).expect("allowed");
    v.ops()
        .write_note(&note("daily/2024/n", "x"))
        .expect("allowed");
}

#[test]
fn an_overwritten_crlf_note_stays_crlf() {
    let v = TestVault::new(&[("w.md", "old\r\ntext\r\n")]);
    v.ops()
        .write_note(&WriteNote {
            overwrite: true,
            ..note("w", "new\ntext\n")
        })
        .expect("overwrites");
    assert_eq!(v.read("w.md"), "new\r\ntext\r\n");
}
