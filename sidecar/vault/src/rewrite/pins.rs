//! Keeping every link where it leads across a move. `moves` rewrites links
//! *to* what moves; this checks the outcome and covers what it cannot see:
//! a note arriving as `x/alpha.md` outranks (or ties with) the notes that
//! bare `[[alpha]]` links reach today, a note moving to another folder
//! changes the tie-break of its own bare links, and a rewritten bare name
//! can meet another note of that name. Such links are pinned to their
//! target with a path ([`captured_links`], then [`add_pins`]); every face
//! that moves notes (the agent's `move_note`, the editor's rename) asks
//! here. Both sides are answered by the one resolver (`VaultIndex`): the
//! state after the move is a small scratch index holding the notes that
//! could answer those links. No IO (texts come through `TextSource`), no
//! protocol.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use percent_encoding::percent_decode_str;

use super::moves::moving_and_linking;
use super::plan::{Check, Edit, FileEdits, Plan, verify};
use crate::index::{LinkRef, NoteId, VaultIndex};
use crate::key::{encode_path, join_relative, path_key, relative_path};
use crate::note::{Link, LinkKind, Note, folder_of, is_note_path, strip_md};
use crate::parse::parse_text;
use crate::query::{TextSource, links_of};

/// A link the move would capture, and its pinned form.
pub struct Pin {
    /// The note holding the link (path before the move).
    pub path: String,
    pub text: String,
    pub edit: Edit,
    /// Where the link must lead: its target now, at its new path if it moves.
    pub target: String,
    /// The target moves (the plan rewrites the link, but not well enough).
    pub to_moved: bool,
    /// Where it would lead after the move without the pin.
    pub captured_by: Option<String>,
    /// Whether the pinned form was checked to lead to `target` and, written,
    /// to leave the note's links standing.
    pub verified: bool,
}

/// The links that `moves` (with the edits of `plan`) would send to another
/// note than today, each with an edit pinning it to its current target.
pub fn captured_links(
    index: &VaultIndex,
    moves: &[(String, String)],
    plan: &Plan,
    texts: &dyn TextSource,
) -> Vec<Pin> {
    let note_moves: HashMap<NoteId, &str> = moves
        .iter()
        .filter(|(old, _)| is_note_path(old))
        .filter_map(|(old, new)| Some((index.id_of(old)?, new.as_str())))
        .collect();
    if note_moves.is_empty() {
        return Vec::new();
    }
    let moved_paths: HashSet<&str> = note_moves.values().copied().collect();
    // The texts the plan was made from: not read again.
    let planned_texts: HashMap<&str, &FileEdits> =
        plan.edits.iter().map(|f| (f.path.as_str(), f)).collect();
    let text_of = |path: &str| -> Option<Cow<'_, str>> {
        match planned_texts.get(path) {
            Some(file) => Some(Cow::Borrowed(file.text.as_str())),
            None => texts.text(path).map(Cow::Owned),
        }
    };
    let new_path = |id: NoteId| -> String {
        note_moves
            .get(&id)
            .map_or_else(|| index.note(id).path.to_string(), |p| p.to_string())
    };

    // The moved notes as they will be: parsed at their new path.
    let mut arrivals: Vec<Note> = Vec::new();
    for (&id, new) in &note_moves {
        let old = &*index.note(id).path;
        let text = match planned_texts.get(old) {
            Some(file) => Some(file.apply()),
            None => texts.text(old),
        };
        if let Some(text) = text {
            arrivals.push(parse_text(new, &text));
        }
    }
    let mut arriving: HashSet<String> = HashSet::new();
    for note in &arrivals {
        arriving.extend(answers_to(note));
    }

    // Sources whose links could go astray: the moved notes (their folder
    // changes the tie-break), the notes linking to them, and those linking
    // to staying notes that answer to an arriving name.
    // Whether a link written `written` names an arriving note's name.
    let names_an_arrival = |written: &str| {
        let key = path_key(written.trim_start_matches('/'));
        let last = key.rsplit('/').next().unwrap_or(&key);
        arriving.contains(&key) || arriving.contains(last)
    };
    let (mut sources, to_moved) = moving_and_linking(index, note_moves.keys().copied());
    for id in staying_answering(index, &note_moves, &arriving) {
        sources.extend(index.backlinks(id).into_iter().map(|r| r.source));
    }
    let mut sources: Vec<NoteId> = sources.into_iter().collect();
    sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));

    // Candidate links: those resolved today, with their text after the
    // plan's edits. Links to notes that stay are left to the rules below;
    // links to moved notes are all checked, since a rewritten bare name can
    // still meet another note of that name.
    struct Candidate {
        text_at: usize,
        link: Link,
        /// The target text after the plan (decoded).
        after: String,
        new_folder: String,
        expected: String,
    }
    let planned: HashMap<(&str, usize), &Edit> = plan
        .edits
        .iter()
        .flat_map(|f| {
            f.edits
                .iter()
                .map(move |e| ((f.path.as_str(), e.range.start), e))
        })
        .collect();
    let mut read: Vec<(String, Cow<'_, str>)> = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut keys: HashSet<String> = HashSet::new();
    // A hub's links are written a few ways from a few folders: each
    // (folder, target, kind) is resolved once, and each target after the
    // plan adds its keys once.
    let mut resolved: Memo<Option<NoteId>> = Memo::default();
    let mut keyed: HashSet<(String, String)> = HashSet::new();
    for source in sources {
        let path = index.note(source).path.to_string();
        let Some(text) = text_of(&path) else {
            continue;
        };
        let links = links_of(index, &path, &text);
        let old_folder = folder_of(&path);
        let new_source = new_path(source);
        let new_folder = folder_of(&new_source);
        let moved_source = note_moves.contains_key(&source);
        // The index's own links (of this very text): whether one leads to
        // a moved note is known without resolving it.
        let indexed = matches!(links, Cow::Borrowed(_));
        for (i, link) in links.iter().enumerate() {
            if link.is_self_link() {
                continue;
            }
            let written = link.target().trim();
            let relative = written.starts_with("./") || written.starts_with("../");
            let link_ref = LinkRef {
                source,
                link: i as u32,
            };
            if indexed
                && !moved_source
                && !to_moved.contains(&link_ref)
                && (relative || !names_an_arrival(written))
            {
                // It leads to a note that stays and no arrival can capture
                // it (the test below, known before resolving).
                continue;
            }
            let Some(to) = resolved.get_or(old_folder, link.target(), link.kind, || {
                index.resolve(old_folder, link.target(), link.kind).note()
            }) else {
                continue;
            };
            let target_moved = note_moves.contains_key(&to);
            let after = match planned.get(&(path.as_str(), link.target_span.start as usize)) {
                Some(edit) if link.kind == LinkKind::Markdown => percent_decode_str(&edit.new_text)
                    .decode_utf8_lossy()
                    .into_owned(),
                Some(edit) => edit.new_text.clone(),
                None => written.to_string(),
            };
            // A relative link is an exact path, which no arrival changes.
            if !target_moved && (relative || (!moved_source && !names_an_arrival(written))) {
                continue;
            }
            if keyed.insert((new_folder.to_string(), after.clone())) {
                let key = path_key(after.trim().trim_start_matches('/'));
                keys.insert(key.rsplit('/').next().unwrap_or(&key).to_string());
                keys.insert(key);
                if let Some(joined) = join_relative(new_folder, after.trim()) {
                    let joined = path_key(&joined);
                    keys.insert(joined.rsplit('/').next().unwrap_or(&joined).to_string());
                }
            }
            candidates.push(Candidate {
                text_at: read.len(),
                link: link.clone(),
                after,
                new_folder: new_folder.to_string(),
                expected: new_path(to),
            });
        }
        read.push((path, text));
    }
    if candidates.is_empty() {
        return Vec::new();
    }

    // The state after the move, for the names those links use.
    let mut scratch = VaultIndex::new();
    for id in staying_answering(index, &note_moves, &keys) {
        scratch.upsert(index.note(id).clone());
    }
    for note in arrivals {
        scratch.upsert(note);
    }
    let mut leads: Memo<Option<String>> = Memo::default();
    let mut after = |folder: &str, target: &str, kind: LinkKind| -> Option<String> {
        leads.get_or(folder, target, kind, || {
            scratch
                .resolve(folder, target, kind)
                .note()
                .map(|id| scratch.note(id).path.to_string())
        })
    };

    let mut pins = Vec::new();
    let mut seen: HashSet<(String, usize)> = HashSet::new();
    for c in candidates {
        let (path, text) = &read[c.text_at];
        let now = after(&c.new_folder, &c.after, c.link.kind);
        if now.as_deref() == Some(c.expected.as_str()) {
            continue;
        }
        let range = c.link.target_span.start as usize..c.link.target_span.end as usize;
        if !seen.insert((path.clone(), range.start)) {
            continue;
        }
        let written = &text[range.clone()];
        let angle = text[..range.start].ends_with('<');
        let (new_text, plain) = pinned(&c.link, written, angle, &c.new_folder, &c.expected);
        let edit = Edit { range, new_text };
        // It leads there, and writing it leaves the note's links standing.
        let alone = FileEdits {
            path: path.clone(),
            text: text.to_string(),
            edits: vec![edit.clone()],
        };
        let verified = after(&c.new_folder, &plain, c.link.kind).as_deref()
            == Some(c.expected.as_str())
            && verify(&alone, None, Check::LinkTargets).is_ok();
        pins.push(Pin {
            path: path.clone(),
            text: alone.text,
            edit,
            to_moved: moved_paths.contains(c.expected.as_str()),
            target: c.expected,
            captured_by: now,
            verified,
        });
    }
    verify_together(plan, &mut pins);
    pins
}

/// Pins each verified alone may break their note together (two backticks
/// written on one line make a code span): a note's verified pins, with the
/// plan's own edits of it, must leave its links standing and read back, or
/// none of them is verified.
fn verify_together(plan: &Plan, pins: &mut [Pin]) {
    let paths: HashSet<String> = pins
        .iter()
        .filter(|p| p.verified)
        .map(|p| p.path.clone())
        .collect();
    for path in paths {
        let mut note = Plan {
            edits: plan
                .edits
                .iter()
                .filter(|f| f.path == path)
                .cloned()
                .collect(),
            ..Plan::default()
        };
        add_pins(
            &mut note,
            pins.iter().filter(|p| p.verified && p.path == path),
        );
        let fine = note
            .edits
            .iter()
            .all(|file| verify(file, None, Check::LinkTargets).is_ok());
        if !fine {
            for pin in pins.iter_mut().filter(|p| p.path == path) {
                pin.verified = false;
            }
        }
    }
}

/// The notes that stay and answer to one of `keys` (by stem, alias or
/// title), each once.
fn staying_answering(
    index: &VaultIndex,
    note_moves: &HashMap<NoteId, &str>,
    keys: &HashSet<String>,
) -> BTreeSet<NoteId> {
    keys.iter()
        .flat_map(|key| index.answering_to(key))
        .filter(|id| !note_moves.contains_key(id))
        .collect()
}

/// The keys a note answers to: its stem, and its aliases and title.
fn answers_to(note: &Note) -> Vec<String> {
    let path = path_key(&note.path);
    let mut keys = vec![path.rsplit('/').next().unwrap_or(&path).to_string()];
    keys.extend(note.aliases.iter().map(|a| path_key(a)));
    keys.push(path_key(&note.title));
    keys
}

/// A target text that names `target` by its path, in the link's style: the
/// vault path for a wikilink in a folder, a relative path otherwise (a
/// relative path is never matched by name). Returns the text to write and
/// its decoded form.
fn pinned(link: &Link, written: &str, angle: bool, folder: &str, target: &str) -> (String, String) {
    let keep_md = written.trim().len() != strip_md(written.trim()).len();
    let shown = |p: &str| -> String {
        if keep_md {
            p.to_string()
        } else {
            strip_md(p).to_string()
        }
    };
    match link.kind {
        LinkKind::Wiki => {
            let text = if target.contains('/') {
                shown(target)
            } else {
                let rel = relative_path(folder, target);
                shown(&if rel.starts_with("../") {
                    rel
                } else {
                    format!("./{rel}")
                })
            };
            (text.clone(), text)
        }
        LinkKind::Markdown => {
            let rel = shown(&relative_path(folder, target));
            let text = if angle {
                rel.clone()
            } else {
                encode_path(&rel)
            };
            (text, rel)
        }
    }
}

/// Adds pin edits to the plan, next to its own edits of the same file.
pub fn add_pins<'p>(plan: &mut Plan, pins: impl Iterator<Item = &'p Pin>) {
    for pin in pins {
        match plan.edits.iter_mut().find(|f| f.path == pin.path) {
            Some(file) => {
                let overlaps = file.edits.iter().any(|e| {
                    e.range.start < pin.edit.range.end && pin.edit.range.start < e.range.end
                });
                if file.text != pin.text {
                    continue;
                }
                // A pin replaces the plan's own edit of that link.
                if let Some(edit) = file.edits.iter_mut().find(|e| e.range == pin.edit.range) {
                    edit.new_text = pin.edit.new_text.clone();
                } else if !overlaps {
                    file.edits.push(pin.edit.clone());
                    file.edits.sort_by_key(|e| (e.range.start, e.range.end));
                }
            }
            None => plan.edits.push(FileEdits {
                path: pin.path.clone(),
                text: pin.text.clone(),
                edits: vec![pin.edit.clone()],
            }),
        }
    }
    plan.edits.sort_by(|a, b| a.path.cmp(&b.path));
}

/// Answers by (folder, target as written, kind), each computed once.
struct Memo<T>(HashMap<(String, String, LinkKind), T>);

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo(HashMap::new())
    }
}

impl<T: Clone> Memo<T> {
    fn get_or(&mut self, folder: &str, target: &str, kind: LinkKind, f: impl FnOnce() -> T) -> T {
        let key = (folder.to_string(), target.to_string(), kind);
        self.0.entry(key).or_insert_with(f).clone()
    }
}
