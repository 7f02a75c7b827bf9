//! `weft-bench semantic DIR --model M [--questions Q]`: what finding by
//! meaning costs on a vault (embedding every note, query latency with the
//! fusion, memory of the vectors, their file) and, given an evaluation set,
//! how well each mode answers it: recall@5 and MRR for lexical, semantic
//! and hybrid, over every question, the paraphrased ones (no content word
//! shared with the answer) and the others.
//!
//! Runs the product's own ranking (`weft_semantic::retrieve`, as
//! `get_context` calls it) in process. A benchmark: it reports, it does
//! not judge.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::index::Summary;
use weft_search::dates::{Now, Zone};
use weft_search::{DiskFiles, SearchIndex};
use weft_semantic::{Mode, Model, Question, SemanticIndex, Wanted, retrieve};
use weft_workspace::io::LiveVault;
use weft_workspace::sync::read;

/// One question of an evaluation set.
#[derive(Debug, Clone, Deserialize)]
pub struct EvalQuestion {
    pub question: String,
    /// Vault paths of the notes that answer it.
    pub answers: Vec<String>,
    /// Shares no content word with its answers (`scripts/eval_check.py`).
    pub paraphrased: bool,
}

/// Recall@5 and MRR of one mode over a set of questions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Quality {
    pub questions: usize,
    pub recall_at_5: f64,
    pub mrr: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ModeQuality {
    pub mode: String,
    pub all: Quality,
    pub paraphrased: Quality,
    pub other: Quality,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SemanticReport {
    pub vault: String,
    pub model: String,
    pub dim: usize,
    pub notes: usize,
    pub markdown_bytes: u64,
    pub model_load_ms: f64,
    pub fulltext_build_ms: f64,
    /// Embedding every note from scratch (reading, cutting, embedding).
    pub embed_ms: f64,
    pub passages: usize,
    /// Memory the vectors and their passages hold.
    pub vector_bytes: usize,
    /// The saved file, and reading it back.
    pub file_bytes: usize,
    pub reload_ms: f64,
    /// One changed note brought in step.
    pub one_note_ms: f64,
    /// `retrieve` per mode (ms), over the questions or sampled titles.
    pub query_ms: Vec<(String, Summary)>,
    pub quality: Vec<ModeQuality>,
}

/// Runs it.
pub fn semantic_bench(
    dir: &Path,
    model: &Path,
    questions: Option<&Path>,
    vectors: Option<&Path>,
    show: bool,
) -> Result<SemanticReport, String> {
    let questions: Vec<EvalQuestion> = match questions {
        Some(q) => {
            serde_json::from_slice(&std::fs::read(q).map_err(|e| format!("{}: {e}", q.display()))?)
                .map_err(|e| format!("{}: {e}", q.display()))?
        }
        None => Vec::new(),
    };
    let mut report = SemanticReport {
        vault: dir.display().to_string(),
        model: model.display().to_string(),
        ..SemanticReport::default()
    };
    let live = Arc::new(LiveVault::open(dir).map_err(|e| e.to_string())?);
    let files = DiskFiles {
        root: live.root.clone(),
    };
    let (wanted, sources) = {
        let index = read(&live.index);
        report.notes = index.len();
        report.markdown_bytes = index.notes().map(|(_, n)| n.len as u64).sum();
        (
            index
                .notes()
                .map(|(_, n)| Wanted {
                    path: n.path.clone(),
                    text_hash: n.content_hash,
                })
                .collect::<Vec<_>>(),
            index
                .notes()
                .map(|(_, n)| weft_search::DocSource::of(n))
                .collect::<Vec<_>>(),
        )
    };
    let started = Instant::now();
    let search =
        SearchIndex::build(&sources, &files, &Default::default()).map_err(|e| e.to_string())?;
    report.fulltext_build_ms = ms(started);
    let started = Instant::now();
    let loaded = Model::load(model).map_err(|e| e.to_string())?;
    report.model_load_ms = ms(started);
    report.dim = loaded.dim;
    // Vectors kept from an earlier run of the same model, when asked.
    let kept = vectors
        .and_then(|path| std::fs::read(path).ok())
        .map(|bytes| {
            SemanticIndex::from_bytes(Model::load(model).map_err(|e| e.to_string())?, &bytes)
                .map_err(|e| e.1)
        });
    let semantic = match kept {
        Some(Ok(kept)) => kept,
        _ => SemanticIndex::new(loaded),
    };
    let started = Instant::now();
    semantic.sync(&wanted, &[], true, &files);
    report.embed_ms = ms(started);
    if let Some(path) = vectors {
        std::fs::write(path, semantic.to_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let (_, passages, bytes) = semantic.stats();
    report.passages = passages;
    report.vector_bytes = bytes;
    let saved = semantic.to_bytes();
    report.file_bytes = saved.len();
    let started = Instant::now();
    let reloaded =
        SemanticIndex::from_bytes(Model::load(model).map_err(|e| e.to_string())?, &saved)
            .map_err(|e| e.1)?;
    report.reload_ms = ms(started) - report.model_load_ms;
    drop(reloaded);
    if let Some(first) = wanted.first() {
        // One note whose fingerprint is unknown: read, cut and embedded.
        let one = [Wanted {
            path: first.path.clone(),
            text_hash: first.text_hash ^ 1,
        }];
        let started = Instant::now();
        semantic.sync(&one, &[], false, &files);
        report.one_note_ms = ms(started);
    }
    let texts: Vec<String> = if questions.is_empty() {
        let index = read(&live.index);
        index
            .notes()
            .take(200)
            .map(|(_, n)| n.title.to_string())
            .collect()
    } else {
        questions.iter().map(|q| q.question.clone()).collect()
    };
    let index = read(&live.index);
    let judge = |_: &str, _: &weft_vault::filter::Filter| true;
    for mode in [Mode::Lexical, Mode::Semantic, Mode::Hybrid] {
        let mut times = Vec::new();
        let mut ranks: Vec<Option<usize>> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let started = Instant::now();
            let found = retrieve(&Question {
                text,
                mode,
                k: 10,
                index: &index,
                search: Some(&search),
                semantic: Some(&semantic),
                filter: &weft_vault::filter::Filter::All,
                judge: &judge,
                keys: &[],
                files: &files,
                now: Now::read(Zone::System),
            })
            .map_err(|e| format!("{e:?}"))?;
            times.push(ms(started));
            if let Some(q) = questions.get(i) {
                let rank = found.iter().position(|f| {
                    let path = &*index.note(f.note).path;
                    q.answers.iter().any(|a| a == path)
                });
                if show {
                    let top: Vec<&str> = found
                        .iter()
                        .take(3)
                        .map(|f| &*index.note(f.note).path)
                        .collect();
                    eprintln!(
                        "{:>8} {} {:<5} {} → {:?} | {}",
                        mode.name(),
                        if q.paraphrased { "P" } else { "-" },
                        rank.map_or("miss".to_string(), |r| (r + 1).to_string()),
                        q.question,
                        top,
                        q.answers[0]
                    );
                }
                ranks.push(rank);
            }
        }
        report
            .query_ms
            .push((mode.name().to_string(), Summary::of(&times)));
        if !questions.is_empty() {
            let pick = |which: &dyn Fn(&EvalQuestion) -> bool| {
                quality(
                    questions
                        .iter()
                        .zip(&ranks)
                        .filter(|(q, _)| which(q))
                        .map(|(_, r)| *r),
                )
            };
            report.quality.push(ModeQuality {
                mode: mode.name().to_string(),
                all: pick(&|_| true),
                paraphrased: pick(&|q| q.paraphrased),
                other: pick(&|q| !q.paraphrased),
            });
        }
    }
    Ok(report)
}

fn quality(ranks: impl Iterator<Item = Option<usize>>) -> Quality {
    let mut q = Quality::default();
    for rank in ranks {
        q.questions += 1;
        if let Some(r) = rank {
            if r < 5 {
                q.recall_at_5 += 1.0;
            }
            q.mrr += 1.0 / (r as f64 + 1.0);
        }
    }
    if q.questions > 0 {
        q.recall_at_5 /= q.questions as f64;
        q.mrr /= q.questions as f64;
    }
    q
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

impl SemanticReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "## Semantic: {} notes ({:.1} MB of Markdown), model {} ({} dimensions)\n\n",
            self.notes,
            self.markdown_bytes as f64 / 1e6,
            self.model,
            self.dim
        );
        s.push_str(&format!(
            "| what | figure |\n|---|---:|\n| model load | {:.0} ms |\n| full-text build | {:.0} ms |\n\
             | embedding every note | {:.0} ms ({} passages, {:.0} passages/s) |\n\
             | vectors in memory | {:.1} MB ({:.2} × Markdown) |\n| vectors file | {:.1} MB, read back in {:.0} ms |\n\
             | one changed note | {:.2} ms |\n",
            self.model_load_ms,
            self.fulltext_build_ms,
            self.embed_ms,
            self.passages,
            self.passages as f64 / (self.embed_ms / 1000.0).max(1e-9),
            self.vector_bytes as f64 / 1e6,
            self.vector_bytes as f64 / self.markdown_bytes.max(1) as f64,
            self.file_bytes as f64 / 1e6,
            self.reload_ms,
            self.one_note_ms
        ));
        for (mode, t) in &self.query_ms {
            s.push_str(&format!(
                "| query, {mode} (top 10) | p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms |\n",
                t.p50, t.p95, t.max
            ));
        }
        if !self.quality.is_empty() {
            s.push_str("\n| mode | recall@5 all | MRR all | recall@5 paraphrased | MRR paraphrased | recall@5 other | MRR other |\n|---|---:|---:|---:|---:|---:|---:|\n");
            for q in &self.quality {
                s.push_str(&format!(
                    "| {} ({} questions) | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                    q.mode,
                    q.all.questions,
                    q.all.recall_at_5,
                    q.all.mrr,
                    q.paraphrased.recall_at_5,
                    q.paraphrased.mrr,
                    q.other.recall_at_5,
                    q.other.mrr
                ));
            }
        }
        s
    }
}

/// The questions' file default: the FOLDOC set in the repository.
pub fn default_questions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/foldoc.json")
}
