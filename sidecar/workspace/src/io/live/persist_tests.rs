//! A vault opened from its snapshot and reconciled with the disk equals a
//! fresh build, whatever changed while no Weft ran: notes added, edited
//! (also to the same size, also within the clock tick of their last
//! change), deleted, moved, folders added and removed, attachments, and
//! the configuration's `exclude`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fastrand::Rng;

use super::LiveVault;
use crate::config::LiveConfig;
use crate::fixture::write_file;
use crate::io::snapshot;
use crate::sync::read;
use weft_vault::Note;

/// Every note, whole, and every attachment: the index is a function of them.
fn state(vault: &LiveVault) -> (Vec<Note>, Vec<String>) {
    let index = read(&vault.index);
    let mut notes: Vec<Note> = index.notes().map(|(_, n)| n.clone()).collect();
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    let mut attachments: Vec<String> = index.attachments().map(str::to_string).collect();
    attachments.sort();
    (notes, attachments)
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(time))
        .expect("set mtime");
}

fn note_text(rng: &mut Rng, len: usize) -> String {
    let words = [
        "alpha", "[[n1]]", "#tag", "[[n7#H]]", "beta", "[[gone]]", "^b1", "x",
    ];
    let mut text = format!("# N{}\n## H\n", rng.u32(..100));
    while text.len() < len {
        text.push_str(words[rng.usize(..words.len())]);
        text.push(if rng.u8(..5) == 0 { '\n' } else { ' ' });
    }
    text
}

/// The same length, other text (a change no size can see).
fn same_size(text: &str) -> String {
    text.chars()
        .map(|c| if c == 'a' { 'b' } else { c })
        .collect::<String>()
        .replacen("# N", "# M", 1)
}

fn reopened(root: &Path, bytes: &[u8]) -> LiveVault {
    let root = root.canonicalize().unwrap();
    let snapshot = snapshot::decode(bytes, "test", &root.to_string_lossy()).expect("readable");
    let config = Arc::new(LiveConfig::load(&root));
    let vault = LiveVault::open_from_snapshot(&root, config, snapshot).expect("opens");
    assert!(vault.status().ready, "served at once");
    vault.reconcile();
    vault
}

#[test]
fn snapshot_and_any_changes_made_meanwhile_equal_a_fresh_build() {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for seed in 0..30 {
        let mut rng = Rng::with_seed(seed);
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut notes: Vec<String> = Vec::new();
        for i in 0..rng.usize(5..25) {
            let rel = match rng.u8(..3) {
                0 => format!("n{i}.md"),
                1 => format!("d{}/n{i}.md", rng.u8(..3)),
                _ => format!("d0/e/n{i}.md"),
            };
            let len = rng.usize(10..200);
            write_file(root, &rel, note_text(&mut rng, len));
            notes.push(rel);
        }
        write_file(root, "img.png", "png");
        // Most files changed long ago; some just now (racy stamps).
        let recent: Vec<String> = notes.iter().filter(|_| rng.bool()).cloned().collect();
        for rel in &notes {
            if !recent.contains(rel) {
                set_mtime(&root.join(rel), hour_ago);
            }
        }
        let vault = LiveVault::open(root).unwrap();
        let bytes = vault.snapshot_bytes("test").unwrap();
        drop(vault);

        // Changes while no Weft runs.
        for step in 0..rng.usize(0..8) {
            let pick = notes[rng.usize(..notes.len())].clone();
            let path = root.join(&pick);
            match rng.u8(..8) {
                0 => {
                    let len = rng.usize(10..200);
                    write_file(root, &pick, note_text(&mut rng, len));
                }
                // Same size; for a racy stamp also the same time: only the
                // content tells.
                1 => {
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    let time = std::fs::metadata(&path).unwrap().modified().unwrap();
                    write_file(root, &pick, same_size(&text));
                    if recent.contains(&pick) {
                        set_mtime(&path, time);
                    }
                }
                2 => {
                    let _ = std::fs::remove_file(&path);
                }
                3 => {
                    let to = format!("moved/s{seed}-{step}.md");
                    if std::fs::metadata(&path).is_ok() {
                        std::fs::create_dir_all(root.join("moved")).unwrap();
                        std::fs::rename(&path, root.join(&to)).unwrap();
                        notes.push(to);
                    }
                }
                4 => {
                    let rel = format!("new/n{step}.md");
                    write_file(root, &rel, note_text(&mut rng, 50));
                    notes.push(rel);
                }
                5 => {
                    let _ = std::fs::remove_dir_all(root.join("d1"));
                }
                6 => {
                    if rng.bool() {
                        write_file(root, "doc.pdf", "%PDF");
                    } else {
                        let _ = std::fs::remove_file(root.join("img.png"));
                    }
                }
                _ => write_file(root, ".weft.toml", "exclude = [\"d2/**\"]\n"),
            }
        }
        let fresh = LiveVault::open(root).unwrap();
        let restored = reopened(root, &bytes);
        assert_eq!(state(&restored), state(&fresh), "seed {seed}");
    }
}

/// Regression guard for the stamps themselves: an untouched vault is read
/// again only for its racy files; a snapshot with no stamp for a note (an
/// editor's unsaved text) reads that note from disk.
#[test]
fn unchanged_files_are_not_read_again_and_unstamped_notes_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(root, "a.md", "# A\n[[b]]\n");
    write_file(root, "b.md", "# B\n");
    for rel in ["a.md", "b.md"] {
        set_mtime(
            &root.join(rel),
            SystemTime::now() - Duration::from_secs(3600),
        );
    }
    let vault = LiveVault::open(root).unwrap();
    // An editor's text for b.md: not the file's.
    let edited = weft_vault::parse::parse_text("b.md", "# B edited\n");
    vault.index_unsaved(edited, |index, note| index.upsert(note));
    let bytes = vault.snapshot_bytes("test").unwrap();
    let restored = reopened(root, &bytes);
    let changed = restored.reconcile();
    assert!(changed.is_empty(), "{changed:?}");
    let (notes, _) = state(&restored);
    assert_eq!(&*notes[1].title, "B", "the disk's b.md, not the editor's");
}

/// An editor opening a note as it is saved changes nothing: the index
/// keeps its generation (no snapshot to save again) and the note its
/// file's stamp (not read again on the next start).
#[test]
fn a_note_opened_as_saved_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(root, "a.md", "# A\n[[b]]\n");
    set_mtime(
        &root.join("a.md"),
        SystemTime::now() - Duration::from_secs(3600),
    );
    let vault = LiveVault::open(root).unwrap();
    let generation = read(&vault.index).generation();
    let same = weft_vault::parse::parse_text("a.md", "# A\n[[b]]\n");
    assert!(
        vault
            .index_unsaved(same, |index, note| index.upsert(note))
            .is_none()
    );
    assert_eq!(read(&vault.index).generation(), generation);
    assert!(vault.note_stamps()[0].1.is_some(), "the file's stamp stays");
    let other = weft_vault::parse::parse_text("a.md", "# A\n[[c]]\n");
    assert!(
        vault
            .index_unsaved(other, |index, note| index.upsert(note))
            .is_some()
    );
    assert!(read(&vault.index).generation() > generation);
    assert_eq!(
        vault.note_stamps()[0].1,
        None,
        "an editor's text has no stamp"
    );
}
