//! `textDocument/codeLens`: backlink counts on the first line of a note,
//! link counts on each heading that is linked to, and on each ```` ```tasks ````
//! block the tasks its query finds (`task_query`).
//!
//! Counting uses the domain's backlinks and fragment resolution; the lens
//! command is informative (clients show its title; running it does
//! nothing).

use tower_lsp_server::ls_types::*;

use super::world::World;
use weft_vault::{FragmentTarget, resolve_fragment};

/// The lens command; `workspace/executeCommand` accepts it and does nothing.
pub(super) const SHOW_REFERENCES: &str = "weft.showReferences";

pub(super) fn code_lenses(world: &World, params: CodeLensParams) -> Option<Vec<CodeLens>> {
    let uri = params.text_document.uri;
    let here = world.here(&uri, Position::default())?;
    let encoding = world.encoding();
    let index = here.vault.read();
    let id = index.id_of(&here.rel)?;
    let note = index.note(id);
    let backlinks = index.backlinks(id);
    let mut per_heading = vec![0usize; note.headings.len()];
    let to_self = note
        .links
        .iter()
        .filter(|l| l.is_self_link() || index.resolve_link(id, l).note() == Some(id));
    let fragments = backlinks
        .iter()
        .map(|r| index.link(*r))
        .filter(|l| !(l.is_self_link()))
        .chain(to_self)
        .filter_map(|l| l.fragment());
    for fragment in fragments {
        if let FragmentTarget::Heading(h) = resolve_fragment(note, fragment) {
            per_heading[h] += 1;
        }
    }
    let lens = |position: Position, title: String| CodeLens {
        range: Range::new(position, position),
        command: Some(Command {
            title,
            command: SHOW_REFERENCES.into(),
            arguments: Some(vec![
                serde_json::to_value(&uri).unwrap_or_default(),
                serde_json::to_value(position).unwrap_or_default(),
            ]),
        }),
        data: None,
    };
    let mut out = vec![lens(
        Position::default(),
        count(backlinks.len(), "backlink"),
    )];
    out.extend(super::task_query::lenses(
        &index,
        &here.rel,
        &here.text,
        &here.vault.config(),
        lens,
    ));
    for (h, n) in per_heading.into_iter().enumerate() {
        if n > 0 {
            let position = here
                .lines
                .position(note.headings[h].span.start as usize, encoding);
            out.push(lens(position, count(n, "link")));
        }
    }
    Some(out)
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

pub(super) fn execute_command(_: &World, _: ExecuteCommandParams) -> Option<serde_json::Value> {
    None
}
