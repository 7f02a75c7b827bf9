//! Heading trees, symbol search, tag uses and what is at an offset.

use expect_test::expect;

use super::fixture;
use crate::symbols::{At, at, heading_tree, search, tag_uses};

#[test]
fn heading_trees_nest_by_level() {
    let index = fixture("//- /n.md\n# A\n### A1\n## A2\n# B\n## B1\n");
    let note = index.note(index.id_of("n").unwrap());
    let tree = heading_tree(note);
    let shown: Vec<String> = tree
        .iter()
        .map(|n| {
            let children: Vec<&str> = n
                .children
                .iter()
                .map(|c| &*note.headings[c.heading].text)
                .collect();
            format!("{} {children:?}", note.headings[n.heading].text)
        })
        .collect();
    assert_eq!(shown, ["A [\"A1\", \"A2\"]", "B [\"B1\"]"]);
}

#[test]
fn search_finds_notes_headings_aliases_and_tags_and_caps() {
    let index = fixture(
        "//- /Weft design.md\n---\naliases: [Loom]\n---\n# Weaving plan\n#weaving\n//- /other.md\n## Warp and weft\n\
         //- /zzz.md\n## Weather\n",
    );
    // zzz's names cannot match "wea" (their mask says so): its heading still can.
    let (found, more) = search(&index, "wea", 10);
    let shown: Vec<String> = found
        .iter()
        .map(|s| format!("{:?} {}", s.kind, s.name))
        .collect();
    expect![[r#"
        [
            "Note Weft design",
            "Heading Weather",
            "Tag #weaving",
            "Heading Weaving plan",
        ]
    "#]]
    .assert_debug_eq(&shown);
    assert!(!more);
    let (found, _) = search(&index, "loom", 10);
    assert_eq!(found[0].name, "Loom");
    let (found, more) = search(&index, "w", 2);
    assert_eq!(found.len(), 2);
    assert!(more);
}

#[test]
fn tag_uses_include_sub_tags_and_positions_resolve_what_is_there() {
    let index = fixture("//- /a.md\n#p/q [[x]] #P\n## H ^b\n//- /b.md\n#pq #p\n");
    let uses: Vec<String> = tag_uses(&index, "p")
        .into_iter()
        .map(|(id, i)| format!("{} {}", index.note(id).path, index.note(id).tags[i].name))
        .collect();
    assert_eq!(uses, ["a.md p/q", "a.md P", "b.md p"]);
    let note = index.note(index.id_of("a").unwrap());
    assert_eq!(at(note, 1), Some(At::Tag(0)));
    assert_eq!(at(note, 7), Some(At::Link(0)));
    assert_eq!(at(note, 10), Some(At::Link(0)));
    assert_eq!(at(note, 19), Some(At::Heading(0)));
}
