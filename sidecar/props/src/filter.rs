//! `filter`: THE note filter answers alike wherever it is asked. For a
//! vault and a filter both made from the input (notes in folders, with
//! tags, nested tags, properties of every type including `[[link]]`
//! values, links and file times; and/or/not over folders, tags, property
//! tests, links, times, names, sizes and path sets), the vault index's
//! evaluation (`vault::filter::select`, what name search and hits found by
//! meaning use), the full text's compilation (`search::find`, with the
//! vault index judging what it cannot answer) and — where the filter can
//! be written in the query language — the parsed query, all select exactly
//! the same notes.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicUsize;

use arbitrary::{Arbitrary, Unstructured};

use weft_search::find::{Request, Sort};
use weft_search::{DocSource, FileSource, NoteFile, SearchIndex};
use weft_vault::VaultIndex;
use weft_vault::filter::{
    Cmp, FileMeta, Filter, Folder, SizeRange, Test, TimeRange, Value, select,
};
use weft_vault::parse::parse_text;
use weft_vault::props::Types;

/// 2026-11-28, for `now` in queries.
const NOW: i64 = 1_795_867_200;
const MAX_NOTES: usize = 12;
/// How deep a made filter nests (within `vault::filter::MAX_DEPTH`).
const MAX_DEPTH: usize = 4;

const FOLDERS: &[&str] = &[
    "",
    "projects",
    "proj",
    "projects/weft",
    "Projects/Old",
    "daily",
];
const NAMES: &[&str] = &["Hub", "plan", "Plan 2", "notes", "café", "Ideas"];
const TAGS: &[&str] = &["work", "work/weft", "Work/Old", "project", "proj", "x-y"];
const KEYS: &[&str] = &["status", "due", "priority", "part_of", "done", "tags_x"];
const VALUES: &[&str] = &[
    "active",
    "Active",
    "draft",
    "2026-12-01",
    "2026-12-28",
    "2027-01-15T09:30",
    "2026-12-01T00:00",
    "\"2026-12-28\"",
    "2",
    "2.0",
    "\"2\"",
    "3.5",
    "10",
    "-0",
    "true",
    "false",
    "\"true\"",
    "\"[[Hub]]\"",
    "\"[[projects/Hub|the hub]]\"",
    "\"[[plan]]\"",
    "[a, b]",
    "[\"[[Hub]]\", draft]",
    "",
];
const LITERALS: &[&str] = &[
    "active",
    "draft",
    "2026-12-01",
    "2026-12-28",
    "2",
    "2.0",
    "0",
    "3",
    "2026-12-01T00:00",
    "true",
    "[[Hub]]",
    "Hub",
    "projects/Hub",
    "a",
];

#[derive(Debug, Arbitrary)]
struct MadeNote {
    folder: u8,
    name: u8,
    tags: Vec<u8>,
    properties: Vec<(u8, u8)>,
    links: Vec<u8>,
    modified: u8,
    words: u8,
}

#[derive(Debug, Arbitrary)]
enum Made {
    All,
    And(Vec<Made>),
    Or(Vec<Made>),
    Not(Box<Made>),
    Folder(u8),
    Tag(u8),
    Exists(u8),
    Equals(u8, u8),
    Compare(u8, u8, u8),
    Contains(u8, u8),
    LinksTo(u8),
    LinkedFrom(u8),
    Modified(Option<u8>, Option<u8>),
    Name(u8),
    Size(Option<u16>, Option<u16>),
    Paths(Vec<u8>),
}

struct Vault {
    index: VaultIndex,
    search: SearchIndex,
    files: Files,
    paths: Vec<String>,
}

struct Files(Vec<(String, String, i64)>);

impl Files {
    fn time(&self, path: &str) -> Option<i64> {
        self.0.iter().find(|f| f.0 == path).map(|f| f.2)
    }
}

impl FileSource for Files {
    fn read(&self, path: &str) -> Option<NoteFile> {
        let (_, text, time) = self.0.iter().find(|f| f.0 == path)?;
        Some(NoteFile {
            bytes: text.clone().into_bytes(),
            modified: Some(*time),
            created: Some(*time),
            stamp: None,
        })
    }
}

fn pick<'a>(items: &[&'a str], choice: u8) -> &'a str {
    items[usize::from(choice) % items.len()]
}

fn day(choice: u8) -> i64 {
    NOW - i64::from(choice % 40) * 86_400
}

fn vault(notes: &[MadeNote]) -> Vault {
    let mut files: Vec<(String, String, i64)> = Vec::new();
    for note in notes.iter().take(MAX_NOTES) {
        let folder = pick(FOLDERS, note.folder);
        let name = pick(NAMES, note.name);
        let path = if folder.is_empty() {
            format!("{name}.md")
        } else {
            format!("{folder}/{name}.md")
        };
        if files.iter().any(|f| f.0.eq_ignore_ascii_case(&path)) {
            continue;
        }
        let mut text = String::new();
        let mut keys = BTreeSet::new();
        let properties: Vec<_> = note
            .properties
            .iter()
            .take(4)
            .filter(|(k, _)| keys.insert(pick(KEYS, *k)))
            .collect();
        if !properties.is_empty() {
            text.push_str("---\n");
            for (k, v) in properties {
                text.push_str(&format!("{}: {}\n", pick(KEYS, *k), pick(VALUES, *v)));
            }
            text.push_str("---\n");
        }
        text.push_str(&format!("# {name}\n"));
        for tag in note.tags.iter().take(3) {
            text.push_str(&format!("#{} ", pick(TAGS, *tag)));
        }
        for link in note.links.iter().take(3) {
            text.push_str(&format!("[[{}]] ", pick(NAMES, *link)));
        }
        text.push_str(&"word ".repeat(usize::from(note.words % 8)));
        text.push('\n');
        files.push((path, text, day(note.modified)));
    }
    let mut index = VaultIndex::new();
    for (path, text, _) in &files {
        index.upsert(parse_text(path, text));
    }
    index.set_types(&declared());
    let files = Files(files);
    let sources: Vec<DocSource> = index.notes().map(|(_, n)| DocSource::of(n)).collect();
    let search = SearchIndex::build(&sources, &files, &AtomicUsize::new(0))
        .expect("a small vault's full text builds");
    let paths = files.0.iter().map(|f| f.0.clone()).collect();
    Vault {
        index,
        search,
        files,
        paths,
    }
}

/// The types the made vault declares, as its `.obsidian/types.json` would:
/// a key of numbers declared text, and one of dates declared so.
fn declared() -> Types {
    Types::parse(r#"{"types": {"priority": "text", "due": "date"}}"#).expect("types.json")
}

/// The filter `made` describes in `vault` (`All` past the depth bound).
fn made_filter(vault: &Vault, made: &Made, depth: usize) -> Filter {
    let inner = |items: &[Made]| -> Vec<Filter> {
        if depth >= MAX_DEPTH {
            return Vec::new();
        }
        items
            .iter()
            .take(4)
            .map(|m| made_filter(vault, m, depth + 1))
            .collect()
    };
    let note = |choice: u8| {
        let path = &vault.paths[usize::from(choice) % vault.paths.len()];
        vault.index.id_of(path).expect("a note of the vault")
    };
    let key = |k: u8| -> Box<str> { pick(KEYS, k).into() };
    // Typed as a query types a literal for that key (`priority` is
    // declared text: `2` and `2.0` are then two values).
    let literal = |k: u8, v: u8| {
        Value::of_text_as(pick(LITERALS, v), vault.index.types().fixed(pick(KEYS, k)))
    };
    match made {
        Made::All => Filter::All,
        Made::And(items) => Filter::And(inner(items)),
        Made::Or(items) => Filter::Or(inner(items)),
        Made::Not(one) if depth < MAX_DEPTH => {
            Filter::Not(Box::new(made_filter(vault, one, depth + 1)))
        }
        Made::Not(_) => Filter::All,
        Made::Folder(f) => Filter::Folder(Folder::new(pick(FOLDERS, *f)).expect("a folder")),
        Made::Tag(t) => Filter::Tag(pick(TAGS, *t).into()),
        Made::Exists(k) => Filter::Property(key(*k), Test::Exists),
        Made::Equals(k, v) => Filter::Property(key(*k), Test::Equals(literal(*k, *v))),
        Made::Compare(k, c, v) => {
            let cmp = [
                Cmp::Less,
                Cmp::LessOrEqual,
                Cmp::Greater,
                Cmp::GreaterOrEqual,
            ][usize::from(*c) % 4];
            Filter::Property(key(*k), Test::Compare(cmp, literal(*k, *v)))
        }
        Made::Contains(k, v) => Filter::Property(key(*k), Test::Contains(literal(*k, *v))),
        Made::LinksTo(n) => Filter::LinksTo(note(*n)),
        Made::LinkedFrom(n) => Filter::LinkedFrom(note(*n)),
        Made::Modified(from, to) => Filter::Modified(TimeRange {
            from: from.map(day),
            to: to.map(day),
        }),
        Made::Name(n) => Filter::Name(pick(NAMES, *n).into()),
        Made::Size(min, max) => Filter::Size(SizeRange {
            min: min.map(|m| u64::from(m % 200)),
            max: max.map(|m| u64::from(m % 200)),
        }),
        Made::Paths(choices) => Filter::Paths(
            choices
                .iter()
                .take(4)
                .map(|c| {
                    vault.paths[usize::from(*c) % vault.paths.len()]
                        .as_str()
                        .into()
                })
                .collect(),
        ),
    }
}

/// The filter in the query language, when every part of it has a form
/// there.
fn query(filter: &Filter) -> Option<String> {
    let quote = |t: &str| format!("\"{}\"", t.replace('"', ""));
    Some(match filter {
        Filter::And(items) if !items.is_empty() => format!(
            "({})",
            items
                .iter()
                .map(query)
                .collect::<Option<Vec<_>>>()?
                .join(" ")
        ),
        Filter::Or(items) if !items.is_empty() => format!(
            "({})",
            items
                .iter()
                .map(query)
                .collect::<Option<Vec<_>>>()?
                .join(" OR ")
        ),
        Filter::Not(one) => format!("-{}", query(one)?),
        Filter::Folder(folder) if !folder.is_root() => format!("folder:{}", quote(folder.shown())),
        Filter::Tag(tag) => format!("tag:{}", quote(tag)),
        Filter::Property(key, Test::Exists) => format!("{key}:*"),
        Filter::Property(key, Test::Equals(value)) => format!("{key}:{}", quote(&text(value)?)),
        Filter::Property(key, Test::Compare(cmp, value)) => {
            let op = match cmp {
                Cmp::Less => "<",
                Cmp::LessOrEqual => "<=",
                Cmp::Greater => ">",
                Cmp::GreaterOrEqual => ">=",
            };
            let value = text(value)?;
            if value.contains(['[', ' ']) {
                return None;
            }
            format!("{key}:{op}{value}")
        }
        _ => return None,
    })
}

/// A literal as the query writes it.
fn text(value: &Value) -> Option<String> {
    Some(match value {
        Value::Text(t) => t.to_string(),
        Value::Link(t) => format!("[[{t}]]"),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Date(d) => d.format("%Y-%m-%dT%H:%M:%S").to_string(),
        Value::List(_) | Value::Empty => return None,
    })
}

pub fn filter(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(notes) = Vec::<MadeNote>::arbitrary(&mut u) else {
        return;
    };
    let Ok(made) = Made::arbitrary(&mut u) else {
        return;
    };
    if notes.is_empty() {
        return;
    }
    let vault = vault(&notes);
    check(&vault, &made_filter(&vault, &made, 0));
}

/// The notes `filter` selects, asked every way, are the same.
fn check(vault: &Vault, filter: &Filter) {
    let meta = |path: &str| FileMeta {
        modified: vault.files.time(path),
        created: vault.files.time(path),
    };
    let expected: BTreeSet<String> = select(&vault.index, filter, |n| meta(&n.path))
        .into_iter()
        .map(|id| vault.index.note(id).path.to_string())
        .collect();
    let judge = |path: &str, f: &Filter| {
        vault
            .index
            .id_of(path)
            .is_some_and(|id| f.matches(&vault.index, id, &meta(path)))
    };
    let keys: Vec<String> = KEYS.iter().map(|k| k.to_string()).collect();
    let found = |query: Option<&str>, filter: &Filter| -> BTreeSet<String> {
        vault
            .search
            .find(
                &Request {
                    query,
                    filter,
                    judge: &judge,
                    keys: &keys,
                    types: vault.index.types(),
                    sort: Sort::Alpha,
                    offset: 0,
                    limit: MAX_NOTES + 1,
                    snippet_chars: 0,
                    now: weft_search::dates::Now {
                        unix: NOW,
                        zone: weft_search::dates::Zone::System,
                    },
                },
                &vault.files,
            )
            .unwrap_or_else(|e| panic!("{filter:?} {query:?}: {e:?}"))
            .hits
            .into_iter()
            .map(|h| h.path)
            .collect()
    };
    assert_eq!(
        found(None, filter),
        expected,
        "the full text and the vault index differ on {filter:?}"
    );
    if let Some(q) = query(filter) {
        assert_eq!(
            found(Some(&q), &Filter::All),
            expected,
            "the query `{q}` and the filter {filter:?} differ"
        );
    }
}
