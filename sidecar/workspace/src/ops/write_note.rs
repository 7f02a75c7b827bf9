//! `write_note`: create a note (or replace one, only when asked), from
//! content and/or a template, with frontmatter merged from the content's
//! own, the template's and explicit title, tags, aliases and properties.
//! Reports the links the note holds and which do not resolve. No protocol.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::OpError;
use super::update_frontmatter::{clean_names, list_key, merge_lists, string_list};
use super::warning::Warning;
use super::{
    Change, NoteLink, Ops, Step, WriteOptions, change, lock_writes, lost_links, resolved_links,
    template,
};
use crate::io::checked_path;
use weft_vault::edit::{EditOp, apply_ops, body_start};
use weft_vault::frontmatter::{self, FrontmatterOp};
use weft_vault::note::{is_note_path, strip_md};
use weft_vault::parse::parse_text;

/// What to write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteNote {
    /// Vault path, `.md` optional. Without it, `title` names the file.
    pub path: Option<String>,
    /// Folder for `title` (or for a bare `path`); default: the configured
    /// folder for new notes.
    pub folder: Option<String>,
    /// The note's title: names the file when there is no `path`, and goes
    /// into the frontmatter when the note's title would otherwise differ.
    pub title: Option<String>,
    /// The text; may start with YAML frontmatter.
    pub content: String,
    /// Added to the frontmatter's tags (without `#`).
    pub tags: Vec<String>,
    /// Added to the frontmatter's aliases.
    pub aliases: Vec<String>,
    /// Properties set in the frontmatter (they win over the content's).
    pub frontmatter: Map<String, Value>,
    /// A template note: a name in the templates folder or a vault path.
    pub template: Option<String>,
    /// Replace an existing note.
    pub overwrite: bool,
    pub options: WriteOptions,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteReport {
    pub change: Change,
    /// An existing note was replaced.
    pub overwritten: bool,
    pub dry_run: bool,
    pub links: Vec<NoteLink>,
    /// Distinct targets of links that resolve to nothing.
    pub unresolved: Vec<String>,
    /// When replacing: links into the note that the new text breaks.
    pub warnings: Vec<Warning>,
}

impl Ops<'_> {
    /// Creates a note, or replaces one when `overwrite` is set.
    pub fn write_note(&self, request: &WriteNote) -> Result<WriteReport, OpError> {
        self.policy.check_writable()?;
        let _writes = lock_writes();
        let (mut rel, mut abs) = self.write_target(request)?;
        // An existing note whose path differs only in case or normal form
        // is the same note to every link: write over it, never beside it.
        if let Some(existing) = {
            let index = self.index();
            index.id_of(&rel).map(|id| index.note(id).path.to_string())
        } {
            abs = self.abs(&existing);
            rel = existing;
        }
        self.policy.check_path(&rel, false)?;
        if abs.is_dir() {
            return Err(OpError::Exists { path: rel });
        }
        let before: Option<Vec<u8>> = self.read_bytes(&rel)?;
        if before.is_some() && !request.overwrite {
            return Err(OpError::Exists { path: rel });
        }
        self.check_expected(&rel, before.as_deref(), &request.options)?;
        let mut text = self.compose(request, &rel)?;
        let old_text = before.as_deref().and_then(|b| std::str::from_utf8(b).ok());
        // A note written with CRLF stays CRLF when it is replaced.
        if old_text.is_some_and(|t| t.contains("\r\n")) && !text.contains("\r\n") {
            text = text.replace('\n', "\r\n");
        }
        let warnings = match old_text {
            Some(old) => lost_links(
                &self.index(),
                &|p| self.policy.access.sees(p),
                &rel,
                old,
                &text,
            ),
            None => Vec::new(),
        };
        self.check_tags(old_text.map(|t| (rel.as_str(), t)), &rel, &text)?;

        let dry_run = request.options.dry_run;
        let report_change = change(
            &rel,
            None,
            before
                .as_ref()
                .map(|b| String::from_utf8_lossy(b))
                .as_deref(),
            Some(&text),
            dry_run,
        );
        self.perform(
            dry_run,
            "write_note",
            &rel,
            &[Step::Write {
                path: rel.clone(),
                before: before.clone(),
                after: text.clone(),
            }],
        )?;
        let links = resolved_links(&self.index(), &|p| self.policy.access.sees(p), &rel, &text);
        let mut unresolved: Vec<String> = Vec::new();
        for link in &links {
            if link.resolved.is_none()
                && !link.target.is_empty()
                && !unresolved.contains(&link.target)
            {
                unresolved.push(link.target.clone());
            }
        }
        Ok(WriteReport {
            change: report_change,
            overwritten: before.is_some(),
            dry_run,
            links,
            unresolved,
            warnings,
        })
    }

    /// The vault path and absolute path the request names.
    fn write_target(&self, request: &WriteNote) -> Result<(String, PathBuf), OpError> {
        let folder = request
            .folder
            .as_deref()
            .map(|f| f.trim().trim_matches('/'))
            .filter(|f| !f.is_empty());
        if let Some(path) = request
            .path
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let joined = match folder {
                Some(folder) if !path.contains(['/', '\\']) => format!("{folder}/{path}"),
                _ => path.to_string(),
            };
            return self.note_target(&joined);
        }
        let Some(title) = request.title.as_deref() else {
            return Err(OpError::Invalid(
                "give `path` (a vault path such as `projects/idea`), or `title` (and optionally `folder`) \
                 to name the new note"
                    .into(),
            ));
        };
        let name = file_name_from_title(title)?;
        let folder = folder.unwrap_or(&self.config().new_notes_folder);
        let joined = if folder.is_empty() {
            name
        } else {
            format!("{folder}/{name}")
        };
        self.note_target(&joined)
    }

    /// The new note's text.
    fn compose(&self, request: &WriteNote, rel: &str) -> Result<String, OpError> {
        let fm_error = |error| OpError::Frontmatter {
            path: rel.to_string(),
            error,
        };
        let stem = strip_md(rel).rsplit('/').next().unwrap_or_default();
        let mut text = match request.template.as_deref().filter(|t| !t.trim().is_empty()) {
            None => request.content.clone(),
            Some(name) => {
                let template_text = self.read_template(name)?;
                let now = self.now();
                let (date, time) = (now.today(), now.time());
                let title = request.title.as_deref().unwrap_or(stem);
                let filled = template::fill(&template_text, title, date, time);
                // The content's properties go into the template's
                // frontmatter, its body after the template's body.
                let content_fm = frontmatter::read(&request.content).map_err(fm_error)?;
                let current = frontmatter::read(&filled).map_err(fm_error)?;
                let ops = merge_ops(&current, &content_fm);
                let mut text = if ops.is_empty() {
                    filled
                } else {
                    frontmatter::apply(&filled, &ops).map_err(fm_error)?
                };
                let body = &request.content[body_start(&request.content)..];
                if !body.trim().is_empty() {
                    let op = EditOp::Append {
                        content: body.to_string(),
                    };
                    text = apply_ops(&text, &[op])
                        .map_err(|(op, error)| OpError::Edit {
                            path: rel.to_string(),
                            op,
                            name: "append",
                            error,
                        })?
                        .text;
                }
                text
            }
        };

        // Explicit values win.
        let mut explicit = Map::new();
        for (key, value) in &request.frontmatter {
            explicit.insert(key.clone(), value.clone());
        }
        let tags = clean_names(&request.tags, true)?;
        let aliases = clean_names(&request.aliases, false)?;
        if !explicit.is_empty() || !tags.is_empty() || !aliases.is_empty() {
            let current = frontmatter::read(&text).map_err(fm_error)?;
            let mut ops: Vec<FrontmatterOp> = explicit
                .into_iter()
                .map(|(key, value)| FrontmatterOp::Set { key, value })
                .collect();
            for (names, keys, is_tags) in [
                (&tags, ["tags", "tag"], true),
                (&aliases, ["aliases", "alias"], false),
            ] {
                if names.is_empty() {
                    continue;
                }
                let key = list_key(&current, keys);
                let have = current
                    .get(key)
                    .map(|v| string_list(v, is_tags))
                    .unwrap_or_default();
                let merged = merge_lists(&have, names);
                ops.push(FrontmatterOp::Set {
                    key: key.to_string(),
                    value: Value::Array(merged.into_iter().map(Value::String).collect()),
                });
            }
            text = frontmatter::apply(&text, &ops).map_err(fm_error)?;
        }
        if let Some(title) = request
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            && *parse_text(rel, &text).title != *title
        {
            let op = FrontmatterOp::Set {
                key: "title".into(),
                value: Value::String(title.to_string()),
            };
            text = frontmatter::apply(&text, &[op]).map_err(fm_error)?;
        }
        Ok(text)
    }

    /// A template's text: `name` in the templates folder, or a vault path.
    pub(crate) fn read_template(&self, name: &str) -> Result<String, OpError> {
        let name = name.trim();
        let with_md = if is_note_path(name) {
            name.to_string()
        } else {
            format!("{name}.md")
        };
        let folder = self.config().templates_folder.as_str();
        let mut candidates = Vec::new();
        if !folder.is_empty() {
            candidates.push(format!("{folder}/{with_md}"));
        }
        candidates.push(with_md);
        for candidate in &candidates {
            let Ok((rel, abs)) = checked_path(&self.vault.root, candidate) else {
                continue;
            };
            // A note the agent may not access is no template of its: its
            // text would come back in the answer.
            if !self.policy.access.sees(&rel) {
                continue;
            }
            if abs.is_file() {
                let current = self.read_existing(&rel)?;
                return Ok(current.text);
            }
        }
        let mut available: Vec<String> = std::fs::read_dir(self.abs(folder))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| is_note_path(n) && !n.starts_with('.'))
            .filter(|n| {
                let rel = if folder.is_empty() {
                    n.clone()
                } else {
                    format!("{folder}/{n}")
                };
                self.policy.access.sees(&rel)
            })
            .map(|n| strip_md(&n).to_string())
            .collect();
        available.sort();
        let shown = if folder.is_empty() {
            "the vault root"
        } else {
            folder
        };
        Err(OpError::Invalid(if available.is_empty() {
            format!(
                "no template `{name}`: the templates folder `{shown}` holds no notes \
                 (`templates_folder` in .weft.toml); write without a template, or create one"
            )
        } else {
            format!(
                "no template `{name}` in `{shown}`; the templates are: {}",
                available
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }))
    }
}

/// Operations putting `incoming` properties over `current` ones: tags and
/// aliases are merged as lists, other keys replaced.
fn merge_ops(current: &Map<String, Value>, incoming: &Map<String, Value>) -> Vec<FrontmatterOp> {
    incoming
        .iter()
        .map(|(key, value)| {
            let is_tags = matches!(key.as_str(), "tags" | "tag");
            let is_list = is_tags || matches!(key.as_str(), "aliases" | "alias");
            let value = match current.get(key) {
                Some(have) if is_list => {
                    let merged =
                        merge_lists(&string_list(have, is_tags), &string_list(value, is_tags));
                    Value::Array(merged.into_iter().map(Value::String).collect())
                }
                _ => value.clone(),
            };
            FrontmatterOp::Set {
                key: key.clone(),
                value,
            }
        })
        .collect()
}

/// A file name from a title: characters that files or links cannot hold
/// become spaces, runs of spaces fold, no leading dot, at most 200 bytes.
pub(crate) fn file_name_from_title(title: &str) -> Result<String, OpError> {
    let cleaned: String = title
        .chars()
        .map(|c| {
            if c.is_control()
                || matches!(
                    c,
                    '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' | '#' | '^' | '[' | ']'
                )
            {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut name = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    name = name
        .trim_start_matches('.')
        .trim_end_matches(['.', ' '])
        .trim()
        .to_string();
    if name.len() > 200 {
        let mut end = 200;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
        name = name.trim_end().to_string();
    }
    if name.is_empty() {
        return Err(OpError::InvalidName {
            input: title.to_string(),
            message: "the title has no characters a file name can use; give `path` as well".into(),
        });
    }
    Ok(name)
}
