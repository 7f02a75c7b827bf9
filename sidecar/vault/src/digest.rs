//! A canonical rendering of everything the index answers (notes, where each
//! link leads, backlinks, unresolved targets, tags, frontmatter keys,
//! attachments) and its digest: whether two indexes agree — one kept up to
//! date change by change and one built from scratch, or a daemon's and an
//! in-process build's — without comparing their storage.

use std::fmt::{self, Write};
use std::hash::{DefaultHasher, Hasher};

use super::index::{LinkRef, VaultIndex};
use super::query::outgoing;
use super::resolve::Resolution;

/// Everything the index answers, as text ordered by path (the same for two
/// indexes of the same vault however they were built).
pub fn canonical(index: &VaultIndex) -> String {
    let mut out = String::new();
    render(index, &mut out).expect("writing to a String cannot fail");
    out
}

/// A short digest of [`canonical`]: equal for two indexes of the same vault
/// made by the same build of Weft, different (but for a hash collision)
/// when they answer anything differently.
pub fn digest(index: &VaultIndex) -> String {
    let mut hasher = HashWriter(DefaultHasher::new());
    render(index, &mut hasher).expect("hashing cannot fail");
    format!("{:016x}", hasher.0.finish())
}

struct HashWriter(DefaultHasher);

impl Write for HashWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn render(index: &VaultIndex, out: &mut impl Write) -> fmt::Result {
    let mut notes: Vec<_> = index.notes().collect();
    notes.sort_unstable_by(|a, b| a.1.path.cmp(&b.1.path));
    let places = |refs: &[LinkRef]| -> Vec<String> {
        let mut places: Vec<String> = refs
            .iter()
            .map(|r| format!("{}:{}", index.note(r.source).path, index.link(*r).line))
            .collect();
        places.sort_unstable();
        places
    };
    for (id, note) in &notes {
        writeln!(
            out,
            "{} len={} hash={:x} title={:?} aliases={:?} backlinks={:?}",
            note.path,
            note.len,
            note.content_hash,
            note.title,
            note.aliases,
            places(&index.backlinks(*id))
        )?;
        for o in outgoing(index, *id) {
            match &o.resolution {
                Resolution::Note(t) => write!(out, "  -> {}", index.note(*t).path)?,
                Resolution::Ambiguous { chosen, candidates } => write!(
                    out,
                    "  -> {}~{}",
                    index.note(*chosen).path,
                    candidates.len()
                )?,
                Resolution::Attachment(p) => write!(out, "  -> attachment {p}")?,
                Resolution::Unresolved => write!(out, "  -> ?")?,
            }
            writeln!(out, " {:?}", o.fragment)?;
        }
    }
    let mut unresolved = index.unresolved();
    unresolved.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (key, refs) in &unresolved {
        writeln!(out, "unresolved {key} {:?}", places(refs))?;
    }
    let mut tags: Vec<String> = index
        .tags()
        .iter()
        .map(|(k, s)| format!("{k}={}/{}/{}", s.display(), s.uses, s.notes))
        .collect();
    tags.sort_unstable();
    writeln!(out, "tags {}", tags.join(" "))?;
    writeln!(out, "keys {:?}", index.frontmatter_keys())?;
    let mut attachments: Vec<&str> = index.attachments().collect();
    attachments.sort_unstable();
    writeln!(out, "attachments {attachments:?}")
}
