//! `snapshot_decode`: the persisted index's decoder (`workspace::io::
//! snapshot`) on any bytes. The first byte picks how they are read: as a
//! whole file (even), or as the payload of a file whose header and
//! checksum are right (odd), so that damage the checksum would catch
//! still reaches the payload's decoder. Either way the decoder refuses or
//! reads without a panic; what it reads is of this build and this vault,
//! with a checksum that holds, reads back the same once written again,
//! and can be filed into an index as a snapshot's notes are.

use weft_vault::VaultIndex;
use weft_workspace::io::snapshot::{EntryRef, FORMAT, SnapshotRef, decode, encode};

/// The build and vault every seed was written for.
pub const BUILD: &str = "fuzz-build";
pub const ROOT: &str = "/vault";
/// Magic, format, payload length, CRC-32 (the decoder's layout).
const HEADER: usize = 24;

pub fn snapshot_decode(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        framed(rest)
    };
    let Ok(snapshot) = decode(&file, BUILD, ROOT) else {
        return;
    };
    assert!(
        snapshot.build == BUILD && snapshot.root == ROOT,
        "a snapshot of another build or vault was read"
    );
    assert!(
        file.len() >= HEADER && crc32fast::hash(&file[HEADER..]).to_le_bytes() == file[20..24],
        "a snapshot whose checksum does not hold was read"
    );
    let again = encode(&SnapshotRef {
        build: BUILD,
        root: ROOT,
        notes: snapshot
            .notes
            .iter()
            .map(|entry| EntryRef {
                note: &entry.note,
                stamp: entry.stamp,
            })
            .collect(),
        attachments: snapshot.attachments.iter().map(String::as_str).collect(),
    })
    .expect("a snapshot read encodes again");
    let back = decode(&again, BUILD, ROOT).expect("a snapshot written again reads back");
    assert!(
        back.attachments == snapshot.attachments
            && back.notes.len() == snapshot.notes.len()
            && back
                .notes
                .iter()
                .zip(&snapshot.notes)
                .all(|(a, b)| a.note == b.note && a.stamp == b.stamp),
        "a snapshot written again reads back otherwise"
    );
    let mut index = VaultIndex::new();
    index.add_attachments(&snapshot.attachments);
    index.extend(VaultIndex::prepare(
        snapshot.notes.into_iter().map(|e| e.note).collect(),
    ));
    for (id, note) in index.notes() {
        for link in &note.links {
            let _ = index.resolve_link(id, link);
        }
        let _ = index.backlinks(id);
    }
}

/// A snapshot file around `payload`: magic, this format, its length and
/// checksum.
fn framed(payload: &[u8]) -> Vec<u8> {
    let mut file = Vec::with_capacity(HEADER + payload.len());
    file.extend_from_slice(b"WEFTSNAP");
    file.extend_from_slice(&FORMAT.to_le_bytes());
    file.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    file.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    file.extend_from_slice(payload);
    file
}
