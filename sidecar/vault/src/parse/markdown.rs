//! The Markdown of a note, read once: pulldown-cmark's events give the
//! headings, links (wikilinks, embeds, Markdown links), block ids and inline
//! tags, each with its byte span and line; then the frontmatter's findings
//! join them and the [`Note`] is assembled (title, aliases, the UTF-16
//! columns the language server reads, the content hash).
//!
//! Nothing inside code spans, code blocks, math or HTML counts. It must not
//! read YAML nor decide where the frontmatter is: `properties.rs` and
//! `crate::frontmatter` own those rules, and this file only asks them.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::links::{markdown_link, wiki_link};
use super::properties;
use crate::lines::LineIndex;
use crate::matcher::char_mask;
use crate::note::{
    Block, Heading, Link, LinkKind, Note, NoteDiagnostic, Span, TagUse, strip_md, text_hash,
};
use crate::tags;
use crate::tasks::TasksBuilder;

/// The length of `text` in UTF-16 code units.
fn utf16_len(text: &str) -> u32 {
    if text.is_ascii() {
        text.len() as u32
    } else {
        text.chars().map(|c| c.len_utf16() as u32).sum()
    }
}

/// The columns of spans visited in text order. Each span's UTF-16 column
/// is counted on from the previous span's on the same line, so a line of a
/// million links is read once, not once per link.
struct Columns<'t> {
    lines: &'t LineIndex,
    text: &'t str,
    /// The line of the last span, its start and its UTF-16 column
    /// (`u32::MAX`: none yet).
    line: u32,
    at: u32,
    col16: u32,
}

impl<'t> Columns<'t> {
    fn new(lines: &'t LineIndex, text: &'t str) -> Self {
        Columns {
            lines,
            text,
            line: u32::MAX,
            at: 0,
            col16: 0,
        }
    }

    /// (bytes, UTF-16 units) from the start of `line` to `span`, and the
    /// span's UTF-16 length when it stays on that line (else `u16::MAX`).
    fn of(&mut self, line: u32, span: &Span) -> (u32, u32, u16) {
        let start = self.lines.line_start(line).unwrap_or(0) as u32;
        let col = span.start.saturating_sub(start);
        if line != self.line || span.start < self.at {
            (self.line, self.at, self.col16) = (line, start, 0);
        }
        let col16 = match self.text.get(self.at as usize..span.start as usize) {
            Some(prefix) => {
                self.col16 += utf16_len(prefix);
                self.at = span.start;
                self.col16
            }
            None => {
                self.line = u32::MAX;
                col
            }
        };
        let body = self.text.get(span.start as usize..span.end as usize);
        let len16 = body
            .filter(|body| !body.contains(['\n', '\r']))
            .map_or(u16::MAX, |body| {
                u16::try_from(utf16_len(body)).unwrap_or(u16::MAX)
            });
        (col, col16, len16)
    }
}

/// What a note's Markdown body holds, its frontmatter left unread (see
/// `parse::parse_body`).
pub(crate) struct Body {
    /// The body's links in text order, with spans and lines (no columns).
    pub(crate) links: Vec<Link>,
    pub(crate) tags: usize,
    pub(crate) headings: usize,
}

/// One note being read: what the walk has found so far.
pub(super) struct NoteParser<'a> {
    path: &'a str,
    /// The whole text; offsets are into it.
    text: &'a str,
    /// Where the Markdown starts (after a BOM).
    base: usize,
    lines: LineIndex,
    title_h1: Option<Box<str>>,
    /// The properties, once `properties.rs` has read them.
    frontmatter: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    frontmatter_span: Option<Span>,
    yaml: Option<Range<usize>>,
    tags: Vec<TagUse>,
    headings: Vec<Heading>,
    blocks: Vec<Block>,
    links: Vec<Link>,
    tasks: TasksBuilder,
    has_base_block: bool,
    pub(super) diagnostics: Vec<NoteDiagnostic>,
}

impl<'a> NoteParser<'a> {
    pub(super) fn new(path: &'a str, text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        // The frontmatter by the one rule every reader follows; the
        // Markdown starts after it.
        let block = crate::frontmatter::block(text);
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
            tasks: TasksBuilder::default(),
            has_base_block: false,
            diagnostics: Vec::new(),
        }
    }

    fn line(&self, offset: usize) -> u32 {
        self.lines.line(offset)
    }

    fn span(range: &Range<usize>) -> Span {
        range.start as u32..range.end as u32
    }

    pub(super) fn run(&mut self) {
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
        // Open list items: the task each is, if any.
        let mut items: Vec<Option<u32>> = Vec::new();

        for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
            let range = range.start + base..range.end + base;
            match event {
                Event::Start(Tag::CodeBlock(ref kind)) => {
                    if let CodeBlockKind::Fenced(info) = kind
                        && info.split_whitespace().next() == Some("base")
                    {
                        self.has_base_block = true;
                    }
                    code_depth += 1;
                }
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
                            mask: char_mask(text),
                        });
                    }
                }
                Event::Start(Tag::Paragraph) => blocks.push((range.start, None)),
                Event::Start(Tag::Item) => {
                    blocks.push((range.start, None));
                    let parent = items.iter().rev().find_map(|task| *task);
                    items.push(self.task(range.start, parent));
                }
                Event::Start(Tag::List(_)) => {
                    if let Some((_, own_end @ None)) = blocks.last_mut() {
                        *own_end = Some(range.start);
                    }
                }
                Event::End(TagEnd::Paragraph) | Event::End(TagEnd::Item) => {
                    if matches!(event, Event::End(TagEnd::Item)) {
                        items.pop();
                    }
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
                            link.set_alias(Some(text.trim()));
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
        let mut link = link;
        link.line = self.line(range.start);
        self.links.push(link);
        Some(self.links.len() - 1)
    }

    /// The task of the list item starting at `at`, if its line is one
    /// (read from the line's start, as the Tasks plugin reads lines): its
    /// index in `self.tasks`. A line is one task however many items start
    /// on it.
    fn task(&mut self, at: usize, parent: Option<u32>) -> Option<u32> {
        // An item indented by a tab starts, for pulldown-cmark, at the line
        // break before it: its line is the next.
        let at = at
            + self.text[at..]
                .bytes()
                .take_while(|b| matches!(b, b'\n' | b'\r'))
                .count()
                .min(2);
        let line = self.line(at);
        if self.tasks.last_line() == Some(line) {
            return Some(self.tasks.len() as u32 - 1);
        }
        let start = self.lines.line_start(line)?;
        let rest = &self.text[start..];
        let end = memchr::memchr2(b'\n', b'\r', rest.as_bytes()).unwrap_or(rest.len());
        self.tasks.push(&rest[..end], line, start as u32, parent)
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

    /// What the body alone holds, the frontmatter left unread: its links
    /// (placed by span and line, without columns), tags and headings.
    pub(super) fn body(self) -> Body {
        Body {
            links: self.links,
            tags: self.tags.len(),
            headings: self.headings.len(),
        }
    }

    pub(super) fn finish(mut self) -> Note {
        let properties = properties::read(
            self.path,
            self.text,
            self.yaml.clone(),
            self.frontmatter_span.is_some(),
            &self.lines,
        );
        self.frontmatter = properties.map;
        self.links.extend(properties.links);
        self.tags.extend(properties.tags);
        self.diagnostics.extend(properties.diagnostics);
        self.links.sort_by_key(|l| l.span.start);
        self.tags
            .sort_by_key(|t| t.span.as_ref().map_or(0, |s| s.start));
        let mut columns = Columns::new(&self.lines, self.text);
        for link in &mut self.links {
            (link.col, link.col16, link.len16) = columns.of(link.line, &link.span);
        }
        let mut columns = Columns::new(&self.lines, self.text);
        for tag in &mut self.tags {
            if let Some(span) = &tag.span {
                (tag.col, tag.col16, tag.len16) = columns.of(tag.line, span);
            }
        }
        self.blocks.sort_by_key(|b| b.span.start);
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
        let name_mask = aliases
            .iter()
            .fold(char_mask(stem) | char_mask(&title), |mask, alias| {
                mask | char_mask(alias)
            });
        Note {
            name_mask,
            path: self.path.into(),
            title,
            aliases,
            tags: self.tags,
            headings: self.headings,
            blocks: self.blocks,
            links: self.links,
            tasks: self.tasks.finish(),
            frontmatter: self.frontmatter,
            frontmatter_span: self.frontmatter_span,
            has_base_block: self.has_base_block,
            diagnostics: self.diagnostics,
            len: self.text.len() as u32,
            content_hash: text_hash(self.text),
        }
    }
}
