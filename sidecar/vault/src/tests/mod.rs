//! Domain tests on inline fixture vaults: `//- /path.md` starts a file.

mod complete;
mod edit;
mod filter;
mod frontmatter;
mod headings;
mod index;
mod parse;
mod props;
mod resolve;
mod rewrite;
mod symbols;

use std::fmt::Write;

use super::{Note, VaultIndex};

/// Builds an index from a fixture: `//- /path` lines start files; paths
/// without `.md` are attachments.
pub(super) fn fixture(src: &str) -> VaultIndex {
    crate::fixture::index(src)
}

pub(super) fn files(src: &str) -> Vec<(String, String)> {
    crate::fixture::files(src)
        .into_iter()
        .map(|file| (file.path, file.text))
        .collect()
}

/// A compact, stable rendering of a parsed note for snapshots.
pub(super) fn dump(text: &str, note: &Note) -> String {
    let mut out = String::new();
    let slice = |s: &super::note::Span| {
        text.get(s.start as usize..s.end as usize)
            .unwrap_or("<bad span>")
            .to_string()
    };
    writeln!(out, "title: {}", note.title).unwrap();
    if !note.aliases.is_empty() {
        writeln!(out, "aliases: {:?}", note.aliases).unwrap();
    }
    for h in &note.headings {
        writeln!(out, "heading L{} h{} {:?}", h.line, h.level, h.text).unwrap();
    }
    for b in &note.blocks {
        writeln!(
            out,
            "block L{} ^{} span={:?} block={:?}",
            b.line,
            b.id,
            slice(&b.span),
            slice(&b.block_span)
        )
        .unwrap();
    }
    for t in &note.tags {
        let at = t.span.as_ref().map(slice).unwrap_or_default();
        let fm = if t.in_frontmatter {
            " (frontmatter)"
        } else {
            ""
        };
        writeln!(out, "tag L{} {}{} at={:?}", t.line, t.name, fm, at).unwrap();
    }
    for l in &note.links {
        write!(
            out,
            "link L{} {:?}{} {:?}",
            l.line,
            l.kind,
            if l.embed { " embed" } else { "" },
            slice(&l.span)
        )
        .unwrap();
        write!(out, " target={:?}@{:?}", l.target(), slice(&l.target_span)).unwrap();
        if let Some(f) = l.fragment() {
            write!(out, " frag={f:?}").unwrap();
        }
        if let Some(a) = &l.alias() {
            write!(out, " alias={a:?}").unwrap();
        }
        if let Some(r) = &l.rel() {
            write!(out, " rel={r:?}").unwrap();
        }
        out.push('\n');
    }
    for d in &note.diagnostics {
        writeln!(out, "diagnostic L{}: {}", d.line, d.message).unwrap();
    }
    out
}
