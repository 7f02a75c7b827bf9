use expect_test::{Expect, expect};

use crate::edit::{EditOp, apply_ops, find_section};

const NOTE: &str = "---\ntitle: T\n---\n# Plan\n\nIntro.\n\n## Next\n\n- a\n- b\n\n## Later\n\nSomeday.\n\n### Detail\n\nFine print.\n\n# Notes\n\n## Next\n\nOther next.\n";

fn check(text: &str, ops: Vec<EditOp>, expect: Expect) {
    let shown = match apply_ops(text, &ops) {
        Ok(outcome) => format!("counts {:?}\n{}", outcome.counts, outcome.text),
        Err((i, e)) => format!("op {i} failed: {e}"),
    };
    expect.assert_eq(&shown);
}

fn s(v: &str) -> String {
    v.to_string()
}

#[test]
fn sections_by_path_append_prepend_replace_delete() {
    check(
        NOTE,
        vec![
            EditOp::AppendSection {
                section: s("Plan::Next"),
                content: s("- c"),
            },
            EditOp::PrependSection {
                section: s("Later"),
                content: s("First."),
            },
            EditOp::ReplaceSection {
                section: s("Notes::Next"),
                content: s("Replaced."),
            },
            EditOp::DeleteSection {
                section: s("Detail"),
            },
        ],
        expect![[r#"
            counts [1, 1, 1, 1]
            ---
            title: T
            ---
            # Plan

            Intro.

            ## Next

            - a
            - b
            - c

            ## Later
            First.

            Someday.

            # Notes

            ## Next
            Replaced.
        "#]],
    );
}

#[test]
fn section_errors_list_headings_and_lines() {
    check(
        NOTE,
        vec![EditOp::AppendSection {
            section: s("Next"),
            content: s("x"),
        }],
        expect![
            "op 0 failed: section `Next` is ambiguous: `Plan::Next` (line 8), `Notes::Next` (line 23); name the full path"
        ],
    );
    check(
        NOTE,
        vec![EditOp::DeleteSection {
            section: s("Plan::Nope"),
        }],
        expect![
            "op 0 failed: no section `Plan::Nope`; the note's sections are `Plan` (line 4), `Plan::Next` (line 8), `Plan::Later` (line 13), `Plan::Later::Detail` (line 17), `Notes` (line 21), `Notes::Next` (line 23). Name one by its heading or its full path `Parent::Child`"
        ],
    );
    // Headings inside code blocks are not sections.
    check(
        "```\n# Fake\n```\n",
        vec![EditOp::DeleteSection { section: s("Fake") }],
        expect!["op 0 failed: no section `Fake`: the note has no headings"],
    );
}

#[test]
fn replace_text_must_be_unique_unless_replace_all() {
    let text = "one two\ntwo three\n";
    check(
        text,
        vec![EditOp::ReplaceText {
            find: s("two"),
            replace: s("2"),
            replace_all: false,
        }],
        expect![[r#"op 0 failed: `find` "two" occurs 2 times (lines 1, 2)"#]],
    );
    check(
        text,
        vec![EditOp::ReplaceText {
            find: s("two"),
            replace: s("2"),
            replace_all: true,
        }],
        expect![[r#"
        counts [2]
        one 2
        2 three
    "#]],
    );
    check(
        text,
        vec![EditOp::ReplaceText {
            find: s("four"),
            replace: s("4"),
            replace_all: false,
        }],
        expect![[
            r#"op 0 failed: `find` "four" does not occur in the note (case, spaces and line breaks count)"#
        ]],
    );
}

#[test]
fn all_or_nothing() {
    let ops = vec![
        EditOp::Append {
            content: s("added"),
        },
        EditOp::ReplaceText {
            find: s("missing"),
            replace: s("x"),
            replace_all: false,
        },
    ];
    let (failed, _) = apply_ops("text\n", &ops).unwrap_err();
    assert_eq!(failed, 1);
}

#[test]
fn append_prepend_body_and_anchors() {
    check(
        "---\na: 1\n---\nbody\nmiddle line\nend",
        vec![
            EditOp::Prepend { content: s("top") },
            EditOp::Append { content: s("tail") },
            EditOp::InsertAfter {
                anchor: s("middle"),
                content: s("after middle"),
            },
            EditOp::InsertBefore {
                anchor: s("middle"),
                content: s("before middle"),
            },
        ],
        expect![[r#"op 3 failed: anchor "middle" occurs 2 times (lines 6, 7)"#]],
    );
    check(
        "---\na: 1\n---\nold body\n",
        vec![EditOp::ReplaceBody {
            content: s("new body"),
        }],
        expect![[r#"
        counts [1]
        ---
        a: 1
        ---
        new body
    "#]],
    );
    check(
        "no frontmatter\n",
        vec![EditOp::Prepend {
            content: s("first"),
        }],
        expect![[r#"
        counts [1]
        first
        no frontmatter
    "#]],
    );
}

#[test]
fn line_operations_are_one_based_and_inclusive() {
    let text = "l1\nl2\nl3\nl4\n";
    check(
        text,
        vec![EditOp::ReplaceLines {
            from: 2,
            to: 3,
            content: s("new"),
        }],
        expect![[r#"
        counts [1]
        l1
        new
        l4
    "#]],
    );
    check(
        text,
        vec![
            EditOp::DeleteLines { from: 1, to: 1 },
            EditOp::InsertLines {
                at: 4,
                content: s("end"),
            },
        ],
        expect![[r#"
        counts [1, 1]
        l2
        l3
        l4
        end
    "#]],
    );
    check(
        text,
        vec![EditOp::DeleteLines { from: 3, to: 5 }],
        expect![
            "op 0 failed: lines 3..5 are outside the note, which has 4 lines (lines count from 1, `to` is inclusive)"
        ],
    );
    check(
        "a\nb",
        vec![EditOp::ReplaceLines {
            from: 2,
            to: 2,
            content: s("c"),
        }],
        expect![[r#"
        counts [1]
        a
        c"#]],
    );
}

#[test]
fn crlf_notes_stay_crlf() {
    let text = "# A\r\n\r\ntext\r\n\r\n# B\r\n";
    let out = apply_ops(
        text,
        &[EditOp::AppendSection {
            section: s("A"),
            content: s("one\ntwo"),
        }],
    )
    .unwrap();
    assert_eq!(out.text, "# A\r\n\r\ntext\r\none\r\ntwo\r\n\r\n# B\r\n");
}

#[test]
fn section_spans_for_setext_and_last_heading_without_newline() {
    let text = "Title\n=====\nbody\n## End";
    let s1 = find_section(text, "Title").unwrap();
    assert_eq!(&text[s1.body.clone()], "body\n## End");
    let s2 = find_section(text, "End").unwrap();
    assert_eq!(s2.body, text.len()..text.len());
    let out = apply_ops(
        text,
        &[EditOp::AppendSection {
            section: s("End"),
            content: s("x"),
        }],
    )
    .unwrap();
    assert_eq!(out.text, "Title\n=====\nbody\n## End\nx\n");
}

/// Regression (found by the `text_edit` fuzz target): a last heading
/// ending the note in a character of several bytes (`# Café`, no line
/// break) made finding its section slice inside that character, a panic.
#[test]
fn a_last_heading_ending_in_a_wide_character_has_an_empty_body() {
    for text in ["# Café", "# 😀", "# a\n## é"] {
        let s = find_section(text, text.rsplit('#').next().unwrap().trim()).unwrap();
        assert_eq!(s.body, text.len()..text.len(), "{text:?}");
    }
    let out = apply_ops(
        "# Café",
        &[EditOp::AppendSection {
            section: s("Café"),
            content: s("x"),
        }],
    )
    .unwrap();
    assert_eq!(out.text, "# Café\nx\n");
}

/// Regression (found by the `text_edit` fuzz target): in a note that is
/// only a frontmatter whose closing fence has no line break, prepend and
/// replace_body wrote their text on the fence's line, and the frontmatter
/// was lost (`---\nt\n-----`).
#[test]
fn the_body_after_a_last_fence_starts_on_a_line_of_its_own() {
    for text in ["---\nt: 1\n---", "---\r\nt: 1\r\n---"] {
        let eol = if text.contains('\r') { "\r\n" } else { "\n" };
        let prepend = vec![EditOp::Prepend { content: s("- x") }];
        let replace = vec![EditOp::ReplaceBody { content: s("- x") }];
        for ops in [prepend, replace] {
            let out = apply_ops(text, &ops).unwrap().text;
            assert_eq!(out, format!("{text}{eol}- x{eol}"), "{ops:?}");
            assert!(crate::frontmatter::block(&out).is_some(), "{out:?}");
        }
    }
    // Nothing to write: nothing changes.
    let out = apply_ops("---\nt: 1\n---", &[EditOp::ReplaceBody { content: s("") }]);
    assert_eq!(out.unwrap().text, "---\nt: 1\n---");
}

/// Regression (found by the `text_edit` fuzz target): with a lone `\r`
/// ending a section's last line (Markdown's line break, not ours), the
/// end of that line was looked for up to the next `\n`, past the next
/// heading, and append_section wrote into the next section.
#[test]
fn append_section_stays_in_its_section_after_a_lone_carriage_return() {
    let text = "# A\nt\r# B\nb\n";
    let out = apply_ops(
        text,
        &[EditOp::AppendSection {
            section: s("A"),
            content: s("x"),
        }],
    )
    .unwrap();
    assert_eq!(out.text, "# A\nt\rx\n# B\nb\n");
    assert_eq!(find_section(&out.text, "B").unwrap().body, 12..14);
}

/// Regression (found by the `text_edit` fuzz target): a closing fence that
/// ends the text with a lone `\r` (`---\r`, a fence) got the note's `\r\n`
/// after it when something was written at the end, and `---\r\r\n` is a
/// line of text: the frontmatter was lost. After a lone `\r`, a `\n`
/// completes the line.
#[test]
fn writing_after_a_last_fence_ending_in_a_lone_carriage_return_keeps_it() {
    let text = "---\r\nt: 1\r\n---\r";
    let ops = [
        EditOp::Append { content: s("x") },
        EditOp::Prepend { content: s("x") },
        EditOp::ReplaceBody { content: s("x") },
        EditOp::InsertLines {
            at: 4,
            content: s("x"),
        },
    ];
    for op in ops {
        let out = apply_ops(text, std::slice::from_ref(&op)).unwrap().text;
        assert_eq!(out, format!("{text}\nx\r\n"), "{op:?}");
        let fm = crate::frontmatter::block(&out).expect("still a frontmatter");
        assert_eq!(&out[fm.yaml], "t: 1\r\n");
    }
    // With nothing written, append still ends the line, as it does after
    // any last line.
    let out = apply_ops(text, &[EditOp::Append { content: s("") }]);
    assert_eq!(out.unwrap().text, format!("{text}\n"));
}
