//! Renders query answers as compact Markdown or JSON. Line numbers shown to
//! people are 1-based.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::args::Format;
use weft_vault::query::{Lookup, Problem, Stats};
use weft_vault::report::{Told, kind, tell};
use weft_vault::{NoteId, Resolution, VaultIndex};

pub struct Out<'a> {
    pub index: &'a VaultIndex,
    pub format: Format,
}

impl Out<'_> {
    fn name(&self, id: NoteId) -> String {
        let note = self.index.note(id);
        format!("**{}** (`{}`)", note.title, note.path)
    }

    fn note_json(&self, id: NoteId) -> Value {
        let note = self.index.note(id);
        json!({ "path": note.path, "title": note.title })
    }

    fn emit(&self, text: String, value: Value) -> String {
        match self.format {
            // CSV is refused before any answer but `weft base`'s.
            Format::Text | Format::Csv => text,
            Format::Json => serde_json::to_string_pretty(&value).unwrap_or_default() + "\n",
        }
    }

    fn describe(&self, r: &Resolution) -> (String, &'static str, Value) {
        match r {
            Resolution::Note(t) => (self.name(*t), "resolved", self.note_json(*t)),
            Resolution::Ambiguous { chosen, candidates } => (
                format!(
                    "{} — ambiguous: {}",
                    self.name(*chosen),
                    candidates
                        .iter()
                        .map(|c| format!("`{}`", self.index.note(*c).path))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "ambiguous",
                json!({ "chosen": self.note_json(*chosen),
                        "candidates": candidates.iter().map(|c| self.note_json(*c)).collect::<Vec<_>>() }),
            ),
            Resolution::Attachment(p) => (
                format!("attachment `{p}`"),
                "attachment",
                json!({ "path": p }),
            ),
            Resolution::Unresolved => (
                "unresolved (no such note)".into(),
                "unresolved",
                Value::Null,
            ),
        }
    }

    pub fn resolve(&self, input: &str, found: Lookup) -> String {
        let (text, value) = match &found {
            Lookup::Found(id) => (
                format!("“{input}” → {}\n", self.name(*id)),
                json!({ "status": "resolved", "note": self.note_json(*id) }),
            ),
            Lookup::Ambiguous(candidates) => {
                let resolution = self.index.resolve("", input, weft_vault::LinkKind::Wiki);
                let (shown, _, value) = self.describe(&resolution);
                let _ = candidates;
                (
                    format!("“{input}” → {shown}\nWrite more of the path to choose one.\n"),
                    json!({ "status": "ambiguous", "resolution": value }),
                )
            }
            Lookup::Unresolved { target, links } => (
                format!(
                    "“{target}” is not a note yet; {} links point to it.\n",
                    links.len()
                ),
                json!({ "status": "unresolved", "target": target, "links": links.len() }),
            ),
            Lookup::NotFound { suggestions } => (
                format!(
                    "“{input}” matches no note.{}\n",
                    did_you_mean(self.index, suggestions)
                ),
                json!({ "status": "not_found",
                        "suggestions": suggestions.iter().map(|s| self.note_json(*s)).collect::<Vec<_>>() }),
            ),
        };
        self.emit(text, value)
    }

    pub fn notes(&self, ids: &[NoteId]) -> String {
        let mut text = String::new();
        for id in ids {
            let note = self.index.note(*id);
            let _ = writeln!(text, "- {} (`{}`)", note.title, note.path);
        }
        if ids.is_empty() {
            text.push_str("No matching notes.\n");
        }
        let items: Vec<Value> = ids.iter().map(|id| self.note_json(*id)).collect();
        self.emit(text, Value::Array(items))
    }

    pub fn stats(&self, s: &Stats, digest: Option<&str>) -> String {
        let mut text = format!(
            "# Vault stats\n\n\
             - Notes: {} ({} bytes), attachments: {}\n\
             - Links: {} — resolved {}, ambiguous {}, unresolved {} (to {} missing notes)\n\
             - Headings: {}, block ids: {}, tags: {}\n\
             - Orphans (no links in or out): {}\n",
            s.notes,
            s.bytes,
            s.attachments,
            s.links,
            s.resolved,
            s.ambiguous,
            s.unresolved,
            s.unresolved_targets,
            s.headings,
            s.blocks,
            s.tags,
            s.orphans
        );
        let mut json = json!({ "notes": s.notes, "bytes": s.bytes, "attachments": s.attachments, "links": s.links,
                    "resolved": s.resolved, "ambiguous": s.ambiguous, "unresolved": s.unresolved,
                    "unresolved_targets": s.unresolved_targets, "headings": s.headings, "blocks": s.blocks,
                    "tags": s.tags, "orphans": s.orphans });
        if let Some(digest) = digest {
            text.push_str(&format!("- Index digest: {digest}\n"));
            json["digest"] = Value::from(digest);
        }
        self.emit(text, json)
    }

    /// The problems of the notes, then the files that could not be read
    /// (vault path, what went wrong and what to do).
    pub fn check(&self, problems: &[Problem], unreadable: &[(String, String)]) -> String {
        let notes = {
            let mut ids: Vec<NoteId> = problems.iter().map(Problem::note).collect();
            ids.dedup();
            ids.len()
        };
        let mut text = if problems.is_empty() && unreadable.is_empty() {
            "# Vault check\n\nNo problems found.\n".to_string()
        } else if problems.is_empty() {
            "# Vault check\n\n".to_string()
        } else {
            format!(
                "# Vault check\n\n{} problems in {notes} notes.\n\n",
                problems.len()
            )
        };
        let mut items = Vec::new();
        for p in problems {
            let note = self.index.note(p.note());
            let at = format!("{}:{}", note.path, p.line(self.index) + 1);
            // The one wording of every face: `vault::report`.
            let Told { message, fix } = tell(self.index, p, &|_| true);
            let _ = writeln!(text, "- `{at}` {message} Fix: {fix}");
            items.push(
                json!({ "path": note.path, "line": p.line(self.index) + 1, "kind": kind(p),
                               "message": message, "fix": fix }),
            );
        }
        if !unreadable.is_empty() {
            let _ = writeln!(
                text,
                "{}{} problems reading the vault's files (what they name is left out of the index):\n",
                if problems.is_empty() { "" } else { "\n" },
                unreadable.len()
            );
            for (path, message) in unreadable {
                let _ = writeln!(text, "- `{path}` {message}");
            }
        }
        let unreadable: Vec<Value> = unreadable
            .iter()
            .map(|(path, message)| json!({ "path": path, "message": message }))
            .collect();
        self.emit(
            text,
            json!({ "count": problems.len(), "notes": notes, "problems": items,
                    "unreadable": unreadable }),
        )
    }
}

fn did_you_mean(index: &VaultIndex, suggestions: &[NoteId]) -> String {
    if suggestions.is_empty() {
        return String::new();
    }
    let names: Vec<String> = suggestions
        .iter()
        .map(|s| format!("`{}`", index.note(*s).id()))
        .collect();
    format!(" Did you mean {}?", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::parse::parse_text;
    use weft_vault::query::check;

    /// Regression (issue 15): `weft check` said nothing of a fragment that
    /// several headings fit; it now lists them, and the exact path `#A#C`
    /// (the direct child) is no problem.
    #[test]
    fn check_reports_ambiguous_fragments_with_every_path() {
        let files = [
            ("N.md", "# A\n## B\n### C\n## C\n"),
            ("S.md", "[[N#A#C]] [[N#C]]\n"),
        ];
        let mut index = VaultIndex::new();
        for (path, text) in files {
            index.upsert(parse_text(path, text));
        }
        let problems = check(
            &index,
            &weft_vault::filter::Filter::All,
            &weft_vault::props::Types::default(),
        );
        let out = Out {
            index: &index,
            format: Format::Text,
        };
        expect_test::expect![[r#"
            # Vault check

            1 problems in 1 notes.

            - `S.md:1` `[[N#C]]`: `#C` fits 2 headings of `N`: `#A#B#C` (L3), `#A#C` (L4); it leads to the first. Fix: Write the full path of the heading you mean: `#A#B#C` or `#A#C`.
        "#]]
        .assert_eq(&out.check(&problems, &[]));
    }
}
