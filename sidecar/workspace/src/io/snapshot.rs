//! The persisted index: every parsed note of a vault with the stamp of the
//! file it was read from, so that a restart answers from the last state at
//! once and re-reads only what changed while Weft was not running.
//!
//! A snapshot lives in the user's cache folder, never in the vault (which
//! users sync): `<cache>/index/<hash of the vault's path>-v<FORMAT>.snap`,
//! replaced atomically, so two Weft builds may share the folder. Its file
//! starts with a header (magic, format version, payload length, CRC-32 of
//! the payload); the payload is postcard, a compact format with a
//! documented wire form that needs no unsafe code. A snapshot of another
//! format, another build of Weft (whose parser may read notes otherwise),
//! another vault, truncated or corrupt is refused with the reason, never
//! trusted: the vault is then read from disk as without one.
//!
//! Knows files and stamps; what to re-read is `LiveVault`'s business.

use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use weft_vault::Note;
pub use weft_vault::stamp::{Stamp, now_ns};

/// Bumped whenever the layout of a snapshot or of [`Note`] changes, or
/// what a stored field means (4: masks fold non-ASCII characters; 5: a
/// note records whether it has a ```` ```base ```` block; 6: its tasks;
/// 7: whether each task is a sub-item; 8: a note's tasks packed, their
/// descriptions in one buffer; 9: 40-byte task records).
pub const FORMAT: u32 = 9;
const MAGIC: &[u8; 8] = b"WEFTSNAP";
/// Magic, format, payload length, CRC-32.
const HEADER: usize = 8 + 4 + 8 + 4;

/// A note as persisted: the note, and the stamp of the file it was read
/// from (`None`: not from the disk as it is, such as an editor's unsaved
/// text; it is read again on the next start).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub note: Note,
    pub stamp: Option<Stamp>,
}

/// What [`encode`] writes, borrowed from the live index.
#[derive(Serialize)]
pub struct SnapshotRef<'a> {
    pub build: &'a str,
    pub root: &'a str,
    pub notes: Vec<EntryRef<'a>>,
    pub attachments: Vec<&'a str>,
}

/// [`Entry`] borrowed; serialises alike.
#[derive(Serialize)]
pub struct EntryRef<'a> {
    pub note: &'a Note,
    pub stamp: Option<Stamp>,
}

/// A snapshot read back.
#[derive(Debug)]
pub struct Snapshot {
    pub build: String,
    pub root: String,
    pub notes: Vec<Entry>,
    pub attachments: Vec<String>,
}

/// Why a snapshot was not used.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    Missing,
    Unreadable(String),
    NotASnapshot,
    OtherFormat(u32),
    Truncated,
    Corrupt,
    OtherBuild(String),
    OtherVault(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Missing => f.write_str("there is none yet"),
            Refused::Unreadable(e) => write!(f, "it cannot be read: {e}"),
            Refused::NotASnapshot => f.write_str("the file is not a Weft snapshot"),
            Refused::OtherFormat(v) => write!(f, "it has format {v}, this build reads {FORMAT}"),
            Refused::Truncated => f.write_str("it is truncated"),
            Refused::Corrupt => f.write_str("its checksum or content is wrong"),
            Refused::OtherBuild(b) => write!(f, "another build of Weft wrote it ({b})"),
            Refused::OtherVault(v) => write!(f, "it is of another vault ({v})"),
        }
    }
}

/// The snapshot file of the vault at `root` (canonical) in `cache`.
pub fn path_for(cache: &Path, root: &Path) -> PathBuf {
    cache
        .join("index")
        .join(format!("{}-v{FORMAT}.snap", vault_name(root)))
}

/// The folder of the full-text index of the vault at `root` (canonical) in
/// `cache`: one per full-text format, so builds that read another never
/// touch it.
pub fn fulltext_dir_for(cache: &Path, root: &Path) -> PathBuf {
    cache.join("fulltext").join(format!(
        "{}-v{}",
        vault_name(root),
        weft_search::schema::FORMAT
    ))
}

/// The file of the vault's passage vectors (`weft_semantic`, which checks
/// its own format and model) in `cache`.
pub fn vectors_path_for(cache: &Path, root: &Path) -> PathBuf {
    cache
        .join("vectors")
        .join(format!("{}.vec", vault_name(root)))
}

/// A vault's name in the cache: a hash of its canonical path.
fn vault_name(root: &Path) -> String {
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Notes per chunk: chunks are encoded and decoded on every core.
const CHUNK: usize = 4096;

/// The payload's head: who wrote it, for which vault, the attachments, and
/// the length of each chunk of notes that follow it.
#[derive(Serialize)]
struct HeadRef<'a> {
    build: &'a str,
    root: &'a str,
    attachments: &'a [&'a str],
    chunks: Vec<u64>,
}

#[derive(Deserialize)]
struct Head {
    build: String,
    root: String,
    attachments: Vec<String>,
    chunks: Vec<u64>,
}

/// The bytes of a snapshot file.
pub fn encode(snapshot: &SnapshotRef<'_>) -> Result<Vec<u8>, String> {
    let chunks: Vec<Vec<u8>> = snapshot
        .notes
        .par_chunks(CHUNK)
        .map(postcard::to_stdvec)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let head = postcard::to_stdvec(&HeadRef {
        build: snapshot.build,
        root: snapshot.root,
        attachments: &snapshot.attachments,
        chunks: chunks.iter().map(|c| c.len() as u64).collect(),
    })
    .map_err(|e| e.to_string())?;
    let length = head.len() + chunks.iter().map(Vec::len).sum::<usize>();
    let mut payload = Vec::with_capacity(length);
    payload.extend_from_slice(&head);
    for chunk in &chunks {
        payload.extend_from_slice(chunk);
    }
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Reads a snapshot's bytes, refusing one not written by `build` for the
/// vault at `root`, or damaged in any way.
pub fn decode(bytes: &[u8], build: &str, root: &str) -> Result<Snapshot, Refused> {
    let head = bytes.len().min(MAGIC.len());
    if bytes[..head] != MAGIC[..head] {
        return Err(Refused::NotASnapshot);
    }
    if bytes.len() < HEADER {
        return Err(Refused::Truncated);
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let format = word(8);
    if format != FORMAT {
        return Err(Refused::OtherFormat(format));
    }
    let length = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let payload = &bytes[HEADER..];
    if (payload.len() as u64) < length {
        return Err(Refused::Truncated);
    }
    if payload.len() as u64 != length || crc32fast::hash(payload) != word(20) {
        return Err(Refused::Corrupt);
    }
    let (head, mut rest): (Head, &[u8]) =
        postcard::take_from_bytes(payload).map_err(|_| Refused::Corrupt)?;
    if head.build != build {
        return Err(Refused::OtherBuild(head.build));
    }
    if head.root != root {
        return Err(Refused::OtherVault(head.root));
    }
    // Summed without overflow: lengths that wrap round to the payload's
    // would split it out of bounds.
    let chunks = head
        .chunks
        .iter()
        .try_fold(0u64, |sum, &len| sum.checked_add(len));
    if chunks != Some(rest.len() as u64) {
        return Err(Refused::Corrupt);
    }
    let mut chunks: Vec<&[u8]> = Vec::with_capacity(head.chunks.len());
    for &len in &head.chunks {
        let (chunk, after) = rest.split_at(len as usize);
        chunks.push(chunk);
        rest = after;
    }
    let decoded: Vec<Vec<Entry>> = chunks
        .into_par_iter()
        .map(postcard::from_bytes::<Vec<Entry>>)
        .collect::<Result<_, _>>()
        .map_err(|_| Refused::Corrupt)?;
    // The checksum says the bytes are those written; that what wrote them
    // made notes a parse could have made is checked too.
    if let Some(why) = decoded
        .par_iter()
        .flatten()
        .find_map_any(|entry| entry.note.inconsistency())
    {
        tracing::warn!("persisted index: {why}");
        return Err(Refused::Corrupt);
    }
    Ok(Snapshot {
        build: head.build,
        root: head.root,
        notes: decoded.into_iter().flatten().collect(),
        attachments: head.attachments,
    })
}

/// Reads the snapshot at `path` (see [`decode`]).
pub fn read(path: &Path, build: &str, root: &str) -> Result<Snapshot, Refused> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(e) => return Err(Refused::Unreadable(e.to_string())),
    };
    decode(&bytes, build, root)
}

/// Writes `bytes` at `path`, replacing what is there atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(folder) = path.parent() {
        fs::create_dir_all(folder)?;
    }
    super::write::write_atomic(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::parse_note;

    fn sample() -> (Vec<Note>, Vec<u8>) {
        let notes = vec![
            parse_note(
                "a.md",
                b"---\ntags: [x]\nk: {deep: [1, 2]}\n---\n# A\n[[b#H|alias]] ^blk\n",
            ),
            parse_note("sub/b.md", b"# B\n## H\n#tag text\n"),
        ];
        (notes.clone(), encoded(&notes))
    }

    fn encoded(notes: &[Note]) -> Vec<u8> {
        let stamp = Stamp {
            size: 3,
            mtime_ns: 42,
            racy: false,
        };
        encode(&SnapshotRef {
            build: "b1",
            root: "/v",
            notes: notes
                .iter()
                .map(|note| EntryRef {
                    note,
                    stamp: Some(stamp),
                })
                .collect(),
            attachments: vec!["img.png"],
        })
        .unwrap()
    }

    /// A snapshot whose checksum is right but whose notes no parse could
    /// have made (a bug in the build that wrote it) is refused too.
    #[test]
    fn notes_that_no_parse_could_make_are_refused() {
        let (notes, _) = sample();
        let damaged: [fn(&mut Note); 4] = [
            |n| n.len = 3,
            |n| n.path = "../a.md".into(),
            |n| n.path = "a.txt".into(),
            |n| n.headings[0].level = 9,
        ];
        for damage in damaged {
            let mut notes = notes.clone();
            damage(&mut notes[0]);
            assert!(notes[0].inconsistency().is_some());
            assert_eq!(
                decode(&encoded(&notes), "b1", "/v").unwrap_err(),
                Refused::Corrupt
            );
        }
        assert!(notes.iter().all(|n| n.inconsistency().is_none()));
    }

    #[test]
    fn a_snapshot_reads_back_whole() {
        let (notes, bytes) = sample();
        let back = decode(&bytes, "b1", "/v").unwrap();
        let read: Vec<Note> = back.notes.into_iter().map(|e| e.note).collect();
        assert_eq!(read, notes);
        assert_eq!(back.attachments, ["img.png"]);
    }

    /// Every damage is a refusal with its reason, never a panic or a
    /// snapshot trusted wrongly.
    #[test]
    fn damaged_or_foreign_snapshots_are_refused() {
        let (_, bytes) = sample();
        assert_eq!(
            decode(&bytes, "b2", "/v").unwrap_err(),
            Refused::OtherBuild("b1".into())
        );
        assert_eq!(
            decode(&bytes, "b1", "/w").unwrap_err(),
            Refused::OtherVault("/v".into())
        );
        for cut in [0, 3, HEADER - 1, HEADER, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(
                decode(&bytes[..cut], "b1", "/v").unwrap_err(),
                Refused::Truncated,
                "cut at {cut}"
            );
        }
        let mut other_format = bytes.clone();
        other_format[8] = 99;
        assert_eq!(
            decode(&other_format, "b1", "/v").unwrap_err(),
            Refused::OtherFormat(99)
        );
        for at in [HEADER, HEADER + 7, bytes.len() - 1] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x55;
            assert_eq!(
                decode(&flipped, "b1", "/v").unwrap_err(),
                Refused::Corrupt,
                "byte {at}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, "b1", "/v").unwrap_err(), Refused::Corrupt);
        assert_eq!(
            decode(b"# a note, not a snapshot", "b1", "/v").unwrap_err(),
            Refused::NotASnapshot
        );
        // Regression (found by the `snapshot_decode` fuzz target): chunk
        // lengths whose sum wraps round to the payload's length panicked
        // (an overflow, or a split out of bounds).
        let mut payload = postcard::to_stdvec(&HeadRef {
            build: "b1",
            root: "/v",
            attachments: &[],
            chunks: vec![u64::MAX, 2],
        })
        .unwrap();
        payload.push(0);
        let mut wrapped = bytes[..HEADER].to_vec();
        wrapped[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        wrapped[20..24].copy_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        wrapped.extend_from_slice(&payload);
        assert_eq!(decode(&wrapped, "b1", "/v").unwrap_err(), Refused::Corrupt);
        // A payload that checks out but does not decode.
        let mut garbage = bytes[..HEADER].to_vec();
        let payload = vec![0xff; 64];
        garbage[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
        garbage[20..24].copy_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        garbage.extend_from_slice(&payload);
        assert_eq!(decode(&garbage, "b1", "/v").unwrap_err(), Refused::Corrupt);
    }
}
