//! `read_note`'s answer as Markdown: what Zed's agent reads (it ignores
//! structured content), so everything the structured answer holds is here.

use super::out::NoteOut;
use crate::common::tags_text;
use crate::format::{escape, fence, plural};
use crate::versions::id_text;

pub(super) fn render(note: &NoteOut) -> String {
    let mut out = String::new();
    header(&mut out, note);
    content(&mut out, note);
    frontmatter(&mut out, note);
    backlinks(&mut out, note);
    outline(&mut out, note);
    out
}

/// The title, version, hash, times, links, names and problems.
fn header(out: &mut String, note: &NoteOut) {
    out.push_str(&format!("**{}** — `{}`", escape(&note.title), note.path));
    if let Some(v) = &note.version {
        out.push_str(&format!(
            " as of version `{}` ({}, {}: {})",
            id_text(v),
            v.time.get(..16).unwrap_or(&v.time).replace('T', " "),
            v.author,
            v.message.lines().next().unwrap_or("")
        ));
    }
    out.push_str(&format!(
        "\nsha256 `{}` · {} bytes",
        note.sha256, note.bytes
    ));
    if let Some(m) = &note.modified {
        out.push_str(&format!(" · modified {m}"));
    }
    if note.unsaved {
        out.push_str(" · **unsaved changes in the editor** (this is the editor's text; writes wait until it is saved)");
    }
    out.push_str(&format!(
        " · links: {} out, {} in",
        note.links_out, note.links_in
    ));
    let mut facts = Vec::new();
    if !note.aliases.is_empty() {
        facts.push(format!("Aliases: {}", note.aliases.join(", ")));
    }
    if !note.tags.is_empty() {
        facts.push(format!("Tags: {}", tags_text(&note.tags)));
    }
    if !facts.is_empty() {
        out.push('\n');
        out.push_str(&facts.join(" · "));
    }
    if let (Some(section), Some([from, to])) = (&note.section, note.lines) {
        out.push_str(&format!("\nSection `{section}` (lines {from}–{to})"));
    }
    for d in &note.diagnostics {
        out.push_str(&format!("\n⚠ {d}"));
    }
}

/// The text read, fenced, with where its page stands.
fn content(out: &mut String, note: &NoteOut) {
    if let Some(content) = &note.content {
        let fence = fence(content);
        out.push_str(&format!("\n\n{fence}markdown\n{content}\n{fence}"));
        if let (Some(offset), Some(total)) = (note.offset, note.total_chars) {
            if let Some(next) = note.next_offset {
                out.push_str(&format!(
                    "\n_Characters {}–{next} of {total}; continue with `offset: {next}`._",
                    offset
                ));
            } else if offset > 0 {
                out.push_str(&format!(
                    "\n_Characters {offset}–{total} of {total} (end)._"
                ));
            }
        }
    }
}

/// The frontmatter, key by key.
fn frontmatter(out: &mut String, note: &NoteOut) {
    if let Some(frontmatter) = &note.frontmatter {
        if frontmatter.is_empty() {
            out.push_str("\n\nNo frontmatter.");
        } else {
            out.push_str("\n\nFrontmatter:");
            for (k, v) in frontmatter {
                let value = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.push_str(&format!("\n- {k}: {value}"));
            }
        }
    }
}

/// The backlinks by note, a line with several links once.
fn backlinks(out: &mut String, note: &NoteOut) {
    if let Some(backlinks) = &note.backlinks {
        if backlinks.is_empty() {
            out.push_str("\n\nNo backlinks.");
        } else {
            let shown = backlinks.len();
            out.push_str(&format!(
                "\n\nBacklinks ({}{}):",
                plural(note.links_in, "link"),
                if shown < note.links_in {
                    format!(", first {shown} shown; get_links pages them")
                } else {
                    String::new()
                }
            ));
            let mut last = "";
            let mut i = 0;
            while i < backlinks.len() {
                let b = &backlinks[i];
                if b.from.path != last {
                    out.push_str(&format!(
                        "\n- **{}** (`{}`)",
                        escape(&b.from.title),
                        b.from.path
                    ));
                    last = &b.from.path;
                }
                // Several links on one line: the line once.
                let same = backlinks[i..]
                    .iter()
                    .take_while(|x| x.from.path == b.from.path && x.line == b.line)
                    .count();
                let times = if same > 1 {
                    format!(" ({same} links)")
                } else {
                    String::new()
                };
                out.push_str(&format!("\n  - L{}{times}: {}", b.line, b.context));
                i += same;
            }
        }
    }
}

/// The sections an edit can address, the block ids, the frontmatter keys.
fn outline(out: &mut String, note: &NoteOut) {
    if let Some(headings) = &note.headings {
        if headings.is_empty() {
            out.push_str("\n\nNo headings.");
        } else {
            out.push_str("\n\nSections (pass as `section`):");
            for h in headings {
                let indent = "  ".repeat(h.level.saturating_sub(1) as usize);
                out.push_str(&format!("\n{indent}- L{} `{}`", h.line, h.section));
            }
        }
    }
    if let Some(blocks) = &note.blocks
        && !blocks.is_empty()
    {
        let list: Vec<String> = blocks
            .iter()
            .map(|b| format!("^{} (L{})", b.id, b.line))
            .collect();
        out.push_str(&format!("\nBlock ids: {}", list.join(", ")));
    }
    if let Some(keys) = &note.keys
        && !keys.is_empty()
    {
        out.push_str(&format!("\nFrontmatter keys: {}", keys.join(", ")));
    }
}
