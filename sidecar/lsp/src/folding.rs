//! `textDocument/foldingRange`: the frontmatter block and each heading's
//! section (up to the next heading of the same or a higher level).
//!
//! Sections come from the domain's `Note::section_span`; this module turns
//! them into line ranges.

use tower_lsp_server::ls_types::*;

use super::world::World;

pub(super) fn folding_ranges(
    world: &World,
    params: FoldingRangeParams,
) -> Option<Vec<FoldingRange>> {
    let here = world.here(&params.text_document.uri, Position::default())?;
    let encoding = world.encoding();
    let index = here.vault.read();
    let note = index.note(index.id_of(&here.rel)?);
    let mut out = Vec::new();
    let line_of = |offset: u32| here.lines.position(offset as usize, encoding).line;
    if let Some(span) = &note.frontmatter_span {
        let (start, end) = (line_of(span.start), line_of(span.end.saturating_sub(1)));
        if end > start {
            out.push(FoldingRange {
                start_line: start,
                end_line: end,
                kind: Some(FoldingRangeKind::Region),
                collapsed_text: Some("frontmatter".into()),
                ..Default::default()
            });
        }
    }
    for (i, heading) in note.headings.iter().enumerate() {
        let section = note.section_span(i);
        let start = heading.line;
        // The section ends before the next heading; blank lines at its end
        // stay visible.
        let body = here
            .text
            .get(section.start as usize..section.end as usize)
            .unwrap_or("");
        let trimmed = body.trim_end();
        let end = line_of(section.start + trimmed.len() as u32);
        if end > start {
            out.push(FoldingRange {
                start_line: start,
                end_line: end,
                kind: Some(FoldingRangeKind::Region),
                collapsed_text: Some(heading.text.to_string()),
                ..Default::default()
            });
        }
    }
    Some(out)
}
