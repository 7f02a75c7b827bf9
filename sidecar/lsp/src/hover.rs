//! `textDocument/hover`: on a link, a bounded preview of what it leads to
//! (the note, its section for a heading link, its block for a block link)
//! with the target's backlink count; on an unresolved link, how many notes
//! link to that name; on a tag, how it is used; on a property's name in
//! the frontmatter, its type, use and most used values; on a ```` ```tasks ````
//! block's fence, the tasks its query finds (`task_query`).
//!
//! The domain resolves and counts; this module reads the target's text and
//! writes Markdown. It must not resolve anything itself.

use std::ops::Range;

use tower_lsp_server::ls_types::*;

use super::world::World;
use weft_vault::complete::bounded;
use weft_vault::headings::heading_path;
use weft_vault::props::{PropType, Types, key_at};
use weft_vault::symbols::{At, at};
use weft_vault::{FragmentTarget, LinkRef, Resolution, VaultIndex, lookup_fragment};

/// Previews stop after this many characters or lines.
const PREVIEW_CHARS: usize = 1200;
const PREVIEW_LINES: usize = 24;
/// A property's hover lists this many of its values.
const HOVER_VALUES: usize = 8;

/// What to preview, gathered under the index lock.
struct Preview {
    header: String,
    /// A note and the byte range of its text to show.
    body: Option<(String, Range<usize>)>,
}

pub(super) fn hover(world: &World, params: HoverParams) -> Option<Hover> {
    let position = params.text_document_position_params;
    let here = world.here(&position.text_document.uri, position.position)?;
    // On a ```tasks block's fence: the tasks its query finds.
    let line = position.position.line;
    if let Some(value) = super::task_query::hover(
        &here.vault.read(),
        &here.rel,
        &here.text,
        line,
        &here.vault.config(),
    ) {
        return Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: None,
        });
    }
    if let Some((key, span)) = key_at(&here.text, here.offset) {
        let value = property_hover(&here.vault.read(), &here.vault.config().types, &key);
        return Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(here.lines.range(span, world.encoding())),
        });
    }
    let (preview, span) = {
        let index = here.vault.read();
        let id = index.id_of(&here.rel)?;
        let note = index.note(id);
        match at(note, here.offset as u32)? {
            At::Link(i) => {
                let link = &note.links[i];
                (link_preview(&index, id, i), link.span.clone())
            }
            At::Tag(t) => {
                let tag = &note.tags[t];
                let key = weft_vault::key::name_key(&tag.name);
                let header = match index.tags().get(key.as_str()) {
                    Some(stat) => format!(
                        "**#{}** · {} · {}",
                        tag.name,
                        plural(stat.uses as usize, "use"),
                        plural(stat.notes as usize, "note")
                    ),
                    None => format!("**#{}**", tag.name),
                };
                let span = tag.span.clone()?;
                (Preview { header, body: None }, span)
            }
            At::Heading(_) | At::Block(_) => return None,
        }
    };
    let mut value = preview.header;
    if let Some((path, range)) = preview.body
        && let Some(text) = world.text(&here.vault, &path)
        && let Some(body) = text.get(range)
    {
        // Only the start of a huge section is looked at.
        let mut cut = body.len().min(16 * 1024);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        let body = body[..cut].trim();
        let lines: Vec<&str> = body.lines().take(PREVIEW_LINES).collect();
        let mut shown = bounded(&lines.join("\n"), PREVIEW_CHARS);
        if lines.len() < body.lines().count() && !shown.ends_with('…') {
            shown.push_str("\n\n…");
        }
        if !shown.is_empty() {
            value.push_str("\n\n---\n\n");
            value.push_str(&shown);
        }
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(here.lines.span(&span, world.encoding())),
    })
}

/// A property key: its type, the notes using it and its most used values.
fn property_hover(index: &VaultIndex, types: &Types, key: &str) -> String {
    let props = index.props();
    let kind = props.type_of(types, key).map_or("text", PropType::name);
    let declared = if types.declared(key).is_some() {
        " (types.json)"
    } else {
        ""
    };
    let Some(stat) = props.get(key) else {
        return format!("**{key}** · {kind}{declared}");
    };
    let mut value = format!(
        "**{key}** · {kind}{declared} · in {}",
        plural(stat.notes() as usize, "note")
    );
    let top = stat.top_values(HOVER_VALUES);
    if !top.is_empty() {
        let shown: Vec<String> = top.iter().map(|(v, n)| format!("`{v}` ({n})")).collect();
        value.push_str(&format!("\n\nValues: {}", shown.join(", ")));
        if stat.value_count() > top.len() {
            value.push_str(&format!(", … {} in all", stat.value_count()));
        }
    }
    value
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// "N backlinks from M notes".
fn link_count(refs: &[LinkRef], what: &str) -> String {
    let mut sources: Vec<_> = refs.iter().map(|r| r.source).collect();
    sources.sort();
    sources.dedup();
    format!(
        "{} from {}",
        plural(refs.len(), what),
        plural(sources.len(), "note")
    )
}

fn link_preview(index: &VaultIndex, source: weft_vault::NoteId, link: usize) -> Preview {
    let link = &index.note(source).links[link];
    let resolution = index.resolve_link(source, link);
    let (target, ambiguous) = match &resolution {
        Resolution::Note(id) => (*id, None),
        Resolution::Ambiguous { chosen, candidates } => {
            let paths: Vec<String> = candidates
                .iter()
                .map(|c| format!("`{}`", index.note(*c).path))
                .collect();
            (*chosen, Some(paths.join(", ")))
        }
        Resolution::Attachment(path) => {
            return Preview {
                header: format!("Attachment `{path}`"),
                body: None,
            };
        }
        Resolution::Unresolved => {
            let refs = index.unresolved_links_to(link.target());
            return Preview {
                header: format!(
                    "**{}** does not exist yet · linked by {}",
                    link.target(),
                    link_count(&refs, "link")
                ),
                body: None,
            };
        }
    };
    let note = index.note(target);
    let backlinks = index.backlinks(target);
    let mut header = format!(
        "**{}** · `{}` · {}",
        note.title,
        note.path,
        link_count(&backlinks, "backlink")
    );
    if let Some(paths) = ambiguous {
        header.push_str(&format!(
            "\n\nAmbiguous: {paths} match; this is the one it leads to."
        ));
    }
    let body_start = note.frontmatter_span.as_ref().map_or(0, |s| s.end as usize);
    let found = link.fragment().map(|f| lookup_fragment(note, f));
    if let Some(found) = found.as_ref().filter(|f| !f.ambiguous.is_empty()) {
        let paths: Vec<String> = found
            .ambiguous
            .iter()
            .map(|&h| format!("`#{}`", heading_path(note, h, "#")))
            .collect();
        header.push_str(&format!(
            "\n\nAmbiguous heading: {} fit; this is the first.",
            paths.join(", ")
        ));
    }
    let range = match found.map(|f| f.target) {
        Some(FragmentTarget::Heading(h)) => {
            let span = note.section_span(h);
            span.start as usize..span.end as usize
        }
        Some(FragmentTarget::Block(b)) => {
            let block = &note.blocks[b];
            block.block_span.start as usize..block.span.start as usize
        }
        Some(FragmentTarget::Missing) => {
            header.push_str(&format!(
                "\n\nNo `#{}` in this note.",
                link.fragment().unwrap_or_default()
            ));
            body_start..note.len as usize
        }
        None => body_start..note.len as usize,
    };
    Preview {
        header,
        body: Some((note.path.to_string(), range)),
    }
}
