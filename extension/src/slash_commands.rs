//! `/backlinks NOTE`, `/graph NOTE [DEPTH]` and `/related NOTE`: each runs
//! `weft query … --vault <root>` and returns its Markdown as one labelled
//! section; argument completion lists the vault's notes (`weft query notes`).
//! Knows nothing of how the binary or the vault were found: the wasm sandbox
//! cannot list the vault, so everything vault-wide is asked of the sidecar.

use serde::Deserialize;
use zed_extension_api::{
    self as zed, Result, SlashCommandArgumentCompletion, SlashCommandOutput,
    SlashCommandOutputSection, process::Command,
};

/// The graph depth when `/graph` gets none.
const DEFAULT_DEPTH: u32 = 2;

/// How many notes argument completion offers.
const COMPLETION_LIMIT: usize = 20;

/// A slash command with its parsed arguments.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Backlinks { note: String },
    Graph { note: String, depth: u32 },
    Related { note: String },
}

impl Request {
    /// Zed splits the argument text at whitespace, so the words are joined
    /// back into one note name. For `/graph`, a last word that is a number is
    /// the depth (`/graph Chapter 2 1` for a note named "Chapter 2").
    pub fn parse(command: &str, args: &[String]) -> Result<Request> {
        let words: Vec<&str> = args
            .iter()
            .map(|arg| arg.trim())
            .filter(|arg| !arg.is_empty())
            .collect();
        let usage = match command {
            "graph" => "/graph NOTE [DEPTH]",
            "backlinks" | "related" => "",
            other => return Err(format!("Weft has no slash command /{other}")),
        };
        let mut note_words = words.as_slice();
        let mut depth = DEFAULT_DEPTH;
        if command == "graph"
            && let [rest @ .., last] = note_words
            && !rest.is_empty()
            && let Ok(number) = last.parse::<u32>()
        {
            depth = number;
            note_words = rest;
        }
        let note = note_words.join(" ");
        if note.is_empty() {
            let usage = if usage.is_empty() {
                format!("/{command} NOTE")
            } else {
                usage.to_string()
            };
            return Err(format!("Weft: name a note: {usage}"));
        }
        Ok(match command {
            "backlinks" => Request::Backlinks { note },
            "graph" => Request::Graph { note, depth },
            _ => Request::Related { note },
        })
    }

    /// The sidecar's arguments. The note comes after `--` so that a name
    /// starting with `-` is not read as an option.
    pub fn sidecar_args(&self, vault: &str) -> Vec<String> {
        let mut args = vec!["query".to_string()];
        let note = match self {
            Request::Backlinks { note } => {
                args.push("backlinks".into());
                note
            }
            Request::Graph { note, depth } => {
                args.extend(["graph".into(), "--depth".into(), depth.to_string()]);
                note
            }
            Request::Related { note } => {
                args.push("related".into());
                note
            }
        };
        args.extend(["--vault".into(), vault.into(), "--".into(), note.clone()]);
        args
    }

    /// The label of the output's section.
    fn label(&self) -> String {
        match self {
            Request::Backlinks { note } => format!("Backlinks: {note}"),
            Request::Graph { note, depth } => format!("Graph: {note} (depth {depth})"),
            Request::Related { note } => format!("Related: {note}"),
        }
    }
}

/// Runs the request and returns the sidecar's Markdown as one section.
pub fn run(binary: &str, vault: &str, request: &Request) -> Result<SlashCommandOutput> {
    let mut text = run_sidecar(binary, request.sidecar_args(vault))?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let range = zed::Range {
        start: 0,
        end: text.len() as u32,
    };
    Ok(SlashCommandOutput {
        sections: vec![SlashCommandOutputSection {
            range,
            label: request.label(),
        }],
        text,
    })
}

/// A note as `weft query notes --format json` lists it.
#[derive(Deserialize)]
struct ListedNote {
    path: String,
    title: String,
}

/// Notes whose name, title or alias starts with the argument being typed
/// (the last one: Zed replaces only that one with the completion).
pub fn complete(
    binary: &str,
    vault: &str,
    args: &[String],
) -> Result<Vec<SlashCommandArgumentCompletion>> {
    let mut sidecar_args: Vec<String> = [
        "query",
        "notes",
        "--limit",
        &COMPLETION_LIMIT.to_string(),
        "--format",
        "json",
        "--vault",
        vault,
    ]
    .map(String::from)
    .into();
    let prefix = args.last().map(|arg| arg.trim()).unwrap_or_default();
    if !prefix.is_empty() {
        sidecar_args.extend(["--".to_string(), prefix.to_string()]);
    }
    let json = run_sidecar(binary, sidecar_args)?;
    let notes: Vec<ListedNote> = zed::serde_json::from_str(&json)
        .map_err(|error| format!("Weft: unexpected note list from `weft query notes`: {error}"))?;
    Ok(notes
        .into_iter()
        .map(|note| {
            let name = note.path.strip_suffix(".md").unwrap_or(&note.path);
            let file_stem = name.rsplit('/').next().unwrap_or(name);
            let label = if note.title == file_stem {
                note.path.clone()
            } else {
                format!("{} — {}", note.title, note.path)
            };
            SlashCommandArgumentCompletion {
                label,
                new_text: name.to_string(),
                run_command: true,
            }
        })
        .collect())
}

/// Runs `weft ARGS` and returns its stdout, or its error message (the
/// sidecar exits 2 with `weft: <message>` on stderr).
fn run_sidecar(binary: &str, args: Vec<String>) -> Result<String> {
    let output = Command::new(binary)
        .args(args)
        .output()
        .map_err(|error| format!("Weft: cannot run {binary}: {error}"))?;
    if output.status == Some(0) {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let message = stderr.trim();
    let message = message.strip_prefix("weft: ").unwrap_or(message);
    // An argument error ends with the usage text, which is about the
    // command line the extension built, not about anything the user typed.
    let message = message.split("\n\nUsage:").next().unwrap_or(message).trim();
    Err(match (output.status, message.is_empty()) {
        (Some(code), true) => format!("Weft: {binary} exited with status {code}"),
        (None, true) => format!("Weft: {binary} was stopped by a signal"),
        (_, false) => format!("Weft: {message}"),
    })
}
