use expect_test::{Expect, expect};

use super::{Facet, Listed, Query, TagSort, compute};
use crate::testing::{access, vault};

const VAULT: &str = r#"
//- /Home.md
---
status: active
Owner: Ann
part_of: "[[Plan]]"
---
#Project/Weft #project/weft/docs #Idea
//- /Plan.md
---
status: [active, draft]
Tags: [meeting]
---
#project #idea #idea
//- /Loose.md
---
status:
---
#Project/Weft
//- /private/Secret.md
---
status: secret
---
#project/hidden #Secret
"#;

fn query(facet: Facet, sort: TagSort, prefix: &str, key: Option<&str>) -> Query {
    Query {
        facet,
        sort,
        prefix: prefix.to_string(),
        key: key.map(str::to_string),
        offset: 0,
        limit: 100,
    }
}

fn dump(listed: &Listed) -> String {
    let mut out = format!("total {}\n", listed.total);
    for t in &listed.page {
        let below = t
            .with_subtags
            .map(|n| format!(", {n} with subtags"))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}: {} notes, {} uses{below}\n",
            t.name, t.notes, t.uses
        ));
    }
    out
}

fn check(deny: &[&str], query: &Query, expect: Expect) {
    let index = vault(VAULT);
    expect.assert_eq(&dump(&compute(&index, &access(deny), query)));
}

#[test]
fn tags_roll_up_by_count() {
    check(
        &["private"],
        &query(Facet::Tags, TagSort::Count, "", None),
        expect![[r#"
            total 4
            project: 1 notes, 1 uses, 3 with subtags
            idea: 2 notes, 3 uses
            Project/Weft: 2 notes, 2 uses
            project/weft/docs: 1 notes, 1 uses
        "#]],
    );
}

#[test]
fn tags_by_name_under_a_prefix_with_paging() {
    let mut q = query(Facet::Tags, TagSort::Name, "project/", None);
    check(
        &[],
        &q,
        expect![[r#"
        total 3
        project/hidden: 1 notes, 1 uses
        Project/Weft: 2 notes, 2 uses
        project/weft/docs: 1 notes, 1 uses
    "#]],
    );
    q.offset = 1;
    q.limit = 1;
    check(
        &[],
        &q,
        expect![[r#"
        total 3
        Project/Weft: 2 notes, 2 uses
    "#]],
    );
}

#[test]
fn keys_values_and_rels() {
    check(
        &["private"],
        &query(Facet::Keys, TagSort::Name, "", None),
        expect![[r#"
            total 4
            Owner: 1 notes, 1 uses
            part_of: 1 notes, 1 uses
            status: 3 notes, 3 uses
            Tags: 1 notes, 1 uses
        "#]],
    );
    check(
        &[],
        &query(Facet::Values, TagSort::Count, "", Some("STATUS")),
        expect![[r#"
            total 3
            active: 2 notes, 2 uses
            draft: 1 notes, 1 uses
            secret: 1 notes, 1 uses
        "#]],
    );
    check(
        &[],
        &query(Facet::Rels, TagSort::Count, "", None),
        expect![[r#"
            total 1
            part_of: 1 notes, 1 uses
        "#]],
    );
}
