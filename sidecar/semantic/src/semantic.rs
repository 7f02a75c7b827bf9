//! The semantic index of a vault: a model and the vectors of every note's
//! passages, brought in step with the note index note by note. A note is
//! read and embedded again only when its text's fingerprint differs from
//! the one its vectors were made from, and then only its passages whose
//! embedded text changed; the rest keep their vectors.
//!
//! Saved and read back as one checked file ([`SemanticIndex::to_bytes`],
//! [`SemanticIndex::from_bytes`]): refused when its format, model, sizes or
//! checksum do not match, and then built again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use rayon::prelude::*;
use weft_search::FileSource;
use weft_vault::note::text_hash;
use weft_vault::parse_note;

use crate::chunk::chunks;
use crate::model::Model;
use crate::store::{Close, Flat, NoteVectors, Vectors, quantize};

/// Bumped whenever the saved layout or the passage rule changes.
const FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"WEFTVEC\0";

/// One note the caller wants in step: its vault path and the fingerprint
/// of its text as indexed.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub path: Box<str>,
    pub text_hash: u64,
}

/// What one [`SemanticIndex::sync`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Synced {
    /// Notes read and embedded (again).
    pub embedded: usize,
    /// Passages embedded (the others kept their vectors).
    pub chunks: usize,
    pub removed: usize,
}

pub struct SemanticIndex {
    model: Model,
    vectors: RwLock<Vectors>,
    /// Changed since last saved.
    dirty: AtomicBool,
    /// The vectors in one block for queries, of some generation.
    flat: Mutex<Option<Arc<Flat>>>,
}

impl SemanticIndex {
    /// An empty index for `model`.
    pub fn new(model: Model) -> SemanticIndex {
        let vectors = Vectors::new(&model.id, model.dim);
        SemanticIndex {
            model,
            vectors: RwLock::new(vectors),
            dirty: AtomicBool::new(true),
            flat: Mutex::default(),
        }
    }

    pub fn model(&self) -> &Model {
        &self.model
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vectors> {
        self.vectors.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vectors> {
        self.vectors.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes with vectors.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// (notes, passages, bytes of memory held).
    pub fn stats(&self) -> (usize, usize, usize) {
        let v = self.read();
        (v.len(), v.chunk_count(), v.bytes())
    }

    /// Notes and passages embedded among the notes `sees` passes.
    pub fn counts_of(&self, sees: &dyn Fn(&str) -> bool) -> (usize, usize) {
        self.read().counts_of(sees)
    }

    /// Brings the vectors of `wanted` in step with their files; with
    /// `every`, `wanted` is every note of the vault and vectors of notes
    /// not in it are dropped. Paths in `gone` lose theirs. Reads only the
    /// notes whose fingerprint differs. Blocking; parallel.
    pub fn sync(
        &self,
        wanted: &[Wanted],
        gone: &[String],
        every: bool,
        files: &dyn FileSource,
    ) -> Synced {
        let stale: Vec<&Wanted> = {
            let v = self.read();
            wanted
                .iter()
                .filter(|w| {
                    v.notes
                        .get(&w.path)
                        .is_none_or(|n| n.text_hash != w.text_hash)
                })
                .collect()
        };
        let embedded_chunks = AtomicUsize::new(0);
        let made: Vec<(Box<str>, Option<NoteVectors>)> = stale
            .par_iter()
            .map(|w| {
                let made = self.embed_note(&w.path, files, &embedded_chunks);
                (w.path.clone(), made)
            })
            .collect();
        let mut synced = Synced {
            chunks: embedded_chunks.into_inner(),
            ..Synced::default()
        };
        let mut v = self.write();
        for (path, made) in made {
            match made {
                Some(made) => {
                    v.notes.insert(path, made);
                    synced.embedded += 1;
                }
                None => {
                    if v.notes.remove(&path).is_some() {
                        synced.removed += 1;
                    }
                }
            }
        }
        for path in gone {
            if v.notes.remove(path.as_str()).is_some() {
                synced.removed += 1;
            }
        }
        if every {
            let keep: std::collections::HashSet<&str> = wanted.iter().map(|w| &*w.path).collect();
            let before = v.notes.len();
            v.notes.retain(|p, _| keep.contains(&**p));
            synced.removed += before - v.notes.len();
        }
        if synced != Synced::default() {
            v.generation += 1;
            self.dirty.store(true, Ordering::SeqCst);
        }
        synced
    }

    /// One note's passages and vectors, from its file now; the passages
    /// whose embedded text is unchanged keep their vectors. `None` when the
    /// file cannot be read.
    fn embed_note(
        &self,
        path: &str,
        files: &dyn FileSource,
        embedded: &AtomicUsize,
    ) -> Option<NoteVectors> {
        let file = files.read(path)?;
        let text = String::from_utf8_lossy(&file.bytes);
        let hash = text_hash(&text);
        let note = parse_note(path, text.as_bytes());
        let parts = chunks(&note, &text);
        let dim = self.model.dim;
        let old: HashMap<u64, (f32, Vec<i8>)> = {
            let v = self.read();
            match v.notes.get(path) {
                Some(old) if old.text_hash == hash => return Some(old.clone()),
                Some(old) => old
                    .chunks
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        (
                            c.hash,
                            (old.scales[i], old.data[i * dim..(i + 1) * dim].to_vec()),
                        )
                    })
                    .collect(),
                None => HashMap::new(),
            }
        };
        let todo: Vec<String> = parts
            .iter()
            .filter(|p| !old.contains_key(&p.chunk.hash))
            .map(|p| p.text.clone())
            .collect();
        embedded.fetch_add(todo.len(), Ordering::Relaxed);
        let fresh = if todo.is_empty() {
            Vec::new()
        } else {
            self.model.embed(&todo)
        };
        let mut fresh = fresh.chunks(dim);
        let mut out = NoteVectors {
            text_hash: hash,
            chunks: Vec::with_capacity(parts.len()),
            scales: Vec::with_capacity(parts.len()),
            data: Vec::with_capacity(parts.len() * dim),
        };
        for p in &parts {
            let (scale, data) = match old.get(&p.chunk.hash) {
                Some((scale, data)) => (*scale, data.clone()),
                None => quantize(fresh.next()?),
            };
            out.chunks.push(p.chunk);
            out.scales.push(scale);
            out.data.extend(data);
        }
        Some(out)
    }

    /// The best passage of the `k` notes closest in meaning to `text`,
    /// among those `keep` accepts, best first.
    pub fn closest(&self, text: &str, k: usize, keep: &dyn Fn(&str) -> bool) -> Vec<Close> {
        let query = self.model.embed_one(text);
        self.flat().closest(&query, k, keep)
    }

    /// The vectors in one block as they are now: the one kept since the
    /// last change, else made again (and kept).
    fn flat(&self) -> Arc<Flat> {
        let vectors = self.read();
        let mut kept = self.flat.lock().unwrap_or_else(|e| e.into_inner());
        match &*kept {
            Some(flat) if flat.generation == vectors.generation => flat.clone(),
            _ => {
                let flat = Arc::new(vectors.flat());
                *kept = Some(flat.clone());
                flat
            }
        }
    }

    /// The notes closest in meaning to the note at `path` as a whole (its
    /// passages' mean), the note itself left out.
    pub fn similar_to(&self, path: &str, k: usize, keep: &dyn Fn(&str) -> bool) -> Vec<Close> {
        let Some(centroid) = self.read().centroid(path) else {
            return Vec::new();
        };
        self.flat().closest(&centroid, k, &|p| p != path && keep(p))
    }

    /// Whether anything changed since the last [`SemanticIndex::to_bytes`]
    /// was saved ([`SemanticIndex::saved`]).
    pub fn dirty(&self) -> bool {
        self.dirty.load(Ordering::SeqCst)
    }

    /// Marks what [`SemanticIndex::to_bytes`] returned as saved.
    pub fn saved(&self) {
        self.dirty.store(false, Ordering::SeqCst);
    }

    /// The vectors as a file: magic, format, checksum, then the body.
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = postcard::to_stdvec(&*self.read()).unwrap_or_default();
        let mut out = Vec::with_capacity(body.len() + 16);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The index saved in `bytes`, for `model`; why not when it cannot be
    /// trusted (another format or model, a wrong checksum, vectors no
    /// build could make).
    /// The model comes back with the reason when refused.
    pub fn from_bytes(model: Model, bytes: &[u8]) -> Result<SemanticIndex, (Model, String)> {
        match check(&model, bytes) {
            Ok(vectors) => Ok(SemanticIndex {
                model,
                vectors: RwLock::new(vectors),
                dirty: AtomicBool::new(false),
                flat: Mutex::default(),
            }),
            Err(why) => Err((model, why)),
        }
    }
}

fn check(model: &Model, bytes: &[u8]) -> Result<Vectors, String> {
    {
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return Err("not a Weft vectors file".into());
        }
        let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if format != FORMAT {
            return Err(format!("format {format}, this build reads {FORMAT}"));
        }
        let sum = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes"));
        let body = &bytes[16..];
        if crc32fast::hash(body) != sum {
            return Err("its checksum does not match (a torn or damaged file)".into());
        }
        let vectors: Vectors =
            postcard::from_bytes(body).map_err(|e| format!("it does not decode: {e}"))?;
        if vectors.model != model.id || vectors.dim != model.dim {
            return Err(format!(
                "made by another model ({}, {} dimensions)",
                vectors.model, vectors.dim
            ));
        }
        if let Some((path, _)) = vectors
            .notes
            .iter()
            .find(|(_, n)| !n.consistent(vectors.dim))
        {
            return Err(format!("the vectors of {path} are inconsistent"));
        }
        Ok(vectors)
    }
}
