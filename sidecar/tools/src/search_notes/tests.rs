use expect_test::{Expect, expect};

use super::{Found, Mode, SearchNotesArgs, by_names, by_words, plan};
use crate::scope::judge;
use crate::testing::{path, searchable};
use weft_search::dates::Now;
use weft_search::find::{Request, Sort};
use weft_search::fixture::Fixture;
use weft_vault::filter::{Filter, Folder, TimeRange};

const VAULT: &str = r#"
//- /projects/pasta.md @1705000000
---
tags: [food]
---
# Pasta plan
Cook pasta with tomatoes on Friday.
//- /projects/bread.md @1704000000
# Bread
Bake bread; pasta another day.
//- /journal/today.md @1706000000
# Today
Nothing about food.
"#;

fn dump(fx: &Fixture, found: &Found) -> String {
    let mut out = format!("total {}\n", found.total);
    for r in &found.remarks {
        out.push_str(&format!("remark: {r}\n"));
    }
    for hit in &found.hits {
        out.push_str(&format!(
            "{} why={:?} snippet={:?}\n",
            path(&fx.vault, hit.note),
            hit.why,
            hit.snippet
        ));
    }
    out
}

fn words(query: Option<&str>, filter: &Filter, sort: Sort, expect: Expect) {
    let fx = searchable(VAULT);
    let judge = judge(&fx.files, &fx.vault);
    let request = Request {
        query,
        filter,
        judge: &judge,
        keys: &[],
        types: &weft_vault::props::Types::default(),
        sort,
        offset: 0,
        limit: 10,
        snippet_chars: 60,
        now: Now::utc(1_706_000_000),
    };
    let found = by_words(&fx.search, &fx.files, &fx.vault, &request).unwrap();
    expect.assert_eq(&dump(&fx, &found));
}

#[test]
fn by_words_in_a_folder_with_snippets() {
    let folder = Filter::Folder(Folder::new("projects").unwrap());
    words(
        Some("pasta"),
        &folder,
        Sort::Relevance,
        expect![[r#"
        total 2
        projects/pasta why=None snippet=Some("**Pasta** plan Cook **pasta** with tomatoes on Friday…")
        projects/bread why=None snippet=Some("Bread Bake bread; **pasta** another day…")
    "#]],
    );
}

/// No words: the filter alone, the file times judged by the tool's judge.
#[test]
fn by_words_without_a_query_newest_first_since_a_time() {
    let since = Filter::Modified(TimeRange {
        from: Some(1_704_500_000),
        to: None,
    });
    words(
        None,
        &since,
        Sort::Modified,
        expect![[r#"
        total 2
        journal/today why=None snippet=Some("Today Nothing about food.")
        projects/pasta why=None snippet=Some("Pasta plan Cook pasta with tomatoes on Friday.")
    "#]],
    );
}

#[test]
fn a_query_the_language_refuses_is_an_error_with_a_hint() {
    let fx = searchable(VAULT);
    let judge = judge(&fx.files, &fx.vault);
    let request = Request {
        query: Some("title:(pasta"),
        filter: &Filter::All,
        judge: &judge,
        keys: &[],
        types: &weft_vault::props::Types::default(),
        sort: Sort::Relevance,
        offset: 0,
        limit: 10,
        snippet_chars: 60,
        now: Now::utc(1_706_000_000),
    };
    let error = by_words(&fx.search, &fx.files, &fx.vault, &request).unwrap_err();
    expect![[r#"ToolError { message: "The query has a `(` without its `)`.", hints: ["Close the group with `)`."] }"#]].assert_eq(&format!("{error:?}"));
}

#[test]
fn by_names_before_the_full_text_newest_first() {
    let fx = searchable(VAULT);
    let found = by_names(
        &fx.vault,
        &fx.files,
        None,
        &Filter::All,
        Sort::Modified,
        0,
        2,
        true,
    );
    expect![[r#"
        total 3
        remark: Searched note names only (titles, aliases, paths) until the full-text index is built.
        journal/today why=None snippet=None
        projects/pasta why=None snippet=None
    "#]].assert_eq(&dump(&fx, &found));
    let found = by_names(
        &fx.vault,
        &fx.files,
        Some("bred"),
        &Filter::All,
        Sort::Relevance,
        0,
        5,
        false,
    );
    expect![[r#"
        total 1
        projects/bread why=Some("title “Bread” is similar (95%)") snippet=None
    "#]]
    .assert_eq(&dump(&fx, &found));
}

#[test]
fn mode_tag_reads_its_query_as_tags() {
    let args = |query: &str| -> SearchNotesArgs {
        serde_json::from_value(serde_json::json!({"query": query, "mode": "tag"})).unwrap()
    };
    let p = plan(&args("#food, vc")).unwrap();
    assert_eq!(
        (p.mode, p.text_query, p.tags_any, p.tags_all.len()),
        (
            Mode::Tag,
            None,
            vec!["food".to_string(), "vc".to_string()],
            0
        )
    );
    let p = plan(&args("food AND vc")).unwrap();
    assert_eq!(
        (p.tags_all, p.tags_any.len()),
        (vec!["food".to_string(), "vc".to_string()], 0)
    );
}
