use expect_test::{Expect, expect};

use super::compute::{fill_text, find_section, set_outline, visible_backlinks};
use super::out::{NoteOut, View};
use crate::testing::{access, path, vault};
use weft_vault::parse::parse_note;

const VAULT: &str = r#"
//- /Plan.md
---
aliases: [Roadmap]
---
# Plan
Intro ^intro
## Steps
First step.
### Later
Much later.
## Notes
### Later
Again.
//- /Home.md
[[Plan]] and [[Roadmap]]
//- /private/Secret.md
[[Plan#Steps]]
"#;

/// What `read_note` computes of the fixture's note at `file` in `view`.
fn read(file: &str, view: View, section: Option<&str>, offset: usize, max: usize) -> String {
    let text = weft_vault::fixture::files(VAULT)
        .into_iter()
        .find(|f| f.path == file)
        .unwrap()
        .text;
    let note = parse_note(file, text.as_bytes());
    let mut out = NoteOut::of(&note, text.as_bytes(), None, view);
    match view {
        View::Outline => set_outline(&mut out, &note),
        _ => {
            if let Err(e) = fill_text(&mut out, &note, &text, section, offset, max) {
                return e.text();
            }
        }
    }
    dump(&out)
}

fn dump(out: &NoteOut) -> String {
    let mut s = format!(
        "{} links out {} tags {:?}\n",
        out.path, out.links_out, out.tags
    );
    if let (Some(section), Some(lines)) = (&out.section, out.lines) {
        s.push_str(&format!("section {section} lines {lines:?}\n"));
    }
    if let Some(content) = &out.content {
        s.push_str(&format!(
            "chars {:?} of {:?}, next {:?}: {content:?}\n",
            out.offset, out.total_chars, out.next_offset
        ));
    }
    for h in out.headings.iter().flatten() {
        s.push_str(&format!("h{} L{} {}\n", h.level, h.line, h.section));
    }
    for b in out.blocks.iter().flatten() {
        s.push_str(&format!("^{} L{}\n", b.id, b.line));
    }
    s
}

fn check(actual: String, expect: Expect) {
    expect.assert_eq(&actual);
}

#[test]
fn a_section_by_its_path_with_its_lines() {
    check(
        read("Plan.md", View::Section, Some("Steps::Later"), 0, 1000),
        expect![[r####"
            Plan links out 0 tags []
            section Plan::Steps::Later lines [8, 9]
            chars Some(0) of Some(22), next None: "### Later\nMuch later.\n"
        "####]],
    );
    check(
        read("Plan.md", View::Section, Some("Steps"), 0, 1000),
        expect![[r###"
            Plan links out 0 tags []
            section Plan::Steps lines [6, 9]
            chars Some(0) of Some(43), next None: "## Steps\nFirst step.\n### Later\nMuch later.\n"
        "###]],
    );
}

#[test]
fn a_heading_two_sections_share_or_none_has_is_an_error_naming_the_choices() {
    check(
        read("Plan.md", View::Section, Some("Later"), 0, 1000),
        expect![[r#"
        Error: In `Plan`: section `Later` is ambiguous: `Plan::Steps::Later` (line 8), `Plan::Notes::Later` (line 11); name the full path.
        view `outline` lists every section with the path to pass as `section`."#]],
    );
    check(
        read("Plan.md", View::Section, Some("Nowhere"), 0, 1000),
        expect![[r#"
        Error: In `Plan`: no section `Nowhere`; the note's sections are `Plan` (line 4), `Plan::Steps` (line 6), `Plan::Steps::Later` (line 8), `Plan::Notes` (line 10), `Plan::Notes::Later` (line 11). Name one by its heading or its full path `Parent::Child`.
        view `outline` lists every section with the path to pass as `section`."#]],
    );
    check(
        read("Plan.md", View::Section, Some(" :: "), 0, 1000),
        expect![[r#"
        Error: `section` is empty.
        Name a heading, or `Parent::Child`; view `outline` lists the sections."#]],
    );
}

#[test]
fn the_body_leaves_out_the_frontmatter_and_pages_by_characters() {
    check(
        read("Plan.md", View::Body, None, 0, 12),
        expect![[r##"
        Plan links out 0 tags []
        chars Some(0) of Some(89), next Some(12): "# Plan\nIntro"
    "##]],
    );
    check(
        read("Plan.md", View::Body, None, 60, 12),
        expect![[r#"
        Plan links out 0 tags []
        chars Some(60) of Some(89), next Some(72): "r.\n## Notes\n"
    "#]],
    );
    check(
        read("Plan.md", View::Full, None, 500, 12),
        expect![[r#"
        Plan links out 0 tags []
        chars Some(116) of Some(116), next None: ""
    "#]],
    );
}

#[test]
fn the_outline_gives_each_heading_the_path_section_takes() {
    check(
        read("Plan.md", View::Outline, None, 0, 0),
        expect![[r#"
        Plan links out 0 tags []
        h1 L4 Plan
        h2 L6 Plan::Steps
        h3 L8 Plan::Steps::Later
        h2 L10 Plan::Notes
        h3 L11 Plan::Notes::Later
        ^intro L5
    "#]],
    );
}

#[test]
fn backlinks_from_hidden_notes_are_neither_counted_nor_kept() {
    let index = vault(VAULT);
    let plan = index.id_of("Plan.md").unwrap();
    let shown = |deny: &[&str], max| {
        let (count, kept) = visible_backlinks(&index, &access(deny), plan, max);
        let kept: Vec<_> = kept
            .iter()
            .map(|r| format!("{} L{}", path(&index, r.source), index.link(*r).line + 1))
            .collect();
        format!("{count} {kept:?}")
    };
    expect![[r#"3 ["Home L1", "Home L1", "private/Secret L1"]"#]].assert_eq(&shown(&[], 50));
    expect![[r#"2 ["Home L1"]"#]].assert_eq(&shown(&["private/"], 1));
}

#[test]
fn find_section_is_the_path_edit_note_takes() {
    let text = "# A\n## B\ntext\n";
    let note = parse_note("x.md", text.as_bytes());
    expect![[r#"Ok((1, "A::B"))"#]].assert_eq(&format!(
        "{:?}",
        find_section(&note, "b").map_err(|e| e.text())
    ));
}
