//! `rename`: moving and renaming notes, attachments and folders
//! (`vault::rewrite`) in any small vault, written as an inline fixture
//! (`//- /path` starts a file). The plan's edits fit the texts they were
//! made on (sorted, apart, on character boundaries). Once they (with the
//! links the move would send elsewhere pinned, as every face does) and the
//! moves are carried out, every link that led to something moved leads to
//! it at its new place, and every other link is written as before, or
//! rewritten only so that it keeps leading where it did. Requests the
//! product refuses before planning (a name links could not hold, a folder
//! into itself, a place already taken) are not made.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use arbitrary::{Arbitrary, Unstructured};
use weft_vault::key::path_key;
use weft_vault::note::{Link, folder_of, is_note_path, strip_md};
use weft_vault::parse::parse_text;
use weft_vault::rewrite::{
    FileEdits, add_pins, captured_links, folder_moves, move_files, note_path_for,
};
use weft_vault::{NoteId, VaultIndex};

use crate::input::{nth, split};

/// Files of a vault: vault path → text.
type Files = BTreeMap<String, String>;

const MAX_FILES: usize = 8;

/// A folder or a file name: one the vault has, or any.
#[derive(Debug, Arbitrary)]
enum Name {
    Existing(u8),
    Own(String),
}

#[derive(Debug, Arbitrary)]
enum Request {
    MoveNote { note: u8, folder: Name, stem: Name },
    RenameNote { note: u8, name: Name },
    MoveAttachment { file: u8, folder: Name },
    MoveFolder { folder: u8, to: Name },
}

pub fn rename(data: &[u8]) {
    let (text, mut u) = split(data);
    let files = vault_files(&text);
    let index = index_of(&files);
    let Some(moves) = moves(&files, &index, &mut u) else {
        return;
    };
    let texts = |path: &str| files.get(path).cloned();
    // As every face moves: the plan, then the links it would send elsewhere
    // pinned.
    let mut plan = match move_files(&index, &moves, &texts) {
        Ok(plan) => plan,
        Err(error) => {
            assert!(!error.0.is_empty(), "a refusal without a message");
            return;
        }
    };
    let pins = captured_links(&index, &moves, &plan, &texts);
    add_pins(&mut plan, pins.iter().filter(|p| p.verified));
    assert_eq!(plan.moves, moves, "the plan's moves");
    let mut after = files.clone();
    for file in &plan.edits {
        check_edits(&files, file);
        after.insert(file.path.clone(), file.apply());
    }
    let moved: HashMap<&str, &str> = moves
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    for (old, new) in &moves {
        let text = after.remove(old).expect("a moved file is in the vault");
        after.insert(new.clone(), text);
    }
    let new_index = index_of(&after);
    for (id, note) in index.notes() {
        let path = moved.get(&*note.path).copied().unwrap_or(&note.path);
        let new_id = new_index.id_of(path).expect("a note is still in the vault");
        let new_note = new_index.note(new_id);
        assert_eq!(
            note.links.len(),
            new_note.links.len(),
            "the links of {} before and after:\n{:?}\n{:?}",
            note.path,
            files[&*note.path],
            after[path]
        );
        for (old_link, new_link) in note.links.iter().zip(&new_note.links) {
            let was = target(&index, id, old_link);
            let now = target(&new_index, new_id, new_link);
            let written = |files: &Files, path: &str, link: &Link| {
                files[path][link.span.start as usize..link.span.end as usize].to_string()
            };
            let (old_text, new_text) = (
                written(&files, &note.path, old_link),
                written(&after, path, new_link),
            );
            let context = || {
                format!(
                    "{old_text:?} in {} became {new_text:?} in {path}",
                    note.path
                )
            };
            if let Some(&to) = was.as_deref().and_then(|p| moved.get(p)) {
                assert_eq!(
                    now.as_deref(),
                    Some(to),
                    "a link to a moved file: {}",
                    context()
                );
            } else if old_text != new_text {
                assert!(
                    was.is_some() && now == was,
                    "a link that led to {was:?} was rewritten to lead to {now:?}: {}",
                    context()
                );
            }
        }
    }
}

/// The fixture's files whose paths a vault on disk could have, each path
/// once, at most [`MAX_FILES`].
fn vault_files(text: &str) -> Files {
    let mut seen = BTreeSet::new();
    weft_vault::fixture::files(text)
        .into_iter()
        .filter(|f| usable(&f.path) && seen.insert(path_key(&f.path)))
        .take(MAX_FILES)
        .map(|f| (f.path, f.text))
        .collect()
}

/// A path links can name: the rule for a note's new name, which for a
/// note must give the path back, and for any other file the path with
/// `.md` added.
fn usable(path: &str) -> bool {
    note_path_for("", path).is_ok_and(|p| p == path || p == format!("{path}.md"))
}

fn index_of(files: &Files) -> VaultIndex {
    let mut index = VaultIndex::new();
    for (path, text) in files {
        if is_note_path(path) {
            index.upsert(parse_text(path, text));
        } else {
            index.add_attachment(path);
        }
    }
    index
}

/// Where a link leads: a note's or an attachment's path.
fn target(index: &VaultIndex, source: NoteId, link: &Link) -> Option<String> {
    let resolution = index.resolve_link(source, link);
    match resolution.note() {
        Some(id) => Some(index.note(id).path.to_string()),
        None => match resolution {
            weft_vault::Resolution::Attachment(path) => Some(path.to_string()),
            _ => None,
        },
    }
}

/// The moves a request makes, when the product would plan them.
fn moves(
    files: &Files,
    index: &VaultIndex,
    u: &mut Unstructured<'_>,
) -> Option<Vec<(String, String)>> {
    let notes: Vec<&String> = files.keys().filter(|p| is_note_path(p)).collect();
    let attachments: Vec<&String> = files.keys().filter(|p| !is_note_path(p)).collect();
    let mut folders: Vec<String> = vec![String::new()];
    for path in files.keys() {
        let mut folder = folder_of(path);
        while !folder.is_empty() {
            folders.push(folder.to_string());
            folder = folder_of(folder);
        }
    }
    folders.sort();
    folders.dedup();
    let stems: Vec<&str> = notes
        .iter()
        .map(|p| strip_md(p.rsplit('/').next().unwrap_or(p)))
        .collect();
    let pick = |name: &Name, among: &[&str]| match name {
        Name::Existing(i) => nth(among, *i).map(|s| s.to_string()).unwrap_or_default(),
        Name::Own(own) => own.clone(),
    };
    let folder_names: Vec<&str> = folders.iter().map(String::as_str).collect();
    let join = |folder: &str, name: &str| {
        if folder.is_empty() {
            name.to_string()
        } else {
            format!("{folder}/{name}")
        }
    };
    let moves = match Request::arbitrary(u).ok()? {
        Request::MoveNote { note, folder, stem } => {
            let old = nth(&notes, note)?;
            let new = join(&pick(&folder, &folder_names), &pick(&stem, &stems));
            vec![(old.to_string(), note_path_for("", &new).ok()?)]
        }
        Request::RenameNote { note, name } => {
            let old = nth(&notes, note)?;
            vec![(
                old.to_string(),
                note_path_for(folder_of(old), &pick(&name, &stems)).ok()?,
            )]
        }
        Request::MoveAttachment { file, folder } => {
            let old = nth(&attachments, file)?;
            let name = old.rsplit('/').next().unwrap_or(old);
            vec![(old.to_string(), join(&pick(&folder, &folder_names), name))]
        }
        Request::MoveFolder { folder, to } => {
            let from = nth(&folders[1..], folder)?;
            let to = pick(&to, &folder_names);
            if to == *from || to.starts_with(&format!("{from}/")) {
                return None;
            }
            folder_moves(index, from, &to)
        }
    };
    let staying: BTreeSet<String> = files
        .keys()
        .filter(|p| !moves.iter().any(|(old, _)| old == *p))
        .map(|p| path_key(p))
        .collect();
    let fine = !moves.is_empty()
        && moves
            .iter()
            .all(|(old, new)| old != new && usable(new) && !staying.contains(&path_key(new)));
    fine.then_some(moves)
}

/// A note's edits fit its text: sorted, apart, on character boundaries.
fn check_edits(files: &Files, file: &FileEdits) {
    assert!(
        files.get(&file.path) == Some(&file.text),
        "edits to {} against another text",
        file.path
    );
    let mut at = 0;
    for edit in &file.edits {
        assert!(
            at <= edit.range.start && file.text.get(edit.range.clone()).is_some(),
            "edit {:?} of {} overlaps or is off the text's characters",
            edit.range,
            file.path
        );
        at = edit.range.end;
    }
}
