//! The fuzzy matcher that completion and symbol search share: every
//! character of the query in order, case-insensitive, word starts and runs
//! scoring higher. No allocation per candidate; no IO.

use super::key::name_key;

/// A fuzzy matcher: every character of the query must appear in the
/// candidate in order (case-insensitive); matches at word starts, in runs
/// and near the start score higher. Matching allocates nothing.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// Lower-cased query characters, white space dropped.
    query: Vec<char>,
    /// The same as bytes when the query is ASCII: the fast path.
    ascii: Option<Vec<u8>>,
    /// The bits of the query's ASCII characters (see [`char_mask`]).
    mask: u32,
}

/// Which ASCII characters `text` holds once folded as the matcher folds
/// (so `K`, the Kelvin sign, counts as `k`), as bits: one per letter, five
/// for the digits, one for any other ASCII character. A query can match
/// only a text whose mask holds the bits of all of the query's ASCII
/// characters ([`Matcher::may_match`]), so a scan over a vault's headings
/// skips most without reading their text.
pub fn char_mask(text: &str) -> u32 {
    if text.is_ascii() {
        return bytes_mask(text.as_bytes());
    }
    text.chars().fold(0, |mask, c| {
        let folded = fold(c);
        mask | if folded.is_ascii() {
            byte_bit(folded as u8)
        } else {
            0
        }
    })
}

fn bytes_mask(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0, |mask, &b| mask | byte_bit(b))
}

fn byte_bit(b: u8) -> u32 {
    match b.to_ascii_lowercase() {
        c @ b'a'..=b'z' => 1 << (c - b'a'),
        d @ b'0'..=b'9' => 1 << (26 + (d - b'0') % 5),
        c if c.is_ascii() => 1 << 31,
        // Bytes of other characters never equal an ASCII query's.
        _ => 0,
    }
}

/// The score of a candidate that matches an empty query.
pub(crate) const EMPTY_QUERY_SCORE: u32 = 1;

impl Matcher {
    pub fn new(query: &str) -> Matcher {
        let key = name_key(query);
        let query: Vec<char> = key.chars().filter(|c| !c.is_whitespace()).collect();
        let ascii = query
            .iter()
            .all(char::is_ascii)
            .then(|| query.iter().map(|&c| c as u8).collect());
        let mask = query
            .iter()
            .filter(|c| c.is_ascii())
            .fold(0, |mask, &c| mask | byte_bit(c as u8));
        Matcher { query, ascii, mask }
    }

    /// Whether a text whose [`char_mask`] is `mask` can match: `false`
    /// only when it cannot ([`Matcher::score`] would say `None`).
    pub fn may_match(&self, mask: u32) -> bool {
        mask & self.mask == self.mask
    }

    pub fn is_empty(&self) -> bool {
        self.query.is_empty()
    }

    /// The number of query characters (white space excluded).
    pub fn len(&self) -> usize {
        self.query.len()
    }

    /// How well `candidate` matches, higher is better; `None` when it does
    /// not contain the query as a subsequence.
    pub fn score(&self, candidate: &str) -> Option<u32> {
        if self.query.is_empty() {
            return Some(EMPTY_QUERY_SCORE);
        }
        if candidate.len() < self.query.len() {
            return None;
        }
        match &self.ascii {
            Some(query) => score_ascii(query, candidate.as_bytes()),
            None => self.score_chars(candidate),
        }
    }

    fn score_chars(&self, candidate: &str) -> Option<u32> {
        // Forward: the earliest end of a match.
        let mut qi = 0;
        let mut end = 0;
        for (i, c) in candidate.char_indices() {
            if fold(c) == self.query[qi] {
                qi += 1;
                if qi == self.query.len() {
                    end = i + c.len_utf8();
                    break;
                }
            }
        }
        if qi < self.query.len() {
            return None;
        }
        // Backward from that end: the latest start, so the match is tight.
        let mut qi = self.query.len();
        let mut start = 0;
        for (i, c) in candidate[..end].char_indices().rev() {
            if fold(c) == self.query[qi - 1] {
                qi -= 1;
                if qi == 0 {
                    start = i;
                    break;
                }
            }
        }
        let mut tally = Tally::default();
        let mut qi = 0;
        let mut previous: Option<char> = candidate[..start].chars().next_back();
        for c in candidate[start..end].chars() {
            let matched = qi < self.query.len() && fold(c) == self.query[qi];
            if matched {
                qi += 1;
            }
            tally.step(matched, qi == 1, is_boundary(previous, c));
            previous = Some(c);
        }
        let leading = candidate[..start].chars().count();
        Some(tally.finish(
            start == 0,
            end == candidate.len(),
            leading,
            candidate.len() - end,
        ))
    }
}

/// The score of a match, step by step.
#[derive(Default)]
struct Tally {
    score: i32,
    gaps: i32,
    previous_matched: bool,
}

impl Tally {
    fn step(&mut self, matched: bool, first: bool, boundary: bool) {
        if matched {
            self.score += 16;
            if self.previous_matched {
                self.score += 18;
            }
            if boundary {
                self.score += if first { 14 } else { 8 };
            }
            self.previous_matched = true;
        } else {
            self.gaps += 1;
            self.previous_matched = false;
        }
    }

    fn finish(self, at_start: bool, to_end: bool, leading: usize, trailing: usize) -> u32 {
        let mut score = self.score;
        if at_start {
            score += 20;
        }
        // The whole candidate matched: an exact (case-insensitive) name.
        if at_start && to_end && self.gaps == 0 {
            score += 40;
        }
        score -= (2 * self.gaps).min(40) + leading.min(12) as i32 + trailing.min(40) as i32 / 4;
        score.max(1) as u32 + 1
    }
}

/// [`Matcher::score`] for an ASCII query: byte loops, no decoding. Bytes of
/// non-ASCII characters never equal an ASCII query byte.
fn score_ascii(query: &[u8], bytes: &[u8]) -> Option<u32> {
    let mut qi = 0;
    let mut end = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b.to_ascii_lowercase() == query[qi] {
            qi += 1;
            if qi == query.len() {
                end = i + 1;
                break;
            }
        }
    }
    if qi < query.len() {
        return None;
    }
    let mut qi = query.len();
    let mut start = 0;
    for i in (0..end).rev() {
        if bytes[i].to_ascii_lowercase() == query[qi - 1] {
            qi -= 1;
            if qi == 0 {
                start = i;
                break;
            }
        }
    }
    let is_char_start = |b: u8| b & 0xC0 != 0x80;
    let mut tally = Tally::default();
    let mut qi = 0;
    let mut previous: Option<u8> = start.checked_sub(1).map(|i| bytes[i]);
    for &b in &bytes[start..end] {
        if !is_char_start(b) {
            continue;
        }
        let matched = qi < query.len() && b.to_ascii_lowercase() == query[qi];
        if matched {
            qi += 1;
        }
        let boundary = match previous {
            None => true,
            Some(p) => {
                matches!(p, b' ' | b'/' | b'-' | b'_' | b'.' | b'#' | b'(' | b'[')
                    || (p.is_ascii_lowercase() && b.is_ascii_uppercase())
                    || (p.is_ascii() && !p.is_ascii_alphanumeric() && b.is_ascii_alphanumeric())
            }
        };
        tally.step(matched, qi == 1 && matched, boundary);
        previous = Some(b);
    }
    let leading = bytes[..start].iter().filter(|&&b| is_char_start(b)).count();
    Some(tally.finish(start == 0, end == bytes.len(), leading, bytes.len() - end))
}

fn fold(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        c.to_lowercase().next().unwrap_or(c)
    }
}

fn is_boundary(previous: Option<char>, c: char) -> bool {
    match previous {
        None => true,
        Some(p) => {
            matches!(p, ' ' | '/' | '-' | '_' | '.' | '#' | '(' | '[')
                || (p.is_lowercase() && c.is_uppercase())
                || (!p.is_alphanumeric() && c.is_alphanumeric())
        }
    }
}
