use expect_test::{Expect, expect};

use super::fixture;
use crate::{FragmentTarget, LinkKind, Resolution, VaultIndex, resolve_fragment};

/// Resolves each `[[link]]` of `from` and renders the outcome per line.
fn check(vault: &str, from: &str, expect: Expect) {
    let index = fixture(vault);
    let source = index.id_of(from).expect("source note in fixture");
    let mut out = String::new();
    for link in &index.note(source).links {
        let resolution = index.resolve_link(source, link);
        let shown = render(&index, &resolution);
        let fragment = match (link.fragment(), resolution.note()) {
            (Some(f), Some(target)) => match resolve_fragment(index.note(target), f) {
                FragmentTarget::Heading(i) => {
                    format!(" #heading:{}", index.note(target).headings[i].text)
                }
                FragmentTarget::Block(i) => format!(" #block:{}", index.note(target).blocks[i].id),
                FragmentTarget::Missing => " #missing".to_string(),
            },
            _ => String::new(),
        };
        out.push_str(&format!("{} -> {shown}{fragment}\n", &link.target()));
    }
    expect.assert_eq(&out);
}

fn render(index: &VaultIndex, r: &Resolution) -> String {
    match r {
        Resolution::Note(id) => index.note(*id).path.to_string(),
        Resolution::Ambiguous { chosen, candidates } => format!(
            "{} (ambiguous: {})",
            index.note(*chosen).path,
            candidates
                .iter()
                .map(|c| &*index.note(*c).path)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Resolution::Attachment(p) => format!("attachment {p}"),
        Resolution::Unresolved => "unresolved".to_string(),
    }
}

#[test]
fn stems_paths_and_relative_links() {
    check(
        r#"
//- /projects/weft/Ideas.md
[[Plan]] [[plan]] [[Plan.md]] [[projects/weft/plan]] [[weft/Plan]] [[/projects/weft/Plan]]
[[./Plan]] [[../weft/Plan]] [[../../Top]] [[../../../escape]] [[nowhere]] [[other/Plan]]
//- /projects/weft/Plan.md
//- /Top.md
"#,
        "projects/weft/Ideas",
        expect![[r#"
            Plan -> projects/weft/Plan.md
            plan -> projects/weft/Plan.md
            Plan.md -> projects/weft/Plan.md
            projects/weft/plan -> projects/weft/Plan.md
            weft/Plan -> projects/weft/Plan.md
            /projects/weft/Plan -> projects/weft/Plan.md
            ./Plan -> projects/weft/Plan.md
            ../weft/Plan -> projects/weft/Plan.md
            ../../Top -> Top.md
            ../../../escape -> unresolved
            nowhere -> unresolved
            other/Plan -> unresolved
        "#]],
    );
}

#[test]
fn ambiguous_stems_prefer_same_folder_then_shortest_then_first() {
    let vault = r#"
//- /a/Source.md
[[Dup]] [[Deep]] [[Tie]] [[x/Dup]]
//- /b/Other.md
[[Dup]]
//- /a/Dup.md
//- /b/c/Dup.md
//- /x/Dup.md
//- /long/folder/Deep.md
//- /s/Deep.md
//- /p/Tie.md
//- /q/Tie.md
"#;
    check(
        vault,
        "a/Source",
        expect![[r#"
            Dup -> a/Dup.md (ambiguous: a/Dup.md, b/c/Dup.md, x/Dup.md)
            Deep -> s/Deep.md (ambiguous: long/folder/Deep.md, s/Deep.md)
            Tie -> p/Tie.md (ambiguous: p/Tie.md, q/Tie.md)
            x/Dup -> x/Dup.md
        "#]],
    );
    // From b/, the same-folder rule does not apply: b/c/Dup is not in b/.
    check(
        vault,
        "b/Other",
        expect![[r#"
        Dup -> a/Dup.md (ambiguous: a/Dup.md, b/c/Dup.md, x/Dup.md)
    "#]],
    );
}

/// A leading `/` is the vault's root: `[[/d]]` is the root's `d.md` and
/// nothing else, while `[[d]]` follows the stem rules (the source's folder
/// first).
#[test]
fn a_leading_slash_is_the_vault_root() {
    let vault = r#"
//- /sub/S.md
[[/d]] [[d]] [[/sub/d]] [[/e]] [[//d]] [x](/d.md) [y](/sub/d.md) ![[/img.png]] ![[/pics/img.png]]
//- /d.md
//- /sub/d.md
//- /sub/e.md
//- /pics/img.png
"#;
    check(
        vault,
        "sub/S",
        expect![[r#"
            /d -> d.md
            d -> sub/d.md (ambiguous: d.md, sub/d.md)
            /sub/d -> sub/d.md
            /e -> unresolved
            //d -> d.md
            /d.md -> d.md
            /sub/d.md -> sub/d.md
            /img.png -> unresolved
            /pics/img.png -> attachment pics/img.png
        "#]],
    );
}

#[test]
fn unique_suffix_and_ambiguous_suffix() {
    check(
        r#"
//- /S.md
[[c/Note]] [[b/Note]] [[a/b/Note]]
//- /a/b/Note.md
//- /z/b/Note.md
//- /c/Note.md
"#,
        "S",
        expect![[r#"
            c/Note -> c/Note.md
            b/Note -> a/b/Note.md (ambiguous: a/b/Note.md, z/b/Note.md)
            a/b/Note -> a/b/Note.md
        "#]],
    );
}

#[test]
fn aliases_titles_and_stems_take_priority_in_order() {
    check(
        r#"
//- /S.md
[[The Alias]] [[Fancy Title]] [[H1 Title]] [[Shadowed]] [[Shared Alias]]
//- /aliased.md
---
aliases: [The Alias, Shadowed]
---
//- /titled.md
---
title: Fancy Title
---
//- /h1.md
# H1 Title
//- /Shadowed.md
//- /one.md
---
aliases: Shared Alias
---
//- /two.md
---
aliases: [shared alias]
---
"#,
        "S",
        expect![[r#"
            The Alias -> aliased.md
            Fancy Title -> titled.md
            H1 Title -> h1.md
            Shadowed -> Shadowed.md
            Shared Alias -> one.md (ambiguous: one.md, two.md)
        "#]],
    );
}

#[test]
fn unicode_normal_forms_and_case() {
    // The file name is decomposed (e + U+0301, as macOS writes it), the
    // links precomposed; the path is reported as stored.
    let index = fixture(
        "//- /Cafe\u{301} Notes.md\n//- /S.md\n[[café notes]] [[CAFÉ NOTES]] [[日本語]]\n//- /日本語.md\n",
    );
    let source = index.id_of("S").unwrap();
    let targets: Vec<String> = index
        .note(source)
        .links
        .iter()
        .map(|l| {
            index
                .resolve_link(source, l)
                .note()
                .map(|id| index.note(id).path.to_string())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        targets,
        ["Cafe\u{301} Notes.md", "Cafe\u{301} Notes.md", "日本語.md"]
    );
    assert_eq!(
        index.id_of("CAF\u{c9} notes.md"),
        index.id_of("Cafe\u{301} Notes")
    );
}

#[test]
fn attachments_and_markdown_links() {
    check(
        r#"
//- /notes/S.md
![[diagram.png]] ![[img/diagram.png]] [a](../img/diagram.png) [b](Sibling.md) [c](notes/Sibling.md)
[d](Sub/Deep%20One.md) [e](/notes/Sibling.md) [f](missing.pdf) ![[Sibling]]
//- /img/diagram.png
//- /notes/Sibling.md
//- /notes/Sub/Deep One.md
"#,
        "notes/S",
        expect![[r#"
            diagram.png -> attachment img/diagram.png
            img/diagram.png -> attachment img/diagram.png
            ../img/diagram.png -> attachment img/diagram.png
            Sibling.md -> notes/Sibling.md
            notes/Sibling.md -> notes/Sibling.md
            Sub/Deep One.md -> notes/Sub/Deep One.md
            /notes/Sibling.md -> notes/Sibling.md
            missing.pdf -> unresolved
            Sibling -> notes/Sibling.md
        "#]],
    );
}

#[test]
fn fragments_headings_slugs_nesting_blocks() {
    check(
        r#"
//- /S.md
[[T#Intro]] [[T#intro]] [[T#my-long-heading]] [[T#Part A#Detail]] [[T#Part B#Detail]]
[[T#Detail]] [[T#Part A#Missing]] [[T#^blk-1]] [[T#^BLK-1]] [[T#^nope]] [[T#Nowhere]]
[[#Local]] [[#^here]] [[#Missing]]
## Local
text ^here
//- /T.md
# Intro
## My Long Heading!
## Part A
### Detail
## Part B
### Detail
para ^blk-1
"#,
        "S",
        expect![[r#"
            T -> T.md #heading:Intro
            T -> T.md #heading:Intro
            T -> T.md #heading:My Long Heading!
            T -> T.md #heading:Detail
            T -> T.md #heading:Detail
            T -> T.md #heading:Detail
            T -> T.md #missing
            T -> T.md #block:blk-1
            T -> T.md #block:blk-1
            T -> T.md #missing
            T -> T.md #missing
             -> S.md #heading:Local
             -> S.md #block:here
             -> S.md #missing
        "#]],
    );
    // `#Part B#Detail` must find the second `Detail`, not the first.
    let index = fixture("//- /T.md\n# A\n### Detail\n# B\n### Detail\n");
    let t = index.note(index.id_of("T").unwrap());
    assert_eq!(resolve_fragment(t, "B#Detail"), FragmentTarget::Heading(3));
    assert_eq!(resolve_fragment(t, "A#Detail"), FragmentTarget::Heading(1));
}

#[test]
fn resolve_from_the_root_for_people() {
    let index = fixture("//- /a/Plan.md\n//- /b/Plan.md\n//- /Only.md\n");
    assert!(matches!(
        index.resolve("", "only", LinkKind::Wiki),
        Resolution::Note(_)
    ));
    assert!(matches!(
        index.resolve("", "plan", LinkKind::Wiki),
        Resolution::Ambiguous { .. }
    ));
}

/// The links to an attachment found through the link tables are exactly
/// the links of the vault that resolve to it, in every form a link can
/// reach it by (name, path suffix, vault path, relative, percent-encoded),
/// and none to another file of the same name.
#[test]
fn attachment_backlinks_are_every_link_resolving_to_it() {
    let index = fixture(
        r#"
//- /notes/S.md
![[diagram.png]] ![[img/diagram.png]] [a](../img/diagram.png) [b](/img/diagram.png)
![[other/diagram.png]] [c](../img/My%20Chart.svg) ![[My Chart.svg]] [d](diagram.png)
//- /notes/deep/T.md
[x](../../img/diagram.png) ![[IMG/Diagram.png]] `![[diagram.png]]` [[diagram]]
//- /img/diagram.png
//- /other/diagram.png
//- /img/My Chart.svg
//- /notes/diagram.png
"#,
    );
    let attachments: Vec<String> = index.attachments().map(str::to_string).collect();
    assert_eq!(attachments.len(), 4);
    for path in &attachments {
        let mut every: Vec<(String, u32)> = Vec::new();
        for (id, note) in index.notes() {
            for link in &note.links {
                if matches!(index.resolve_link(id, link), Resolution::Attachment(p) if *p == **path)
                {
                    every.push((note.path.to_string(), link.span.start));
                }
            }
        }
        every.sort();
        let found: Vec<(String, u32)> = index
            .attachment_backlinks(path)
            .into_iter()
            .map(|r| {
                (
                    index.note(r.source).path.to_string(),
                    index.link(r).span.start,
                )
            })
            .collect();
        assert_eq!(found, every, "links to {path}");
        assert!(!found.is_empty(), "{path} has links in the fixture");
    }
    assert!(index.attachment_backlinks("img/none.png").is_empty());
}
