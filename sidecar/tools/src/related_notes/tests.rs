use expect_test::{Expect, expect};

use super::{Found, Meaning, Query, Sources, compute};
use crate::common::Target;
use crate::testing::{access, path, searchable, target, vault};
use weft_search::fixture::MemFiles;
use weft_search::related::Subject;
use weft_vault::VaultIndex;

const VAULT: &str = r#"
//- /Weft.md
# Weft
[[Design]] [[Ideas]]
#project
//- /Design.md
# Design
[[Weft]]
#project #design
//- /Ideas.md
# Ideas
#design
Tomato seedlings want warm soil and patient watering.
//- /Garden.md
# Garden
#hobby
Tomato seedlings: warm soil, patient watering.
//- /private/Plan.md
# Plan
[[Weft]]
#project
"#;

fn dump(index: &VaultIndex, found: &Found) -> String {
    let mut out = format!(
        "note {:?}, remarks {:?}\n",
        found.note.map(|id| path(index, id)),
        found.remarks
    );
    for r in &found.related {
        out.push_str(&format!(
            "{} {:.2} (links {:.2}, tags {:.2}, text {:.2}, meaning {:.2}): {:?}\n",
            path(index, r.note),
            r.score,
            r.links,
            r.tags,
            r.text,
            r.meaning,
            r.reasons
        ));
    }
    out
}

fn check(subject: Subject, deny: &[&str], meaning: &Meaning, expect: Expect) {
    let index = vault(VAULT);
    // Without the full-text index, as while it is built: no text signal.
    let sources = Sources {
        search: None,
        files: &MemFiles::default(),
    };
    let query = Query { subject, limit: 10 };
    let found = compute(&index, &access(deny), &sources, meaning, &query);
    expect.assert_eq(&dump(&index, &found));
}

fn note(name: &str) -> Subject<'static> {
    match target(&vault(VAULT), name) {
        Target::Note(id) => Subject::Note(id),
        Target::Missing { .. } => panic!("`{name}` is not a note"),
    }
}

#[test]
fn by_links_and_tags_without_hidden_notes() {
    check(
        note("Weft"),
        &["private"],
        &Meaning::default(),
        expect![[r#"
            note Some("Weft"), remarks [Indexing]
            Design 0.70 (links 1.00, tags 1.00, text 0.00, meaning 0.00): ["links both ways", "shared tags #project"]
            Ideas 0.25 (links 0.50, tags 0.00, text 0.00, meaning 0.00): ["this note links to it"]
        "#]],
    );
}

#[test]
fn to_a_text() {
    check(
        Subject::Text("#design notes on [[Weft]]"),
        &[],
        &Meaning::default(),
        expect![[r#"
            note None, remarks [Indexing]
            Weft 0.50 (links 1.00, tags 0.00, text 0.00, meaning 0.00): ["mentioned in the text"]
            Design 0.20 (links 0.00, tags 1.00, text 0.00, meaning 0.00): ["shared tags #design"]
            Ideas 0.20 (links 0.00, tags 1.00, text 0.00, meaning 0.00): ["shared tags #design"]
        "#]],
    );
}

#[test]
fn with_meaning_or_why_not() {
    let index = vault(VAULT);
    let Target::Note(garden) = target(&index, "Garden") else {
        panic!("Garden is a note");
    };
    let meaning = Meaning {
        close: vec![(garden, 0.8)],
        unavailable: None,
    };
    check(
        note("Ideas"),
        &[],
        &meaning,
        expect![[r#"
            note Some("Ideas"), remarks [Indexing]
            Design 0.41 (links 0.64, tags 1.00, text 0.00, meaning 0.00): ["cited together by [[Weft]]", "shared tags #design"]
            Weft 0.40 (links 1.00, tags 0.00, text 0.00, meaning 0.00): ["links to this note"]
            Garden 0.25 (links 0.00, tags 0.00, text 0.00, meaning 1.00): []
        "#]],
    );
    let meaning = Meaning {
        close: Vec::new(),
        unavailable: Some("Finding by meaning is off.".into()),
    };
    check(
        note("Garden"),
        &[],
        &meaning,
        expect![[r#"
            note Some("Garden"), remarks [Indexing, NoMeaning("Finding by meaning is off.")]
        "#]],
    );
}

#[test]
fn with_the_full_text() {
    let fx = searchable(VAULT);
    let sources = Sources {
        search: Some(&fx.search),
        files: &fx.files,
    };
    let query = Query {
        subject: note("Garden"),
        limit: 10,
    };
    let found = compute(
        &fx.vault,
        &access(&[]),
        &sources,
        &Meaning::default(),
        &query,
    );
    expect![[r#"
        note Some("Garden"), remarks []
        Ideas 0.30 (links 0.00, tags 0.00, text 1.00, meaning 0.00): ["similar wording"]
    "#]]
    .assert_eq(&dump(&fx.vault, &found));
}
