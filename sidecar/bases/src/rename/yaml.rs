//! A base's YAML as a tree of nodes with the byte ranges of its scalars,
//! read from saphyr's events (no recursion), and a scalar's text mapped
//! back to the bytes that write it: quotes, escapes, `''`, folded line
//! breaks and a literal block's indentation undone, each character of the
//! value knowing where it stands. When the mapping does not give back the
//! value YAML reads, there is none (the caller refuses to edit there).

use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle};

/// How deeply collections may nest.
const MAX_DEPTH: usize = 256;

pub(super) enum Node {
    Scalar(Scalar),
    Map(Vec<(Node, Node)>),
    Seq(Vec<Node>),
    /// `*name`: the node it repeats is edited where it is anchored.
    Alias,
}

pub(super) struct Scalar {
    /// As YAML reads it.
    pub value: String,
    pub style: ScalarStyle,
    /// From the scalar's first byte (after any anchor or tag) on; for a
    /// quoted scalar it may run on past the closing quote.
    pub span: Range<usize>,
    /// Inside a flow collection (`[…]`, `{…}`).
    pub flow: bool,
    /// Written with an anchor or a tag.
    pub decorated: bool,
}

impl Node {
    pub fn scalar(&self) -> Option<&Scalar> {
        match self {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.scalar().is_some_and(|s| s.value == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Byte offsets of character indices (saphyr's positions).
struct Offsets {
    starts: Option<Vec<usize>>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        let starts = (!text.is_ascii()).then(|| text.char_indices().map(|(i, _)| i).collect());
        Offsets {
            starts,
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.starts {
            None => char_index.min(self.len),
            Some(starts) => starts.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

enum Frame {
    Map(Vec<(Node, Node)>, Option<Node>, bool),
    Seq(Vec<Node>, bool),
}

/// The first document of `yaml` as a tree (`None` when it is empty), or
/// what YAML says is wrong and where (a byte offset).
pub(super) fn tree(yaml: &str) -> Result<Option<Node>, (String, usize)> {
    let offsets = Offsets::new(yaml);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Node> = None;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = item.map_err(|e| (e.to_string(), offsets.byte(e.marker().index())))?;
        let range = offsets.byte(span.start.index())..offsets.byte(span.end.index());
        let flow = matches!(
            stack.last(),
            Some(Frame::Map(_, _, true) | Frame::Seq(_, true))
        );
        let node = match event {
            Event::DocumentEnd if root.is_some() => break,
            Event::Scalar(value, style, anchor, tag) => Node::Scalar(Scalar {
                value: value.into_owned(),
                style,
                span: range,
                flow,
                decorated: anchor != 0 || tag.is_some(),
            }),
            Event::Alias(_) => Node::Alias,
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    return Err((
                        format!("collections nest more than {MAX_DEPTH} levels deep"),
                        range.start,
                    ));
                }
                let opens_flow = flow || yaml[range].trim_start().starts_with(['{', '[']);
                stack.push(match event {
                    Event::MappingStart(..) => Frame::Map(Vec::new(), None, opens_flow),
                    _ => Frame::Seq(Vec::new(), opens_flow),
                });
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Frame::Map(entries, _, _)) => Node::Map(entries),
                Some(Frame::Seq(items, _)) => Node::Seq(items),
                None => continue,
            },
            _ => continue,
        };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq(items, _)) => items.push(node),
            Some(Frame::Map(entries, key, _)) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }
    Ok(root)
}

/// A scalar's value with, for each of its bytes, the bytes of the YAML
/// that write it.
pub(super) struct Mapped {
    pub text: String,
    pub raw: Vec<Range<usize>>,
}

impl Mapped {
    fn push(&mut self, c: char, raw: Range<usize>) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            self.raw.push(raw.clone());
        }
    }

    fn pop_blanks(&mut self) {
        while self.text.ends_with([' ', '\t']) {
            self.text.pop();
            self.raw.pop();
        }
    }

    /// The bytes of the YAML that write the value's bytes `range`.
    pub fn raw_range(&self, range: &Range<usize>) -> Range<usize> {
        self.raw[range.start].start..self.raw[range.end - 1].end
    }
}

/// The scalar's value mapped to its bytes, when that gives back exactly
/// the value YAML reads.
pub(super) fn mapped(yaml: &str, s: &Scalar) -> Option<Mapped> {
    if s.decorated {
        return None;
    }
    let out = match s.style {
        ScalarStyle::Plain => flow_scalar(yaml, s.span.start, s.span.end, None),
        ScalarStyle::SingleQuoted => flow_scalar(yaml, s.span.start, yaml.len(), Some('\'')),
        ScalarStyle::DoubleQuoted => flow_scalar(yaml, s.span.start, yaml.len(), Some('"')),
        ScalarStyle::Literal | ScalarStyle::Folded => block_scalar(yaml, &s.span),
    }?;
    (out.text == s.value).then_some(out)
}

/// A plain or quoted scalar from `start`: line breaks folded (one space,
/// or a line feed per empty line), escapes and `''` read.
fn flow_scalar(yaml: &str, start: usize, end: usize, quote: Option<char>) -> Option<Mapped> {
    let mut out = Mapped {
        text: String::new(),
        raw: Vec::new(),
    };
    let mut at = start;
    if let Some(q) = quote {
        if !yaml[at..].starts_with(q) {
            return None;
        }
        at += 1;
    }
    let next = |at: usize| yaml[at..].chars().next();
    while at < end {
        let c = next(at)?;
        match c {
            '\'' if quote == Some('\'') => {
                if next(at + 1) == Some('\'') {
                    out.push('\'', at..at + 2);
                    at += 2;
                } else {
                    return Some(out);
                }
            }
            '"' if quote == Some('"') => return Some(out),
            '\\' if quote == Some('"') => {
                let e = next(at + 1)?;
                if e == '\n' || e == '\r' {
                    // An escaped line break: the next line's indentation goes too.
                    let mut to = at + 1;
                    to += if yaml[to..].starts_with("\r\n") { 2 } else { 1 };
                    while matches!(next(to), Some(' ' | '\t')) {
                        to += 1;
                    }
                    at = to;
                    continue;
                }
                let (ch, len) = match e {
                    '0' => ('\0', 2),
                    'a' => ('\x07', 2),
                    'b' => ('\x08', 2),
                    't' | '\t' => ('\t', 2),
                    'n' => ('\n', 2),
                    'v' => ('\x0b', 2),
                    'f' => ('\x0c', 2),
                    'r' => ('\r', 2),
                    'e' => ('\x1b', 2),
                    ' ' => (' ', 2),
                    '"' => ('"', 2),
                    '/' => ('/', 2),
                    '\\' => ('\\', 2),
                    'N' => ('\u{85}', 2),
                    '_' => ('\u{a0}', 2),
                    'L' => ('\u{2028}', 2),
                    'P' => ('\u{2029}', 2),
                    'x' | 'u' | 'U' => {
                        let digits = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex = yaml.get(at + 2..at + 2 + digits)?;
                        let ch = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                        (ch, 2 + digits)
                    }
                    _ => return None,
                };
                out.push(ch, at..at + len);
                at += len;
            }
            '\n' | '\r' => {
                // A line break folds: blanks around it go; no empty line
                // between is one space, else one line feed per empty line.
                out.pop_blanks();
                let from = at;
                let mut empty = 0;
                let mut to = at;
                loop {
                    to += if yaml[to..].starts_with("\r\n") { 2 } else { 1 };
                    while matches!(next(to), Some(' ' | '\t')) {
                        to += 1;
                    }
                    if matches!(next(to), Some('\n' | '\r')) {
                        empty += 1;
                    } else {
                        break;
                    }
                }
                if to >= end && quote.is_none() {
                    break;
                }
                if empty == 0 {
                    out.push(' ', from..to);
                } else {
                    for _ in 0..empty {
                        out.push('\n', from..to);
                    }
                }
                at = to;
            }
            c => {
                out.push(c, at..at + c.len_utf8());
                at += c.len_utf8();
            }
        }
    }
    // A quoted scalar that does not close, or a plain one that ran out.
    quote.is_none().then_some(out)
}

/// A `|` block read as a literal (a `>` block reads the same only when
/// nothing folds: one line of text). saphyr's span starts at the first
/// line's text, whose indentation is the block's; the header (`|-`, `|+`)
/// is on the line before. An explicit indentation indicator is not read.
fn block_scalar(yaml: &str, span: &Range<usize>) -> Option<Mapped> {
    let first_line = yaml[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = span.start - first_line;
    if yaml[first_line..span.start].trim() != "" {
        return None;
    }
    let before = yaml[..first_line].trim_end();
    let header_start = before.rfind('\n').map_or(0, |i| i + 1);
    let header_end = header_start + yaml[header_start..].find('\n')? + 1;
    let header_line = &before[header_start..];
    let header_line = match header_line.find(" #") {
        Some(i) => &header_line[..i],
        None => header_line,
    };
    let header = header_line.trim_end().rsplit([' ', '\t']).next()?;
    if !header.starts_with(['|', '>']) || header.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut out = Mapped {
        text: String::new(),
        raw: Vec::new(),
    };
    // Empty lines before the first line of text are line feeds.
    for line in yaml[header_end..first_line].split_inclusive('\n') {
        let at = line.as_ptr() as usize - yaml.as_ptr() as usize;
        let content = line.trim_end_matches(['\n', '\r']).len();
        out.push('\n', at + content..at + line.len());
    }
    let mut at = first_line;
    for line in yaml[first_line..span.end.max(first_line)].split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let lead = content.len() - content.trim_start_matches(' ').len();
        let breaks = line.len() > content.len();
        if content.trim().is_empty() {
            if breaks {
                out.push('\n', at + content.len()..at + line.len());
            }
        } else {
            if lead < indent {
                break;
            }
            let mut pos = at + indent;
            for c in content[indent..].chars() {
                out.push(c, pos..pos + c.len_utf8());
                pos += c.len_utf8();
            }
            if breaks {
                out.push('\n', at + content.len()..at + line.len());
            }
        }
        at += line.len();
    }
    // Chomping: `-` strips the final line feeds, `+` keeps them, else one.
    if !header.contains('+') {
        while out.text.ends_with('\n') {
            out.text.pop();
            out.raw.pop();
        }
        if !header.contains('-') && !out.text.is_empty() {
            let last = out.raw.last().map_or(at..at, |r| r.end..r.end);
            out.text.push('\n');
            out.raw.push(last);
        }
    }
    Some(out)
}

/// Whether `text` can stand as a plain scalar (in a flow collection or
/// not) and read back as this very text.
pub(super) fn plain_ok(text: &str, flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text.trim() != text
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || text.contains(": ")
        || text.contains(" #")
        || text.ends_with(':')
        || text.contains(['\n', '\r', '\t'])
        || (flow && text.contains([',', '[', ']', '{', '}']))
    {
        return false;
    }
    // What would read as another type than a text.
    let lower = text.to_ascii_lowercase();
    !(["null", "~", "true", "false", "yes", "no", "on", "off"].contains(&lower.as_str())
        || text.parse::<f64>().is_ok()
        || lower.starts_with("0x")
        || lower.starts_with("0o")
        || lower.starts_with(".inf")
        || lower.starts_with("-.inf")
        || lower == ".nan")
}

/// `value` as a quoted YAML scalar: single quotes, or double ones when it
/// holds a line break or a control character.
pub(super) fn quoted(value: &str) -> String {
    if value.chars().any(char::is_control) {
        format!("\"{}\"", double_escaped(value))
    } else {
        format!("'{}'", value.replace('\'', "''"))
    }
}

/// `text` as it is written inside double quotes.
pub(super) fn double_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}
