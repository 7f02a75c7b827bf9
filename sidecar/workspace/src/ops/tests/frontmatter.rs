//! `update_frontmatter`: properties, title, tags and aliases (replace or
//! idempotent add/remove), the tag policy, and contradictory arguments.

use expect_test::expect;
use serde_json::{Map, Value, json};

use super::TestVault;
use crate::ops::{FrontmatterChange, OpError, UpdateFrontmatter, Warning, WriteOptions};

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn update(path: &str) -> UpdateFrontmatter {
    UpdateFrontmatter {
        path: path.into(),
        ..UpdateFrontmatter::default()
    }
}

const NOTE: &str = "---\n# people and places\nstatus: draft # still\nmeta:\n  a: 1\ntags: [one, two]\n---\n# N\nBody #two\n";

#[test]
fn properties_change_and_everything_else_stays_as_written() {
    let v = TestVault::new(&[("n.md", NOTE)]);
    let report = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                set: object(json!({"status": "done", "due": "2024-05-01"})),
                merge: object(json!({"meta": {"b": 2}})),
                title: Some("The N".into()),
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    expect![[r#"
        ---
        # people and places
        status: done # still
        meta:
          a: 1
          b: 2
        tags: [one, two]
        due: 2024-05-01
        title: The N
        ---
        # N
        Body #two
    "#]]
    .assert_eq(&v.read("n.md"));
    assert!(report.changed);
    assert_eq!(report.frontmatter["due"], "2024-05-01");
    // The index has the new title at once.
    assert_eq!(v.ops().find_note("The N").expect("title"), "n.md");

    v.ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                unset: vec!["due".into(), "meta".into()],
                title: Some(String::new()),
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert_eq!(
        v.read("n.md"),
        "---\n# people and places\nstatus: done # still\ntags: [one, two]\n---\n# N\nBody #two\n"
    );
    v.assert_fresh();
}

#[test]
fn tags_are_added_and_removed_idempotently_removals_first() {
    let v = TestVault::new(&[("n.md", NOTE)]);
    let report = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_tags: vec!["#three".into(), "One".into(), "two".into()],
                remove_tags: vec!["two".into(), "absent".into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    // `two` is removed, then added again (at the end): removals come first.
    assert_eq!(report.tags, ["one", "three", "two"]);
    assert!(report.changed);
    let once = v.read("n.md");
    assert!(once.contains("tags: [one, three, two]\n"), "{once}");

    let again = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_tags: vec!["three".into()],
                remove_tags: vec!["absent".into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert!(!again.changed);
    assert_eq!(v.read("n.md"), once);

    let report = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                remove_tags: vec!["two".into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert_eq!(report.tags, ["one", "three"]);
    assert_eq!(
        report.warnings,
        [Warning::TagStillInline {
            tag: "two".into(),
            line: 9
        }]
    );
    assert_eq!(
        report.warnings[0].to_string(),
        "#two is still used inline on line 9"
    );

    let report = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                tags: Some(vec![]),
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert!(report.tags.is_empty());
    assert!(!v.read("n.md").contains("tags:"));
    v.assert_fresh();
}

#[test]
fn aliases_resolve_links_right_after_the_update() {
    let v = TestVault::new(&[("n.md", "# N\n"), ("a.md", "see [[Enn]]\n")]);
    assert_eq!(v.resolves("a.md", 0), None);
    v.ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_aliases: vec!["Enn".into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert_eq!(v.read("n.md"), "---\naliases: [Enn]\n---\n# N\n");
    assert_eq!(v.resolves("a.md", 0).as_deref(), Some("n.md"));
    assert_eq!(v.backlinks("n.md"), ["a.md"]);
}

#[test]
fn contradictory_or_empty_requests_change_nothing() {
    let v = TestVault::new(&[("n.md", NOTE), ("bad.md", "---\nkey: [unclosed\n---\nx\n")]);
    let cases = [
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    tags: Some(vec!["a".into()]),
                    add_tags: vec!["b".into()],
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "give either `tags`",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    aliases: Some(vec![]),
                    remove_aliases: vec!["b".into()],
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "give either `aliases`",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    set: object(json!({"status": 1})),
                    unset: vec!["status".into()],
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "`status` is in both",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    set: object(json!({"tags": ["x"]})),
                    add_tags: vec!["y".into()],
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "through the `tags` parameters",
        ),
        (update("n"), "nothing to change"),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    merge: object(json!({"status": "x"})),
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "must be an object",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    merge: object(json!({"status": {"x": 1}})),
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "its value is not a mapping",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    set: object(json!({"a": 1})),
                    ..FrontmatterChange::default()
                },
                ..update("bad")
            },
            "not valid YAML",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    add_tags: vec!["no spaces".into()],
                    ..FrontmatterChange::default()
                },
                ..update("n")
            },
            "is not a tag",
        ),
        (
            UpdateFrontmatter {
                change: FrontmatterChange {
                    set: object(json!({"a": 1})),
                    ..FrontmatterChange::default()
                },
                options: WriteOptions {
                    expected_sha256: Some("0".repeat(64)),
                    dry_run: false,
                },
                ..update("n")
            },
            "changed since it was read",
        ),
    ];
    for (request, words) in cases {
        let error = v.fails(|ops| ops.update_frontmatter(&request));
        assert!(error.to_string().contains(words), "{words}: {error}");
    }
}

#[test]
fn the_tag_policy_lists_the_allowed_tags() {
    let v = TestVault::new(&[
        (".weft.toml", "[tags]\npolicy = \"existing\"\n"),
        ("n.md", NOTE),
    ]);
    let error = v.fails(|ops| {
        ops.update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_tags: vec!["fresh".into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
    });
    assert_eq!(
        error,
        OpError::TagPolicy {
            path: "n.md".into(),
            tags: vec!["fresh".into()],
            allowed: vec!["one".into(), "two".into()],
        }
    );
    // Tags the vault has are fine, and so is removing.
    v.ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                tags: Some(vec!["two".into()]),
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("allowed");
}

#[test]
fn a_dry_run_shows_the_frontmatter_diff() {
    let v = TestVault::new(&[("n.md", NOTE)]);
    let report = v.dry(|ops| {
        ops.update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_tags: vec!["three".into()],
                ..FrontmatterChange::default()
            },
            options: WriteOptions {
                expected_sha256: None,
                dry_run: true,
            },
            ..update("n")
        })
    });
    let diff = report.change.diff.unwrap_or_default();
    assert!(
        diff.contains("-tags: [one, two]\n+tags: [one, two, three]\n"),
        "{diff}"
    );
    assert_eq!(report.tags, ["one", "two", "three"]);
}

#[test]
fn removing_an_alias_or_title_warns_about_the_links_it_breaks() {
    let v = TestVault::new(&[
        (
            "n.md",
            "---\naliases: [Enn, Other]\ntitle: The N\n---\n# N\n",
        ),
        ("a.md", "[[Enn]] [[The N]] [[n]] [[Other]]\n"),
    ]);
    let report = v
        .ops()
        .update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                remove_aliases: vec!["enn".into()],
                title: Some(String::new()),
                ..FrontmatterChange::default()
            },
            ..update("n")
        })
        .expect("updates");
    assert_eq!(report.aliases, ["Other"]);
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(
        report.warnings[0]
            .to_string()
            .contains("line 1 of `a.md` reaches this note by the name `Enn`"),
        "{}",
        report.warnings[0]
    );
    assert!(
        report.warnings[1].to_string().contains("`The N`"),
        "{}",
        report.warnings[1]
    );
    assert_eq!(v.resolves("a.md", 0), None);
    assert_eq!(v.resolves("a.md", 2).as_deref(), Some("n.md"));
    assert_eq!(v.resolves("a.md", 3).as_deref(), Some("n.md"));
}

/// Regression (issue 15): what a tag name is was decided five times —
/// frontmatter took anything without a space or comma, writes refused what
/// it took, search keys stripped `#` and slashes and renames did not. One
/// rule (`vault::tags`) now answers for every reader and writer.
#[test]
fn one_tag_rule_for_every_reader_and_writer() {
    use weft_vault::parse::parse_text;
    use weft_vault::rewrite::rename_tag;
    use weft_vault::tags;

    let cases: &[(&str, bool)] = &[
        ("project/weft", true),
        ("Über_1", true),
        ("y2024", true),
        ("#hashed", true),
        ("c++", false),
        ("2024", false),
        ("a b", false),
        ("/lead", false),
    ];
    for &(tag, ok) in cases {
        let name = tag.trim_start_matches('#');
        // Inline, in the body.
        let note = parse_text("n.md", &format!("# N\ntext #{name} more\n"));
        let inline = note.tags.iter().any(|t| &*t.name == name);
        if !name.contains(' ') && !name.starts_with('/') && name != "c++" {
            assert_eq!(inline, ok, "inline {tag}");
        }
        // In the frontmatter, quoted so that YAML keeps it whole.
        let note = parse_text("n.md", &format!("---\ntags: [\"{tag}\"]\n---\n# N\n"));
        assert_eq!(
            note.tags.iter().any(|t| &*t.name == name),
            ok,
            "frontmatter {tag}"
        );
        assert_eq!(
            note.diagnostics.is_empty(),
            ok,
            "frontmatter {tag}: {:?}",
            note.diagnostics
        );
        // Writes.
        let v = TestVault::new(&[("n.md", "# N\n")]);
        let written = v.ops().update_frontmatter(&UpdateFrontmatter {
            change: FrontmatterChange {
                add_tags: vec![tag.into()],
                ..FrontmatterChange::default()
            },
            ..update("n")
        });
        assert_eq!(written.is_ok(), ok, "update_frontmatter {tag}: {written:?}");
        // Renames, to it.
        let v = TestVault::new(&[("n.md", "# N\n#old\n")]);
        let none = |_: &str| None;
        let renamed = rename_tag(&v.ops().index(), "old", tag, &none);
        assert_eq!(renamed.is_ok(), ok, "rename to {tag}");
        // Configuration.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".weft.toml"),
            format!("[tags]\nauto_context_tag = \"{tag}\"\n"),
        )
        .unwrap();
        let config = crate::config::Config::load(dir.path());
        assert_eq!(config.is_ok(), ok, "configuration {tag}");
    }
    // Keys and matching: `#`, case and Unicode forms do not count.
    assert_eq!(tags::key("#Project/Weft"), tags::key("project/weft"));
    assert!(tags::matches("#project", "Project/Weft"));
    assert!(!tags::matches("project", "projects"));
}
