//! `move_note`: notes, folders and attachments, with and without link
//! rewriting, dry runs, and refusals.

use expect_test::expect;

use super::TestVault;
use crate::ops::{ChangeKind, MoveNote, OpError, Place, Warning, WriteOptions, sha256_hex};

const WEFT: &str = "---\ntitle: Weft\naliases: [The Loom]\n---\n# Weft\n## Plan\nIntro paragraph ^intro\n\
See [sibling](sibling.md) and [[./sibling]] and [[../top]].\n";
const TOP: &str = "[[weft]] and [[weft|the tool]] and [[weft#Plan]] and [[weft#^intro|that]] and ![[weft]]\n\
[md](projects/weft.md#plan) and [[projects/weft]] and [[The Loom]] and [[Weft]]\n\
![[pic.png]] ![](img/pic.png)\n";
const X: &str = "---\npart_of: \"[[weft]]\"\n---\n[rel](../../projects/weft.md) and `[[weft]]`\n";

fn vault() -> TestVault {
    TestVault::new(&[
        ("projects/weft.md", WEFT),
        ("projects/sibling.md", "# Sibling\n"),
        ("top.md", TOP),
        ("other/deep/x.md", X),
        ("img/pic.png", "png"),
    ])
}

fn moving(path: &str, new_path: &str, update_links: bool) -> MoveNote {
    MoveNote {
        path: path.into(),
        new_path: new_path.into(),
        update_links,
        options: WriteOptions::default(),
    }
}

/// Every link of every note with what it resolves to.
fn resolutions(v: &TestVault) -> Vec<(String, usize, Option<String>)> {
    let paths: Vec<String> = {
        let index = v.vault.index.read().expect("lock");
        let mut p: Vec<String> = index.notes().map(|(_, n)| n.path.to_string()).collect();
        p.sort();
        p
    };
    let mut out = Vec::new();
    for path in paths {
        let count = {
            let index = v.vault.index.read().expect("lock");
            index.note(index.id_of(&path).expect("note")).links.len()
        };
        for i in 0..count {
            out.push((path.clone(), i, v.resolves(&path, i)));
        }
    }
    out
}

#[test]
fn a_move_rewrites_every_link_keeping_alias_fragment_embed_and_style() {
    let v = vault();
    let before = resolutions(&v);
    let report = v
        .ops()
        .move_note(&moving("projects/weft", "archive/weft-2024", true))
        .expect("moves");
    assert_eq!(report.kind, "note");
    assert_eq!(report.new_path, "archive/weft-2024.md");
    assert!(!v.exists("projects/weft.md"));
    expect![[r#"
        [[weft-2024]] and [[weft-2024|the tool]] and [[weft-2024#Plan]] and [[weft-2024#^intro|that]] and ![[weft-2024]]
        [md](archive/weft-2024.md#plan) and [[archive/weft-2024]] and [[The Loom]] and [[weft-2024]]
        ![[pic.png]] ![](img/pic.png)
    "#]]
    .assert_eq(&v.read("top.md"));
    expect![[r#"
        ---
        part_of: "[[weft-2024]]"
        ---
        [rel](../../archive/weft-2024.md) and `[[weft]]`
    "#]]
    .assert_eq(&v.read("other/deep/x.md"));
    // Relative links inside the moved note are fixed too.
    expect![[r#"
        ---
        title: Weft
        aliases: [The Loom]
        ---
        # Weft
        ## Plan
        Intro paragraph ^intro
        See [sibling](../projects/sibling.md) and [[../projects/sibling]] and [[../top]].
    "#]]
    .assert_eq(&v.read("archive/weft-2024.md"));
    let kinds: Vec<(&str, ChangeKind)> = report
        .changes
        .iter()
        .map(|c| (c.path.as_str(), c.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("other/deep/x.md", ChangeKind::Modified),
            ("projects/weft.md", ChangeKind::Moved),
            ("top.md", ChangeKind::Modified),
        ]
    );
    assert_eq!(report.link_edits.len(), 12);
    assert!(report.stale.is_empty());

    // Every link leads where it led, the moved note at its new path.
    let after = resolutions(&v);
    let moved = |p: &str| p.replace("projects/weft.md", "archive/weft-2024.md");
    let mut expected: Vec<_> = before
        .into_iter()
        .map(|(s, i, t)| (moved(&s), i, t.map(|t| moved(&t))))
        .collect();
    expected.sort();
    assert_eq!(after, expected);
    v.assert_fresh();
}

#[test]
fn without_update_links_the_report_lists_links_to_the_old_place() {
    let v = vault();
    let report = v
        .ops()
        .move_note(&moving("projects/weft.md", "archive/", false))
        .expect("moves");
    assert_eq!(report.new_path, "archive/weft.md");
    assert_eq!(v.read("top.md"), TOP);
    assert_eq!(v.read("archive/weft.md"), WEFT);
    let stale: Vec<(&str, usize, &[usize])> = report
        .stale
        .iter()
        .map(|s| (s.path.as_str(), s.count, s.lines.as_slice()))
        .collect();
    assert_eq!(
        stale,
        [
            ("archive/weft.md", 2, &[8, 8][..]),
            ("other/deep/x.md", 1, &[4][..]),
            ("top.md", 2, &[2, 2][..]),
        ]
    );
    assert!(report.link_edits.is_empty());
    // Bare names still resolve; the path links do not.
    assert_eq!(v.resolves("top.md", 0).as_deref(), Some("archive/weft.md"));
    assert_eq!(v.resolves("top.md", 6), None);
    v.assert_fresh();
}

#[test]
fn a_dry_run_lists_every_file_and_link_and_writes_nothing() {
    let v = vault();
    let report = v.dry(|ops| {
        ops.move_note(&MoveNote {
            options: WriteOptions {
                expected_sha256: Some(sha256_hex(WEFT.as_bytes())),
                dry_run: true,
            },
            ..moving("Weft", "archive/weft-2024", true)
        })
    });
    assert!(report.dry_run);
    assert_eq!(report.changes.len(), 3);
    let first = &report.link_edits[0];
    assert_eq!(
        (
            first.path.as_str(),
            first.line,
            first.old.as_str(),
            first.new.as_str()
        ),
        ("other/deep/x.md", 2, "[[weft]]", "[[weft-2024]]")
    );
    let diff = report
        .changes
        .iter()
        .find(|c| c.path == "projects/weft.md")
        .and_then(|c| c.diff.clone())
        .unwrap_or_default();
    expect![[r#"
        --- a/projects/weft.md
        +++ b/archive/weft-2024.md
        @@ -5,4 +5,4 @@
         # Weft
         ## Plan
         Intro paragraph ^intro
        -See [sibling](sibling.md) and [[./sibling]] and [[../top]].
        +See [sibling](../projects/sibling.md) and [[../projects/sibling]] and [[../top]].
    "#]]
    .assert_eq(&diff);
}

#[test]
fn a_folder_moves_whole_with_its_links() {
    let v = vault();
    let report = v
        .ops()
        .move_note(&moving("projects/", "archive/projects", true))
        .expect("moves");
    assert_eq!(report.kind, "folder");
    assert!(!v.exists("projects"));
    assert_eq!(v.read("archive/projects/sibling.md"), "# Sibling\n");
    assert!(
        v.read("archive/projects/weft.md")
            .contains("See [sibling](sibling.md) and [[./sibling]] and [[../../top]].")
    );
    assert!(
        v.read("top.md")
            .contains("[md](archive/projects/weft.md#plan) and [[archive/projects/weft]]")
    );
    v.assert_fresh();

    // Into an existing folder: file by file, the old folder removed.
    std::fs::create_dir_all(v.root().join("keep/archive")).expect("mkdir");
    super::write_file(v.root(), "keep/archive/other.md", b"o");
    v.vault.apply_paths([v.root().join("keep")]);
    v.ops()
        .move_note(&moving("archive", "keep/archive", true))
        .expect("merges");
    assert!(!v.exists("archive"));
    assert!(v.exists("keep/archive/projects/weft.md"));
    assert!(v.read("top.md").contains("[[keep/archive/projects/weft]]"));
    v.assert_fresh();
}

#[test]
fn attachments_move_with_their_links() {
    let v = vault();
    v.ops()
        .move_note(&moving("img/pic.png", "media/", true))
        .expect("moves");
    assert!(v.exists("media/pic.png"));
    assert!(
        v.read("top.md")
            .ends_with("![[pic.png]] ![](media/pic.png)\n")
    );
    v.assert_fresh();
}

#[test]
fn refused_moves_change_nothing() {
    let v = vault();
    let error = v.fails(|ops| ops.move_note(&moving("top", "projects/sibling", true)));
    assert_eq!(
        error,
        OpError::Exists {
            path: "projects/sibling.md".into()
        }
    );
    let error = v.fails(|ops| ops.move_note(&moving("top", "Projects/Sibling.md", true)));
    assert!(matches!(error, OpError::Exists { .. }), "{error:?}");
    let error = v.fails(|ops| ops.move_note(&moving("projects/", "projects/inner", true)));
    assert!(error.to_string().contains("into itself"), "{error}");
    let error = v.fails(|ops| ops.move_note(&moving("top", "top", true)));
    assert!(error.to_string().contains("already at"), "{error}");
    let error = v.fails(|ops| ops.move_note(&moving("nope", "x", true)));
    assert!(matches!(error, OpError::NotFound { .. }), "{error:?}");
    let error = v.fails(|ops| ops.move_note(&moving("top", "../x", true)));
    assert!(matches!(error, OpError::Path { .. }), "{error:?}");
    let error = v.fails(|ops| ops.move_note(&moving("img/pic.png", "img/pic.md", true)));
    assert!(error.to_string().contains("Keep its extension"), "{error}");
    let error = v.fails(|ops| {
        ops.move_note(&MoveNote {
            options: WriteOptions {
                expected_sha256: Some(sha256_hex(b"old")),
                dry_run: false,
            },
            ..moving("top", "new-top", true)
        })
    });
    assert!(matches!(error, OpError::Conflict { .. }), "{error:?}");
    let error = v.fails(|ops| {
        ops.move_note(&MoveNote {
            options: WriteOptions {
                expected_sha256: Some(sha256_hex(WEFT.as_bytes())),
                dry_run: false,
            },
            ..moving("projects/", "archive/projects", true)
        })
    });
    assert_eq!(error, OpError::FolderSha256);
}

/// A vault whose `locked/` folder the agent may not touch.
const DENIED: &[(&str, &str)] = &[
    (".weft.toml", "[agent]\ndeny = [\"locked/\"]\n"),
    ("a.md", "[[b]]"),
    ("b.md", "b"),
    ("locked/c.md", "[[b]]"),
];

#[test]
fn denied_destinations_change_nothing() {
    let v = TestVault::new(DENIED);
    let error = v.fails(|ops| ops.move_note(&moving("b", "locked/b", true)));
    assert!(matches!(error, OpError::Denied { .. }), "{error:?}");
    let error = v.fails(|ops| ops.move_note(&moving("locked/c", "c", true)));
    assert!(matches!(error, OpError::Denied { .. }), "{error:?}");
}

#[test]
fn links_in_denied_notes_are_never_rewritten() {
    let v = TestVault::new(DENIED);
    let error = v.fails(|ops| ops.move_note(&moving("b", "b2", true)));
    assert!(
        matches!(&error, OpError::HiddenLinks { notes: 1, .. }),
        "{error:?}"
    );
    // Facts, not advice: the tools layer says which argument to change.
    assert!(
        error.to_string().contains("the change would rewrite them")
            && !error.to_string().contains("update_links"),
        "{error}"
    );
    // The note the agent may not access is never named to it.
    assert!(!error.to_string().contains("locked/c"), "{error}");
    // Without rewriting, the move is allowed and lists the stale link.
    let report = v.ops().move_note(&moving("b", "b2", false)).unwrap();
    assert_eq!(report.stale.len(), 2, "{report:?}");
    assert_eq!(v.read("locked/c.md"), "[[b]]");
}

#[test]
fn a_case_only_rename_works() {
    let v = TestVault::new(&[("note.md", "n"), ("a.md", "[[folder/x]] [[note]]")]);
    v.ops()
        .move_note(&moving("note", "Note", true))
        .expect("renames");
    assert!(v.exists("Note.md"));
    assert_eq!(v.resolves("a.md", 1).as_deref(), Some("Note.md"));
    v.assert_fresh();
}

#[test]
fn a_note_arriving_under_a_taken_name_does_not_capture_other_links() {
    // Today `[[alpha]]` leads to a/b/alpha.md; a root `alpha.md` would win
    // the tie-break (shorter path) once `x.md` is renamed to it.
    let files = [
        ("a/b/alpha.md", "deep alpha"),
        ("c/src.md", "[[alpha]] and [[alpha|shown]] and [[x]]\n"),
        ("x.md", "x"),
    ];
    let v = TestVault::new(&files);
    let report = v
        .ops()
        .move_note(&moving("x", "alpha", false))
        .expect("moves");
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(
        matches!(
            &report.warnings[0],
            Warning::LinkCaptured { target: Place::Note(target), after: Place::Note(after), .. }
                if target == "a/b/alpha.md" && after == "alpha.md"
        ),
        "{:?}",
        report.warnings[0]
    );

    let v = TestVault::new(&files);
    let report = v
        .ops()
        .move_note(&moving("x", "alpha", true))
        .expect("moves");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(
        v.read("c/src.md"),
        "[[a/b/alpha]] and [[a/b/alpha|shown]] and [[alpha]]\n"
    );
    assert_eq!(v.resolves("c/src.md", 0).as_deref(), Some("a/b/alpha.md"));
    assert_eq!(v.resolves("c/src.md", 2).as_deref(), Some("alpha.md"));
    v.assert_fresh();
}

#[test]
fn a_rewritten_name_that_meets_a_namesake_is_pinned_by_path() {
    // `[[x]]` in f/ becomes a link to root `beta.md`; the bare name `beta`
    // would pick f/beta.md (same folder), so the link gets a relative path.
    let v = TestVault::new(&[
        ("f/beta.md", "f beta"),
        ("f/src.md", "[[x#H|text]] and [md](../x.md)\n"),
        ("x.md", "# H\n"),
    ]);
    v.ops()
        .move_note(&moving("x", "beta", true))
        .expect("moves");
    assert_eq!(
        v.read("f/src.md"),
        "[[../beta#H|text]] and [md](../beta.md)\n"
    );
    assert_eq!(v.resolves("f/src.md", 0).as_deref(), Some("beta.md"));
    v.assert_fresh();
}
