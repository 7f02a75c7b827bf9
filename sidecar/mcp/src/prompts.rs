//! Prompts (Zed shows them as `/` commands: at most one argument, user-role
//! text only): `backlinks`, `graph`, `related`, `daily`, `context`,
//! `recent`, `base`, `tasks`; and argument completion, which offers note
//! names, bases, task filters and tags.
//!
//! Each prompt is a tool's answer as text; must not compute anything a
//! tool does not.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams, GetPromptResult,
    Prompt, PromptArgument, PromptMessage, Reference, Role,
};

use weft_search::index::tag_key;
use weft_search::names::match_names;
use weft_tools::common::visible_tags;
use weft_tools::format::ToolError;
use weft_tools::state::ToolState;
use weft_tools::{
    editor_state, get_context, get_links, list_notes, list_tasks, query, query_notes, read_note,
    related_notes,
};
use weft_vault::key::path_key;

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    argument: &'static str,
    argument_description: &'static str,
    required: bool,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "backlinks",
        title: "Backlinks",
        description: "The notes linking to a note, with the lines that link.",
        argument: "note",
        argument_description: "Note path, title or alias",
        required: true,
    },
    Spec {
        name: "graph",
        title: "Link graph",
        description: "The link graph two steps around a note: nodes and edges.",
        argument: "note",
        argument_description: "Note path, title or alias",
        required: true,
    },
    Spec {
        name: "related",
        title: "Related notes",
        description: "Notes related to a note by links, tags and wording, with reasons.",
        argument: "note",
        argument_description: "Note path, title or alias",
        required: true,
    },
    Spec {
        name: "daily",
        title: "Daily note",
        description: "Today's daily note (or a date's).",
        argument: "date",
        argument_description: "Date (YYYY-MM-DD, today, yesterday); default today",
        required: false,
    },
    Spec {
        name: "context",
        title: "Vault context",
        description: "How to use this vault, the notes marked for agents, the notes open in the editor, and the notes most relevant to a topic.",
        argument: "topic",
        argument_description: "What you are working on (optional)",
        required: false,
    },
    Spec {
        name: "recent",
        title: "Recent notes",
        description: "Notes changed recently, newest first.",
        argument: "since",
        argument_description: "Since when: 7d (default), 24h, 2024-01-15",
        required: false,
    },
    Spec {
        name: "base",
        title: "Base",
        description: "A view of an Obsidian base (a .base file, or a note with ```base blocks) as a table.",
        argument: "base",
        argument_description: "The .base file or note; `Projects.base#Active` for a view",
        required: true,
    },
    Spec {
        name: "tasks",
        title: "Tasks",
        description: "Open checklist tasks by due date: overdue and this week's, or as the filter says.",
        argument: "filter",
        argument_description: "today, next week, overdue, all, #tag, folder/ or words (optional)",
        required: false,
    },
];

pub fn list() -> Vec<Prompt> {
    SPECS
        .iter()
        .map(|s| {
            Prompt::new(
                s.name,
                Some(s.description),
                Some(vec![
                    PromptArgument::new(s.argument)
                        .with_description(s.argument_description)
                        .with_required(s.required),
                ]),
            )
            .with_title(s.title)
        })
        .collect()
}

fn bad(e: ToolError) -> McpError {
    McpError::invalid_params(e.text().trim_start_matches("Error: ").to_string(), None)
}

pub fn get(
    state: &ToolState,
    request: GetPromptRequestParams,
) -> Result<GetPromptResult, McpError> {
    let Some(spec) = SPECS.iter().find(|s| s.name == request.name) else {
        let names: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
        return Err(McpError::invalid_params(
            format!(
                "Unknown prompt `{}`; prompts: {}.",
                request.name,
                names.join(", ")
            ),
            None,
        ));
    };
    state.check_usable().map_err(bad)?;
    let arguments = request.arguments.unwrap_or_default();
    if let Some(other) = arguments.keys().find(|k| *k != spec.argument) {
        return Err(McpError::invalid_params(
            format!(
                "Prompt `{}` takes only `{}`, not `{other}`.",
                spec.name, spec.argument
            ),
            None,
        ));
    }
    let value = arguments
        .get(spec.argument)
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    if spec.required && value.is_none() {
        return Err(McpError::invalid_params(
            format!(
                "Prompt `{}` needs `{}`: {}.",
                spec.name, spec.argument, spec.argument_description
            ),
            None,
        ));
    }
    let text = match spec.name {
        "backlinks" => {
            let note = value.unwrap_or_default();
            get_links::run(
                state,
                query::backlinks_request(&note, query::BACKLINKS_LIMIT),
            )
            .map_err(bad)?
            .text
        }
        "graph" => {
            let note = value.unwrap_or_default();
            get_links::run(
                state,
                query::graph_request(&note, query::GRAPH_DEPTH, query::GRAPH_LIMIT),
            )
            .map_err(bad)?
            .text
        }
        "related" => {
            let note = value.unwrap_or_default();
            related_notes::run(state, query::related_request(&note, query::RELATED_LIMIT))
                .map_err(bad)?
                .text
        }
        "daily" => daily(state, value.as_deref()).map_err(bad)?,
        "base" => {
            // `file#View`, as Obsidian embeds a base's view.
            let written = value.unwrap_or_default();
            let (base, view) = match written.rsplit_once('#') {
                Some((base, view)) if !view.trim().is_empty() => {
                    (base.to_string(), Some(view.trim().to_string()))
                }
                _ => (written, None),
            };
            query_notes::run(
                state,
                query_notes::QueryNotesArgs {
                    base: Some(base),
                    view,
                    ..Default::default()
                },
            )
            .map_err(bad)?
            .text
        }
        "context" => context(state, value.as_deref()).map_err(bad)?,
        "tasks" => {
            let filter = value.unwrap_or_default();
            list_tasks::run(state, query::tasks_request(&filter, state.now().today()))
                .map_err(bad)?
                .text
        }
        _ => {
            let since = value.unwrap_or_else(|| "7d".into());
            list_notes::run(
                state,
                list_notes::ListNotesArgs {
                    folder: None,
                    recursive: Some(true),
                    depth: None,
                    sort: Some(list_notes::ListSort::Modified),
                    modified_since: Some(since),
                    tags: None,
                    format: None,
                    limit: Some(30),
                    cursor: None,
                },
            )
            .map_err(bad)?
            .text
        }
    };
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(spec.description),
    )
}

/// The daily note of `date` (default today), found as the `daily_note`
/// tool finds it: the same day (in the vault's zone), the same folder and format
/// (`weft_vault::daily::daily_note_path`), the file by its exact path.
fn daily(state: &ToolState, date: Option<&str>) -> Result<String, ToolError> {
    let today = state.now().today();
    let day = weft_workspace::ops::template::parse_day(date, today)
        .map_err(|e| ToolError::new(format!("`date`: {e}.")))?;
    let config = state.config();
    let wanted =
        weft_vault::daily::daily_note_path(&config.daily.folder, &config.daily.format, day);
    let iso = weft_workspace::ops::template::iso_date(day);
    let path = {
        let index = state.index();
        weft_vault::daily::find_daily_note(&index, &wanted)
            .map(|id| index.note(id).path.to_string())
    };
    let policy = state.policy();
    let Some(path) = path.filter(|p| policy.access.sees(p)) else {
        return Ok(match policy.access.sees(&wanted) {
            true => format!(
                "There is no daily note for {iso} yet (it would be `{}`).",
                weft_vault::note::strip_md(&wanted)
            ),
            false => format!(
                "The daily note of {iso} is outside what this agent may access; ask the user if \
                 you need it."
            ),
        });
    };
    Ok(read_note::run(
        state,
        read_note::ReadNoteArgs {
            path: Some(weft_vault::note::strip_md(&path).to_string()),
            paths: None,
            view: None,
            section: None,
            version: None,
            offset: None,
            max_chars: None,
        },
    )?
    .text)
}

fn context(state: &ToolState, topic: Option<&str>) -> Result<String, ToolError> {
    let mut text = String::from(weft_tools::guide::GUIDE);
    if let Some(block) = weft_tools::context::auto_context(state) {
        text.push_str(&format!("\n\n{block}"));
    }
    // What the user has open in the editor, when an editor is connected.
    let editor = editor_state::run(state, Default::default())?;
    if editor.structured["notes"]
        .as_array()
        .is_some_and(|notes| !notes.is_empty())
    {
        text.push_str(&format!("\n\n## Open in the editor\n{}", editor.text));
    }
    match topic {
        Some(topic) => {
            let evidence = get_context::run(
                state,
                get_context::GetContextArgs {
                    query: Some(topic.to_string()),
                    top_k: Some(5),
                    max_chars: Some(4_000),
                    ..Default::default()
                },
            )?;
            text.push_str(&format!("\n\n## Notes about “{topic}”\n{}", evidence.text));
        }
        None => {
            let recent = list_notes::run(
                state,
                list_notes::ListNotesArgs {
                    folder: None,
                    recursive: Some(true),
                    depth: None,
                    sort: Some(list_notes::ListSort::Modified),
                    modified_since: None,
                    tags: None,
                    format: None,
                    limit: Some(10),
                    cursor: None,
                },
            )?;
            text.push_str(&format!("\n\n## Recently changed\n{}", recent.text));
        }
    }
    Ok(text)
}

/// Completions for a prompt argument or the note resource template.
pub fn complete(
    state: &ToolState,
    request: CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let value = request.argument.value.trim().to_string();
    let argument = request.argument.name.as_str();
    let values: Vec<String> = match &request.r#ref {
        Reference::Prompt(p) => match (p.name.as_str(), argument) {
            ("backlinks" | "graph" | "related", "note") => note_names(state, &value),
            ("daily", "date") => {
                let mut v = vec!["today".to_string(), "yesterday".to_string()];
                let today = state.now().today();
                for days in 0..7 {
                    v.push(weft_workspace::ops::template::iso_date(
                        today.add_days(-days),
                    ));
                }
                v.retain(|d| d.starts_with(&value));
                v
            }
            ("base", "base") => base_names(state, &value),
            ("tasks", "filter") => {
                let mut v: Vec<String> = [
                    "overdue",
                    "today",
                    "tomorrow",
                    "this week",
                    "next week",
                    "all",
                ]
                .iter()
                .filter(|s| s.starts_with(&value.to_ascii_lowercase()))
                .map(|s| s.to_string())
                .collect();
                if let Some(tag) = value.strip_prefix('#') {
                    let policy = state.policy();
                    let index = state.index();
                    let wanted = tag_key(tag);
                    v.extend(
                        visible_tags(&policy.access, &index)
                            .iter()
                            .filter(|(k, _)| k.starts_with(&wanted))
                            .take(20)
                            .map(|(_, t)| format!("#{}", t.display())),
                    );
                }
                v
            }
            ("recent", "since") => ["24h", "7d", "30d", "today", "yesterday"]
                .iter()
                .filter(|s| s.starts_with(&value))
                .map(|s| s.to_string())
                .collect(),
            ("context", "topic") => {
                let policy = state.policy();
                let index = state.index();
                let wanted = tag_key(&value);
                let mut tags: Vec<(u32, String)> = visible_tags(&policy.access, &index)
                    .iter()
                    .filter(|(k, _)| k.starts_with(&wanted))
                    .map(|(_, t)| (t.notes, t.display().to_string()))
                    .collect();
                tags.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
                tags.into_iter().map(|(_, t)| t).collect()
            }
            _ => Vec::new(),
        },
        Reference::Resource(r) if r.uri.starts_with("weft://note/") && argument == "path" => {
            note_names(state, &value)
        }
        _ => Vec::new(),
    };
    let total = values.len();
    let shown: Vec<String> = values
        .into_iter()
        .take(CompletionInfo::MAX_VALUES)
        .collect();
    let has_more = total > shown.len();
    let info = CompletionInfo::with_pagination(shown, Some(total as u32), has_more)
        .map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

/// The `.base` files whose path holds what is typed, then the notes
/// named so (a note may hold ```base blocks).
fn base_names(state: &ToolState, value: &str) -> Vec<String> {
    let policy = state.policy();
    let wanted = path_key(value);
    let mut bases: Vec<String> = state
        .index()
        .attachments()
        .filter(|p| weft_bases::is_base_path(p))
        .filter(|p| policy.access.sees(p) && path_key(p).contains(&wanted))
        .map(str::to_string)
        .collect();
    bases.sort_by_key(|p| path_key(p));
    if !value.is_empty() {
        bases.extend(note_names(state, value));
    }
    bases
}

/// Note paths for a typed prefix: best name matches, or the first notes.
fn note_names(state: &ToolState, value: &str) -> Vec<String> {
    let policy = state.policy();
    let index = state.index();
    if value.is_empty() {
        let mut all: Vec<String> = index
            .notes()
            .filter(|(_, n)| policy.access.sees(&n.path))
            .map(|(_, n)| n.id().to_string())
            .collect();
        all.sort_by_key(|p| path_key(p));
        return all;
    }
    match_names(&index, value, 300)
        .into_iter()
        .filter(|m| policy.access.sees(&index.note(m.note).path))
        .map(|m| index.note(m.note).id().to_string())
        .collect()
}
