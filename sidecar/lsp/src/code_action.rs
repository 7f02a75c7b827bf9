//! `textDocument/codeAction`: create the missing note of an unresolved link
//! (in the configured folder, from the template), append a missing heading
//! to the target note, pick one candidate of an ambiguous link, write a
//! property value so that it fits its type where there is one way to
//! (`"3"` in a number property), create today's daily note, and change the
//! status of the task under the cursor (`task_action.rs`).
//!
//! Zed cannot run server commands from its palette, so every action is a
//! plain workspace edit. The domain says what is broken and names notes;
//! this module builds the edits.

use chrono::NaiveTime;
use tower_lsp_server::ls_types::*;

use super::convert::Encoding;
use super::edit::text_edit;
use super::task_action::task_actions;
use super::vault::Vault;
use super::world::{Here, World};
use weft_vault::daily::{Date, daily_note_path};
use weft_vault::key::join_relative;
use weft_vault::key::{encode_path, relative_path};
use weft_vault::note::{LinkKind, folder_of, is_note_path, strip_md};
use weft_vault::props::mismatches;
use weft_vault::rewrite::note_path_for;
use weft_vault::template::new_note_text;
use weft_vault::{FragmentTarget, Link, NoteId, Resolution, VaultIndex, resolve_fragment};
use weft_workspace::config::Config;

/// Template file names tried, in order, in the templates folder for a new
/// note created from a link.
const NEW_NOTE_TEMPLATES: [&str; 3] = ["new note.md", "default.md", "note.md"];

/// An action found under the index lock, built after it.
enum Want {
    Create {
        path: String,
        title: String,
        link: std::ops::Range<u32>,
    },
    AddHeading {
        path: String,
        heading: String,
        link: std::ops::Range<u32>,
    },
    Pick {
        replace: std::ops::Range<u32>,
        with: String,
        path: String,
        link: std::ops::Range<u32>,
    },
    Daily {
        path: String,
        title: String,
    },
    /// A property value written so that it fits its type.
    FixValue {
        span: std::ops::Range<u32>,
        with: String,
        key: String,
        expected: &'static str,
    },
}

pub(super) fn code_actions(world: &World, params: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let here = world.here(&uri, params.range.start)?;
    let encoding = world.encoding();
    let selected = here.lines.byte_range(params.range, encoding);
    let config = here.vault.config();
    let now = config.now();
    let line = here.lines.position(selected.start, encoding).line;
    let wants = wanted(&here, &config, selected, now.today())?;
    let caps = world.caps();
    let build = Build {
        world,
        here: &here,
        uri: &uri,
        config: &config,
        diagnostics: &params.context.diagnostics,
        encoding,
        can_create: caps.create_files && caps.document_changes,
        today: now.today(),
        time: now.time(),
    };
    let settings = config.task_settings();
    let tasks = task_actions(world, &here, &uri, line, &settings, now.today());
    let actions = tasks
        .into_iter()
        .chain(wants.into_iter().filter_map(|want| build.action(want)))
        .map(CodeActionOrCommand::CodeAction)
        .collect();
    Some(actions)
}

/// What can be done for the links in `selected` of the note `here`, and
/// today's daily note when it is missing; `None` when the note is not
/// indexed.
fn wanted(
    here: &Here,
    config: &Config,
    selected: std::ops::Range<usize>,
    today: Date,
) -> Option<Vec<Want>> {
    let mut wants: Vec<Want> = Vec::new();
    let index = here.vault.read();
    let id = index.id_of(&here.rel)?;
    let note = index.note(id);
    let folder = folder_of(&here.rel);
    for link in &note.links {
        let span = link.span.start as usize..link.span.end as usize;
        if span.end < selected.start || span.start > selected.end {
            continue;
        }
        link_wants(
            &index,
            id,
            link,
            folder,
            &config.new_notes_folder,
            &mut wants,
        );
    }
    if let Some(values) = note.frontmatter.as_deref() {
        for m in mismatches(&here.text, values, index.props(), &config.types) {
            if m.span.end < selected.start || m.span.start > selected.end {
                continue;
            }
            if let Some(with) = m.certain_fix() {
                wants.push(Want::FixValue {
                    span: m.span.start as u32..m.span.end as u32,
                    with,
                    key: m.key,
                    expected: m.expected.name(),
                });
            }
        }
    }
    let daily = daily_note_path(&config.daily.folder, &config.daily.format, today);
    if index.id_of(&daily).is_none() {
        let title = strip_md(daily.rsplit('/').next().unwrap_or(&daily)).to_string();
        wants.push(Want::Daily { path: daily, title });
    }
    Some(wants)
}

/// What fixes `link` of the note `id` (in `folder`): create the note it
/// names, pick one of the notes it may mean, or add the heading it names.
fn link_wants(
    index: &VaultIndex,
    id: NoteId,
    link: &Link,
    folder: &str,
    new_notes_folder: &str,
    wants: &mut Vec<Want>,
) {
    match index.resolve_link(id, link) {
        Resolution::Unresolved if !link.is_self_link() => {
            if let Some(path) = new_note_path(folder, link.target(), link.kind, new_notes_folder) {
                let title =
                    strip_md(link.target().rsplit('/').next().unwrap_or(link.target())).to_string();
                wants.push(Want::Create {
                    path,
                    title,
                    link: link.span.clone(),
                });
            }
        }
        Resolution::Ambiguous { candidates, .. } => {
            for candidate in candidates {
                let path = index.note(candidate).path.to_string();
                let with = match link.kind {
                    LinkKind::Wiki => strip_md(&path).to_string(),
                    LinkKind::Markdown => encode_path(&relative_path(folder, &path)),
                };
                wants.push(Want::Pick {
                    replace: link.target_span.clone(),
                    with,
                    path,
                    link: link.span.clone(),
                });
            }
        }
        Resolution::Note(target) => {
            let Some(fragment) = link.fragment() else {
                return;
            };
            let target_note = index.note(target);
            if !fragment.starts_with('^')
                && resolve_fragment(target_note, fragment) == FragmentTarget::Missing
            {
                let heading = fragment.rsplit('#').next().unwrap_or(fragment).trim();
                if !heading.is_empty() {
                    wants.push(Want::AddHeading {
                        path: target_note.path.to_string(),
                        heading: heading.to_string(),
                        link: link.span.clone(),
                    });
                }
            }
        }
        _ => {}
    }
}

/// What building the actions needs: the request, the session, the clock.
struct Build<'a> {
    world: &'a World,
    here: &'a Here,
    uri: &'a Uri,
    config: &'a Config,
    /// The diagnostics the client sent with the request.
    diagnostics: &'a [Diagnostic],
    encoding: Encoding,
    /// The client can create files (and so new notes).
    can_create: bool,
    today: Date,
    time: NaiveTime,
}

impl Build<'_> {
    /// The action doing `want`, if the client can take it.
    fn action(&self, want: Want) -> Option<CodeAction> {
        match want {
            Want::Create { path, title, link } => self.create(path, &title, &link),
            Want::AddHeading {
                path,
                heading,
                link,
            } => self.add_heading(&path, &heading, &link),
            Want::Pick {
                replace,
                with,
                path,
                link,
            } => Some(self.pick(&replace, with, &path, &link)),
            Want::Daily { path, title } => self.daily(path, &title),
            Want::FixValue {
                span,
                with,
                key,
                expected,
            } => Some(self.fix_value(&span, with, &key, expected)),
        }
    }

    /// The client's diagnostics of the link at `link`, if any.
    fn diagnostics_at(&self, link: &std::ops::Range<u32>) -> Option<Vec<Diagnostic>> {
        let range = self.here.lines.span(link, self.encoding);
        let found: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|d| d.range == range)
            .cloned()
            .collect();
        (!found.is_empty()).then_some(found)
    }

    fn create(&self, path: String, title: &str, link: &std::ops::Range<u32>) -> Option<CodeAction> {
        if !self.can_create {
            return None;
        }
        let template = NEW_NOTE_TEMPLATES.iter().find_map(|name| {
            let folder = self.config.templates_folder.trim_matches('/');
            let template_path = if folder.is_empty() {
                (*name).to_string()
            } else {
                format!("{folder}/{name}")
            };
            self.world.text(&self.here.vault, &template_path)
        });
        let text = new_note_text(
            template.as_deref().map(|t| t.as_str()),
            title,
            self.today,
            self.time,
        );
        Some(CodeAction {
            title: format!("Create note {path}"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: self.diagnostics_at(link),
            edit: create_file(&self.here.vault, &path, text),
            is_preferred: Some(true),
            ..Default::default()
        })
    }

    fn add_heading(
        &self,
        path: &str,
        heading: &str,
        link: &std::ops::Range<u32>,
    ) -> Option<CodeAction> {
        let vault = &self.here.vault;
        let text = self.world.text(vault, path)?;
        let target_uri = self.world.doc_uri(vault, path)?;
        let end = super::convert::LineIndex::new(&text).end(self.encoding);
        let lead = if text.is_empty() || text.ends_with("\n\n") {
            ""
        } else if text.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        let edit = TextEdit::new(Range::new(end, end), format!("{lead}## {heading}\n"));
        Some(CodeAction {
            title: format!("Add heading \"{heading}\" to {path}"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: self.diagnostics_at(link),
            edit: Some(text_edit(self.world, vault, path, target_uri, vec![edit])),
            ..Default::default()
        })
    }

    fn pick(
        &self,
        replace: &std::ops::Range<u32>,
        with: String,
        path: &str,
        link: &std::ops::Range<u32>,
    ) -> CodeAction {
        let range = self.here.lines.span(replace, self.encoding);
        let edit = TextEdit::new(range, with);
        CodeAction {
            title: format!("Link to {path}"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: self.diagnostics_at(link),
            edit: Some(text_edit(
                self.world,
                &self.here.vault,
                &self.here.rel,
                self.uri.clone(),
                vec![edit],
            )),
            ..Default::default()
        }
    }

    fn fix_value(
        &self,
        span: &std::ops::Range<u32>,
        with: String,
        key: &str,
        expected: &str,
    ) -> CodeAction {
        let range = self.here.lines.span(span, self.encoding);
        CodeAction {
            title: format!("Write `{with}` (`{key}` is a {expected} property)"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: self.diagnostics_at(span),
            is_preferred: Some(true),
            edit: Some(text_edit(
                self.world,
                &self.here.vault,
                &self.here.rel,
                self.uri.clone(),
                vec![TextEdit::new(range, with)],
            )),
            ..Default::default()
        }
    }

    fn daily(&self, path: String, title: &str) -> Option<CodeAction> {
        if !self.can_create {
            return None;
        }
        let template = self.config.daily.template.as_deref().and_then(|t| {
            let t = if is_note_path(t) {
                t.to_string()
            } else {
                format!("{t}.md")
            };
            self.world.text(&self.here.vault, &t)
        });
        let text = new_note_text(
            template.as_deref().map(|t| t.as_str()),
            title,
            self.today,
            self.time,
        );
        Some(CodeAction {
            title: format!("Create today's daily note {path}"),
            edit: create_file(&self.here.vault, &path, text),
            ..Default::default()
        })
    }
}

/// Where the note an unresolved link names would be created: next to the
/// source for relative targets, at the vault path for paths, else in the
/// folder for new notes.
fn new_note_path(
    folder: &str,
    target: &str,
    kind: LinkKind,
    new_notes_folder: &str,
) -> Option<String> {
    let target = target.trim();
    // A target with another extension names an attachment.
    let last = target.rsplit('/').next().unwrap_or(target);
    if let Some(dot) = last.rfind('.')
        && !is_note_path(last)
        && last[dot + 1..].chars().all(|c| c.is_ascii_alphanumeric())
        && last.len() - dot <= 5
    {
        return None;
    }
    if target.starts_with("./") || target.starts_with("../") || kind == LinkKind::Markdown {
        let joined = join_relative(folder, target)?;
        return note_path_for("", &joined).ok();
    }
    if target.contains('/') {
        return note_path_for("", target).ok();
    }
    note_path_for(new_notes_folder.trim_matches('/'), target).ok()
}

fn create_file(vault: &Vault, path: &str, text: String) -> Option<WorkspaceEdit> {
    let uri = vault.uri(path)?;
    Some(WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(vec![
            DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                uri: uri.clone(),
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(true),
                }),
                annotation_id: None,
            })),
            DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier { uri, version: None },
                edits: vec![OneOf::Left(TextEdit::new(Range::default(), text))],
            }),
        ])),
        ..Default::default()
    })
}
