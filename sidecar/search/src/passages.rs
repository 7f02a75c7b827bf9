//! Evidence passages: the paragraphs of a note that best match a query,
//! stitched with their neighbours and the heading they stand under, within
//! a character budget.
//!
//! Works on a note's text and the query's terms; must not know the index's
//! storage or any protocol.

use std::collections::{BTreeMap, HashMap};

use super::schema::terms;
use weft_vault::lines::line_of;

/// A stretch of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The headings above it, outermost first, joined with `::`.
    pub heading: Option<String>,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    pub score: f64,
}

/// A paragraph, list, code block or heading, with its lines.
#[derive(Debug, Clone)]
struct Block {
    start_line: u32,
    end_line: u32,
    text: String,
    heading: Option<String>,
    is_heading: bool,
}

/// Cuts `text` (a whole note; the frontmatter is skipped) into blocks. The
/// headings, and the `A::B` paths of the sections, are the parser's
/// (`vault::headings`, which `read_note`'s `section` also takes): a `#` line
/// in a code block or indented is none, an underlined title is one.
fn blocks(text: &str, body_start: usize) -> Vec<Block> {
    let note = weft_vault::parse::parse_text("", text);
    let paths = weft_vault::headings::heading_paths(&note, "::");
    // The heading of each line, by 0-based line number.
    let heading_at: HashMap<u32, usize> = note
        .headings
        .iter()
        .enumerate()
        .map(|(i, h)| (h.line, i))
        .collect();
    let first_line = line_of(text, body_start) as u32;
    let mut out: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut section: Option<String> = None;
    let mut in_fence = false;
    // An underlined heading's second line belongs to the heading.
    let mut heading_until = None;
    for (i, line) in text[body_start.min(text.len())..].lines().enumerate() {
        let number = first_line + i as u32 + 1;
        if heading_until.is_some_and(|until| number <= until) {
            continue;
        }
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if let Some(&h) = heading_at.get(&(number - 1)) {
            out.extend(current.take());
            section = paths.get(h).cloned();
            let end = (note.headings[h].span.end as usize)
                .saturating_sub(1)
                .min(text.len());
            heading_until = Some(line_of(text, end) as u32 + 1);
            out.push(Block {
                start_line: number,
                end_line: number,
                text: line.to_string(),
                heading: section.clone(),
                is_heading: true,
            });
            continue;
        }
        if trimmed.is_empty() && !in_fence {
            out.extend(current.take());
            continue;
        }
        match &mut current {
            Some(block) => {
                block.end_line = number;
                block.text.push('\n');
                block.text.push_str(line);
            }
            None => {
                current = Some(Block {
                    start_line: number,
                    end_line: number,
                    text: line.to_string(),
                    heading: section.clone(),
                    is_heading: false,
                })
            }
        }
    }
    out.extend(current);
    out
}

/// The best passages of a note for `query_terms` (term → document
/// frequency among `num_docs`): at most `max_passages`, each the best
/// block stitched with up to `window` blocks either side in its section,
/// all together at most `max_chars` characters. Without query terms (or no
/// match), the note's opening.
pub fn best_passages(
    text: &str,
    body_start: usize,
    query_terms: &BTreeMap<String, u64>,
    num_docs: u64,
    window: usize,
    max_passages: usize,
    max_chars: usize,
) -> Vec<Passage> {
    let blocks = blocks(text, body_start);
    if blocks.is_empty() || max_chars == 0 {
        return Vec::new();
    }
    let scores: Vec<f64> = blocks
        .iter()
        .map(|b| score_block(&b.text, query_terms, num_docs))
        .collect();
    let mut order: Vec<usize> = (0..blocks.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    if order.is_empty() {
        // The opening: the first non-heading block with its heading.
        let first = blocks.iter().position(|b| !b.is_heading).unwrap_or(0);
        order.push(first);
    }
    let mut taken: Vec<(usize, usize, f64)> = Vec::new();
    for &best in &order {
        if taken.len() >= max_passages {
            break;
        }
        if taken.iter().any(|(s, e, _)| (*s..=*e).contains(&best)) {
            continue;
        }
        let mut start = best;
        let mut end = best;
        for _ in 0..window {
            if start > 0 && !blocks[start - 1].is_heading {
                start -= 1;
            }
            if end + 1 < blocks.len() && !blocks[end + 1].is_heading {
                end += 1;
            }
        }
        // Overlapping passages merge.
        if let Some(t) = taken
            .iter_mut()
            .find(|(s, e, _)| start <= *e + 1 && end + 1 >= *s)
        {
            t.0 = t.0.min(start);
            t.1 = t.1.max(end);
            continue;
        }
        taken.push((start, end, scores[best]));
    }
    let share = (max_chars / taken.len().max(1)).max(80);
    let mut used = 0;
    let mut out = Vec::new();
    for (start, end, score) in taken {
        if used >= max_chars {
            break;
        }
        let text: Vec<&str> = blocks[start..=end]
            .iter()
            .map(|b| b.text.as_str())
            .collect();
        let budget = share.min(max_chars - used);
        let text = cut(&text.join("\n\n"), budget);
        used += text.chars().count();
        out.push(Passage {
            heading: blocks[start].heading.clone(),
            start_line: blocks[start].start_line,
            end_line: blocks[end].end_line,
            text,
            score,
        });
    }
    out
}

fn score_block(text: &str, query_terms: &BTreeMap<String, u64>, num_docs: u64) -> f64 {
    if query_terms.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<String, u32> = HashMap::new();
    for t in terms(text) {
        if query_terms.contains_key(&t) {
            *counts.entry(t).or_default() += 1;
        }
    }
    counts
        .iter()
        .map(|(t, &n)| {
            let df = query_terms.get(t).copied().unwrap_or(0);
            let idf = (1.0 + (num_docs as f64 + 1.0) / (df as f64 + 1.0)).ln();
            idf * (1.0 + (n as f64).ln())
        })
        .sum()
}

/// Cuts text at about `max` characters, at a line or word end.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut end = text
        .char_indices()
        .nth(max.saturating_sub(1))
        .map_or(text.len(), |(i, _)| i);
    if let Some(space) = text[..end].rfind(['\n', ' ']).filter(|&i| i > end / 2) {
        end = space;
    }
    format!("{}…", text[..end].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\ntitle: T\n---\n# Guide\n\nIntro about cats.\n\n## Setup\n\nInstall the tool.\nThen configure it.\n\nDogs bark loudly here.\n\n## Usage\n\nRun it daily.\n";

    fn terms_of(words: &[&str]) -> BTreeMap<String, u64> {
        words
            .iter()
            .flat_map(|w| terms(w))
            .map(|t| (t, 1))
            .collect()
    }

    #[test]
    fn finds_the_best_block_with_its_neighbours_and_heading() {
        let start = super::super::index::body_start(NOTE);
        let passages = best_passages(NOTE, start, &terms_of(&["configure"]), 10, 1, 2, 1000);
        assert_eq!(passages.len(), 1);
        let p = &passages[0];
        assert_eq!(p.heading.as_deref(), Some("Guide::Setup"));
        assert_eq!((p.start_line, p.end_line), (10, 13));
        assert_eq!(
            p.text,
            "Install the tool.\nThen configure it.\n\nDogs bark loudly here."
        );
    }

    #[test]
    fn without_a_match_gives_the_opening_and_respects_the_budget() {
        let start = super::super::index::body_start(NOTE);
        let passages = best_passages(NOTE, start, &terms_of(&["zebra"]), 10, 0, 2, 1000);
        assert_eq!(passages[0].text, "Intro about cats.");
        assert_eq!(passages[0].start_line, 6);
        let short = best_passages(NOTE, start, &terms_of(&["install", "run"]), 10, 1, 3, 30);
        let total: usize = short.iter().map(|p| p.text.chars().count()).sum();
        assert!(total <= 30 + short.len(), "{short:?}");
    }
}

#[cfg(test)]
mod heading_tests {
    use super::*;

    /// Regression (issue 15 siblings): passages found headings on lines of
    /// their own, so a `#` line in a fence or indented was a heading, an
    /// underlined title was none, and a section path held link markup that
    /// `read_note`'s `section` could not take.
    #[test]
    fn sections_are_the_parsers_headings_and_paths() {
        let text = "# Top\n\n```\n# not a heading\nconfigure in code\n```\n\nSub [Docs](http://x)\n---\n\nconfigure here\n\n    # indented code\n";
        let blocks = blocks(text, 0);
        let headings: Vec<(&str, Option<&str>)> = blocks
            .iter()
            .filter(|b| b.is_heading)
            .map(|b| (b.text.as_str(), b.heading.as_deref()))
            .collect();
        assert_eq!(
            headings,
            [
                ("# Top", Some("Top")),
                ("Sub [Docs](http://x)", Some("Top::Sub Docs"))
            ]
        );
        let under: Vec<&str> = blocks
            .iter()
            .filter(|b| b.text.contains("configure"))
            .map(|b| b.heading.as_deref().unwrap_or(""))
            .collect();
        assert_eq!(under, ["Top", "Top::Sub Docs"]);
        assert!(
            blocks.iter().all(|b| b.text != "---"),
            "the underline is the heading's"
        );
    }
}
