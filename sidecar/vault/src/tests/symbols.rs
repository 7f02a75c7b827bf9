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

#[test]
fn a_heading_table_answers_as_the_index_does_even_when_it_lags() {
    use crate::parse::parse_text;
    use crate::symbols::{SymbolTable, search_in};
    // Past the parallel threshold, so notes and rows are scanned in chunks.
    let mut index = crate::VaultIndex::new();
    for i in 0..21_000 {
        let tag = if i % 2 == 0 { "Proto" } else { "proto" };
        let text = format!(
            "# Topic {i}\n## Protocol {}\n## Proof\ntext #proj/t{} #{tag}\n",
            i % 97,
            i % 13
        );
        index.upsert(parse_text(&format!("f{}/n{i}.md", i % 5), &text));
    }
    let same = |index: &crate::VaultIndex, table: &SymbolTable, query: &str| {
        let direct = search(index, query, 40);
        let tabled = search_in(index, query, 40, table);
        assert_eq!(direct, tabled, "{query}");
        direct.0
    };
    let table = SymbolTable::build(&index);
    assert_eq!(table.len(), 63_000);
    // "Topic i" for each note, "Protocol 0..96" and "Proof".
    assert_eq!(table.distinct(), 21_000 + 97 + 1);
    for query in [
        "prot",
        "Protocol 42",
        "topic 2000",
        "proof",
        "",
        "zz",
        "Ελλά",
    ] {
        same(&index, &table, query);
    }
    // The table now lags: a heading renamed, a note removed and its slot
    // taken by another, a note added past the table's slots.
    index.upsert(parse_text("f0/n0.md", "# Renamed entirely\n## Quorum\n"));
    index.remove("f1/n1.md");
    index.upsert(parse_text("new/taken.md", "# Quorum sensing\n"));
    // The first user (by path) of a tag: a new one, and one gone.
    index.upsert(parse_text("a/first.md", "#proj/t3 #PROTO\n"));
    index.remove("f0/n5.md");
    for i in 21_000..21_010 {
        index.upsert(parse_text(&format!("late/n{i}.md"), "## Quorum late\n"));
    }
    let found = same(&index, &table, "quorum");
    // 1 renamed, the note in the reused slot (by heading and by title), 10 late.
    assert_eq!(found.len(), 13, "{found:?}");
    let topics = same(&index, &table, "topic 1");
    assert!(
        topics
            .iter()
            .all(|s| s.name != "Topic 1" && s.name != "Topic 0"),
        "{topics:?}"
    );
    same(&index, &table, "renamed");
    let tags = same(&index, &table, "proj/t");
    let first = |name: &str| {
        let tag = tags.iter().find(|s| s.name == name).expect(name);
        index.note(tag.note.unwrap()).path.to_string()
    };
    assert_eq!(first("#proj/t3"), "a/first.md");
    same(&index, &table, "proto");
    same(&index, &table, "protocol 0");
}
