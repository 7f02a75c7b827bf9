//! `weft bench search DIR`: times the full-text index build, `search_notes`
//! (the whole tool: parse, search, snippets, Markdown) and `get_links` on a
//! vault, with a floor (reading every note) measured in the same run.
//!
//! A benchmark, not a test: it reports numbers and judges nothing. Must not
//! know how the command line prints them.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use fastrand::Rng;
use serde::Serialize;
use serde_json::json;

use crate::index::Summary;
use weft_tools::query::call;
use weft_tools::state::ToolState;
use weft_workspace::io::LiveVault;

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchBenchOptions {
    /// Queries timed (each run once, after a warm-up pass).
    pub queries: usize,
    /// Notes whose links are asked.
    pub links: usize,
    pub seed: u64,
}

impl Default for SearchBenchOptions {
    fn default() -> Self {
        SearchBenchOptions {
            queries: 300,
            links: 300,
            seed: 7,
        }
    }
}

/// Everything `weft bench search` measured (times in ms or µs as named).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SearchBenchReport {
    pub vault: String,
    pub cores: usize,
    pub notes: usize,
    pub markdown_bytes: u64,
    /// Reading every note file once (the floor).
    pub read_floor_ms: f64,
    pub open_ms: f64,
    pub fulltext_build_ms: f64,
    /// `search_notes` with snippets, as the agent gets it.
    pub search_tool_ms: Summary,
    /// The slowest `search_notes` call: its arguments and milliseconds.
    pub search_slowest: (String, f64),
    /// The same queries on the index alone (no snippets, no formatting).
    pub search_engine_ms: Summary,
    /// `search_notes` with filters only — a folder, a tag and a property
    /// value, taken from one note so that each selects something — as the
    /// agent gets it (THE note filter, compiled, judged where it must be).
    pub filter_tool_ms: Summary,
    /// The slowest of those: its arguments and milliseconds.
    pub filter_slowest: (String, f64),
    /// Those that found no note (each should find at least its own) or
    /// failed: a wrong answer would make their times meaningless.
    pub filter_misses: usize,
    /// `get_links` (both directions, with context) on random notes.
    pub get_links_ms: Summary,
    /// `get_links` on the note with the most backlinks.
    pub get_links_hub_ms: f64,
    pub hub_backlinks: usize,
    /// Resident memory after the note index, and after the full text too.
    pub rss_after_open_bytes: Option<u64>,
    pub rss_after_bytes: Option<u64>,
    /// What tantivy says its segments take.
    pub fulltext_bytes: u64,
}

/// Runs the benchmark on the vault at `dir`.
pub fn search_bench(
    dir: &Path,
    options: &SearchBenchOptions,
) -> std::io::Result<SearchBenchReport> {
    let mut report = SearchBenchReport {
        vault: dir.display().to_string(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..SearchBenchReport::default()
    };
    let floor = Instant::now();
    let files = crate::index::walk(dir)?;
    let mut bytes = 0u64;
    for path in &files.notes {
        bytes += std::fs::read(dir.join(path)).map_or(0, |b| b.len() as u64);
    }
    report.read_floor_ms = ms(floor);
    report.markdown_bytes = bytes;
    let open = Instant::now();
    let live = Arc::new(LiveVault::open(dir).map_err(|e| std::io::Error::other(e.to_string()))?);
    report.open_ms = ms(open);
    report.rss_after_open_bytes = crate::index::proc_status_bytes("VmRSS:");
    let build = Instant::now();
    let state = ToolState::from_live(live.clone(), weft_tools::Profile::default(), true)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    report.fulltext_build_ms = ms(build);
    report.rss_after_bytes = crate::index::proc_status_bytes("VmRSS:");
    report.fulltext_bytes = state.search().map_or(0, |s| s.size_bytes());

    let (queries, filters, notes, hub) = {
        let index = state.index();
        report.notes = index.len();
        let mut rng = Rng::with_seed(options.seed);
        let mut paths: Vec<String> = index.notes().map(|(_, n)| n.path.to_string()).collect();
        paths.sort();
        let words: Vec<String> = index
            .notes()
            .flat_map(|(_, n)| {
                n.title
                    .split_whitespace()
                    .map(str::to_lowercase)
                    .collect::<Vec<_>>()
            })
            .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphanumeric))
            .collect();
        let mut words = words;
        words.sort();
        words.dedup();
        let tags: Vec<String> = {
            let mut t: Vec<String> = index
                .tags()
                .values()
                .map(|t| t.display().to_string())
                .collect();
            t.sort();
            t
        };
        let mut pick = |v: &[String]| {
            if v.is_empty() {
                "note".to_string()
            } else {
                v[rng.usize(..v.len())].clone()
            }
        };
        let mut queries = Vec::new();
        for i in 0..options.queries {
            let (a, b) = (pick(&words), pick(&words));
            queries.push(match i % 6 {
                0 => json!({"query": a}),
                1 => json!({"query": format!("{a} {b}")}),
                2 => json!({"query": format!("{a} OR {b}")}),
                3 => json!({"query": format!("{a} -{b}")}),
                4 => json!({"query": a, "tags_any": [pick(&tags)]}),
                _ => json!({"query": format!("\"{a} {b}\" OR {a}")}),
            });
        }
        // Filters from the notes that have a folder, a tag and a scalar
        // property: each query selects at least its note.
        let mut filterable: Vec<serde_json::Value> = index
            .notes()
            .filter_map(|(_, n)| {
                let (folder, _) = n.path.rsplit_once('/')?;
                let tag = n.tags.first()?;
                let (key, value) = n.frontmatter.as_ref()?.iter().find(|(k, v)| {
                    !k.eq_ignore_ascii_case("tags")
                        && (v.is_string() || v.is_number() || v.is_boolean())
                })?;
                Some(json!({
                    "path_prefix": folder,
                    "tags_any": [tag.name.as_ref()],
                    "frontmatter": {key.as_str(): value},
                }))
            })
            .collect();
        filterable.sort_by_key(|v| v.to_string());
        let mut draw = Rng::with_seed(options.seed ^ 39);
        let filters: Vec<serde_json::Value> = (0..options.queries / 3)
            .filter(|_| !filterable.is_empty())
            .map(|_| filterable[draw.usize(..filterable.len())].clone())
            .collect();
        let notes: Vec<String> = (0..options.links).map(|_| pick(&paths)).collect();
        let hub = index
            .notes()
            .map(|(id, n)| (index.backlinks(id).len(), n.path.to_string()))
            .max()
            .unwrap_or_default();
        (queries, filters, notes, hub)
    };

    // Warm-up: one pass over a few queries.
    for q in queries.iter().take(20) {
        let _ = call(&state, "search_notes", q.clone());
    }
    let mut tool = Vec::new();
    for q in &queries {
        let t = Instant::now();
        let _ = call(&state, "search_notes", q.clone());
        let took = ms(t);
        if took > report.search_slowest.1 {
            report.search_slowest = (q.to_string(), took);
        }
        tool.push(took);
    }
    report.search_tool_ms = Summary::of(&tool);
    for f in filters.iter().take(10) {
        let _ = call(&state, "search_notes", f.clone());
    }
    let mut filtered = Vec::new();
    for f in &filters {
        let t = Instant::now();
        let answer = call(&state, "search_notes", f.clone());
        let took = ms(t);
        let found = answer
            .ok()
            .and_then(|reply| reply.structured["total"].as_u64());
        if found.unwrap_or(0) == 0 {
            report.filter_misses += 1;
        }
        if took > report.filter_slowest.1 {
            report.filter_slowest = (f.to_string(), took);
        }
        filtered.push(took);
    }
    report.filter_tool_ms = Summary::of(&filtered);
    let search = state.search().expect("built above").clone();
    let mut engine = Vec::new();
    for q in &queries {
        let text = q["query"].as_str().unwrap_or_default().to_string();
        let filter = weft_vault::filter::Filter::all_of(
            q["tags_any"]
                .as_array()
                .map(|a| {
                    vec![weft_vault::filter::Filter::any_of(
                        a.iter()
                            .filter_map(|t| t.as_str())
                            .map(|t| weft_vault::filter::Filter::Tag(t.into()))
                            .collect(),
                    )]
                })
                .unwrap_or_default(),
        );
        let t = Instant::now();
        let _ = search.find(
            &weft_search::Request {
                query: Some(&text),
                filter: &filter,
                judge: &|_, _| true,
                keys: &[],
                types: &weft_vault::props::Types::default(),
                sort: weft_search::Sort::Relevance,
                offset: 0,
                limit: 10,
                snippet_chars: 0,
                now: weft_search::dates::Now::read(weft_search::dates::Zone::System),
            },
            state.files(),
        );
        engine.push(ms(t));
    }
    report.search_engine_ms = Summary::of(&engine);
    let mut links = Vec::new();
    for path in &notes {
        let t = Instant::now();
        let _ = call(&state, "get_links", json!({"path": path}));
        links.push(ms(t));
    }
    report.get_links_ms = Summary::of(&links);
    report.hub_backlinks = hub.0;
    let t = Instant::now();
    let _ = call(&state, "get_links", json!({"path": hub.1}));
    report.get_links_hub_ms = ms(t);
    Ok(report)
}

fn mb(bytes: Option<u64>) -> String {
    bytes.map_or("unknown".into(), |b| format!("{:.0} MB", b as f64 / 1e6))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

impl SearchBenchReport {
    pub fn to_markdown(&self) -> String {
        let s = |x: &Summary| {
            format!(
                "p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} samples)",
                x.p50, x.p95, x.max, x.samples
            )
        };
        format!(
            "# weft bench search\n\nVault `{}`: {} notes, {:.1} MB of Markdown; {} cores.\n\n\
             - floor (read every note): {:.0} ms\n- open (scan, parse, link index): {:.0} ms\n\
             - full-text index build: {:.0} ms\n- search_notes (tool, with snippets): {}\n\
             - slowest search_notes: {:.2} ms for {}\n\
             - search (engine only): {}\n\
             - search_notes with filters only (folder + tag + property): {}\n\
             - slowest filter-only search_notes: {:.2} ms for {}\n\
             - get_links (random notes): {}\n\
             - get_links on the hub ({} backlinks): {:.2} ms\n\
             - resident memory after the note index: {}; with the full text: {} (tantivy segments {:.0} MB)\n",
            self.vault,
            self.notes,
            self.markdown_bytes as f64 / 1e6,
            self.cores,
            self.read_floor_ms,
            self.open_ms,
            self.fulltext_build_ms,
            s(&self.search_tool_ms),
            self.search_slowest.1,
            self.search_slowest.0,
            s(&self.search_engine_ms),
            s(&self.filter_tool_ms),
            self.filter_slowest.1,
            self.filter_slowest.0,
            s(&self.get_links_ms),
            self.hub_backlinks,
            self.get_links_hub_ms,
            mb(self.rss_after_open_bytes),
            mb(self.rss_after_bytes),
            self.fulltext_bytes as f64 / 1e6,
        )
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Structural facts only: a benchmark must never fail a test on timing.
    #[test]
    fn the_search_benchmark_runs_on_a_small_generated_vault() {
        let dir = crate::generate::small_vault();
        let options = SearchBenchOptions {
            queries: 20,
            links: 10,
            seed: 2,
        };
        let report = search_bench(dir.path(), &options).unwrap();
        assert_eq!(report.notes, 300);
        assert_eq!(report.search_tool_ms.samples, 20, "{report:#?}");
        assert_eq!(report.filter_tool_ms.samples, 6, "{report:#?}");
        assert_eq!(report.filter_misses, 0, "{report:#?}");
        assert_eq!(report.get_links_ms.samples, 10, "{report:#?}");
    }
}
