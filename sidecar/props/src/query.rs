//! `search_query`: any text as a search query (`search::query`). It parses
//! or fails with a message (a query of symbols only, which constrains
//! nothing, fails too); what parses compiles; searching a small
//! in-memory index with it gives a page or, exactly when it does not
//! parse, the parser's error, never an index failure. Every hit is a note
//! of the index, and no more hits than asked or found. Nesting is bounded
//! by the parser, so no query overflows the stack.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;

use weft_search::find::{FindError, Request, Sort};
use weft_search::query::{Compiler, Context, parse};
use weft_search::schema::schema;
use weft_search::{DocSource, FileSource, NoteFile, SearchIndex};
use weft_vault::filter::Filter;
use weft_vault::parse::parse_text;
use weft_vault::props::Types;

use crate::input::lossy;

/// 2024-01-15, for `now` in dates.
const NOW: i64 = 1_705_314_600;

/// [`NOW`] in a zone with summer time, so that days and dates in queries
/// go through the clock's zone arithmetic.
fn now() -> weft_search::dates::Now {
    weft_search::dates::Now {
        unix: NOW,
        zone: weft_search::dates::Zone::named("Europe/Berlin").expect("a zone"),
    }
}
const MAX_QUERY: usize = 2 << 10;

/// The searched vault: frontmatter keys, tags, folders, dates, words.
const VAULT: &str = r#"
//- /Welcome.md
---
title: Welcome
tags: [start, weft/docs]
status: draft
---
# Welcome
Notes link with [[Projects/Weft]] and #inline tags. The café is open.
//- /Projects/Weft.md
---
aliases: [The project]
type: project
status: active
due: 2024-02-01
---
# Weft
A language server and an MCP server for Markdown vaults. #project/weft
//- /Daily/2024-01-15.md
Met Ada about the rust plan. more rust, less glue.
"#;

struct Vault {
    search: SearchIndex,
    files: Files,
    paths: Vec<String>,
    keys: Vec<String>,
}

struct Files(HashMap<String, Vec<u8>>);

impl FileSource for Files {
    fn read(&self, path: &str) -> Option<NoteFile> {
        let bytes = self.0.get(path)?.clone();
        Some(NoteFile {
            bytes,
            modified: Some(NOW - 3600),
            created: Some(NOW - 86_400),
            stamp: None,
        })
    }
}

fn vault() -> &'static Vault {
    static VAULT_INDEX: OnceLock<Vault> = OnceLock::new();
    VAULT_INDEX.get_or_init(|| {
        let files = weft_vault::fixture::files(VAULT);
        let sources: Vec<DocSource> = files
            .iter()
            .map(|f| DocSource::of(&parse_text(&f.path, &f.text)))
            .collect();
        let files = Files(
            files
                .into_iter()
                .map(|f| (f.path, f.text.into_bytes()))
                .collect(),
        );
        let search = SearchIndex::build(&sources, &files, &AtomicUsize::new(0))
            .expect("the fixture's index builds");
        Vault {
            search,
            paths: files.0.keys().cloned().collect(),
            files,
            keys: ["status", "type", "due"].map(String::from).to_vec(),
        }
    })
}

pub fn search_query(data: &[u8]) {
    let query = lossy(data, MAX_QUERY);
    let query = query.trim();
    let vault = vault();
    let grammar = parse(
        query,
        &Context {
            now: now(),
            keys: &vault.keys,
            types: &Types::default(),
        },
    );
    // What the search reads: the grammar, and a query that constrains
    // something (`???` parses and names no note: an error too).
    let parsed = vault.search.parse_query(
        query,
        &Context {
            now: now(),
            keys: &vault.keys,
            types: &Types::default(),
        },
    );
    if grammar.is_err() {
        assert!(
            parsed.is_err(),
            "the search read a query the grammar refuses"
        );
    }
    match &parsed {
        Ok(expr) => {
            let (_, fields) = schema();
            let _ = Compiler { fields: &fields }.compile(expr);
        }
        Err(error) => assert!(
            !error.to_string().trim().is_empty(),
            "an error without a message"
        ),
    }
    let sort = [Sort::Relevance, Sort::Modified, Sort::Created, Sort::Alpha][data.len() % 4];
    let request = Request {
        query: Some(query),
        filter: &Filter::All,
        judge: &|_, _| true,
        keys: &vault.keys,
        types: &Types::default(),
        sort,
        offset: 0,
        limit: 2,
        snippet_chars: 40,
        now: now(),
    };
    match vault.search.find(&request, &vault.files) {
        Ok(page) => {
            assert!(
                parsed.is_ok() || query.is_empty(),
                "a query that does not parse was searched"
            );
            assert!(
                page.hits.len() <= page.total.min(2),
                "{} hits of {}",
                page.hits.len(),
                page.total
            );
            for hit in &page.hits {
                assert!(
                    vault.paths.contains(&hit.path),
                    "a hit outside the index: {}",
                    hit.path
                );
            }
        }
        Err(FindError::Query(error)) => assert!(
            parsed.is_err(),
            "the search refused a query that parses: {error}"
        ),
        Err(FindError::Internal(error)) => panic!("the query made the index fail: {error}"),
    }
}
