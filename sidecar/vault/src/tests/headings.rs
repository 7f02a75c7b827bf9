//! Heading paths: the one resolver behind tools' sections (`A::B`) and link
//! fragments (`#A#B`). Each case is resolved both ways and must agree.

use expect_test::{Expect, expect};

use crate::headings::{
    HeadingMatch, find_heading, fragment_parts, heading_path, heading_paths, heading_steps,
    resolve_section, section_parts,
};
use crate::parse::parse_text;
use crate::{FragmentTarget, Note, lookup_fragment};

fn shown(note: &Note, heading: usize) -> String {
    format!(
        "{} (line {})",
        heading_path(note, heading, "::"),
        note.headings[heading].line + 1
    )
}

/// Resolves each section path in `text`, as a tool's `A::B` and as a link's
/// `#A#B`, and renders one line per path.
fn check(text: &str, paths: &[&str], expect: Expect) {
    let note = parse_text("n.md", text);
    let mut out = String::new();
    for path in paths {
        let as_section = find_heading(&note, &section_parts(path));
        let fragment = path.replace("::", "#");
        let as_fragment = find_heading(&note, &fragment_parts(&fragment));
        assert_eq!(
            as_section, as_fragment,
            "{path:?} as a section and as a fragment"
        );
        let line = match &as_section {
            HeadingMatch::Found(h) => shown(&note, *h),
            HeadingMatch::Ambiguous(candidates) => format!(
                "ambiguous: {}",
                candidates
                    .iter()
                    .map(|&h| shown(&note, h))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            HeadingMatch::Missing => "missing".to_string(),
        };
        out.push_str(&format!("{path} -> {line}\n"));
    }
    expect.assert_eq(&out);
}

/// Regression (issue 15): with `# A / ## B / ### C / ## C`, `A::C` was
/// "ambiguous" for `read_note` and `edit_note`, and `[[N#A#C]]` went to the
/// `### C`. The exact path names the direct child; `C` alone is ambiguous.
#[test]
fn the_exact_path_names_the_direct_child() {
    check(
        "# A\n## B\n### C\n## C\n",
        &[
            "A::C", "C", "A::B::C", "B::C", "A", "B", "A::B", "a::c", "A::X", "B::A",
        ],
        expect![[r#"
            A::C -> A::C (line 4)
            C -> ambiguous: A::B::C (line 3), A::C (line 4)
            A::B::C -> A::B::C (line 3)
            B::C -> A::B::C (line 3)
            A -> A (line 1)
            B -> A::B (line 2)
            A::B -> A::B (line 2)
            a::c -> A::C (line 4)
            A::X -> missing
            B::A -> missing
        "#]],
    );
}

#[test]
fn slugs_and_case_wherever_heading_text_is_accepted() {
    check(
        "# My Plan!\n## Next  Steps\n### Über Größe\n",
        &[
            "my-plan::next-steps",
            "MY PLAN!::next steps",
            "my plan!",
            "next-steps::über-größe",
            "über größe",
            "My-Plan::Über-Größe",
        ],
        expect![[r#"
            my-plan::next-steps -> My Plan!::Next  Steps (line 2)
            MY PLAN!::next steps -> My Plan!::Next  Steps (line 2)
            my plan! -> My Plan! (line 1)
            next-steps::über-größe -> My Plan!::Next  Steps::Über Größe (line 3)
            über größe -> My Plan!::Next  Steps::Über Größe (line 3)
            My-Plan::Über-Größe -> My Plan!::Next  Steps::Über Größe (line 3)
        "#]],
    );
}

#[test]
fn duplicate_headings_are_ambiguous_even_on_an_exact_path() {
    check(
        "# A\n## X\n# A\n## X\n# B\n## X\n",
        &["A::X", "A", "X", "B::X", "B"],
        expect![[r#"
            A::X -> ambiguous: A::X (line 2), A::X (line 4)
            A -> ambiguous: A (line 1), A (line 3)
            X -> ambiguous: A::X (line 2), A::X (line 4), B::X (line 6)
            B::X -> B::X (line 6)
            B -> B (line 5)
        "#]],
    );
}

#[test]
fn an_exact_path_wins_over_a_suffix_and_a_suffix_over_a_deeper_walk() {
    check(
        "# Plan\n## Next\n# Notes\n## Plan\n### Next\n#### Later\n## Done\n### Later\n",
        &[
            "Plan::Next",
            "Plan",
            "Notes::Plan::Next",
            "Next::Later",
            "Notes::Later",
            "Notes::Next::Later",
            "Plan::Later",
            "Done::Later",
            "Later",
        ],
        expect![[r#"
            Plan::Next -> Plan::Next (line 2)
            Plan -> Plan (line 1)
            Notes::Plan::Next -> Notes::Plan::Next (line 5)
            Next::Later -> Notes::Plan::Next::Later (line 6)
            Notes::Later -> ambiguous: Notes::Plan::Next::Later (line 6), Notes::Done::Later (line 8)
            Notes::Next::Later -> Notes::Plan::Next::Later (line 6)
            Plan::Later -> Notes::Plan::Next::Later (line 6)
            Done::Later -> Notes::Done::Later (line 8)
            Later -> ambiguous: Notes::Plan::Next::Later (line 6), Notes::Done::Later (line 8)
        "#]],
    );
}

#[test]
fn deep_suffixes_and_levels_that_skip() {
    check(
        "# R\n## S\n### T\n#### U\n# V\n### T\n###### U\n## W\n",
        &[
            "S::T::U", "T::U", "U", "V::T", "V::T::U", "V::U", "R::U", "R::T::U", "V::W", "T::W",
        ],
        expect![[r#"
            S::T::U -> R::S::T::U (line 4)
            T::U -> ambiguous: R::S::T::U (line 4), V::T::U (line 7)
            U -> ambiguous: R::S::T::U (line 4), V::T::U (line 7)
            V::T -> V::T (line 6)
            V::T::U -> V::T::U (line 7)
            V::U -> V::T::U (line 7)
            R::U -> R::S::T::U (line 4)
            R::T::U -> R::S::T::U (line 4)
            V::W -> V::W (line 8)
            T::W -> missing
        "#]],
    );
}

#[test]
fn setext_headings_code_blocks_and_headings_before_the_first_h1() {
    // Setext headings are headings; `#` lines in code are not.
    check(
        "### Lone\nTitle\n=====\n\n```\n## C\n```\n\nSub\n---\n\n    ## Indented code\n\n## C\n",
        &[
            "Lone",
            "Title::Sub",
            "Sub",
            "C",
            "Title::C",
            "Indented code",
        ],
        expect![[r#"
            Lone -> Lone (line 1)
            Title::Sub -> Title::Sub (line 9)
            Sub -> Title::Sub (line 9)
            C -> Title::C (line 14)
            Title::C -> Title::C (line 14)
            Indented code -> missing
        "#]],
    );
}

#[test]
fn paths_are_trimmed_and_empty_parts_dropped() {
    assert_eq!(section_parts(" A :: ## C ::"), ["A", "C"]);
    assert_eq!(section_parts("::"), Vec::<&str>::new());
    assert_eq!(fragment_parts(" A # C #"), ["A", "C"]);
    let note = parse_text("n.md", "# A\n## C\n");
    assert_eq!(
        find_heading(&note, &section_parts("::")),
        HeadingMatch::Missing
    );
    assert_eq!(
        find_heading(&note, &section_parts(" a :: ## c ")),
        HeadingMatch::Found(1)
    );
    assert_eq!(
        heading_paths(&note, "#"),
        ["A".to_string(), "A#C".to_string()]
    );
}

#[test]
fn section_errors_name_every_full_path() {
    let note = parse_text("n.md", "# A\n## B\n### C\n## C\n");
    expect!["section `C` is ambiguous: `A::B::C` (line 3), `A::C` (line 4); name the full path"]
        .assert_eq(&resolve_section(&note, "C").unwrap_err().to_string());
    expect!["no section `A::D`; the note's sections are `A` (line 1), `A::B` (line 2), `A::B::C` (line 3), `A::C` (line 4). Name one by its heading or its full path `Parent::Child`"]
        .assert_eq(&resolve_section(&note, "A::D").unwrap_err().to_string());
    assert_eq!(resolve_section(&note, "A::C"), Ok(3));
    let empty = parse_text("n.md", "no headings\n");
    expect!["no section `X`: the note has no headings"]
        .assert_eq(&resolve_section(&empty, "X").unwrap_err().to_string());
}

#[test]
fn links_go_to_the_first_candidate_and_say_which_others_fit() {
    let note = parse_text("n.md", "# A\n## B\n### C\n## C\npara ^blk\n");
    let found = lookup_fragment(&note, "C");
    assert_eq!(found.target, FragmentTarget::Heading(2));
    assert_eq!(found.ambiguous, [2, 3]);
    let found = lookup_fragment(&note, "A#C");
    assert_eq!(found.target, FragmentTarget::Heading(3));
    assert!(found.ambiguous.is_empty());
    assert_eq!(
        lookup_fragment(&note, "^blk").target,
        FragmentTarget::Block(0)
    );
    assert_eq!(
        lookup_fragment(&note, "A#X").target,
        FragmentTarget::Missing
    );
    assert_eq!(lookup_fragment(&note, "").target, FragmentTarget::Missing);
}

#[test]
fn steps_tell_which_heading_each_part_names() {
    let note = parse_text("n.md", "# A\n## B\n### C\n## C\n# R\n## S\n### T\n");
    assert_eq!(heading_steps(&note, &["A", "C"], 3), Some(vec![0, 3]));
    assert_eq!(heading_steps(&note, &["A", "C"], 2), Some(vec![0, 2]));
    assert_eq!(heading_steps(&note, &["B", "C"], 2), Some(vec![1, 2]));
    assert_eq!(heading_steps(&note, &["R", "T"], 6), Some(vec![4, 6]));
    assert_eq!(heading_steps(&note, &["B", "C"], 3), None);
}
