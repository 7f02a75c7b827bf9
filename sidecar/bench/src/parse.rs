//! The parse alone: every note of a vault read into memory first, then
//! timed on every core as (a) pulldown-cmark's events with the options the
//! parser uses, nothing done with them (what no parser built on it can
//! beat), and (b) `weft_vault::parse_file`, the whole note. The gap is
//! Weft's own work per note; (b) against the read floor is what a cold
//! build spends past the disk.

use std::hint::black_box;
use std::io;
use std::path::Path;
use std::time::Instant;

use pulldown_cmark::{Options, Parser};
use rayon::prelude::*;

use crate::index::{Summary, walk};

/// The options `weft_vault`'s Markdown walk gives pulldown-cmark.
fn options() -> Options {
    Options::ENABLE_WIKILINKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_MATH
}

pub struct ParseReport {
    pub notes: usize,
    pub bytes: u64,
    pub runs: usize,
    pub read_ms: Summary,
    pub events_ms: Summary,
    pub parse_ms: Summary,
}

pub fn parse_bench(root: &Path, runs: usize) -> io::Result<ParseReport> {
    let files = walk(root)?;
    let mut read = Vec::new();
    let mut texts: Vec<(String, Vec<u8>)> = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        texts = files
            .notes
            .par_iter()
            .map(|rel| std::fs::read(root.join(rel)).map(|bytes| (rel.clone(), bytes)))
            .collect::<io::Result<_>>()?;
        read.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let bytes = texts.iter().map(|(_, b)| b.len() as u64).sum();
    let (mut events, mut parse) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let count: usize = texts
            .par_iter()
            .map(|(_, bytes)| {
                let text = std::str::from_utf8(bytes).unwrap_or_default();
                Parser::new_ext(text, options())
                    .into_offset_iter()
                    .map(black_box)
                    .count()
            })
            .sum();
        black_box(count);
        events.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        let notes: Vec<_> = texts
            .par_iter()
            .map(|(rel, bytes)| weft_vault::parse_file(rel, bytes, bytes.len() as u64))
            .collect();
        parse.push(start.elapsed().as_secs_f64() * 1e3);
        // Dropped outside the timing, as the index keeps its notes.
        drop(black_box(notes));
    }
    Ok(ParseReport {
        notes: texts.len(),
        bytes,
        runs: runs.max(1),
        read_ms: Summary::of(&read),
        events_ms: Summary::of(&events),
        parse_ms: Summary::of(&parse),
    })
}

impl ParseReport {
    pub fn to_markdown(&self) -> String {
        let mb = self.bytes as f64 / 1e6;
        let row = |name: &str, s: &Summary, what: &str| {
            format!(
                "| {name} | {:.1} ms | {:.1} ms | {:.0} MB/s | {what} |\n",
                s.p50,
                s.p95,
                mb / (s.p50 / 1e3).max(1e-9)
            )
        };
        let mut out = format!(
            "### weft bench parse: {} notes, {mb:.1} MB Markdown ({} runs, every core)\n\n\
             | measure | p50 | p95 | throughput | what |\n|---|---:|---:|---:|---|\n",
            self.notes, self.runs
        );
        out += &row("read", &self.read_ms, "every note read into memory");
        out += &row(
            "events",
            &self.events_ms,
            "pulldown-cmark's events alone, nothing done with them",
        );
        out += &row(
            "parse",
            &self.parse_ms,
            &format!(
                "weft_vault::parse_file, the whole note ({:.2}× the events)",
                self.parse_ms.p50 / self.events_ms.p50.max(1e-9)
            ),
        );
        out
    }
}
