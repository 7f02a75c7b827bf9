//! The vectors of every note's passages, int8 with one scale per vector
//! (a quarter of f32's memory, a cosine within about 1% of it), filed by
//! vault path. A note's entry records the fingerprint of the text it was
//! made from, so a note is embedded again only when its text changed, and
//! then only its passages whose embedded text changed.
//!
//! Pure data: reading files and the model are the callers' (`semantic.rs`).

use std::collections::{BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;

/// One note's passages and their vectors.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NoteVectors {
    /// `weft_vault::note::text_hash` of the text they were made from.
    pub text_hash: u64,
    pub chunks: Vec<Chunk>,
    /// One per chunk.
    pub scales: Vec<f32>,
    /// `chunks.len() × dim`.
    pub data: Vec<i8>,
}

impl NoteVectors {
    /// The vector of passage `i`, scaled back.
    pub fn vector(&self, i: usize, dim: usize) -> Vec<f32> {
        self.data[i * dim..(i + 1) * dim]
            .iter()
            .map(|&x| x as f32 * self.scales[i])
            .collect()
    }

    /// Memory held, bytes (approximately).
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.chunks.len() * std::mem::size_of::<Chunk>()
            + self.scales.len() * 4
            + self.data.len()
    }

    /// Whether it is what a build could make for `dim` dimensions.
    pub(crate) fn consistent(&self, dim: usize) -> bool {
        self.scales.len() == self.chunks.len()
            && self.data.len() == self.chunks.len() * dim
            && self.chunks.len() <= crate::chunk::MAX_CHUNKS.max(1)
            && self.chunks.iter().all(|c| c.start <= c.end)
            && self.scales.iter().all(|s| s.is_finite())
    }
}

/// Quantises a unit vector: int8 with the scale that maps 127 to its
/// largest component.
pub fn quantize(v: &[f32]) -> (f32, Vec<i8>) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    (
        scale,
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
            .collect(),
    )
}

fn dot(q: &[f32], v: &[i8]) -> f32 {
    q.iter().zip(v).map(|(a, &b)| a * b as f32).sum()
}

/// Every note's vectors, for one model.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Vectors {
    pub model: String,
    pub dim: usize,
    pub notes: HashMap<Box<str>, NoteVectors>,
    /// Bumped by every change (not saved): a [`Flat`] of another
    /// generation is stale.
    #[serde(skip)]
    pub generation: u64,
}

/// Every passage's vector in one block, each note's rows together: what a
/// query scans. Scanning the vectors scattered note by note is bound by
/// memory misses once they outgrow the caches (70 ms at 169k notes).
#[derive(Debug, Default)]
pub struct Flat {
    pub generation: u64,
    dim: usize,
    data: Vec<i8>,
    scales: Vec<f32>,
    /// Per row: its note (an index into `paths`) and passage.
    rows: Vec<(u32, Chunk)>,
    paths: Vec<Box<str>>,
}

/// A passage close to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Close {
    pub path: Box<str>,
    pub chunk: Chunk,
    /// Cosine similarity, -1..1.
    pub score: f32,
}

impl Vectors {
    pub fn new(model: &str, dim: usize) -> Vectors {
        Vectors {
            model: model.to_string(),
            dim,
            notes: HashMap::new(),
            generation: 0,
        }
    }

    /// The vectors in one block, for scanning.
    pub fn flat(&self) -> Flat {
        let rows = self.chunk_count();
        let mut flat = Flat {
            generation: self.generation,
            dim: self.dim,
            data: Vec::with_capacity(rows * self.dim),
            scales: Vec::with_capacity(rows),
            rows: Vec::with_capacity(rows),
            paths: Vec::with_capacity(self.notes.len()),
        };
        for (path, note) in &self.notes {
            let at = flat.paths.len() as u32;
            flat.paths.push(path.clone());
            flat.data.extend_from_slice(&note.data);
            flat.scales.extend_from_slice(&note.scales);
            flat.rows.extend(note.chunks.iter().map(|c| (at, *c)));
        }
        flat
    }

    pub fn len(&self) -> usize {
        self.notes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// Passages embedded.
    pub fn chunk_count(&self) -> usize {
        self.notes.values().map(|n| n.chunks.len()).sum()
    }

    /// Notes and passages embedded among the notes `sees` passes (what an
    /// agent that may not see every note is told).
    pub fn counts_of(&self, sees: &dyn Fn(&str) -> bool) -> (usize, usize) {
        self.notes
            .iter()
            .filter(|(path, _)| sees(path))
            .fold((0, 0), |(notes, passages), (_, note)| {
                (notes + 1, passages + note.chunks.len())
            })
    }

    /// Memory held by the vectors and their passages, bytes.
    pub fn bytes(&self) -> usize {
        self.notes
            .iter()
            .map(|(k, v)| k.len() + 16 + v.bytes())
            .sum()
    }

    /// The best passage of each of the `k` notes closest to `query` (a unit
    /// vector), best first, among the notes `keep` accepts.
    pub fn closest(&self, query: &[f32], k: usize, keep: &dyn Fn(&str) -> bool) -> Vec<Close> {
        self.flat().closest(query, k, keep)
    }

    /// The mean of a note's passage vectors, unit length: what the note is
    /// about as a whole.
    pub fn centroid(&self, path: &str) -> Option<Vec<f32>> {
        let note = self.notes.get(path)?;
        if note.chunks.is_empty() {
            return None;
        }
        let mut sum = vec![0f32; self.dim];
        for i in 0..note.chunks.len() {
            for (s, x) in sum.iter_mut().zip(note.vector(i, self.dim)) {
                *s += x;
            }
        }
        crate::model::normalize(&mut sum);
        Some(sum)
    }
}

impl Flat {
    /// The best passage of each of the `k` notes closest to `query` (a unit
    /// vector), best first, among the notes `keep` accepts.
    pub fn closest(&self, query: &[f32], k: usize, keep: &dyn Fn(&str) -> bool) -> Vec<Close> {
        if query.len() != self.dim || k == 0 || self.dim == 0 {
            return Vec::new();
        }
        // A min-heap of the best k (score, path, row).
        let mut heap: BinaryHeap<Entry<'_>> = BinaryHeap::with_capacity(k + 1);
        let mut offer = |best: (f32, usize)| {
            let (score, row) = best;
            let path = &*self.paths[self.rows[row].0 as usize];
            let entry = Entry {
                score,
                path,
                chunk: row,
            };
            // Not better than the worst kept (ties go to the first path).
            if heap.len() == k && heap.peek().is_some_and(|worst| entry >= *worst) {
                return;
            }
            if !keep(path) {
                return;
            }
            heap.push(entry);
            if heap.len() > k {
                heap.pop();
            }
        };
        let mut best: Option<(f32, usize)> = None;
        for (row, vector) in self.data.chunks_exact(self.dim).enumerate() {
            let score = dot(query, vector) * self.scales[row];
            if let Some(b) = best
                && self.rows[b.1].0 != self.rows[row].0
            {
                offer(b);
                best = None;
            }
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, row));
            }
        }
        if let Some(b) = best {
            offer(b);
        }
        let mut out: Vec<Close> = heap
            .into_iter()
            .map(|e| Close {
                path: e.path.into(),
                chunk: self.rows[e.chunk].1,
                score: e.score,
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
        out
    }
}

struct Entry<'a> {
    score: f32,
    path: &'a str,
    chunk: usize,
}

impl PartialEq for Entry<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Entry<'_> {}
impl PartialOrd for Entry<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry<'_> {
    /// Reversed: the heap's top is the worst kept (lowest score, then the
    /// path that sorts last).
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.path.cmp(other.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(vectors: &[&[f32]]) -> NoteVectors {
        let mut n = NoteVectors::default();
        for (i, v) in vectors.iter().enumerate() {
            let (scale, data) = quantize(v);
            n.chunks.push(Chunk {
                start: i as u32,
                end: i as u32 + 1,
                hash: i as u64,
            });
            n.scales.push(scale);
            n.data.extend(data);
        }
        n
    }

    #[test]
    fn quantised_cosines_stay_close_and_the_best_passage_wins() {
        let mut v = Vectors::new("m", 2);
        v.notes
            .insert("a.md".into(), note(&[&[1.0, 0.0], &[0.6, 0.8]]));
        v.notes.insert("b.md".into(), note(&[&[0.0, 1.0]]));
        v.notes.insert("c.md".into(), note(&[&[-1.0, 0.0]]));
        let got = v.closest(&[0.0, 1.0], 2, &|_| true);
        assert_eq!(got.len(), 2);
        assert_eq!(&*got[0].path, "b.md");
        assert!((got[0].score - 1.0).abs() < 0.01);
        assert_eq!(&*got[1].path, "a.md");
        assert_eq!(got[1].chunk.start, 1, "a's second passage is its closest");
        assert!((got[1].score - 0.8).abs() < 0.01);
        let got = v.closest(&[0.0, 1.0], 5, &|p| p != "b.md");
        assert_eq!(
            got.iter().map(|c| &*c.path).collect::<Vec<_>>(),
            ["a.md", "c.md"]
        );
        assert!(
            v.closest(&[1.0], 5, &|_| true).is_empty(),
            "wrong dimension"
        );
        let c = v.centroid("a.md").unwrap();
        assert!(
            (c[0] - 0.894).abs() < 0.01 && (c[1] - 0.447).abs() < 0.01,
            "{c:?}"
        );
    }

    #[test]
    fn ties_are_broken_by_path() {
        let mut v = Vectors::new("m", 1);
        for p in ["c.md", "a.md", "b.md"] {
            v.notes.insert(p.into(), note(&[&[1.0]]));
        }
        let got = v.closest(&[1.0], 2, &|_| true);
        assert_eq!(
            got.iter().map(|c| &*c.path).collect::<Vec<_>>(),
            ["a.md", "b.md"]
        );
    }
}
