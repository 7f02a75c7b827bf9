use expect_test::{Expect, expect};

use super::compute;
use crate::testing::{access, path, vault};

const VAULT: &str = r#"
//- /Home.md
# Home
[[Ghost]] [[Plan]]
//- /a/Plan.md
---
aliases: [Roadmap]
---
# Plan
//- /b/Plan.md
# Plan
//- /Planning.md
# Planning
//- /private/Secret.md
# Secret
[[Ghost]] [[Ghost]]
"#;

fn check(name: &str, deny: &[&str], limit: usize, expect: Expect) {
    let index = vault(VAULT);
    let resolved = compute(&index, &access(deny), name, limit);
    let mut out = format!(
        "resolves to {:?}, ambiguous {}, unresolved links {}\n",
        resolved.resolves_to.map(|id| path(&index, id)),
        resolved.ambiguous,
        resolved.unresolved_links
    );
    for m in &resolved.candidates {
        out.push_str(&format!(
            "{} {:.2}: {}\n",
            path(&index, m.note),
            m.score,
            m.why
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn an_alias_and_a_path() {
    check(
        "[[roadmap]]",
        &[],
        10,
        expect![[r#"
        resolves to Some("a/Plan"), ambiguous false, unresolved links 0
        a/Plan 0.95: alias “Roadmap”
    "#]],
    );
    check(
        "b/Plan.md",
        &[],
        2,
        expect![[r#"
        resolves to Some("b/Plan"), ambiguous false, unresolved links 0
        b/Plan 1.00: exact path
        a/Plan 0.71: title “Plan” is similar (89%)
    "#]],
    );
}

#[test]
fn ambiguous_unless_one_is_hidden() {
    check(
        "Plan",
        &[],
        10,
        expect![[r#"
        resolves to Some("a/Plan"), ambiguous true, unresolved links 0
        a/Plan 0.97: file name
        b/Plan 0.97: file name
        Planning 0.89: title starts with it
    "#]],
    );
    check(
        "Plan",
        &["a"],
        10,
        expect![[r#"
        resolves to Some("b/Plan"), ambiguous false, unresolved links 0
        b/Plan 0.97: file name
        Planning 0.89: title starts with it
    "#]],
    );
}

#[test]
fn a_note_not_written_yet_and_a_hidden_one() {
    check(
        "Ghost",
        &["private"],
        10,
        expect![[r#"
        resolves to None, ambiguous false, unresolved links 1
    "#]],
    );
    check(
        "Ghost",
        &[],
        10,
        expect![[r#"
        resolves to None, ambiguous false, unresolved links 3
    "#]],
    );
    check(
        "Secret",
        &["private"],
        10,
        expect![[r#"
        resolves to None, ambiguous false, unresolved links 0
    "#]],
    );
}

/// A name written as a link reads as its target, once.
#[test]
fn a_name_written_as_a_link_is_told_once_as_a_link() {
    let index = vault(VAULT);
    let resolved = compute(&index, &access(&[]), "[[roadmap]]", 1);
    let out = super::render::out(&index, "[[roadmap]]", resolved);
    let text = super::render::markdown(&out);
    assert!(text.starts_with("`[[roadmap]]` resolves to"), "{text}");
}
