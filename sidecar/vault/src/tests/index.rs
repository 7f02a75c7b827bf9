use expect_test::expect;

use super::{files, fixture};
use crate::graph::{self, GraphNode};
use crate::parse::parse_text;
use crate::query::{self, Lookup};
use crate::{Resolution, VaultIndex};

fn paths(index: &VaultIndex, refs: &[crate::LinkRef]) -> Vec<String> {
    refs.iter()
        .map(|r| format!("{}:{}", index.note(r.source).path, index.link(*r).line))
        .collect()
}

#[test]
fn backlinks_through_every_name() {
    let index = fixture(
        r#"
//- /target/Hub.md
---
aliases: [Centre]
---
# The Hub
//- /a.md
[[Hub]] [[Centre|c]] [[The Hub]] [[target/Hub#x]]
![[Hub]]
//- /b/b.md
[hub](../target/Hub.md) [[#self]]
---
x: "[[Hub]]"
//- /c.md
---
up: "[[hub]]"
---
[[Other]]
"#,
    );
    let hub = index.id_of("target/Hub.md").unwrap();
    expect![[r#"
        [
            "a.md:0",
            "a.md:0",
            "a.md:0",
            "a.md:0",
            "a.md:1",
            "b/b.md:0",
            "b/b.md:2",
            "c.md:1",
        ]
    "#]]
    .assert_debug_eq(&paths(&index, &index.backlinks(hub)));
    // The links to a note that does not exist yet.
    assert_eq!(
        paths(&index, &index.unresolved_links_to("other")),
        ["c.md:3"]
    );
    assert_eq!(
        query::lookup(&index, "Other"),
        Lookup::Unresolved {
            target: "Other".into(),
            links: index.unresolved_links_to("Other")
        }
    );
}

#[test]
fn creating_a_note_resolves_links_and_ambiguity_appears() {
    let mut index = fixture("//- /a.md\n[[New]]\n//- /x/Dup.md\n");
    let a = index.id_of("a").unwrap();
    assert_eq!(
        index.resolve_ref(crate::LinkRef { source: a, link: 0 }),
        Resolution::Unresolved
    );
    let new = index.upsert(parse_text("folder/New.md", ""));
    assert_eq!(index.backlinks(new).len(), 1);
    assert!(index.unresolved().is_empty());
    index.upsert(parse_text("other/New.md", ""));
    assert!(matches!(
        index.resolve_ref(crate::LinkRef { source: a, link: 0 }),
        Resolution::Ambiguous { .. }
    ));
    index.remove("folder/New.md");
    index.remove("other/New.md");
    assert_eq!(index.unresolved().len(), 1);
}

#[test]
fn lookup_suggests_close_names() {
    let index = fixture("//- /Project Plan.md\n//- /Groceries.md\n//- /a/Dup.md\n//- /b/Dup.md\n");
    let Lookup::NotFound { suggestions } = query::lookup(&index, "project plam") else {
        panic!("expected NotFound")
    };
    assert_eq!(index.note(suggestions[0]).path.as_ref(), "Project Plan.md");
    assert!(matches!(query::lookup(&index, "dup"), Lookup::Ambiguous(c) if c.len() == 2));
    assert!(matches!(
        query::lookup(&index, "[[Groceries|g]]"),
        Lookup::Found(_)
    ));
    assert!(matches!(
        query::lookup(&index, "groceries.md"),
        Lookup::Found(_)
    ));
}

#[test]
fn graph_walks_both_ways_and_counts_edges() {
    let index = fixture(
        "//- /A.md\n[[B]] [[B]] [[Ghost]]\n//- /B.md\n[[C]]\n//- /C.md\n[[D]]\n//- /D.md\n//- /E.md\n[[A]]\n",
    );
    let start = GraphNode::Note(index.id_of("A").unwrap());
    let render = |g: &graph::Graph| {
        let name = |n: &GraphNode| match n {
            GraphNode::Note(id) => index.note(*id).id().to_string(),
            GraphNode::Unresolved(k) => format!("?{k}"),
        };
        let nodes: Vec<String> = g
            .nodes
            .iter()
            .map(|(n, d)| format!("{}@{d}", name(n)))
            .collect();
        let edges: Vec<String> = g
            .edges
            .iter()
            .map(|(a, b, n)| format!("{}->{}x{n}", name(&g.nodes[*a].0), name(&g.nodes[*b].0)))
            .collect();
        format!("{nodes:?} {edges:?} truncated={}", g.truncated)
    };
    expect![[r#"["A@0", "B@1", "?ghost@1", "E@1", "C@2"] ["A->Bx2", "A->?ghostx1", "B->Cx1", "E->Ax1"] truncated=false"#]]
        .assert_eq(&render(&graph::graph(&index, start.clone(), 2, 100)));
    expect![[r#"["A@0", "B@1", "?ghost@1"] ["A->Bx2", "A->?ghostx1"] truncated=true"#]]
        .assert_eq(&render(&graph::graph(&index, start, 2, 3)));
}

#[test]
fn check_reports_every_problem_kind() {
    let index = fixture(
        r#"
//- /S.md
[[Missing]] [[Dup]] [[T#Nope]] [[T#^gone]] [[T#Yes]] ^id

dup ^id
//- /T.md
# Yes
//- /Z.md
---
due: tomorrow
---
//- /a/Dup.md
//- /b/Dup.md
"#,
    );
    let types = crate::props::Types::parse(r#"{"types": {"due": "date"}}"#).unwrap();
    let problems = query::check(&index, &crate::filter::Filter::All, &types);
    let rendered: Vec<String> = problems
        .iter()
        .map(|p| {
            format!(
                "{}:{} {:?}",
                index.note(p.note()).path,
                p.line(&index),
                std::mem::discriminant(p)
            )
        })
        .collect();
    assert_eq!(rendered.len(), 6, "{rendered:#?}");
    let kinds: Vec<&str> = problems
        .iter()
        .map(|p| match p {
            query::Problem::UnresolvedLink { .. } => "unresolved",
            query::Problem::AmbiguousLink { .. } => "ambiguous",
            query::Problem::BrokenFragment { .. } => "fragment",
            query::Problem::AmbiguousFragment { .. } => "ambiguous fragment",
            query::Problem::Parse { .. } => "parse",
            query::Problem::PropertyType { .. } => "property",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "parse",
            "unresolved",
            "ambiguous",
            "fragment",
            "fragment",
            "property"
        ]
    );
    let told = crate::report::tell(&index, &problems[5], &|_| true);
    expect![[r#"
        Told {
            message: "`due` is a date property (as .obsidian/types.json declares it); `tomorrow` is not a date (YYYY-MM-DD).",
            fix: "Write a date (YYYY-MM-DD) there, or give `due` another type in Obsidian's property settings (.obsidian/types.json).",
        }
    "#]]
    .assert_debug_eq(&told);
    let stats = query::stats(&index);
    assert_eq!(
        (stats.notes, stats.links, stats.unresolved, stats.ambiguous),
        (5, 5, 1, 1)
    );
}

/// Random edit sequences (create, rewrite, delete, rename) applied one note
/// at a time leave the index equal to a fresh build of the final vault.
#[test]
fn incremental_updates_equal_a_rebuild() {
    const NAMES: &[&str] = &[
        "a", "b", "c", "d", "x/a", "x/b", "y/a", "y/z/c", "Café", "e",
    ];
    let mut rng = fastrand::Rng::with_seed(42);
    for round in 0..40 {
        let mut live = VaultIndex::new();
        let mut disk: std::collections::BTreeMap<String, String> = Default::default();
        for step in 0..60 {
            let path = format!("{}.md", NAMES[rng.usize(..NAMES.len())]);
            match rng.u8(..10) {
                0..=5 => {
                    let text = random_note(&mut rng, NAMES);
                    live.upsert(parse_text(&path, &text));
                    disk.insert(path, text);
                }
                6..=7 => {
                    live.remove(&path);
                    disk.remove(&path);
                }
                _ => {
                    // Rename: remove one path, create another with its text.
                    if let Some(text) = disk.remove(&path) {
                        live.remove(&path);
                        let to = format!("{}.md", NAMES[rng.usize(..NAMES.len())]);
                        live.upsert(parse_text(&to, &text));
                        disk.insert(to, text);
                    }
                }
            }
            let mut fresh = VaultIndex::new();
            for (p, t) in &disk {
                fresh.upsert(parse_text(p, t));
            }
            assert_eq!(
                crate::digest::canonical(&live),
                crate::digest::canonical(&fresh),
                "round {round} step {step}"
            );
        }
    }
}

/// Many notes filed at once ([`VaultIndex::prepare`] on every core, then
/// [`VaultIndex::extend`]), also over an index holding some of them, give
/// the index that upserting them one by one gives.
#[test]
fn notes_filed_at_once_equal_notes_filed_one_by_one() {
    const NAMES: &[&str] = &[
        "a", "b", "c", "d", "x/a", "x/b", "y/a", "y/z/c", "Café", "e",
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    for round in 0..40 {
        let mut notes: Vec<(String, String)> = (0..rng.usize(1..30))
            .map(|_| {
                let path = format!("{}.md", NAMES[rng.usize(..NAMES.len())]);
                (path, random_note(&mut rng, NAMES))
            })
            .collect();
        // Every other round: each path once, into an empty index (where
        // the links are filed on another core).
        let fresh = round % 2 == 0;
        if fresh {
            let mut seen = std::collections::HashSet::new();
            notes.retain(|(path, _)| seen.insert(path.clone()));
        }
        let split = if fresh { 0 } else { rng.usize(..=notes.len()) };
        let mut one_by_one = VaultIndex::new();
        let mut at_once = VaultIndex::new();
        for (path, text) in &notes[..split] {
            one_by_one.upsert(parse_text(path, text));
            at_once.upsert(parse_text(path, text));
        }
        for (path, text) in &notes[split..] {
            one_by_one.upsert(parse_text(path, text));
        }
        let rest = notes[split..]
            .iter()
            .map(|(path, text)| parse_text(path, text))
            .collect();
        at_once.extend(VaultIndex::prepare(rest));
        assert_eq!(
            crate::digest::canonical(&at_once),
            crate::digest::canonical(&one_by_one),
            "round {round}"
        );
    }
}

fn random_note(rng: &mut fastrand::Rng, names: &[&str]) -> String {
    let mut text = String::new();
    if rng.bool() {
        text.push_str(&format!(
            "---\naliases: [{}]\ntags: [t{}]\n{}: x\n---\n",
            names[rng.usize(..names.len())],
            rng.u8(..3),
            ["status", "Status", "type"][rng.usize(..3)]
        ));
    }
    for _ in 0..rng.usize(0..5) {
        let target = names[rng.usize(..names.len())];
        match rng.u8(..6) {
            0 => text.push_str(&format!("# H{}\n", rng.u8(..3))),
            1 => text.push_str(&format!("[[{target}#H{}]] ", rng.u8(..3))),
            2 => text.push_str(&format!("[x](../{target}.md) ")),
            3 => text.push_str(&format!("#tag{} ", rng.u8(..3))),
            _ => text.push_str(&format!("[[{target}]] [[missing{}]]\n", rng.u8(..2))),
        }
    }
    text
}

#[test]
fn fixture_parser_reads_files() {
    assert_eq!(files("//- /a.md\nx\n//- /b.png\n").len(), 2);
}

/// Regression: notes whose paths differ only in case are two notes on a
/// case-sensitive disk; indexing one must not replace the other.
#[test]
fn paths_differing_in_case_are_distinct_notes() {
    let mut index = fixture("//- /Plan.md\n# Upper\n//- /plan.md\n# Lower\n//- /S.md\n[[Plan]]\n");
    assert_eq!(index.len(), 3);
    assert_eq!(
        index.note(index.id_of("Plan.md").unwrap()).title.as_ref(),
        "Upper"
    );
    assert_eq!(
        index.note(index.id_of("plan").unwrap()).title.as_ref(),
        "Lower"
    );
    let s = index.id_of("S").unwrap();
    assert!(matches!(
        index.resolve_ref(crate::LinkRef { source: s, link: 0 }),
        Resolution::Ambiguous { .. }
    ));
    index.remove("plan.md");
    assert_eq!(
        index.note(index.id_of("PLAN").unwrap()).title.as_ref(),
        "Upper"
    );
    assert!(matches!(
        index.resolve_ref(crate::LinkRef { source: s, link: 0 }),
        Resolution::Note(_)
    ));
}

#[test]
fn frontmatter_keys_are_counted_as_notes_come_and_go() {
    let mut index = VaultIndex::new();
    index.upsert(parse_text("a.md", "---\nStatus: x\ntype: y\n---\n"));
    index.upsert(parse_text("b.md", "---\nStatus: z\n---\n"));
    index.upsert(parse_text("c.md", "---\nstatus: z\n---\nbody"));
    assert_eq!(index.frontmatter_keys(), ["Status", "type"]);
    index.remove("a.md");
    index.remove("b.md");
    assert_eq!(index.frontmatter_keys(), ["status"]);
    let only_c = index.frontmatter_keys_of(&|n| n.path.as_ref() != "c.md");
    assert!(only_c.is_empty());
    index.remove("c.md");
    assert!(index.frontmatter_keys().is_empty());
}

/// Regression (found by the storm test): a batch that removed as many
/// notes as it added (a folder renamed) reserved room for all it added, so
/// the note table doubled for good, its free slots unused.
#[test]
fn a_folder_renamed_in_one_batch_takes_the_free_slots() {
    let mut index = VaultIndex::new();
    let notes: Vec<_> = (0..1000)
        .map(|i| parse_text(&format!("a/n{i}.md"), "# N\n"))
        .collect();
    index.extend(VaultIndex::prepare(notes));
    let room = index.room();
    for i in 0..1000 {
        index.remove(&format!("a/n{i}.md"));
    }
    let renamed: Vec<_> = (0..1000)
        .map(|i| parse_text(&format!("b/n{i}.md"), "# N\n"))
        .collect();
    index.extend(VaultIndex::prepare(renamed));
    assert_eq!(index.len(), 1000);
    assert_eq!(index.room(), room, "no room made beside the free slots");
}

/// Backlinks come sorted by source path and then by link, whatever order
/// the notes were filed in (ids follow filing order, not paths).
#[test]
fn backlinks_sort_by_path_not_by_filing_order() {
    let mut index = VaultIndex::new();
    index.upsert(parse_text("hub.md", "# Hub"));
    for path in ["z.md", "b/y.md", "a.md", "b/a.md", "m.md"] {
        index.upsert(parse_text(path, "[[hub]] then [[hub#Hub]]\n[[hub]]"));
    }
    let hub = index.id_of("hub.md").unwrap();
    let found: Vec<(String, u32)> = index
        .backlinks(hub)
        .iter()
        .map(|r| (index.note(r.source).path.to_string(), r.link))
        .collect();
    let mut expected = Vec::new();
    for path in ["a.md", "b/a.md", "b/y.md", "m.md", "z.md"] {
        for link in 0..3 {
            expected.push((path.to_string(), link));
        }
    }
    assert_eq!(found, expected);
}

/// The notes of a tag come from the index's posting lists, nested tags
/// included, and follow every change of a note: exactly the notes the tag
/// filter passes.
#[test]
fn the_notes_of_a_tag_follow_every_change() {
    use crate::filter::{FileMeta, Filter, select};
    let mut index = crate::VaultIndex::new();
    index.upsert(crate::parse::parse_text("a.md", "#Project/weft #project"));
    index.upsert(crate::parse::parse_text(
        "b.md",
        "---\ntags: [projects]\n---\n",
    ));
    index.upsert(crate::parse::parse_text("c.md", "#project/old"));
    let tagged = |index: &crate::VaultIndex, tag: &str| -> Vec<String> {
        let mut paths: Vec<String> = index
            .notes_tagged(tag)
            .into_iter()
            .map(|id| index.note(id).path.to_string())
            .collect();
        paths.sort();
        let selected: Vec<String> =
            select(index, &Filter::Tag(tag.into()), |_| FileMeta::default())
                .into_iter()
                .map(|id| index.note(id).path.to_string())
                .collect();
        assert_eq!(
            paths, selected,
            "the posting list and the filter agree on `{tag}`"
        );
        paths
    };
    assert_eq!(tagged(&index, "#project"), ["a.md", "c.md"]);
    assert_eq!(tagged(&index, "project/WEFT"), ["a.md"]);
    assert_eq!(tagged(&index, "projects"), ["b.md"]);
    index.upsert(crate::parse::parse_text("a.md", "no tags now"));
    assert_eq!(tagged(&index, "project"), ["c.md"]);
    index.remove("c.md");
    assert!(tagged(&index, "project").is_empty());
    index.upsert(crate::parse::parse_text("d.md", "#project/new"));
    assert_eq!(tagged(&index, "project"), ["d.md"]);
}
