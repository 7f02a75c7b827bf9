//! The full-text index on disk: reused as it was left (documents, side
//! table, later changes), refused when it cannot be trusted, never touched
//! while another process writes it, and compared with the files' stamps.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;

use super::fixture::{Fixture, fixture, stamp};
use super::index::{Change, DocSource, SearchIndex};
use super::persist::Unusable;
use super::schema;
use super::tests::{NOW, VAULT, q, rewrite_cooking_drop_old};
use weft_vault::parse::parse_text;

const BUILD: &str = "0.1.0-test";

fn sources(f: &Fixture) -> Vec<DocSource> {
    f.vault.notes().map(|(_, n)| DocSource::of(n)).collect()
}

/// The fixture's vault with its full text built in `dir`.
fn persisted(dir: &std::path::Path) -> Fixture {
    let mut f = fixture(VAULT);
    f.search =
        SearchIndex::build_in(dir, BUILD, &sources(&f), &f.files, &AtomicUsize::new(0)).unwrap();
    f
}

fn reopened(f: Fixture, dir: &std::path::Path) -> Fixture {
    drop(f.search);
    Fixture {
        search: SearchIndex::open(dir, BUILD).unwrap(),
        ..f
    }
}

const QUERIES: &[&str] = &[
    "mcp",
    "protocol",
    "tag:research",
    "status:draft",
    "modified:>=2024-01-10",
    "NOT mcp",
    "pasta",
];

#[test]
fn a_reopened_index_answers_as_it_was_left_changes_included() {
    let dir = tempfile::tempdir().unwrap();
    let f = persisted(dir.path());
    let before: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    let metas: Vec<_> = f
        .vault
        .notes()
        .map(|(_, n)| f.search.meta(&n.path))
        .collect();
    let f = reopened(f, dir.path());
    let after: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_eq!(before, after);
    assert_eq!(
        metas,
        f.vault
            .notes()
            .map(|(_, n)| f.search.meta(&n.path))
            .collect::<Vec<_>>()
    );
    assert!(f.search.meta("cooking.md").unwrap().stamp.is_some());

    // A change kept in step on disk is there after the next reopening.
    rewrite_cooking_drop_old(&f.files, &f.search);
    let changed: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    let f = reopened(f, dir.path());
    assert_eq!(
        changed,
        QUERIES.iter().map(|query| q(&f, query)).collect::<Vec<_>>()
    );
    assert_eq!(q(&f, "pasta"), ["cooking.md"]);
    assert!(f.search.meta("archive/old.md").is_none());
    assert_eq!(f.search.len(), 4);
}

#[test]
fn an_index_that_cannot_be_trusted_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        SearchIndex::open(dir.path(), BUILD).unwrap_err(),
        Unusable::Missing
    );
    let f = persisted(dir.path());
    drop(f.search);
    match SearchIndex::open(dir.path(), "0.2.0-other").unwrap_err() {
        Unusable::Invalid(why) => assert!(why.contains("0.1.0-test"), "{why}"),
        other => panic!("{other:?}"),
    }
    // One byte of a live segment's postings flipped: tantivy's checksum
    // sees it.
    let (live, _) = segment_files(dir.path());
    let postings = live
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .unwrap();
    let mut bytes = std::fs::read(postings).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(postings, bytes).unwrap();
    match SearchIndex::open(dir.path(), BUILD).unwrap_err() {
        Unusable::Invalid(why) => assert!(why.contains("damaged"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Built again in the same folder, it is whole again.
    let f = persisted(dir.path());
    let f = reopened(f, dir.path());
    assert_eq!(f.search.len(), 5);
}

#[test]
fn an_index_another_process_writes_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let f = persisted(dir.path());
    assert_eq!(
        SearchIndex::open(dir.path(), BUILD).unwrap_err(),
        Unusable::InUse
    );
    let err = SearchIndex::build_in(
        dir.path(),
        BUILD,
        &sources(&f),
        &f.files,
        &AtomicUsize::new(0),
    )
    .unwrap_err();
    assert!(err.to_string().contains("lock"), "{err}");
    // The writer's index is untouched.
    assert_eq!(f.search.len(), 5);
    let f = reopened(f, dir.path());
    assert_eq!(f.search.len(), 5);
}

#[test]
fn notes_out_of_step_are_those_whose_stamps_differ_or_cannot_be_trusted() {
    let f = fixture(VAULT);
    let mut notes: Vec<(Box<str>, Option<weft_vault::stamp::Stamp>)> = f
        .vault
        .notes()
        .map(|(_, n)| (n.path.clone(), f.search.meta(&n.path).unwrap().stamp))
        .collect();
    assert!(f.search.out_of_step(&notes).unwrap().is_empty());
    let at =
        |notes: &[(Box<str>, _)], path: &str| notes.iter().position(|(p, _)| &**p == path).unwrap();
    // Changed size; read from a buffer; gone; new.
    let i = at(&notes, "cooking.md");
    notes[i].1.as_mut().unwrap().size += 1;
    let i = at(&notes, "research/protocols.md");
    notes[i].1 = None;
    let i = at(&notes, "archive/old.md");
    notes.remove(i);
    notes.push(("new.md".into(), Some(stamp(3, NOW))));
    assert_eq!(
        f.search.out_of_step(&notes).unwrap(),
        [
            "archive/old.md",
            "cooking.md",
            "new.md",
            "research/protocols.md"
        ]
    );
}

#[test]
fn a_racy_stamp_is_always_read_again() {
    let f = fixture("//- /a.md @1700000000\n# A\n//- /b.md @1700000000\n# B\n");
    let notes = ["a.md", "b.md"].map(|p| (Box::<str>::from(p), f.search.meta(p).unwrap().stamp));
    assert!(f.search.out_of_step(&notes).unwrap().is_empty());
    let mut file = f.files.0.lock().unwrap().get("a.md").cloned().unwrap();
    file.stamp.as_mut().unwrap().racy = true;
    f.files.0.lock().unwrap().insert("a.md".into(), file);
    let note = parse_text("a.md", "# A\n");
    f.search
        .apply(vec![Change::Upsert(DocSource::of(&note))], &f.files)
        .unwrap();
    let mut notes = notes.to_vec();
    notes[0].1.as_mut().unwrap().racy = true;
    assert_eq!(f.search.out_of_step(&notes).unwrap(), ["a.md"]);
}

#[test]
fn a_document_that_names_no_note_is_an_error_and_a_refill_mends_it() {
    let f = fixture(VAULT);
    let notes: Vec<(Box<str>, Option<weft_vault::stamp::Stamp>)> = f
        .vault
        .notes()
        .map(|(_, n)| (n.path.clone(), f.search.meta(&n.path).unwrap().stamp))
        .collect();
    let before: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    f.search.add_stray_document_for_tests("pasta pasta");
    assert_eq!(f.search.len(), notes.len() + 1);
    let err = f.search.out_of_step(&notes).unwrap_err();
    assert!(err.to_string().contains("names no note"), "{err}");
    f.search.refill(sources(&f), &f.files).unwrap();
    assert_eq!(f.search.len(), notes.len());
    assert!(f.search.out_of_step(&notes).unwrap().is_empty());
    let after: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_eq!(before, after);
}

/// At rest (its writer ended after a quiet while) the index still holds
/// its lock against other processes, answers as before, and takes the
/// next change through a writer made again, which persists as usual.
#[test]
fn an_index_at_rest_keeps_its_lock_and_takes_changes_again() {
    let dir = tempfile::tempdir().unwrap();
    let f = persisted(dir.path());
    let before: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert!(f.search.rest().unwrap(), "a writer to end");
    assert!(!f.search.rest().unwrap(), "already at rest");
    assert_eq!(
        SearchIndex::open(dir.path(), BUILD).unwrap_err(),
        Unusable::InUse,
        "still held at rest"
    );
    let after: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_eq!(before, after);

    rewrite_cooking_drop_old(&f.files, &f.search);
    let changed: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_ne!(before, changed, "the change is searched");
    assert!(f.search.rest().unwrap());
    let f = reopened(f, dir.path());
    let reopened: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_eq!(changed, reopened, "and was persisted");
}

/// The segment files in `dir`, sorted: those of the segments its last
/// commit names, and the other files tantivy made there (which no commit
/// names).
fn segment_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    use tantivy::index::SegmentComponent as C;
    let index = tantivy::Index::open_in_dir(dir).unwrap();
    let components = [
        C::Postings,
        C::Positions,
        C::Terms,
        C::Store,
        C::FastFields,
        C::FieldNorms,
        C::Delete,
    ];
    let named: HashSet<PathBuf> = index
        .searchable_segment_metas()
        .unwrap()
        .iter()
        .flat_map(|meta| components.clone().map(|c| meta.relative_path(c)))
        .collect();
    let mut live: Vec<PathBuf> = named
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.is_file())
        .collect();
    let mut others: Vec<PathBuf> = index
        .directory()
        .list_managed_files()
        .into_iter()
        .filter(|name| !named.contains(name) && name.as_os_str() != "meta.json")
        .map(|name| dir.join(name))
        .filter(|path| path.is_file())
        .collect();
    live.sort();
    others.sort();
    (live, others)
}

/// A process that ends while it writes a segment (a daemon stopped
/// mid-merge; here a writer dropped with a segment begun) leaves files no
/// commit names. The next open removes them, and answers as before.
#[test]
fn files_no_commit_names_are_removed_when_the_index_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let f = persisted(dir.path());
    let before: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    let Fixture {
        vault,
        files,
        search,
    } = f;
    drop(search);
    assert_eq!(segment_files(dir.path()).1, Vec::<PathBuf>::new());

    let index = tantivy::Index::open_in_dir(dir.path()).unwrap();
    schema::register(&index);
    let (_, fields) = schema::schema();
    let writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
    writer
        .add_document(tantivy::doc!(fields.body => "pasta never committed"))
        .unwrap();
    drop(writer);
    let (live, strays) = segment_files(dir.path());
    assert!(
        !strays.is_empty(),
        "the abandoned segment's files, beside {live:?}"
    );

    let f = Fixture {
        vault,
        files,
        search: SearchIndex::open(dir.path(), BUILD).unwrap(),
    };
    assert_eq!(segment_files(dir.path()), (live, Vec::new()));
    let after: Vec<Vec<String>> = QUERIES.iter().map(|query| q(&f, query)).collect();
    assert_eq!(before, after);
}
