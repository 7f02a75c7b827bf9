use expect_test::{Expect, expect};

use super::{Asked, Wanted, around, by_names, gather};
use crate::testing::{path, searchable};
use weft_search::fixture::Fixture;
use weft_vault::filter::{Filter, Folder};

const VAULT: &str = r#"
//- /Tantivy.md @1705000000
# Tantivy
We picked tantivy for full-text search.

It is fast, and written in Rust.

Unrelated paragraph about lunch.
//- /Search.md @1704000000
# Search
See [[Tantivy]] and [[Lucene]].
//- /Lucene.md @1703000000
# Lucene
The Java library [[Search]] compares with.
//- /archive/Old.md @1600000000
# Old tantivy notes
[[Search]]
"#;

fn picked(fx: &Fixture, asked: &Asked) -> String {
    asked
        .picked
        .iter()
        .map(|p| {
            format!(
                "{} {} {:?}\n",
                path(&fx.vault, p.note),
                p.source,
                p.distance
            )
        })
        .collect()
}

#[test]
fn by_names_while_the_full_text_is_built_keeps_to_the_filter() {
    let fx = searchable(VAULT);
    let not_archive = Filter::Not(Box::new(Filter::Folder(Folder::new("archive").unwrap())));
    let asked = by_names(&fx.vault, &fx.files, "tantivy", 5, &not_archive);
    expect![[r#"
        Tantivy words None
        {"tantivi": 1} ["The full-text index is still being built: notes were chosen by name only."]"#]].assert_eq(&format!(
        "{}{:?} {:?}",
        picked(&fx, &asked),
        asked.terms,
        asked.remarks
    ));
}

fn walk(filter: &Filter, top_k: usize, expect: Expect) {
    let fx = searchable(VAULT);
    let mut asked = Asked::default();
    let center = fx.vault.id_of("Search.md").unwrap();
    around(
        &fx.vault,
        &fx.files,
        &|_| true,
        center,
        2,
        top_k,
        filter,
        &mut asked.picked,
    );
    expect.assert_eq(&picked(&fx, &asked));
}

#[test]
fn around_walks_links_both_ways_nearest_first() {
    walk(
        &Filter::All,
        5,
        expect![[r#"
        Search links Some(0)
        Tantivy links Some(1)
        Lucene links Some(1)
        archive/Old links Some(1)
    "#]],
    );
    let not_archive = Filter::Not(Box::new(Filter::Folder(Folder::new("archive").unwrap())));
    walk(
        &not_archive,
        2,
        expect![[r#"
        Search links Some(0)
        Tantivy links Some(1)
    "#]],
    );
}

#[test]
fn gather_quotes_the_best_passages_within_the_budget() {
    let fx = searchable(VAULT);
    let asked = by_names(&fx.vault, &fx.files, "tantivy", 5, &Filter::All);
    let read = |path: &str| Some(fx.files.0.lock().unwrap().get(path)?.bytes.clone());
    let wanted = Wanted {
        budget: 400,
        window: 0,
        terms: &asked.terms,
        num_docs: asked.num_docs,
    };
    let gathered = gather(&fx.vault, &read, asked.picked, &wanted);
    let shown: String = gathered
        .notes
        .iter()
        .map(|e| {
            let passages: Vec<String> = e
                .passages
                .iter()
                .map(|p| format!("  {:?} {:?} {:?}\n", p.section, p.lines, p.text))
                .collect();
            format!("{} {}\n{}", e.path, e.source, passages.concat())
        })
        .collect();
    expect![[r##"
        Tantivy words
          Some("Tantivy") [1, 2] "# Tantivy\n\nWe picked tantivy for full-text search."
        archive/Old words
          Some("Old tantivy notes") [1, 1] "# Old tantivy notes"
        used 69 truncated false"##]]
    .assert_eq(&format!(
        "{shown}used {} truncated {}",
        gathered.used, gathered.truncated
    ));
}
