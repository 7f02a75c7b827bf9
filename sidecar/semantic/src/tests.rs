//! The semantic index over real files with a tiny model in the real
//! format: loading, finding by meaning without a shared word, keeping in
//! step note by note, saving and refusing what cannot be trusted.

use std::path::Path;

use weft_search::DiskFiles;
use weft_vault::note::text_hash;

use crate::tiny::write_model;
use crate::{Model, SemanticIndex, Wanted};

/// Meanings: 0 vehicles, 1 food, 2 music, 3 weather.
const WORDS: &[(&str, usize)] = &[
    ("car", 0),
    ("automobile", 0),
    ("truck", 0),
    ("engine", 0),
    ("bread", 1),
    ("baking", 1),
    ("oven", 1),
    ("flour", 1),
    ("guitar", 2),
    ("song", 2),
    ("melody", 2),
    ("rain", 3),
    ("storm", 3),
];

fn model(dir: &Path) -> Model {
    write_model(&dir.join("model"), WORDS, 8).unwrap();
    Model::load(&dir.join("model")).unwrap()
}

fn vault(dir: &Path, notes: &[(&str, &str)]) -> (DiskFiles, Vec<Wanted>) {
    let root = dir.join("vault");
    for (path, text) in notes {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    (DiskFiles { root }, wanted(notes))
}

fn wanted(notes: &[(&str, &str)]) -> Vec<Wanted> {
    notes
        .iter()
        .map(|(p, t)| Wanted {
            path: (*p).into(),
            text_hash: text_hash(t),
        })
        .collect()
}

const NOTES: &[(&str, &str)] = &[
    ("garage.md", "# Garage\nMy car needs a new engine.\n"),
    (
        "kitchen.md",
        "# Kitchen\nIntro.\n## Sunday\nBaking bread in the oven with flour.\n",
    ),
    ("band.md", "# Band\nA guitar song.\n"),
];

#[test]
fn finds_by_meaning_without_a_shared_word_and_points_at_the_passage() {
    let dir = tempfile::tempdir().unwrap();
    let index = SemanticIndex::new(model(dir.path()));
    let (files, wanted) = vault(dir.path(), NOTES);
    let synced = index.sync(&wanted, &[], true, &files);
    assert_eq!(synced.embedded, 3);
    let got = index.closest("automobile truck", 2, &|_| true);
    assert_eq!(&*got[0].path, "garage.md", "{got:?}");
    assert!(got[0].score > 0.8, "{got:?}");
    let got = index.closest("melody", 1, &|_| true);
    assert_eq!(&*got[0].path, "band.md");
    // The passage is the section that holds the meaning, not the intro.
    let got = index.closest("baking", 1, &|_| true);
    let text = NOTES[1].1;
    let c = got[0].chunk;
    assert_eq!(
        &text[c.start as usize..c.end as usize],
        "## Sunday\nBaking bread in the oven with flour.\n"
    );
    // What the caller hides is never returned.
    let got = index.closest("automobile", 3, &|p| p != "garage.md");
    assert!(got.iter().all(|c| &*c.path != "garage.md"));
    // Notes close to a note as a whole, itself left out.
    let got = index.similar_to("garage.md", 3, &|_| true);
    assert!(got.iter().all(|c| &*c.path != "garage.md"));
}

#[test]
fn only_changed_notes_and_passages_are_embedded_again() {
    let dir = tempfile::tempdir().unwrap();
    let index = SemanticIndex::new(model(dir.path()));
    let (files, wanted) = vault(dir.path(), NOTES);
    index.sync(&wanted, &[], true, &files);
    // Nothing changed: nothing is read.
    let again = index.sync(&wanted, &[], true, &files);
    assert_eq!(again.embedded + again.chunks + again.removed, 0);
    // One section of one note changed: that passage alone.
    let changed = "# Kitchen\nIntro.\n## Sunday\nA storm and rain all day.\n";
    std::fs::write(files.root.join("kitchen.md"), changed).unwrap();
    let one = wanted_with(&wanted, "kitchen.md", changed);
    let synced = index.sync(&one, &[], false, &files);
    assert_eq!((synced.embedded, synced.chunks), (1, 1), "{synced:?}");
    assert_eq!(
        &*index.closest("weather storm", 1, &|_| true)[0].path,
        "kitchen.md"
    );
    // A note gone: its vectors go.
    let synced = index.sync(&[], &["band.md".to_string()], false, &files);
    assert_eq!(synced.removed, 1);
    assert!(
        index
            .closest("melody", 3, &|_| true)
            .iter()
            .all(|c| &*c.path != "band.md")
    );
    // A full sync drops what is not wanted.
    let synced = index.sync(&one[..1], &[], true, &files);
    assert_eq!(synced.removed, 1);
    assert_eq!(index.len(), 1);
}

fn wanted_with(all: &[Wanted], path: &str, text: &str) -> Vec<Wanted> {
    all.iter()
        .map(|w| Wanted {
            path: w.path.clone(),
            text_hash: if &*w.path == path {
                text_hash(text)
            } else {
                w.text_hash
            },
        })
        .filter(|w| &*w.path == path)
        .collect()
}

#[test]
fn saved_vectors_come_back_and_are_refused_when_not_trustworthy() {
    let dir = tempfile::tempdir().unwrap();
    let index = SemanticIndex::new(model(dir.path()));
    let (files, wanted) = vault(dir.path(), NOTES);
    index.sync(&wanted, &[], true, &files);
    let bytes = index.to_bytes();
    let back = SemanticIndex::from_bytes(model(dir.path()), &bytes).unwrap();
    assert!(!back.dirty());
    assert_eq!(back.stats(), index.stats());
    assert_eq!(
        back.closest("song", 1, &|_| true),
        index.closest("song", 1, &|_| true)
    );
    // Read back, nothing is embedded again.
    let synced = back.sync(&wanted, &[], true, &files);
    assert_eq!(synced.embedded, 0);
    // A flipped byte, a torn file, another format, another model.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let refused = |b: &[u8], m: Model| SemanticIndex::from_bytes(m, b).err().unwrap().1;
    assert!(refused(&flipped, model(dir.path())).contains("checksum"));
    assert!(refused(&bytes[..bytes.len() / 2], model(dir.path())).contains("checksum"));
    assert!(refused(b"WEFTVEC\0\x09\0\0\0\0\0\0\0", model(dir.path())).contains("format"));
    assert!(refused(b"junk", model(dir.path())).contains("not a Weft"));
    let other = dir.path().join("other");
    write_model(&other, &WORDS[..5], 8).unwrap();
    let other = Model::load(&other).unwrap();
    assert!(refused(&bytes, other).contains("another model"));
}

#[test]
fn a_model_folder_that_cannot_be_used_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let err = Model::load(&dir.path().join("none")).unwrap_err();
    assert!(err.0.contains("does not exist"), "{err}");
    write_model(&dir.path().join("m"), WORDS, 8).unwrap();
    std::fs::remove_file(dir.path().join("m/tokenizer.json")).unwrap();
    let err = Model::load(&dir.path().join("m")).unwrap_err();
    assert!(err.0.contains("tokenizer.json"), "{err}");
    write_model(&dir.path().join("m"), WORDS, 8).unwrap();
    std::fs::write(
        dir.path().join("m/model.safetensors"),
        b"\x10\0\0\0\0\0\0\0{not json}",
    )
    .unwrap();
    let err = Model::load(&dir.path().join("m")).unwrap_err();
    assert!(err.0.contains("cannot be used"), "{err}");
    // A truncated table.
    write_model(&dir.path().join("m"), WORDS, 8).unwrap();
    let full = std::fs::read(dir.path().join("m/model.safetensors")).unwrap();
    std::fs::write(
        dir.path().join("m/model.safetensors"),
        &full[..full.len() - 40],
    )
    .unwrap();
    assert!(Model::load(&dir.path().join("m")).is_err());
}
