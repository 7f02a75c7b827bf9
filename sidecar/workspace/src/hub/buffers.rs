//! The editors' open buffers, from every editor session of the vault: the
//! truth for their notes while open, so the shared index (and with it every
//! agent and editor) sees what is typed before it is saved.
//!
//! A buffer is *unsaved* when its text differs from the file. A write by
//! Weft over an unsaved buffer is refused ([`crate::ops::WriteGuard`]); a
//! write over a saved one goes to disk and leaves that buffer *stale*
//! (older than the disk, until the editor reloads it and sends its text
//! again), and a stale buffer is neither indexed nor counted as unsaved.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::io::LiveVault;
use crate::sync::lock;
use weft_vault::parse::parse_text;

/// Open buffers by vault path.
#[derive(Default)]
pub struct Buffers {
    /// Per note, each session's buffer; the last one is the newest. Held
    /// only briefly and never while taking another lock: readers take it
    /// while holding the index's read lock.
    map: Mutex<HashMap<String, Vec<Buffer>>>,
    /// Serialises putting buffers into the index, so an older text never
    /// lands after a newer one, nor after its buffer went stale.
    writing: Mutex<()>,
}

pub(super) struct Buffer {
    session: u64,
    pub(super) text: Arc<String>,
    pub(super) stale: bool,
    /// When this session opened the note.
    pub(super) opened: SystemTime,
    /// When its text last changed, and where: the byte offset (in `text`)
    /// of the first byte that differs from the text before.
    pub(super) edited: Option<(SystemTime, usize)>,
}

/// How an indexed buffer changed its note: its names (path, title,
/// aliases) and its link targets, which caches of names and backlink
/// counts depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reshaped {
    pub names: bool,
    pub links: bool,
}

impl Buffers {
    /// `session`'s buffer of note `rel` now holds `text`; indexed at once
    /// when the vault is loaded (`live`).
    pub fn set(
        &self,
        live: Option<&LiveVault>,
        session: u64,
        rel: &str,
        text: Arc<String>,
    ) -> Reshaped {
        let _writing = lock(&self.writing);
        {
            let mut map = lock(&self.map);
            let buffers = map.entry(rel.to_string()).or_default();
            let before = buffers
                .iter()
                .position(|b| b.session == session)
                .map(|i| buffers.remove(i));
            let now = SystemTime::now();
            let (opened, edited) = match before {
                Some(before) if before.text == text => (before.opened, before.edited),
                Some(before) => (
                    before.opened,
                    Some((now, first_difference(&before.text, &text))),
                ),
                None => (now, None),
            };
            buffers.push(Buffer {
                session,
                text: Arc::clone(&text),
                stale: false,
                opened,
                edited,
            });
        }
        match live {
            Some(live) => index_text(live, rel, &text),
            None => Reshaped {
                names: true,
                links: true,
            },
        }
    }

    /// `session` closed its buffer of `rel`: another session's buffer is
    /// indexed, else the file. Returns whether some buffer stays open.
    pub fn close(&self, live: Option<&LiveVault>, session: u64, rel: &str) -> bool {
        let _writing = lock(&self.writing);
        let newest = {
            let mut map = lock(&self.map);
            let Some(buffers) = map.get_mut(rel) else {
                return false;
            };
            buffers.retain(|b| b.session != session);
            let newest = buffers
                .iter()
                .rev()
                .find(|b| !b.stale)
                .map(|b| Arc::clone(&b.text));
            if buffers.is_empty() {
                map.remove(rel);
            }
            newest
        };
        let Some(live) = live else {
            return newest.is_some();
        };
        match &newest {
            Some(text) => {
                index_text(live, rel, text);
            }
            None => {
                live.apply_paths([live.root.join(rel)]);
            }
        }
        newest.is_some()
    }

    /// Closes every buffer of `session` (it ended without closing them);
    /// returns their paths.
    pub fn close_session(&self, live: Option<&LiveVault>, session: u64) -> Vec<String> {
        let paths: Vec<String> = lock(&self.map)
            .iter()
            .filter(|(_, buffers)| buffers.iter().any(|b| b.session == session))
            .map(|(rel, _)| rel.clone())
            .collect();
        for rel in &paths {
            self.close(live, session, rel);
        }
        paths
    }

    /// `f` of every open note's newest buffer (the newest that is not
    /// stale, when there is one).
    pub(super) fn each_newest<R>(&self, mut f: impl FnMut(&str, &Buffer) -> R) -> Vec<R> {
        lock(&self.map)
            .iter()
            .filter_map(|(rel, buffers)| {
                let newest = buffers.iter().rev().find(|b| !b.stale).or(buffers.last())?;
                Some(f(rel, newest))
            })
            .collect()
    }

    /// Notes with an open buffer.
    pub fn paths(&self) -> Vec<String> {
        lock(&self.map).keys().cloned().collect()
    }

    /// Puts buffers among `paths` back on top of what the index took from
    /// the disk.
    pub(crate) fn overlay(&self, live: &LiveVault, paths: &[String]) {
        let _writing = lock(&self.writing);
        let texts: Vec<(&String, Arc<String>)> = {
            let map = lock(&self.map);
            paths
                .iter()
                .filter_map(|rel| {
                    let buffer = map.get(rel)?.iter().rev().find(|b| !b.stale)?;
                    Some((rel, Arc::clone(&buffer.text)))
                })
                .collect()
        };
        for (rel, text) in texts {
            index_text(live, rel, &text);
        }
    }

    /// The newest buffer's text of `rel`, unless it is stale.
    pub fn text(&self, rel: &str) -> Option<Arc<String>> {
        lock(&self.map)
            .get(rel)?
            .iter()
            .rev()
            .find(|b| !b.stale)
            .map(|b| Arc::clone(&b.text))
    }

    /// The vault path of a buffer of `rel` (or under it, with `folder`)
    /// whose text is not what the file under `root` holds.
    pub fn unsaved(&self, root: &Path, rel: &str, folder: bool) -> Option<String> {
        let map = lock(&self.map);
        let prefix = format!("{}/", rel.trim_end_matches('/'));
        map.iter()
            .filter(|(path, _)| *path == rel || (folder && path.starts_with(&prefix)))
            .find(|(path, buffers)| {
                let disk = std::fs::read(root.join(path.as_str())).ok();
                buffers
                    .iter()
                    .any(|b| !b.stale && disk.as_deref() != Some(b.text.as_bytes()))
            })
            .map(|(path, _)| path.clone())
    }

    /// Buffers of `paths` are older than the disk now. Serialised with
    /// [`Buffers::overlay`], which would otherwise index a text it chose
    /// just before the buffer went stale.
    pub(crate) fn mark_stale(&self, paths: &[String]) {
        let _writing = lock(&self.writing);
        let mut map = lock(&self.map);
        for rel in paths {
            if let Some(buffers) = map.get_mut(rel) {
                for buffer in buffers {
                    buffer.stale = true;
                }
            }
        }
    }
}

/// The offset in `new` where it first differs from `old`, on a character
/// boundary.
fn first_difference(old: &str, new: &str) -> usize {
    let mut at = old
        .bytes()
        .zip(new.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    while !new.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Parses `text` as note `rel` and puts it in the index, unless the index
/// holds that note already.
fn index_text(live: &LiveVault, rel: &str, text: &str) -> Reshaped {
    live.index_unsaved(parse_text(rel, text), |index, note| {
        let old = index.id_of(rel).map(|id| index.note(id));
        let names = !old.is_some_and(|old| old.same_names(&note));
        let links = names || !old.is_some_and(|old| old.same_links(&note));
        index.upsert(note);
        Reshaped { names, links }
    })
    .unwrap_or(Reshaped {
        names: false,
        links: false,
    })
}
