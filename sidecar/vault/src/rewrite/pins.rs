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
    let Some(moving) = Moving::new(index, moves, plan, texts) else {
        return Vec::new();
    };
    let arrivals = moving.arrivals();
    let arriving: HashSet<String> = arrivals.iter().flat_map(answers_to).collect();
    let (sources, to_moved) = moving.sources(&arriving);
    let found = moving.candidates(sources, &to_moved, &arriving);
    if found.list.is_empty() {
        return Vec::new();
    }
    let scratch = moving.after_the_move(arrivals, &found.keys);
    let mut pins = moving.pins(found, &scratch);
    verify_together(plan, &mut pins);
    pins
}

/// The notes a move moves, and the plan's texts and edits.
struct Moving<'a> {
    index: &'a VaultIndex,
    /// Each moving note's new path.
    note_moves: HashMap<NoteId, &'a str>,
    /// The texts the plan was made from: not read again.
    planned_texts: HashMap<&'a str, &'a FileEdits>,
    /// The plan's edits, by file and start.
    planned_edits: HashMap<(&'a str, usize), &'a Edit>,
    texts: &'a dyn TextSource,
}

/// A link that could go astray, and where it must lead.
struct Candidate {
    /// Where its note's text is in [`Candidates::read`].
    text_at: usize,
    link: Link,
    /// The target text after the plan (decoded).
    after: String,
    new_folder: String,
    expected: String,
}

/// The candidate links, the texts they were read from, and the keys their
/// targets after the plan use.
#[derive(Default)]
struct Candidates<'a> {
    read: Vec<(String, Cow<'a, str>)>,
    list: Vec<Candidate>,
    keys: HashSet<String>,
}

impl Candidates<'_> {
    /// Adds the keys a target written `after` in `new_folder` may answer to.
    fn add_keys(&mut self, new_folder: &str, after: &str) {
        let key = path_key(after.trim().trim_start_matches('/'));
        self.keys
            .insert(key.rsplit('/').next().unwrap_or(&key).to_string());
        self.keys.insert(key);
        if let Some(joined) = join_relative(new_folder, after.trim()) {
            let joined = path_key(&joined);
            self.keys
                .insert(joined.rsplit('/').next().unwrap_or(&joined).to_string());
        }
    }
}

/// A note whose links are looked at, before and after the move.
struct LinkSource<'s> {
    id: NoteId,
    path: &'s str,
    old_folder: &'s str,
    new_folder: &'s str,
    /// The note itself moves.
    moved: bool,
    /// Its links are the index's own (of this very text): whether one
    /// leads to a moved note is known without resolving it.
    indexed: bool,
    /// Where its text will be in [`Candidates::read`].
    text_at: usize,
}

/// Whether a link written `written` names an arriving note's name.
fn names_an_arrival(arriving: &HashSet<String>, written: &str) -> bool {
    let key = path_key(written.trim_start_matches('/'));
    let last = key.rsplit('/').next().unwrap_or(&key);
    arriving.contains(&key) || arriving.contains(last)
}

impl<'a> Moving<'a> {
    /// The notes among `moves`, or `None` when no note moves.
    fn new(
        index: &'a VaultIndex,
        moves: &'a [(String, String)],
        plan: &'a Plan,
        texts: &'a dyn TextSource,
    ) -> Option<Moving<'a>> {
        let note_moves: HashMap<NoteId, &str> = moves
            .iter()
            .filter(|(old, _)| is_note_path(old))
            .filter_map(|(old, new)| Some((index.id_of(old)?, new.as_str())))
            .collect();
        if note_moves.is_empty() {
            return None;
        }
        let planned_edits = plan
            .edits
            .iter()
            .flat_map(|f| {
                f.edits
                    .iter()
                    .map(move |e| ((f.path.as_str(), e.range.start), e))
            })
            .collect();
        Some(Moving {
            index,
            note_moves,
            planned_texts: plan.edits.iter().map(|f| (f.path.as_str(), f)).collect(),
            planned_edits,
            texts,
        })
    }

    /// A note's text before the move: the plan's, else read.
    fn text_of(&self, path: &str) -> Option<Cow<'a, str>> {
        match self.planned_texts.get(path) {
            Some(file) => Some(Cow::Borrowed(file.text.as_str())),
            None => self.texts.text(path).map(Cow::Owned),
        }
    }

    /// A note's path after the move.
    fn new_path(&self, id: NoteId) -> String {
        self.note_moves
            .get(&id)
            .map_or_else(|| self.index.note(id).path.to_string(), |p| p.to_string())
    }

    /// The moved notes as they will be: parsed at their new path.
    fn arrivals(&self) -> Vec<Note> {
        let mut arrivals: Vec<Note> = Vec::new();
        for (&id, new) in &self.note_moves {
            let old = &*self.index.note(id).path;
            let text = match self.planned_texts.get(old) {
                Some(file) => Some(file.apply()),
                None => self.texts.text(old),
            };
            if let Some(text) = text {
                arrivals.push(parse_text(new, &text));
            }
        }
        arrivals
    }

    /// Sources whose links could go astray, by path: the moved notes (their
    /// folder changes the tie-break), the notes linking to them, and those
    /// linking to staying notes that answer to an arriving name. With them,
    /// the links to moved notes.
    fn sources(&self, arriving: &HashSet<String>) -> (Vec<NoteId>, HashSet<LinkRef>) {
        let index = self.index;
        let (mut sources, to_moved) = moving_and_linking(index, self.note_moves.keys().copied());
        for id in staying_answering(index, &self.note_moves, arriving) {
            sources.extend(index.backlinks(id).into_iter().map(|r| r.source));
        }
        let mut sources: Vec<NoteId> = sources.into_iter().collect();
        sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
        (sources, to_moved)
    }

    /// Candidate links: those resolved today, with their text after the
    /// plan's edits. Links to notes that stay are left to the rules of
    /// [`Moving::candidate`]; links to moved notes are all checked, since a
    /// rewritten bare name can still meet another note of that name.
    fn candidates(
        &self,
        sources: Vec<NoteId>,
        to_moved: &HashSet<LinkRef>,
        arriving: &HashSet<String>,
    ) -> Candidates<'a> {
        let mut found = Candidates::default();
        // A hub's links are written a few ways from a few folders: each
        // (folder, target, kind) is resolved once, and each target after the
        // plan adds its keys once.
        let mut resolved: Memo<Option<NoteId>> = Memo::default();
        let mut keyed: HashSet<(String, String)> = HashSet::new();
        for source in sources {
            let path = self.index.note(source).path.to_string();
            let Some(text) = self.text_of(&path) else {
                continue;
            };
            let links = links_of(self.index, &path, &text);
            let new_source = self.new_path(source);
            let from = LinkSource {
                id: source,
                path: &path,
                old_folder: folder_of(&path),
                new_folder: folder_of(&new_source),
                moved: self.note_moves.contains_key(&source),
                indexed: matches!(links, Cow::Borrowed(_)),
                text_at: found.read.len(),
            };
            for (i, link) in links.iter().enumerate() {
                let Some(candidate) =
                    self.candidate(&from, i, link, to_moved, arriving, &mut resolved)
                else {
                    continue;
                };
                if keyed.insert((candidate.new_folder.clone(), candidate.after.clone())) {
                    found.add_keys(&candidate.new_folder, &candidate.after);
                }
                found.list.push(candidate);
            }
            found.read.push((path, text));
        }
        found
    }

    /// The `i`th link of `from`, if the move could send it elsewhere.
    fn candidate(
        &self,
        from: &LinkSource,
        i: usize,
        link: &Link,
        to_moved: &HashSet<LinkRef>,
        arriving: &HashSet<String>,
        resolved: &mut Memo<Option<NoteId>>,
    ) -> Option<Candidate> {
        if link.is_self_link() {
            return None;
        }
        let written = link.target().trim();
        let relative = written.starts_with("./") || written.starts_with("../");
        let link_ref = LinkRef {
            source: from.id,
            link: i as u32,
        };
        if from.indexed
            && !from.moved
            && !to_moved.contains(&link_ref)
            && (relative || !names_an_arrival(arriving, written))
        {
            // It leads to a note that stays and no arrival can capture it
            // (the test below, known before resolving).
            return None;
        }
        let to = resolved.get_or(from.old_folder, link.target(), link.kind, || {
            self.index
                .resolve(from.old_folder, link.target(), link.kind)
                .note()
        })?;
        let target_moved = self.note_moves.contains_key(&to);
        // A relative link is an exact path, which no arrival changes.
        if !target_moved && (relative || (!from.moved && !names_an_arrival(arriving, written))) {
            return None;
        }
        Some(Candidate {
            text_at: from.text_at,
            link: link.clone(),
            after: self.target_after(from.path, link, written),
            new_folder: from.new_folder.to_string(),
            expected: self.new_path(to),
        })
    }

    /// A link's target text after the plan's edits (decoded).
    fn target_after(&self, path: &str, link: &Link, written: &str) -> String {
        match self
            .planned_edits
            .get(&(path, link.target_span.start as usize))
        {
            Some(edit) if link.kind == LinkKind::Markdown => percent_decode_str(&edit.new_text)
                .decode_utf8_lossy()
                .into_owned(),
            Some(edit) => edit.new_text.clone(),
            None => written.to_string(),
        }
    }

    /// The state after the move, for the names the candidate links use:
    /// the staying notes answering to `keys` and the arrivals.
    fn after_the_move(&self, arrivals: Vec<Note>, keys: &HashSet<String>) -> VaultIndex {
        let mut scratch = VaultIndex::new();
        for id in staying_answering(self.index, &self.note_moves, keys) {
            scratch.upsert(self.index.note(id).clone());
        }
        for note in arrivals {
            scratch.upsert(note);
        }
        scratch
    }

    /// The candidates that would lead elsewhere after the move (`scratch`),
    /// each once, pinned.
    fn pins(&self, found: Candidates<'a>, scratch: &VaultIndex) -> Vec<Pin> {
        let moved_paths: HashSet<&str> = self.note_moves.values().copied().collect();
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
        for c in found.list {
            let (path, text) = &found.read[c.text_at];
            let now = after(&c.new_folder, &c.after, c.link.kind);
            if now.as_deref() == Some(c.expected.as_str()) {
                continue;
            }
            if !seen.insert((path.clone(), c.link.target_span.start as usize)) {
                continue;
            }
            pins.push(pin(path, text, c, now, &mut after, &moved_paths));
        }
        pins
    }
}

/// The pin of a candidate link in `path` (its `text`) that would lead to
/// `now` after the move, verified alone: it leads to its target after the
/// move (asked of `after`), and writing it leaves the note's links standing.
/// `moved_paths` are the moved notes' new paths.
fn pin(
    path: &str,
    text: &str,
    c: Candidate,
    now: Option<String>,
    after: &mut dyn FnMut(&str, &str, LinkKind) -> Option<String>,
    moved_paths: &HashSet<&str>,
) -> Pin {
    let range = c.link.target_span.start as usize..c.link.target_span.end as usize;
    let written = &text[range.clone()];
    let angle = text[..range.start].ends_with('<');
    let (new_text, plain) = pinned(&c.link, written, angle, &c.new_folder, &c.expected);
    let edit = Edit { range, new_text };
    let alone = FileEdits {
        path: path.to_string(),
        text: text.to_string(),
        edits: vec![edit.clone()],
    };
    let verified = after(&c.new_folder, &plain, c.link.kind).as_deref()
        == Some(c.expected.as_str())
        && verify(&alone, None, Check::LinkTargets).is_ok();
    Pin {
        path: path.to_string(),
        text: alone.text,
        edit,
        to_moved: moved_paths.contains(c.expected.as_str()),
        target: c.expected,
        captured_by: now,
        verified,
    }
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
