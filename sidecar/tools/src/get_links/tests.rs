use expect_test::{Expect, expect};

use super::{LinkDirection, Links, LinksFormat, Query, To, compute, place};
use crate::common::Target;
use crate::testing::{access, path, target, vault};
use weft_vault::VaultIndex;
use weft_vault::graph::GraphNode;

const VAULT: &str = r#"
//- /Home.md
# Home
[[Plan]] [[Plan#Goals]] ![[Plan]]
[[Ghost]] [[Home]] [[Idea]]
//- /Plan.md
---
part_of: "[[Home]]"
---
# Plan
## Goals
[[Home]] [[Secret]] [[Ghost#Why]] [[Home#Nowhere]]
//- /Notes.md
[[Plan#Goals]] [[Plan#Nowhere]]
[[Ghost]]
//- /a/Idea.md
# Idea
//- /b/Idea.md
# Idea
//- /private/Secret.md
[[Plan]] [[Ghost]] [[Home]]
"#;

fn query(direction: LinkDirection, format: LinksFormat, depth: u32) -> Query {
    Query {
        direction,
        format,
        depth,
        rel: None,
        place: None,
        offset: 0,
        limit: 100,
    }
}

/// The answer with ids shown as paths and links as where they are.
fn dump(index: &VaultIndex, links: &Links) -> String {
    let mut out = String::new();
    if let Some(incoming) = &links.incoming {
        out.push_str(&format!("incoming {}\n", incoming.total));
        for r in &incoming.page {
            let link = index.link(*r);
            let rel = link.rel().map(|r| format!(" [{r}]")).unwrap_or_default();
            out.push_str(&format!(
                "  {}:{} {}{}{rel}\n",
                path(index, r.source),
                link.line + 1,
                link.target(),
                link.fragment().map(|f| format!("#{f}")).unwrap_or_default(),
            ));
        }
    }
    if let Some(outgoing) = &links.outgoing {
        out.push_str(&format!("outgoing {}\n", outgoing.total));
        for o in &outgoing.page {
            let link = index.link(o.link);
            let to = match &o.to {
                To::Itself => "itself".to_string(),
                To::Note(id) => path(index, *id).to_string(),
                To::Ambiguous(id) => format!("ambiguous {}", path(index, *id)),
                To::Attachment(file) => format!("file {file}"),
                To::Unresolved => "unresolved".to_string(),
            };
            let found = match o.fragment_found {
                Some(found) => format!(" #{} found: {found}", link.fragment().unwrap_or("")),
                None => String::new(),
            };
            let embed = if link.embed { " (embed)" } else { "" };
            let rel = link.rel().map(|r| format!(" [{r}]")).unwrap_or_default();
            out.push_str(&format!(
                "  :{} {}{embed}{rel} -> {to}{found}\n",
                link.line + 1,
                link.target()
            ));
        }
    }
    if let Some(walk) = &links.walk {
        out.push_str(&format!("walk, truncated: {}\n", walk.truncated));
        for (i, (node, d)) in walk.nodes.iter().enumerate() {
            let node = match node {
                GraphNode::Note(id) => path(index, *id).to_string(),
                GraphNode::Unresolved(key) => format!("{key} (not written)"),
            };
            out.push_str(&format!("  {i}. {node} at {d}\n"));
        }
        for (a, b, n) in &walk.edges {
            out.push_str(&format!("  {a} -> {b} ×{n}\n"));
        }
    }
    out.push_str(&format!("more: {}\n", links.more));
    out
}

fn check(name: &str, deny: &[&str], query: &Query, expect: Expect) {
    let index = vault(VAULT);
    let links = compute(&index, &access(deny), &target(&index, name), query);
    expect.assert_eq(&dump(&index, &links));
}

#[test]
fn both_ways_without_what_is_hidden() {
    check(
        "Plan",
        &["private"],
        &query(LinkDirection::Both, LinksFormat::List, 1),
        expect![[r#"
            incoming 5
              Home:2 Plan
              Home:2 Plan#Goals
              Home:2 Plan
              Notes:1 Plan#Goals
              Notes:1 Plan#Nowhere
            outgoing 4
              :2 Home [part_of] -> Home
              :6 Home -> Home
              :6 Ghost -> unresolved
              :6 Home -> Home #Nowhere found: false
            more: false
        "#]],
    );
}

#[test]
fn where_outgoing_links_lead() {
    check(
        "Home",
        &[],
        &query(LinkDirection::Out, LinksFormat::List, 1),
        expect![[r#"
            outgoing 6
              :2 Plan -> Plan
              :2 Plan -> Plan #Goals found: true
              :2 Plan (embed) -> Plan
              :3 Ghost -> unresolved
              :3 Home -> itself
              :3 Idea -> ambiguous a/Idea
            more: false
        "#]],
    );
}

#[test]
fn typed_links_only() {
    let mut q = query(LinkDirection::In, LinksFormat::List, 1);
    q.rel = Some("Part_Of".into());
    check(
        "Home",
        &[],
        &q,
        expect![[r#"
        incoming 1
          Plan:2 Home [part_of]
        more: false
    "#]],
    );
    q.rel = Some("*".into());
    q.direction = LinkDirection::Both;
    check(
        "Plan",
        &[],
        &q,
        expect![[r#"
        incoming 0
        outgoing 1
          :2 Home [part_of] -> Home
        more: false
    "#]],
    );
}

#[test]
fn links_to_a_heading() {
    let index = vault(VAULT);
    let Target::Note(plan) = target(&index, "Plan") else {
        panic!("Plan is a note");
    };
    assert_eq!(place(&index, plan, "Nowhere"), None);
    let mut q = query(LinkDirection::In, LinksFormat::List, 1);
    q.place = place(&index, plan, "goals");
    let links = compute(&index, &access(&[]), &target(&index, "Plan"), &q);
    expect![[r#"
        incoming 2
          Home:2 Plan#Goals
          Notes:1 Plan#Goals
        more: false
    "#]]
    .assert_eq(&dump(&index, &links));
}

#[test]
fn a_note_not_written_yet() {
    check(
        "Ghost",
        &["private"],
        &query(LinkDirection::Both, LinksFormat::List, 1),
        expect![[r#"
            incoming 3
              Home:3 Ghost
              Notes:2 Ghost
              Plan:6 Ghost#Why
            outgoing 0
            more: false
        "#]],
    );
}

#[test]
fn pages_of_linking_notes() {
    let mut q = query(LinkDirection::In, LinksFormat::List, 1);
    q.limit = 1;
    check(
        "Home",
        &[],
        &q,
        expect![[r#"
        incoming 5
          Home:3 Home
        more: true
    "#]],
    );
    q.offset = 1;
    check(
        "Home",
        &[],
        &q,
        expect![[r#"
        incoming 5
          Plan:2 Home [part_of]
          Plan:6 Home
          Plan:6 Home#Nowhere
        more: true
    "#]],
    );
    q.offset = 2;
    check(
        "Home",
        &[],
        &q,
        expect![[r#"
        incoming 5
          private/Secret:1 Home
        more: false
    "#]],
    );
}

#[test]
fn a_walk_without_hidden_notes() {
    check(
        "Home",
        &["private"],
        &query(LinkDirection::Both, LinksFormat::Graph, 2),
        expect![[r#"
            walk, truncated: false
              0. Home at 0
              1. Plan at 1
              2. ghost (not written) at 1
              3. a/Idea at 1
              4. Notes at 2
              0 -> 1 ×3
              0 -> 2 ×1
              0 -> 3 ×1
              1 -> 0 ×3
              1 -> 2 ×1
              4 -> 1 ×2
              4 -> 2 ×1
            more: false
        "#]],
    );
    let mut q = query(LinkDirection::Out, LinksFormat::Names, 2);
    q.limit = 3;
    check(
        "Home",
        &[],
        &q,
        expect![[r#"
        outgoing 6
          :2 Plan -> Plan
          :2 Plan -> Plan #Goals found: true
          :2 Plan (embed) -> Plan
        walk, truncated: true
          0. Home at 0
          1. Plan at 1
          2. ghost (not written) at 1
          0 -> 1 ×3
          0 -> 2 ×1
          1 -> 0 ×3
          1 -> 2 ×1
        more: true
    "#]],
    );
}
