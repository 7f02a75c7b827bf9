//! A note's frontmatter as the parser reads it: the properties (a YAML
//! mapping), the `[[wikilinks]]` written in its values and the tags of its
//! `tags` (or `tag`) key, each found where it is written, with diagnostics
//! for what cannot be read.
//!
//! It must not find the frontmatter block (`crate::frontmatter::block` is
//! the one rule for where it is), decide what a tag is (`crate::tags`), or
//! read the Markdown body: the body's parser hands it the YAML's range and
//! takes back what it found, so each rule stays in its one place.

use std::ops::Range;

use super::links::wiki_link;
use crate::lines::LineIndex;
use crate::note::{Link, NoteDiagnostic, TagUse};
use crate::tags;
use crate::yaml::Layout;

/// What the frontmatter holds.
#[derive(Default)]
pub(super) struct Properties {
    /// The mapping: empty for a block without YAML, `None` when there is no
    /// block or its YAML is no mapping.
    pub(super) map: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    pub(super) links: Vec<Link>,
    pub(super) tags: Vec<TagUse>,
    pub(super) diagnostics: Vec<NoteDiagnostic>,
}

/// Reads the frontmatter at `yaml` (the YAML between the fences, `None`
/// when there is none; `has_block` when fences stand there even so).
pub(super) fn read(
    path: &str,
    text: &str,
    yaml: Option<Range<usize>>,
    has_block: bool,
    lines: &LineIndex,
) -> Properties {
    let mut out = Properties::default();
    let Some(yaml_range) = yaml else {
        if has_block {
            out.map = Some(Box::default());
        }
        return out;
    };
    let yaml = &text[yaml_range.clone()];
    match crate::frontmatter::parse_mapping(yaml) {
        Ok(Some(object)) => out.map = Some(Box::new(object)),
        Ok(None) => out.diagnostics.push(NoteDiagnostic {
            span: yaml_range.start as u32..yaml_range.end as u32,
            line: lines.line(yaml_range.start),
            message: "the frontmatter is not a mapping of `key: value` lines; it is ignored".into(),
        }),
        Err((error, at)) => {
            let at = (yaml_range.start + at).min(yaml_range.end);
            out.diagnostics.push(NoteDiagnostic {
                span: at as u32..at as u32,
                line: lines.line(at),
                message: format!(
                    "malformed YAML frontmatter ({error}); its properties are ignored"
                )
                .into(),
            });
        }
    }
    // Where keys, values and scalars are, as YAML reads them: links and
    // tags are found in values only, never in comments or keys.
    match crate::yaml::layout(yaml) {
        Ok(layout) => {
            value_links(text, yaml_range.start, &layout, lines, &mut out);
            value_tags(text, yaml_range.start, &layout, lines, &mut out);
        }
        // serde_norway reported it above when it did not load.
        Err(error) => tracing::debug!("{}: frontmatter layout: {error}", path),
    }
    out
}

/// `[[wikilinks]]` inside frontmatter values (each scalar on its own),
/// each tagged with its top-level key.
fn value_links(text: &str, base: usize, layout: &Layout, lines: &LineIndex, out: &mut Properties) {
    for entry in &layout.entries {
        for scalar in &entry.scalars {
            let source = &text[base + scalar.span.start..base + scalar.span.end];
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
                let mut link = wiki_link(text, inner, whole, embed);
                link.line = lines.line(start);
                link.set_rel(Some(entry.key.as_str()));
                out.links.push(link);
            }
        }
    }
}

/// The tags of the frontmatter's `tags` (or `tag`) value: a list, or a
/// comma or space separated string; each name found where it is written.
/// A name that is no tag is reported and not counted (one rule, in
/// `vault::tags`, for every reader and writer).
fn value_tags(text: &str, base: usize, layout: &Layout, lines: &LineIndex, out: &mut Properties) {
    for entry in layout
        .entries
        .iter()
        .filter(|e| e.key == "tags" || e.key == "tag")
    {
        // A list of names (each item one name), or one string of names
        // separated by commas or spaces; anything else holds no tags.
        let list = match out.map.as_ref().and_then(|fm| fm.get(&entry.key)) {
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
            let source = &text[source_start..base + scalar.span.end];
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
                    out.diagnostics.push(NoteDiagnostic {
                        span: span.clone().unwrap_or(at as u32..at as u32),
                        line: lines.line(at),
                        message: format!(
                            "`{name}` in `{}` is not a tag ({why}); it is not counted",
                            entry.key
                        )
                        .into(),
                    });
                    continue;
                }
                out.tags.push(TagUse {
                    name: name.into(),
                    span,
                    line: lines.line(at),
                    col: 0,
                    col16: 0,
                    len16: u16::MAX,
                    in_frontmatter: true,
                });
            }
        }
    }
}
