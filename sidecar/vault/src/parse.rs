//! Parsing one note's text into a [`Note`]: frontmatter, title, aliases,
//! tags, headings, block ids and every link form.
//!
//! Parsing never fails: any bytes give a note, with diagnostics for what was
//! wrong (invalid UTF-8, malformed YAML, duplicate block ids). Nothing inside
//! code spans, code blocks, math or HTML (comments included) counts.

use std::hash::{Hash, Hasher};
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

use super::lines::{LineIndex, line_of};
use super::note::{Block, Heading, Link, LinkKind, Note, NoteDiagnostic, Span, TagUse, strip_md};
use super::tags;

/// Notes are indexed with `u32` offsets; text past this is not parsed.
const MAX_PARSED_LEN: usize = u32::MAX as usize - 1;

/// Parses a note from raw bytes; invalid UTF-8 is replaced and reported.
pub fn parse_note(path: &str, bytes: &[u8]) -> Note {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_text(path, text),
        Err(error) => {
            let text = String::from_utf8_lossy(bytes);
            let mut note = parse_text(path, &text);
            let at = error.valid_up_to().min(note.len as usize) as u32;
            let line = line_of(&*text, at as usize) as u32;
            note.diagnostics.insert(
                0,
                NoteDiagnostic {
                    span: at..at,
                    line,
                    message: format!(
                        "invalid UTF-8 at byte {}: the note was read with replacement characters; \
                         save it as UTF-8 before editing it with Weft",
                        error.valid_up_to()
                    )
                    .into(),
                },
            );
            note
        }
    }
}

/// Parses a note from its text.
pub fn parse_text(path: &str, text: &str) -> Note {
    let mut text = text;
    let mut diagnostics = Vec::new();
    if text.len() > MAX_PARSED_LEN {
        let mut end = MAX_PARSED_LEN;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text = &text[..end];
        diagnostics.push(NoteDiagnostic {
            span: end as u32..end as u32,
            line: 0,
            message: "the note is larger than 4 GiB; only its beginning is indexed".into(),
        });
    }
    let mut parser = NoteParser::new(path, text);
    parser.diagnostics = diagnostics;
    parser.run();
    parser.finish()
}

/// The length of `text` in UTF-16 code units.
fn utf16_len(text: &str) -> u32 {
    if text.is_ascii() {
        text.len() as u32
    } else {
        text.chars().map(|c| c.len_utf16() as u32).sum()
    }
}

struct NoteParser<'a> {
    path: &'a str,
    /// The whole text; offsets are into it.
    text: &'a str,
    /// Where the Markdown starts (after a BOM).
    base: usize,
    lines: LineIndex,
    title_h1: Option<Box<str>>,
    frontmatter: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    frontmatter_span: Option<Span>,
    yaml: Option<Range<usize>>,
    tags: Vec<TagUse>,
    headings: Vec<Heading>,
    blocks: Vec<Block>,
    links: Vec<Link>,
    diagnostics: Vec<NoteDiagnostic>,
}

impl<'a> NoteParser<'a> {
    fn new(path: &'a str, text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        // The frontmatter by the one rule every reader follows; the
        // Markdown starts after it.
        let block = super::frontmatter::block(text);
        NoteParser {
            path,
            text,
            base: block.as_ref().map_or(bom, |b| b.body),
            lines: LineIndex::new(text),
            title_h1: None,
            frontmatter: None,
            frontmatter_span: block.as_ref().map(|b| bom as u32..b.fence_end as u32),
            yaml: block.map(|b| b.yaml),
            tags: Vec::new(),
            headings: Vec::new(),
            blocks: Vec::new(),
            links: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    fn line(&self, offset: usize) -> u32 {
        self.lines.line(offset)
    }

    /// (bytes, UTF-16 units) from the start of `line` to `span`, and the
    /// span's UTF-16 length when it stays on that line (else `u16::MAX`).
    fn columns(lines: &LineIndex, text: &str, line: u32, span: &Span) -> (u32, u32, u16) {
        let start = lines.line_start(line).unwrap_or(0) as u32;
        let col = span.start.saturating_sub(start);
        let prefix = text.get(start as usize..span.start as usize);
        let body = text.get(span.start as usize..span.end as usize);
        let len16 = body
            .filter(|body| !body.contains('\n'))
            .map_or(u16::MAX, |body| {
                u16::try_from(utf16_len(body)).unwrap_or(u16::MAX)
            });
        (col, prefix.map_or(col, utf16_len), len16)
    }

    fn span(range: &Range<usize>) -> Span {
        range.start as u32..range.end as u32
    }

    fn run(&mut self) {
        let body = &self.text[self.base..];
        // Frontmatter is found before (`frontmatter::block`): a `---` block
        // further down is Markdown, as Obsidian reads it.
        let options = Options::ENABLE_WIKILINKS
            | Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_MATH;
        let base = self.base;

        let mut code_depth = 0usize;
        // The link being read: its index in `self.links` and its text so far.
        let mut open_links: Vec<(Option<usize>, String)> = Vec::new();
        let mut heading: Option<(u8, Range<usize>, String)> = None;
        // Open paragraphs and list items: where they started.
        // Open paragraphs and list items: where they start and, for an item
        // with a nested list, where its own text ends.
        let mut blocks: Vec<(usize, Option<usize>)> = Vec::new();

        for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
            let range = range.start + base..range.end + base;
            match event {
                Event::Start(Tag::CodeBlock(_)) => code_depth += 1,
                Event::End(TagEnd::CodeBlock) => code_depth = code_depth.saturating_sub(1),
                _ if code_depth > 0 => {}
                Event::Start(Tag::Heading { level, .. }) => {
                    heading = Some((level as u8, range, String::new()));
                }
                Event::End(TagEnd::Heading(_)) => {
                    if let Some((level, range, text)) = heading.take() {
                        let text = text.trim();
                        if level == 1 && self.title_h1.is_none() && !text.is_empty() {
                            self.title_h1 = Some(text.into());
                        }
                        self.headings.push(Heading {
                            level,
                            text: text.into(),
                            span: Self::span(&range),
                            line: self.line(range.start),
                        });
                    }
                }
                Event::Start(Tag::Paragraph) | Event::Start(Tag::Item) => {
                    blocks.push((range.start, None))
                }
                Event::Start(Tag::List(_)) => {
                    if let Some((_, own_end @ None)) = blocks.last_mut() {
                        *own_end = Some(range.start);
                    }
                }
                Event::End(TagEnd::Paragraph) | Event::End(TagEnd::Item) => {
                    if let Some((start, own_end)) = blocks.pop() {
                        self.block_id(start..own_end.unwrap_or(range.end));
                    }
                }
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    ..
                }) => {
                    let index = self.link(link_type, &dest_url, range, false);
                    open_links.push((index, String::new()));
                }
                Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    ..
                }) => {
                    let index = self.link(link_type, &dest_url, range, true);
                    open_links.push((index, String::new()));
                }
                Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                    if let Some((Some(index), text)) = open_links.pop() {
                        let link = &mut self.links[index];
                        if link.kind == LinkKind::Markdown && !text.trim().is_empty() {
                            link.alias = Some(text.trim().into());
                        }
                    }
                }
                Event::Text(ref t) | Event::Code(ref t) => {
                    if let Some((_, _, text)) = heading.as_mut() {
                        text.push_str(t);
                    }
                    if let Some((_, text)) = open_links.last_mut() {
                        text.push_str(t);
                    } else if matches!(event, Event::Text(_)) {
                        self.inline_tags(range);
                    }
                }
                Event::SoftBreak | Event::HardBreak => {
                    if let Some((_, _, text)) = heading.as_mut() {
                        text.push(' ');
                    }
                }
                _ => {}
            }
        }
    }

    /// Records the link starting an event; returns its index, or `None` for
    /// links that are not into the vault (URLs, e-mail addresses).
    fn link(
        &mut self,
        link_type: LinkType,
        dest: &str,
        range: Range<usize>,
        embed: bool,
    ) -> Option<usize> {
        let raw = &self.text[range.clone()];
        let link = match link_type {
            LinkType::WikiLink { .. } => {
                let open = raw.find("[[")?;
                let inner_start = range.start + open + 2;
                let inner_end = if raw.ends_with("]]") {
                    range.end - 2
                } else {
                    range.end
                };
                if inner_end < inner_start {
                    return None;
                }
                wiki_link(
                    self.text,
                    inner_start..inner_end,
                    range.clone(),
                    embed || raw.starts_with('!'),
                )
            }
            LinkType::Inline | LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => {
                markdown_link(raw, dest, range.clone(), embed)?
            }
            _ => return None,
        };
        let line = self.line(range.start);
        self.links.push(Link { line, ..link });
        Some(self.links.len() - 1)
    }

    /// A block id `^id` ending the paragraph or list item at `range`.
    fn block_id(&mut self, range: Range<usize>) {
        let raw = self.text[range.clone()].trim_end();
        let end = range.start + raw.len();
        if self
            .blocks
            .last()
            .is_some_and(|b| b.span.end as usize == end)
        {
            return; // an inner block already claimed it
        }
        let Some(caret) = raw.rfind('^') else { return };
        let id = &raw[caret + 1..];
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return;
        }
        let before = raw[..caret].chars().next_back();
        if before.is_some_and(|c| !c.is_whitespace()) {
            return;
        }
        let at = range.start + caret;
        let span = at as u32..end as u32;
        if self.blocks.iter().any(|b| b.id.eq_ignore_ascii_case(id)) {
            self.diagnostics.push(NoteDiagnostic {
                span: span.clone(),
                line: self.line(at),
                message: format!("duplicate block id ^{id}: links to it reach only the first one")
                    .into(),
            });
        }
        self.blocks.push(Block {
            id: id.into(),
            span,
            block_span: range.start as u32..end as u32,
            line: self.line(at),
        });
    }

    /// Inline `#tags` in the source of a text event.
    fn inline_tags(&mut self, range: Range<usize>) {
        let raw = &self.text[range.clone()];
        for (i, _) in raw.match_indices('#') {
            let at = range.start + i;
            let before = self.text[..at].chars().next_back();
            if before.is_some_and(|c| !(c.is_whitespace() || matches!(c, '(' | '[' | ',' | ';'))) {
                continue;
            }
            let name = tags::inline_name(&raw[i + 1..]);
            if name.is_empty() {
                continue;
            }
            let end = at + 1 + name.len();
            self.tags.push(TagUse {
                name: name.into(),
                span: Some(at as u32..end as u32),
                line: self.line(at),
                col: 0,
                col16: 0,
                len16: u16::MAX,
                in_frontmatter: false,
            });
        }
    }

    fn frontmatter(&mut self) {
        let Some(yaml_range) = self.yaml.clone() else {
            if self.frontmatter_span.is_some() {
                self.frontmatter = Some(Box::default());
            }
            return;
        };
        let yaml = &self.text[yaml_range.clone()];
        match super::frontmatter::parse_mapping(yaml) {
            Ok(Some(object)) => self.frontmatter = Some(Box::new(object)),
            Ok(None) => self.diagnostics.push(NoteDiagnostic {
                span: Self::span(&yaml_range),
                line: self.line(yaml_range.start),
                message: "the frontmatter is not a mapping of `key: value` lines; it is ignored"
                    .into(),
            }),
            Err((error, at)) => {
                let at = (yaml_range.start + at).min(yaml_range.end);
                self.diagnostics.push(NoteDiagnostic {
                    span: at as u32..at as u32,
                    line: self.line(at),
                    message: format!(
                        "malformed YAML frontmatter ({error}); its properties are ignored"
                    )
                    .into(),
                });
            }
        }
        // Where keys, values and scalars are, as YAML reads them: links and
        // tags are found in values only, never in comments or keys.
        match super::yaml::layout(yaml) {
            Ok(layout) => {
                self.frontmatter_links(yaml_range.start, &layout);
                self.frontmatter_tags(yaml_range.start, &layout);
            }
            // serde_norway reported it above when it did not load.
            Err(error) => tracing::debug!("{}: frontmatter layout: {error}", self.path),
        }
    }

    /// `[[wikilinks]]` inside frontmatter values (each scalar on its own),
    /// each tagged with its top-level key.
    fn frontmatter_links(&mut self, base: usize, layout: &super::yaml::Layout) {
        for entry in &layout.entries {
            for scalar in &entry.scalars {
                let source = &self.text[base + scalar.span.start..base + scalar.span.end];
                let mut search = 0;
                while let Some(open) = source[search..].find("[[") {
                    let open = search + open;
                    let Some(close) = source[open + 2..].find("]]") else {
                        break;
                    };
                    let close = open + 2 + close;
                    search = close + 2;
                    if source[open..close].contains('\n') {
                        search = open + 2;
                        continue;
                    }
                    let start = base + scalar.span.start + open;
                    let embed = source[..open].ends_with('!');
                    let whole = if embed {
                        start - 1..start + close - open + 2
                    } else {
                        start..start + close - open + 2
                    };
                    let inner = start + 2..base + scalar.span.start + close;
                    let mut link = wiki_link(self.text, inner, whole, embed);
                    link.line = self.line(start);
                    link.rel = Some(entry.key.as_str().into());
                    self.links.push(link);
                }
            }
        }
    }

    /// The tags of the frontmatter's `tags` (or `tag`) value: a list, or a
    /// comma or space separated string; each name found where it is written.
    /// A name that is no tag is reported and not counted (one rule, in
    /// `vault::tags`, for every reader and writer).
    fn frontmatter_tags(&mut self, base: usize, layout: &super::yaml::Layout) {
        for entry in layout
            .entries
            .iter()
            .filter(|e| e.key == "tags" || e.key == "tag")
        {
            // A list of names (each item one name), or one string of names
            // separated by commas or spaces; anything else holds no tags.
            let list = match self.frontmatter.as_ref().and_then(|fm| fm.get(&entry.key)) {
                Some(serde_json::Value::Array(items)) => {
                    if items.iter().any(|i| i.is_array() || i.is_object()) {
                        continue;
                    }
                    true
                }
                Some(serde_json::Value::Object(_)) | None => continue,
                Some(_) => false,
            };
            for scalar in &entry.scalars {
                let source_start = base + scalar.span.start;
                let source = &self.text[source_start..base + scalar.span.end];
                let mut from = 0;
                let names = match list {
                    true => {
                        let name = scalar.value.trim().trim_start_matches('#');
                        vec![name].into_iter().filter(|n| !n.is_empty()).collect()
                    }
                    false => tags::frontmatter_pieces(&scalar.value)
                        .into_iter()
                        .map(|(_, name)| name)
                        .collect::<Vec<_>>(),
                };
                for name in names {
                    // Where the name is written in the scalar (its parsed
                    // value can differ from the source: quotes, escapes).
                    let found = source[from..].find(name).map(|i| from + i);
                    let span = found.map(|i| {
                        from = i + name.len();
                        (source_start + i) as u32..(source_start + i + name.len()) as u32
                    });
                    let at = span.as_ref().map_or(source_start, |s| s.start as usize);
                    if let Some(why) = tags::problem(name) {
                        self.diagnostics.push(NoteDiagnostic {
                            span: span.clone().unwrap_or(at as u32..at as u32),
                            line: self.line(at),
                            message: format!(
                                "`{name}` in `{}` is not a tag ({why}); it is not counted",
                                entry.key
                            )
                            .into(),
                        });
                        continue;
                    }
                    self.tags.push(TagUse {
                        name: name.into(),
                        span,
                        line: self.line(at),
                        col: 0,
                        col16: 0,
                        len16: u16::MAX,
                        in_frontmatter: true,
                    });
                }
            }
        }
    }

    fn finish(mut self) -> Note {
        self.frontmatter();
        self.links.sort_by_key(|l| l.span.start);
        for link in &mut self.links {
            (link.col, link.col16, link.len16) =
                Self::columns(&self.lines, self.text, link.line, &link.span);
        }
        for tag in &mut self.tags {
            if let Some(span) = &tag.span {
                (tag.col, tag.col16, tag.len16) =
                    Self::columns(&self.lines, self.text, tag.line, span);
            }
        }
        self.blocks.sort_by_key(|b| b.span.start);
        self.tags
            .sort_by_key(|t| t.span.as_ref().map_or(0, |s| s.start));
        let fm = self.frontmatter.as_deref();
        let fm_title = fm.and_then(|m| m.get("title")).and_then(|v| match v {
            serde_json::Value::String(s) if !s.trim().is_empty() => Some(s.trim().into()),
            _ => None,
        });
        let stem = strip_md(self.path);
        let stem = stem.rsplit('/').next().unwrap_or(stem);
        let title = fm_title
            .or(self.title_h1.take())
            .unwrap_or_else(|| stem.into());
        let mut aliases: Vec<Box<str>> = Vec::new();
        for key in ["aliases", "alias"] {
            match fm.and_then(|m| m.get(key)) {
                Some(serde_json::Value::String(s)) if !s.trim().is_empty() => {
                    aliases.push(s.trim().into())
                }
                Some(serde_json::Value::Array(items)) => {
                    aliases.extend(items.iter().filter_map(|v| match v {
                        serde_json::Value::String(s) if !s.trim().is_empty() => {
                            Some(s.trim().into())
                        }
                        serde_json::Value::Number(n) => Some(n.to_string().into()),
                        _ => None,
                    }))
                }
                _ => {}
            }
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.text.hash(&mut hasher);
        Note {
            path: self.path.into(),
            title,
            aliases,
            tags: self.tags,
            headings: self.headings,
            blocks: self.blocks,
            links: self.links,
            frontmatter: self.frontmatter,
            frontmatter_span: self.frontmatter_span,
            diagnostics: self.diagnostics,
            len: self.text.len() as u32,
            content_hash: hasher.finish(),
        }
    }
}

/// Reads `target#fragment|alias` between `[[` and `]]`.
fn wiki_link(text: &str, inner: Range<usize>, whole: Range<usize>, embed: bool) -> Link {
    let inner_text = &text[inner.clone()];
    let (dest, alias) = match inner_text.find('|') {
        // In a table Obsidian writes `[[target\|alias]]`.
        Some(bar) => (
            inner_text[..bar]
                .strip_suffix('\\')
                .unwrap_or(&inner_text[..bar]),
            Some(inner_text[bar + 1..].trim()),
        ),
        None => (inner_text, None),
    };
    let (target, fragment) = match dest.find('#') {
        Some(hash) => (&dest[..hash], Some(dest[hash + 1..].trim())),
        None => (dest, None),
    };
    let lead = target.len() - target.trim_start().len();
    let target_trimmed = target.trim();
    let start = inner.start + lead;
    Link {
        kind: LinkKind::Wiki,
        embed,
        target: target_trimmed.into(),
        fragment: fragment.filter(|f| !f.is_empty()).map(Into::into),
        alias: alias.filter(|a| !a.is_empty()).map(Into::into),
        span: whole.start as u32..whole.end as u32,
        target_span: start as u32..(start + target_trimmed.len()) as u32,
        line: 0,
        col: 0,
        col16: 0,
        len16: u16::MAX,
        rel: None,
    }
}

/// A Markdown link `[text](dest)` into the vault; `None` for URLs.
fn markdown_link(raw: &str, dest: &str, range: Range<usize>, embed: bool) -> Option<Link> {
    let dest = dest.trim();
    if dest.is_empty() || has_scheme(dest) || dest.starts_with("//") {
        return None;
    }
    let (path, fragment) = match dest.find('#') {
        Some(hash) => (&dest[..hash], Some(&dest[hash + 1..])),
        None => (dest, None),
    };
    let path = path.split('?').next().unwrap_or(path);
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let target = decode(path);
    // Where the destination stands in the source, when it is written inline.
    let target_span = raw
        .rfind("](")
        .and_then(|open| raw[open + 2..].find(path).map(|i| open + 2 + i))
        .filter(|_| !path.is_empty())
        .map_or(range.start..range.end, |i| {
            range.start + i..range.start + i + path.len()
        });
    Some(Link {
        kind: LinkKind::Markdown,
        embed,
        target: target.into(),
        fragment: fragment
            .map(decode)
            .filter(|f| !f.is_empty())
            .map(Into::into),
        alias: None,
        span: range.start as u32..range.end as u32,
        target_span: target_span.start as u32..target_span.end as u32,
        line: 0,
        col: 0,
        col16: 0,
        len16: u16::MAX,
        rel: None,
    })
}

/// `https:`, `mailto:`, `obsidian:`: a URL scheme (not a Windows drive).
fn has_scheme(dest: &str) -> bool {
    match dest.find(':') {
        Some(colon) if colon > 1 => {
            let scheme = &dest[..colon];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        _ => false,
    }
}
