//! Full-text search on inline fixture vaults (`//- /path.md` starts a file;
//! `//- /path.md @1700000000` also sets its modification time).

use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;

use super::find::{Request, Sort, cursor_for, fingerprint, offset_of};
use super::fixture::{Fixture, MemFiles, fixture, stamp};
use super::index::{Change, DocSource, FileSource, NoteFile, SearchIndex};
use super::related::{Subject, related};
use weft_vault::VaultIndex;
use weft_vault::filter::{FileMeta, Filter, Folder, TimeRange, Value};
use weft_vault::parse::parse_text;

/// `cooking.md` rewritten.
pub(crate) const COOKING: &str = "# Lazy cooking\nNow about pasta only. #food\n";

/// Rewrites `cooking.md` (as [`COOKING`], modified at [`NOW`]) and removes
/// `archive/old.md`, in `files` and through `search` in one batch.
pub(crate) fn rewrite_cooking_drop_old(files: &MemFiles, search: &SearchIndex) {
    let note = parse_text("cooking.md", COOKING);
    let mut files_now = files.0.lock().unwrap();
    files_now.insert(
        "cooking.md".into(),
        NoteFile {
            bytes: COOKING.as_bytes().to_vec(),
            modified: Some(NOW),
            created: Some(NOW),
            stamp: Some(stamp(COOKING.len(), NOW)),
        },
    );
    files_now.remove("archive/old.md");
    drop(files_now);
    search
        .apply(
            vec![
                Change::Upsert(DocSource::of(&note)),
                Change::Remove("archive/old.md".into()),
            ],
            files,
        )
        .unwrap();
}

pub(crate) const NOW: i64 = 1_705_314_600; // 2024-01-15T10:30:00Z

pub(crate) const VAULT: &str = r#"
//- /projects/wiki-ai/mcp-ideas.md @1705000000
---
tags: [mcp, integration]
status: draft
---
# MCP Integration Ideas
Discussing MCP protocol options for the wiki. The model context protocol is neat.
//- /research/protocols.md @1704000000
---
tags: [research]
status: done
---
# Protocol Research
The Model Context Protocol (MCP) provides tools. Running servers is easy.
//- /meetings/2024-01-15.md @1705300000
# Meeting Notes Jan 15
Decided to use MCP as primary interface. #meeting #vc/project
//- /archive/old.md @1600000000
---
tags: [mcp, archived]
---
# Old MCP thoughts
Obsolete.
//- /cooking.md @1705310000
# Lazy cooking
The lazy dog runs to the kitchen. #vc
"#;

/// The vault index's say on a note the full text cannot decide (what the
/// tools pass: `Filter::matches` with the file's times).
pub(crate) fn judge(f: &Fixture) -> impl Fn(&str, &Filter) -> bool + '_ {
    move |path, filter| {
        let file = f.files.read(path);
        let meta = FileMeta {
            modified: file.as_ref().and_then(|n| n.modified),
            created: file.as_ref().and_then(|n| n.created),
        };
        f.vault
            .id_of(path)
            .is_some_and(|id| filter.matches(&f.vault, id, &meta))
    }
}

/// The paths `query` finds among the notes `filter` passes; the
/// frontmatter keys it may name are the vault's.
fn paths(f: &Fixture, query: Option<&str>, filter: &Filter, sort: Sort) -> Vec<String> {
    let keys = f.vault.frontmatter_keys();
    f.search
        .find(
            &Request {
                query,
                filter,
                judge: &judge(f),
                keys: &keys,
                types: &weft_vault::props::Types::default(),
                sort,
                offset: 0,
                limit: 50,
                snippet_chars: 0,
                now: crate::clock::Now::utc(NOW),
            },
            &f.files,
        )
        .unwrap_or_else(|e| panic!("{query:?}: {e:?}"))
        .hits
        .into_iter()
        .map(|h| h.path)
        .collect()
}

pub(crate) fn q(f: &Fixture, query: &str) -> Vec<String> {
    let mut out = paths(f, Some(query), &Filter::All, Sort::Relevance);
    out.sort();
    out
}

#[test]
fn words_phrases_fields_and_stems() {
    let f = fixture(VAULT);
    assert_eq!(
        q(&f, "mcp"),
        [
            "archive/old.md",
            "meetings/2024-01-15.md",
            "projects/wiki-ai/mcp-ideas.md",
            "research/protocols.md"
        ]
    );
    assert_eq!(
        q(&f, "\"model context protocol\""),
        ["projects/wiki-ai/mcp-ideas.md", "research/protocols.md"]
    );
    assert_eq!(q(&f, "title:meeting"), ["meetings/2024-01-15.md"]);
    // Stems: "running" finds "runs" and "Running".
    assert_eq!(q(&f, "running"), ["cooking.md", "research/protocols.md"]);
    // The path's words count.
    assert_eq!(q(&f, "wiki"), ["projects/wiki-ai/mcp-ideas.md"]);
    assert_eq!(q(&f, "file:wiki-ai"), ["projects/wiki-ai/mcp-ideas.md"]);
    // Title matches rank first.
    let ranked = paths(&f, Some("protocol"), &Filter::All, Sort::Relevance);
    assert_eq!(ranked[0], "research/protocols.md");
}

#[test]
fn tags_folders_properties_and_dates() {
    let f = fixture(VAULT);
    assert_eq!(q(&f, "tag:research"), ["research/protocols.md"]);
    // Hierarchical: vc matches vc/project.
    assert_eq!(q(&f, "tag:vc"), ["cooking.md", "meetings/2024-01-15.md"]);
    assert_eq!(q(&f, "#VC/Project"), ["meetings/2024-01-15.md"]);
    assert_eq!(q(&f, "folder:projects"), ["projects/wiki-ai/mcp-ideas.md"]);
    assert_eq!(
        q(&f, "path:projects/wiki-ai/"),
        ["projects/wiki-ai/mcp-ideas.md"]
    );
    assert_eq!(q(&f, "status:draft"), ["projects/wiki-ai/mcp-ideas.md"]);
    assert_eq!(
        q(&f, "status:*"),
        ["projects/wiki-ai/mcp-ideas.md", "research/protocols.md"]
    );
    assert_eq!(
        q(&f, "modified:[2024-01-10 TO now]"),
        [
            "cooking.md",
            "meetings/2024-01-15.md",
            "projects/wiki-ai/mcp-ideas.md"
        ]
    );
    assert_eq!(
        q(&f, "modified:>=now-1d"),
        ["cooking.md", "meetings/2024-01-15.md"]
    );
    assert_eq!(q(&f, "modified:2023"), ["research/protocols.md"]);
    assert_eq!(q(&f, "created:<2021-01-01"), ["archive/old.md"]);
}

#[test]
fn negation_works_in_every_form() {
    // tantivy 0.27's own parser returns nothing for `a AND NOT b`
    // (quickwit-oss/tantivy#1980); ours rewrites it to `a -b`.
    let f = fixture(VAULT);
    let expected = ["cooking.md"];
    assert_eq!(q(&f, "lazy AND NOT title:protocol"), expected);
    assert_eq!(q(&f, "lazy -title:protocol"), expected);
    assert_eq!(
        q(&f, "mcp -tag:archived"),
        [
            "meetings/2024-01-15.md",
            "projects/wiki-ai/mcp-ideas.md",
            "research/protocols.md"
        ]
    );
    assert_eq!(
        q(&f, "(tag:research OR tag:meeting) AND NOT mcp"),
        Vec::<String>::new()
    );
    assert_eq!(
        q(&f, "(tag:research OR tag:vc) AND NOT tag:meeting"),
        ["cooking.md", "research/protocols.md"]
    );
    assert_eq!(q(&f, "NOT mcp"), ["cooking.md"]);
    assert_eq!(q(&f, "-mcp"), ["cooking.md"]);
    assert_eq!(q(&f, "lazy OR -mcp"), ["cooking.md"]);
}

/// Regression (found by the `search_query` fuzz target): an excluded
/// phrase made tantivy 0.27 fail a debug assertion (its phrase scorer is
/// asked, by the exclusion, for a document before its own); release builds
/// answered right. Test builds now run tantivy without its debug assertions
/// (the workspace's `Cargo.toml`), and the answers are checked here.
#[test]
fn an_excluded_phrase_leaves_the_other_notes() {
    let f = fixture(VAULT);
    let all = [
        "archive/old.md",
        "cooking.md",
        "meetings/2024-01-15.md",
        "projects/wiki-ai/mcp-ideas.md",
        "research/protocols.md",
    ];
    assert_eq!(q(&f, "-\"context protocol\""), [all[0], all[1], all[2]]);
    assert_eq!(q(&f, "-\"lazy dog\""), [all[0], all[2], all[3], all[4]]);
    assert_eq!(
        q(&f, "mcp -\"primary interface\""),
        [all[0], all[3], all[4]]
    );
    assert_eq!(q(&f, "-\"dog lazy\""), all);
    assert_eq!(q(&f, "-\"lazy lazy\""), all);
}

#[test]
fn filters_combine_with_the_query() {
    let f = fixture(VAULT);
    let filter = Filter::Tag("mcp".into());
    let mut got = paths(&f, Some("protocol"), &filter, Sort::Relevance);
    got.sort();
    assert_eq!(got, ["projects/wiki-ai/mcp-ideas.md"]);
    let filter = Filter::And(vec![
        Filter::any_of(vec![
            Filter::Tag("research".into()),
            Filter::Tag("archived".into()),
        ]),
        Filter::Modified(TimeRange {
            from: Some(1_650_000_000),
            to: None,
        }),
    ]);
    assert_eq!(
        paths(&f, None, &filter, Sort::Modified),
        ["research/protocols.md"]
    );
    let filter = Filter::property_in("Status", &[Value::of_text("DONE"), Value::of_text("x")]);
    assert_eq!(
        paths(&f, None, &filter, Sort::Alpha),
        ["research/protocols.md"]
    );
    let filter = Filter::Folder(Folder::new("/meetings/").unwrap());
    assert_eq!(
        paths(&f, Some("mcp"), &filter, Sort::Relevance),
        ["meetings/2024-01-15.md"]
    );
    let filter = Filter::And(vec![
        Filter::Paths(["cooking.md".into(), "archive/old.md".into()].into()),
        Filter::Not(Box::new(Filter::Paths(["archive/old.md".into()].into()))),
    ]);
    assert_eq!(paths(&f, None, &filter, Sort::Alpha), ["cooking.md"]);
    let nothing = Filter::Paths(Default::default());
    assert!(paths(&f, Some("mcp"), &nothing, Sort::Relevance).is_empty());
}

/// The notes `query` finds, by path.
fn sorted(f: &Fixture, query: &str) -> Vec<String> {
    let mut out = paths(f, Some(query), &Filter::All, Sort::Alpha);
    out.sort();
    out
}

/// What the full text cannot answer (a property's value by type, under
/// `or` and `not` too) the judge decides, the same as everywhere.
#[test]
fn property_comparisons_are_judged_by_the_one_filter() {
    let f = fixture(
        r#"
//- /a.md
---
due: 2026-12-01
priority: 3
part_of: "[[Hub]]"
---
//- /b.md
---
due: 2027-01-15
priority: 1
part_of: "[[projects/Hub|the hub]]"
---
//- /c.md
---
due: soon
---
//- /projects/Hub.md
# Hub
"#,
    );
    let all = |q: &str| sorted(&f, q);
    assert_eq!(all("due:<2026-12-28"), ["a.md"]);
    assert_eq!(all("due:>=2026-12-01"), ["a.md", "b.md"]);
    assert_eq!(all("due:[2026-12-01 TO 2026-12-31]"), ["a.md"]);
    assert_eq!(all("priority:>=2"), ["a.md"]);
    assert_eq!(all("-priority:>=2 due:*"), ["b.md", "c.md"]);
    assert_eq!(all("priority:>=2 OR due:soon"), ["a.md", "c.md"]);
    // Both lead to `projects/Hub.md`, however written.
    assert_eq!(all("part_of:Hub"), ["a.md", "b.md"]);
    assert_eq!(all("part_of:\"[[projects/hub]]\""), ["a.md", "b.md"]);
}

/// A number, a date or yes/no equals by value however it is written: its
/// candidates come from one typed term (`index::typed_term`), and the
/// same value written otherwise is among them.
#[test]
fn typed_values_equal_by_value_however_written() {
    let f = fixture(
        r#"
//- /a.md
---
priority: 2
due: 2026-12-01
done: true
---
//- /b.md
---
priority: 2.0
due: 2026-12-01T00:00
done: "true"
---
//- /c.md
---
priority: "2"
due: "2026-12-01"
done: yes
---
//- /d.md
---
priority: 20
due: 2026-12-02
done: false
---
"#,
    );
    let all = |q: &str| sorted(&f, q);
    assert_eq!(all("priority:2"), ["a.md", "b.md", "c.md"]);
    assert_eq!(all("priority:2.0"), ["a.md", "b.md", "c.md"]);
    assert_eq!(all("priority:20"), ["d.md"]);
    assert_eq!(all("due:2026-12-01"), ["a.md", "b.md", "c.md"]);
    assert_eq!(all("done:true"), ["a.md", "b.md"]);
    assert_eq!(all("done:false"), ["d.md"]);
    // `yes` is text to THE note filter (as to YAML 1.2), so it is no `true`.
    assert_eq!(all("done:yes"), ["c.md"]);
}

#[test]
fn a_query_of_symbols_only_is_an_error() {
    let f = fixture(VAULT);
    for query in ["- [ ]", "📅", "???", "-- ??"] {
        let error = query_error(&f, query);
        match error {
            super::find::FindError::Query(q) => {
                assert!(q.message.contains("nothing to search for"), "{q}");
                assert!(q.nothing_to_search, "{q}");
            }
            other => panic!("{query}: {other:?}"),
        }
    }
}

#[test]
fn sorting_paging_and_cursors() {
    let f = fixture(VAULT);
    let all = Filter::All;
    assert_eq!(
        paths(&f, None, &all, Sort::Modified),
        [
            "cooking.md",
            "meetings/2024-01-15.md",
            "projects/wiki-ai/mcp-ideas.md",
            "research/protocols.md",
            "archive/old.md"
        ]
    );
    assert_eq!(paths(&f, None, &all, Sort::Alpha)[0], "archive/old.md");
    let page = |offset| {
        f.search
            .find(
                &Request {
                    query: Some("mcp"),
                    filter: &all,
                    judge: &judge(&f),
                    keys: &[],
                    types: &weft_vault::props::Types::default(),
                    sort: Sort::Relevance,
                    offset,
                    limit: 3,
                    snippet_chars: 0,
                    now: crate::clock::Now::utc(NOW),
                },
                &f.files,
            )
            .unwrap()
    };
    let (first, second) = (page(0), page(3));
    assert_eq!(
        (first.total, first.hits.len(), second.hits.len()),
        (4, 3, 1)
    );
    let cursor = cursor_for(3, fingerprint(&"mcp"));
    assert_eq!(offset_of(&cursor, fingerprint(&"mcp")), Ok(3));
    assert!(
        offset_of(&cursor, fingerprint(&"other"))
            .unwrap_err()
            .contains("different query")
    );
    assert!(offset_of("junk", 1).unwrap_err().contains("not a cursor"));
}

/// The snippet of the best hit of `query`, `chars` long at most.
fn first_snippet(f: &Fixture, query: &str, chars: usize) -> Option<String> {
    let request = Request {
        query: Some(query),
        filter: &Filter::All,
        judge: &judge(f),
        keys: &[],
        types: &weft_vault::props::Types::default(),
        sort: Sort::Relevance,
        offset: 0,
        limit: 5,
        snippet_chars: chars,
        now: crate::clock::Now::utc(NOW),
    };
    let page = f.search.find(&request, &f.files).unwrap();
    page.hits[0].snippet.clone()
}

#[test]
fn snippets_mark_the_match() {
    let f = fixture(VAULT);
    assert_eq!(
        first_snippet(&f, "kitchen", 60).as_deref(),
        Some("Lazy cooking The lazy dog runs to the **kitchen**. #vc")
    );
    // A match outside the body: the body's opening instead.
    assert_eq!(
        first_snippet(&f, "tag:research", 40).as_deref(),
        Some("Protocol Research The Model Context…")
    );
}

/// Why `query` cannot run on `f` (it must not).
fn query_error(f: &Fixture, query: &str) -> super::FindError {
    f.search
        .find(
            &Request {
                query: Some(query),
                filter: &Filter::All,
                judge: &judge(f),
                keys: &f.vault.frontmatter_keys(),
                types: &weft_vault::props::Types::default(),
                sort: Sort::Relevance,
                offset: 0,
                limit: 5,
                snippet_chars: 0,
                now: crate::clock::Now::utc(NOW),
            },
            &f.files,
        )
        .expect_err(query)
}

#[test]
fn query_errors_reach_the_caller() {
    let f = fixture(VAULT);
    let error = query_error(&f, "statsu:draft");
    match error {
        super::FindError::Query(e) => assert!(e.message.contains("`status:`"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn one_changed_note_is_one_update_and_equals_a_rebuild() {
    let f = fixture(VAULT);
    let text = COOKING;
    let mut vault = f.vault;
    let note = parse_text("cooking.md", text);
    vault.upsert(note);
    vault.remove("archive/old.md");
    rewrite_cooking_drop_old(&f.files, &f.search);
    let updated = Fixture {
        vault,
        files: f.files,
        search: f.search,
    };
    for query in [
        "kitchen",
        "pasta",
        "tag:food",
        "tag:vc",
        "mcp",
        "obsolete",
        "modified:>=now-1h",
        "NOT mcp",
    ] {
        let copy = updated.files.0.lock().unwrap().clone();
        let fresh_fixture = Fixture {
            vault: VaultIndex::new(),
            files: MemFiles(Mutex::new(copy)),
            search: SearchIndex::build(
                &updated
                    .vault
                    .notes()
                    .map(|(_, n)| DocSource::of(n))
                    .collect::<Vec<_>>(),
                &updated.files,
                &AtomicUsize::new(0),
            )
            .unwrap(),
        };
        assert_eq!(q(&updated, query), q(&fresh_fixture, query), "{query}");
    }
    assert_eq!(q(&updated, "pasta"), ["cooking.md"]);
    assert!(q(&updated, "kitchen").is_empty());
    assert!(q(&updated, "obsolete").is_empty());
    assert_eq!(updated.search.len(), 4);
    assert!(updated.search.meta("archive/old.md").is_none());
    assert_eq!(
        updated.search.meta("cooking.md").unwrap().modified,
        Some(NOW)
    );
}

#[test]
fn related_notes_combine_links_tags_and_text() {
    let f = fixture(
        r#"
//- /a.md
---
tags: [rust, search]
---
# Tantivy notes
Tantivy is a full text search engine library written in Rust. See [[b]].
//- /b.md
# Index design
Segments and postings. [[c]]
//- /c.md
# Postings
Postings lists.
//- /d.md
---
tags: [search]
---
# Lucene
Lucene is a full text search engine library written in Java.
//- /e.md
# Gardening
Tomatoes need sun.
//- /f.md
Links to [[a]] and [[c]].
"#,
    );
    let a = f.vault.id_of("a").unwrap();
    let found = related(
        &f.vault,
        Some(&f.search),
        &f.files,
        Subject::Note(a),
        &[],
        10,
        &|_| true,
    );
    let names: Vec<(String, Vec<String>)> = found
        .iter()
        .map(|r| (f.vault.note(r.note).id().to_string(), r.reasons.clone()))
        .collect();
    let get = |n: &str| names.iter().find(|x| x.0 == n).map(|x| x.1.clone());
    assert_eq!(get("b").unwrap()[0], "this note links to it", "{names:?}");
    assert!(
        get("f")
            .unwrap()
            .contains(&"links to this note".to_string())
    );
    assert!(
        get("c")
            .unwrap()
            .iter()
            .any(|r| r.starts_with("cited together by [[f]]")),
        "{names:?}"
    );
    let d = get("d").unwrap();
    assert!(d.contains(&"shared tags #search".to_string()), "{d:?}");
    assert!(d.contains(&"similar wording".to_string()), "{d:?}");
    assert!(get("e").is_none());
    assert!(get("a").is_none());
    // From a text.
    let found = related(
        &f.vault,
        Some(&f.search),
        &f.files,
        Subject::Text("A search engine in Java, like [[e]]. #search"),
        &[],
        10,
        &|id| f.vault.note(id).id() != "a",
    );
    let names: Vec<String> = found
        .iter()
        .map(|r| f.vault.note(r.note).id().to_string())
        .collect();
    assert!(names.contains(&"d".to_string()), "{names:?}");
    assert!(names.contains(&"e".to_string()), "{names:?}");
    assert!(!names.contains(&"a".to_string()));
    // Meaning given by the caller: a note no other signal finds, with
    // its share of the score; the closest of them weighs most.
    let e = f.vault.id_of("e").unwrap();
    let b = f.vault.id_of("b").unwrap();
    let found = related(
        &f.vault,
        Some(&f.search),
        &f.files,
        Subject::Note(a),
        &[(e, 0.9), (b, 0.5)],
        10,
        &|_| true,
    );
    let e_found = found.iter().find(|r| r.note == e).expect("e by meaning");
    assert_eq!(e_found.meaning, 1.0);
    assert!(e_found.score > 0.2 && e_found.links == 0.0, "{e_found:?}");
    assert!(found.iter().find(|r| r.note == b).unwrap().meaning < 0.01);
}
