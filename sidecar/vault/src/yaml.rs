//! Where things are in a YAML frontmatter: each top-level key of its block
//! mapping with the byte ranges of the key, of its value and of the lines
//! the entry takes, and every scalar inside the value with its range. Read
//! with a real YAML parser (saphyr-parser), never by lines, so a quoted key
//! holding `:` or `#`, a key that contains another key's name, a comment or
//! a block scalar are all what YAML says they are.
//!
//! saphyr's positions count characters; they are turned into byte offsets
//! here, and everything this module returns is a byte range into the text
//! it was given. Values themselves are read by `serde_norway` elsewhere (the
//! index's parser); this module only says where they are. No IO, no
//! protocol types, no recursion (events are walked with a depth counter).

use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle};

/// The top-level entries of a frontmatter, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    pub entries: Vec<Entry>,
    /// The mapping is written `{a: 1, b: 2}`: its entries share lines, so
    /// their [`Entry::lines`] mean nothing (edits refuse it).
    pub flow: bool,
}

/// One `key: value` of the top-level mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key as YAML reads it (quotes and escapes resolved).
    pub key: String,
    /// The key as written, quotes included.
    pub key_span: Range<usize>,
    /// The value, from its first byte to its last (empty, just after the
    /// key, when there is none).
    pub value: Range<usize>,
    /// The whole lines of the entry, from the start of the key's line to
    /// the end of the value's last line (its line break included).
    pub lines: Range<usize>,
    /// The value starts on the key's line.
    pub inline: bool,
    /// Every scalar inside the value (the value itself when it is one).
    pub scalars: Vec<Scalar>,
    /// The value is a list whose items are all scalars (`[a, b]` or one
    /// `- item` per line): [`Entry::scalars`] are its items.
    pub scalar_list: bool,
}

/// A scalar inside a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// As YAML reads it.
    pub value: String,
    /// As written (quotes included).
    pub span: Range<usize>,
    /// Written without quotes or block indicators.
    pub plain: bool,
}

/// Why a frontmatter has no layout this module can give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// Not valid YAML: the message, and where (a byte offset).
    Syntax { message: String, at: usize },
    /// The top level is a list or a single value, not a mapping.
    NotBlockMapping,
    /// A key that is not a plain scalar (`? [a, b]: …`, an alias, a tag).
    ComplexKey { at: usize },
    /// More than one YAML document.
    SeveralDocuments,
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutError::Syntax { message, .. } => write!(f, "{message}"),
            LayoutError::NotBlockMapping => f.write_str(
                "the frontmatter is not a mapping of `key: value` lines (it is a list or a single \
                 value)",
            ),
            LayoutError::ComplexKey { .. } => {
                f.write_str("the frontmatter has a key that is not a plain name")
            }
            LayoutError::SeveralDocuments => {
                f.write_str("the frontmatter holds more than one YAML document")
            }
        }
    }
}

/// Byte offsets of character indices (saphyr's positions).
struct Offsets<'a> {
    text: &'a str,
    /// The byte offset of each character, when the text is not ASCII.
    starts: Option<Vec<usize>>,
}

impl Offsets<'_> {
    fn new(text: &str) -> Offsets<'_> {
        let starts = (!text.is_ascii()).then(|| text.char_indices().map(|(i, _)| i).collect());
        Offsets { text, starts }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.starts {
            None => char_index.min(self.text.len()),
            Some(starts) => starts.get(char_index).copied().unwrap_or(self.text.len()),
        }
    }
}

/// The layout of `yaml` (the text between the frontmatter's fences).
pub fn layout(yaml: &str) -> Result<Layout, LayoutError> {
    let offsets = Offsets::new(yaml);
    let mut entries: Vec<Entry> = Vec::new();
    let mut documents = 0;
    let mut in_top = false;
    let mut flow = false;
    // The key read last, while its value has not started.
    let mut key: Option<(String, Range<usize>)> = None;
    // The entry whose value is being read, and how deep inside it.
    let mut current: Option<Entry> = None;
    let mut depth: usize = 0;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = item.map_err(|e| LayoutError::Syntax {
            message: e.to_string(),
            at: offsets.byte(e.marker().index()),
        })?;
        let range = offsets.byte(span.start.index())..offsets.byte(span.end.index());
        if let Some(entry) = current.as_mut() {
            value_event(entry, &event, range, yaml);
            match event {
                Event::SequenceStart(..) | Event::MappingStart(..) => {
                    entry.scalar_list = false;
                    depth += 1;
                }
                Event::Alias(_) => entry.scalar_list = false,
                Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 {
                // The value is complete.
                finish(&mut entries, current.take(), yaml);
            }
            continue;
        }
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => {}
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(LayoutError::SeveralDocuments);
                }
            }
            Event::MappingStart(..) if !in_top => {
                // A flow mapping starts at its `{` (after any anchor); a
                // block mapping's start has no text of its own.
                flow = yaml[range].contains('{');
                in_top = true;
            }
            _ if !in_top => return Err(LayoutError::NotBlockMapping),
            Event::MappingEnd if key.is_none() => in_top = false,
            Event::Scalar(value, style, anchor, tag) if key.is_none() => {
                if anchor != 0 || tag.is_some() {
                    return Err(LayoutError::ComplexKey { at: range.start });
                }
                let range = range.start..scalar_end(yaml, &range, style);
                key = Some((value.into_owned(), range));
            }
            _ if key.is_none() => return Err(LayoutError::ComplexKey { at: range.start }),
            event => {
                // The first event of a value.
                let Some((key, key_span)) = key.take() else {
                    return Err(LayoutError::NotBlockMapping);
                };
                let mut entry = Entry {
                    key,
                    value: range.start..range.start,
                    inline: !yaml[key_span.end..range.start.max(key_span.end)].contains('\n'),
                    lines: line_start(yaml, key_span.start)..0,
                    key_span,
                    scalars: Vec::new(),
                    scalar_list: matches!(event, Event::SequenceStart(..)),
                };
                value_event(&mut entry, &event, range, yaml);
                match event {
                    Event::SequenceStart(..) | Event::MappingStart(..) => {
                        depth = 1;
                        current = Some(entry);
                    }
                    _ => finish(&mut entries, Some(entry), yaml),
                }
            }
        }
    }
    Ok(Layout { entries, flow })
}

/// Takes one event of an entry's value: where the value's content ends
/// (scalars and aliases end where their span does; a flow collection at
/// its closing bracket, as saphyr's end span runs on over a trailing
/// comment; a block collection's end marks nothing), and its scalars.
fn value_event(entry: &mut Entry, event: &Event<'_>, range: Range<usize>, yaml: &str) {
    let end = match event {
        Event::Scalar(value, style, ..) => {
            let range = range.start..scalar_end(yaml, &range, *style);
            entry.scalars.push(Scalar {
                value: value.to_string(),
                span: range.clone(),
                plain: *style == ScalarStyle::Plain,
            });
            range.end
        }
        Event::SequenceEnd | Event::MappingEnd if range.start < range.end => yaml[range.start..]
            .chars()
            .next()
            .map_or(yaml.len(), |c| range.start + c.len_utf8()),
        Event::SequenceEnd | Event::MappingEnd => entry.value.end,
        _ => range.end,
    };
    entry.value.end = entry.value.end.max(end);
}

/// Where a scalar ends. saphyr's span of a quoted scalar runs on over the
/// spaces and comment after it, so its closing quote is found here: `\"`
/// escapes in double quotes, `''` in single ones.
fn scalar_end(yaml: &str, range: &Range<usize>, style: ScalarStyle) -> usize {
    let quote = match style {
        ScalarStyle::DoubleQuoted => b'"',
        ScalarStyle::SingleQuoted => b'\'',
        _ => return range.end,
    };
    let bytes = yaml.as_bytes();
    let mut at = range.start;
    // The opening quote (after any anchor or tag in the span).
    while at < range.end && bytes[at] != quote {
        at += 1;
    }
    at += 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if quote == b'"' => at += 2,
            b'\'' if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') => at += 2,
            b if b == quote => return at + 1,
            _ => at += 1,
        }
    }
    range.end
}

/// Closes an entry: its lines run to the end of its value's last line.
fn finish(entries: &mut Vec<Entry>, entry: Option<Entry>, yaml: &str) {
    let Some(mut entry) = entry else { return };
    let last = entry.value.end.max(entry.key_span.end);
    // A block scalar's span ends after its line break already.
    entry.lines.end = if last > entry.key_span.end && yaml.as_bytes()[last - 1] == b'\n' {
        last
    } else {
        line_end(yaml, last)
    };
    entries.push(entry);
}

fn line_start(text: &str, at: usize) -> usize {
    super::lines::line_start_at(text, at)
}

/// The end of the line holding `at`, its line break included.
fn line_end(text: &str, at: usize) -> usize {
    super::lines::next_line_start(text, at).unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(yaml: &str) -> Vec<String> {
        layout(yaml)
            .unwrap()
            .entries
            .iter()
            .map(|e| {
                format!(
                    "{:?} key={:?} value={:?} lines={:?} inline={} scalars={:?}",
                    e.key,
                    &yaml[e.key_span.clone()],
                    &yaml[e.value.clone()],
                    &yaml[e.lines.clone()],
                    e.inline,
                    e.scalars
                        .iter()
                        .map(|s| &yaml[s.span.clone()])
                        .collect::<Vec<_>>()
                )
            })
            .collect()
    }

    #[test]
    fn entries_keys_values_and_lines_as_yaml_reads_them() {
        let yaml = "\"a:b\": 1 # c\ntitle: \"Old\"   # kept: yes\ntags: [x, \"y z\"]   # trailing\n# between\ndesc: |\n  line1\n  line2\nmeta:\n  k: v\n  l: [1, 2]\n'q#k': 'it''s'\nbase: &b {x: 1}\nother: *b\nlist:\n  - one\n  - two\nsubtags: [s]\nempty:\nlast: plain text";
        expect_test::expect![[r#"
            [
                "\"a:b\" key=\"\\\"a:b\\\"\" value=\"1\" lines=\"\\\"a:b\\\": 1 # c\\n\" inline=true scalars=[\"1\"]",
                "\"title\" key=\"title\" value=\"\\\"Old\\\"\" lines=\"title: \\\"Old\\\"   # kept: yes\\n\" inline=true scalars=[\"\\\"Old\\\"\"]",
                "\"tags\" key=\"tags\" value=\"[x, \\\"y z\\\"]\" lines=\"tags: [x, \\\"y z\\\"]   # trailing\\n\" inline=true scalars=[\"x\", \"\\\"y z\\\"\"]",
                "\"desc\" key=\"desc\" value=\"line1\\n  line2\\n\" lines=\"desc: |\\n  line1\\n  line2\\n\" inline=false scalars=[\"line1\\n  line2\\n\"]",
                "\"meta\" key=\"meta\" value=\"k: v\\n  l: [1, 2]\" lines=\"meta:\\n  k: v\\n  l: [1, 2]\\n\" inline=false scalars=[\"k\", \"v\", \"l\", \"1\", \"2\"]",
                "\"q#k\" key=\"'q#k'\" value=\"'it''s'\" lines=\"'q#k': 'it''s'\\n\" inline=true scalars=[\"'it''s'\"]",
                "\"base\" key=\"base\" value=\"&b {x: 1}\" lines=\"base: &b {x: 1}\\n\" inline=true scalars=[\"x\", \"1\"]",
                "\"other\" key=\"other\" value=\"*b\" lines=\"other: *b\\n\" inline=true scalars=[]",
                "\"list\" key=\"list\" value=\"- one\\n  - two\" lines=\"list:\\n  - one\\n  - two\\n\" inline=false scalars=[\"one\", \"two\"]",
                "\"subtags\" key=\"subtags\" value=\"[s]\" lines=\"subtags: [s]\\n\" inline=true scalars=[\"s\"]",
                "\"empty\" key=\"empty\" value=\"\" lines=\"empty:\\n\" inline=true scalars=[\"\"]",
                "\"last\" key=\"last\" value=\"plain text\" lines=\"last: plain text\" inline=true scalars=[\"plain text\"]",
            ]
        "#]]
        .assert_debug_eq(&show(yaml));
    }

    #[test]
    fn byte_ranges_past_non_ascii_text_and_crlf() {
        let yaml = "títle: Café ☕\r\naliases: [Ünï, \"b\"]\r\n";
        let layout = layout(yaml).unwrap();
        let [title, aliases] = &layout.entries[..] else {
            panic!("{layout:?}")
        };
        assert_eq!(&yaml[title.key_span.clone()], "títle");
        assert_eq!(&yaml[title.value.clone()], "Café ☕");
        assert_eq!(&yaml[title.lines.clone()], "títle: Café ☕\r\n");
        assert_eq!(&yaml[aliases.scalars[0].span.clone()], "Ünï");
        assert_eq!(&yaml[aliases.lines.clone()], "aliases: [Ünï, \"b\"]\r\n");
    }

    #[test]
    fn what_has_no_layout_says_why() {
        assert_eq!(layout("").unwrap(), Layout::default());
        assert_eq!(layout("# only a comment\n").unwrap(), Layout::default());
        let flow = layout("{a: 1, b: [x]}").unwrap();
        assert!(flow.flow);
        assert_eq!(flow.entries.len(), 2);
        assert_eq!(flow.entries[1].scalars[0].value, "x");
        for (yaml, error) in [
            ("- a\n- b\n", LayoutError::NotBlockMapping),
            ("just text", LayoutError::NotBlockMapping),
            ("? [a, b]\n: c\n", LayoutError::ComplexKey { at: 2 }),
            ("&k a: 1\n", LayoutError::ComplexKey { at: 0 }),
            ("a: 1\n---\nb: 2\n", LayoutError::SeveralDocuments),
        ] {
            assert_eq!(layout(yaml), Err(error), "{yaml:?}");
        }
        assert!(matches!(
            layout("a: [1\nb: 2"),
            Err(LayoutError::Syntax { .. })
        ));
        // Nested values are walked without recursion; saphyr bounds how
        // deep a document may nest (an error past that, not a crash).
        let nested = format!("a: {}1{}\nb: 2\n", "[".repeat(100), "]".repeat(100));
        let found = layout(&nested).unwrap();
        assert_eq!(found.entries.len(), 2);
        assert_eq!(found.entries[1].key, "b");
        let deep = format!("a: {}1{}\nb: 2\n", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(layout(&deep), Err(LayoutError::Syntax { .. })));
    }
}
