use expect_test::{Expect, expect};

use super::{Checked, Found, Kind, Query, compute};
use crate::testing::{access, path, vault};
use weft_vault::VaultIndex;
use weft_vault::filter::Folder;
use weft_vault::props::Types;
use weft_vault::query::Problem;
use weft_workspace::config::TagRule;

const VAULT: &str = r#"
//- /Home.md
# Home
[[Idea]] [[Plan]] [[Plan#Nowhere]] [[Ideas#Step]] [[Secret]]
#Project #project
//- /a/Plan.md
---
aliases: [Roadmap]
---
# Plan
//- /b/Plan.md
---
aliases: [roadmap]
---
# Plan
//- /Ideas.md
# Ideas
## One
### Step
## Two
### Step
//- /Lonely.md
---
tags: [meeting]
---
No links at all.
//- /private/Secret.md
# Secret
[[Ghost]] [[Ideas#Nowhere]]
//- /private/Ideas.md
# Ideas
"#;

fn query(folder: &str, kinds: &[Kind]) -> Query {
    Query {
        folder: Folder::new(folder).unwrap(),
        kinds: if kinds.is_empty() {
            Kind::ALL.to_vec()
        } else {
            kinds.to_vec()
        },
        offset: 0,
        limit: 50,
    }
}

/// The answer with ids shown as paths and links as their targets.
fn dump(index: &VaultIndex, checked: &Checked) -> String {
    let mut out = format!("total {} {:?}\n", checked.total, checked.counts);
    for p in &checked.page {
        let at = p.note.map(|id| path(index, id)).unwrap_or("vault");
        let line = p.line.map(|l| format!(":{l}")).unwrap_or_default();
        let found = match &p.found {
            Found::Problem(problem) => match problem {
                Problem::UnresolvedLink { link } => {
                    format!("unresolved {}", index.link(*link).target())
                }
                Problem::AmbiguousLink {
                    link,
                    candidates,
                    chosen,
                } => format!(
                    "ambiguous {} -> {} of {:?}",
                    index.link(*link).target(),
                    path(index, *chosen),
                    candidates
                        .iter()
                        .map(|c| path(index, *c))
                        .collect::<Vec<_>>()
                ),
                Problem::BrokenFragment { link, target } => format!(
                    "broken #{} in {}",
                    index.link(*link).fragment().unwrap_or(""),
                    path(index, *target)
                ),
                Problem::AmbiguousFragment {
                    link,
                    target,
                    candidates,
                } => format!(
                    "ambiguous #{} in {} headings {candidates:?}",
                    index.link(*link).fragment().unwrap_or(""),
                    path(index, *target)
                ),
                Problem::Parse { index: i, .. } => format!("parse {i}"),
                Problem::PropertyType { key, expected, .. } => {
                    format!("property {key} is not {}", expected.name())
                }
            },
            Found::Orphan(id) => format!("orphan {}", path(index, *id)),
            Found::Duplicate { name, users } => format!(
                "duplicate {name:?} {:?}",
                users
                    .iter()
                    .map(|(id, how)| (path(index, *id), how))
                    .collect::<Vec<_>>()
            ),
            Found::MissingKey { tag, key, .. } => format!("rule #{tag} needs {key}"),
            Found::NamePrefix { tag, prefix, .. } => format!("rule #{tag} needs prefix {prefix}"),
            Found::Spelling { tag, spellings } => format!("spelling #{tag} {spellings:?}"),
        };
        let suggestion = p
            .suggestion
            .map(|s| format!(" (did you mean {})", path(index, s)))
            .unwrap_or_default();
        out.push_str(&format!(
            "{} {at}{line} {found}{suggestion}\n",
            p.kind.as_str()
        ));
    }
    out
}

fn check(deny: &[&str], rules: &[TagRule], query: &Query, expect: Expect) {
    let index = vault(VAULT);
    let checked = compute(&index, &access(deny), rules, &Types::default(), query);
    expect.assert_eq(&dump(&index, &checked));
}

#[test]
fn every_kind_in_the_whole_vault() {
    let rules = [TagRule {
        tag: "meeting".into(),
        require_keys: vec!["date".into()],
        name_prefix: Some("Meeting ".into()),
    }];
    check(
        &[],
        &rules,
        &query("", &[]),
        expect![[r#"
            total 15 {"ambiguous": 5, "duplicate": 1, "fragment": 2, "orphan": 2, "rule": 2, "tag": 1, "unresolved": 2}
            unresolved Home:2 unresolved Idea (did you mean Ideas)
            ambiguous Home:2 ambiguous Plan -> a/Plan of ["a/Plan", "b/Plan"]
            ambiguous Home:2 ambiguous Plan -> a/Plan of ["a/Plan", "b/Plan"]
            fragment Home:2 broken #Nowhere in a/Plan
            ambiguous Home:2 ambiguous Ideas -> Ideas of ["Ideas", "private/Ideas"]
            ambiguous Home:2 ambiguous #Step in Ideas headings [2, 4]
            orphan Lonely orphan Lonely
            rule Lonely rule #meeting needs date
            rule Lonely rule #meeting needs prefix Meeting 
            duplicate a/Plan duplicate "roadmap" [("a/Plan", Alias), ("b/Plan", Alias)]
            orphan b/Plan orphan b/Plan
            unresolved private/Secret:2 unresolved Ghost
            ambiguous private/Secret:2 ambiguous Ideas -> private/Ideas of ["Ideas", "private/Ideas"]
            fragment private/Secret:2 broken #Nowhere in private/Ideas
            tag vault spelling #Project [("Project", 1), ("project", 1)]
        "#]],
    );
}

#[test]
fn hidden_notes_are_neither_checked_nor_named_and_pages_follow_the_order() {
    let mut q = query("", &[Kind::Unresolved, Kind::Ambiguous, Kind::Fragment]);
    q.offset = 3;
    q.limit = 2;
    check(
        &["private/"],
        &[],
        &q,
        expect![[r#"
        total 6 {"ambiguous": 4, "fragment": 1, "unresolved": 1}
        fragment Home:2 broken #Nowhere in a/Plan
        ambiguous Home:2 ambiguous Ideas -> Ideas of ["Ideas", "private/Ideas"]
    "#]],
    );
}

/// The words of a page: a candidate the agent may not see is counted, not
/// named; an unresolved link gets its "did you mean".
#[test]
fn the_page_in_words_hides_what_the_agent_may_not_see() {
    let index = vault(VAULT);
    let access = access(&["private/"]);
    let mut q = query("", &[Kind::Unresolved, Kind::Ambiguous]);
    q.limit = 4;
    let checked = compute(&index, &access, &[], &Types::default(), &q);
    let out = super::render::out(&index, &access, checked, None);
    expect![[r#"
        5 issues in the vault (ambiguous 4, unresolved 1):
        - [unresolved] `Home` L2: `[[Idea]]` links to a note that does not exist.
          Fix: did you mean [[Ideas]]? Otherwise create `Idea.md` or point the link at an existing note.
        - [ambiguous] `Home` L2: `[[Plan]]` matches 2 notes (`a/Plan`, `b/Plan`); it resolves to `a/Plan`.
          Fix: Write the path: [[a/Plan]] or [[b/Plan]].
        - [ambiguous] `Home` L2: `[[Plan#Nowhere]]` matches 2 notes (`a/Plan`, `b/Plan`); it resolves to `a/Plan`.
          Fix: Write the path: [[a/Plan]] or [[b/Plan]].
        - [ambiguous] `Home` L2: `[[Ideas#Step]]` matches 2 notes (`Ideas`, and 1 outside this agent's access); it resolves to `Ideas`.
          Fix: Write the path: [[Ideas]].

        Showing 1–4 of 5."#]].assert_eq(&super::render::markdown(&out, 0, ""));
}

#[test]
fn a_folder_checks_its_notes_and_leaves_out_vault_wide_spellings() {
    check(
        &[],
        &[],
        &query("b", &[]),
        expect![[r#"
        total 1 {"orphan": 1}
        orphan b/Plan orphan b/Plan
    "#]],
    );
}

/// Values that do not fit their property's type: declared in types.json,
/// or agreed by the vault's values.
#[test]
fn property_values_that_do_not_fit_their_type() {
    let index = vault(
        "//- /a.md\n---\ndue: tomorrow\ndone: maybe\n---\n//- /b.md\n---\ndone: true\n---\n//- /c.md\n---\ndone: false\n---\n",
    );
    let types = Types::parse(r#"{"types": {"due": "date"}}"#).unwrap();
    let checked = compute(
        &index,
        &access(&[]),
        &[],
        &types,
        &query("", &[Kind::Property]),
    );
    expect![[r#"
        total 1 {"property": 1}
        property a property due is not date
    "#]]
    .assert_eq(&dump(&index, &checked));
    let out = super::render::out(&index, &access(&[]), checked, None);
    expect![[r#"
        1 issue in the vault (property 1):
        - [property] `a`: `due` is a date property (as .obsidian/types.json declares it); `tomorrow` is not a date (YYYY-MM-DD).
          Fix: Write a date (YYYY-MM-DD) there, or give `due` another type in Obsidian's property settings (.obsidian/types.json)."#]]
    .assert_eq(&super::render::markdown(&out, 0, ""));
}

/// A note linked only from (or linking only to) notes the agent may not
/// access is an orphan to it: nothing tells that such a note links there.
#[test]
fn links_with_unseen_notes_do_not_count_against_an_orphan() {
    let index = vault(
        "//- /B.md\n# B\n//- /C.md\n[[private/D]]\n//- /private/A.md\n[[B]]\n//- /private/D.md\n",
    );
    let checked = compute(
        &index,
        &access(&["private/"]),
        &[],
        &Types::default(),
        &query("", &[Kind::Orphan]),
    );
    expect![[r#"
        total 2 {"orphan": 2}
        orphan B orphan B
        orphan C orphan C
    "#]]
    .assert_eq(&dump(&index, &checked));
}
