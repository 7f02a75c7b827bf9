//! What tools answer: readable Markdown text plus structured content, and
//! tool errors that say what was wrong and how to recover.
//!
//! Knows no protocol: the MCP adapter turns these into results
//! (`mcp::format`), the command line prints them. Must not know the vault
//! on disk or how a tool computed its answer.

use serde::Serialize;
pub(crate) use weft_vault::report::code_list;

use weft_vault::Note;

/// A tool's successful answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub structured: serde_json::Value,
}

impl Reply {
    pub fn new<T: Serialize>(text: String, data: &T) -> Reply {
        Reply {
            text,
            structured: serde_json::to_value(data).unwrap_or(serde_json::Value::Null),
        }
    }
}

/// A tool error the caller can fix: what was wrong, and how to go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub message: String,
    pub hints: Vec<String>,
}

impl ToolError {
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            hints: Vec::new(),
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> ToolError {
        self.hints.push(hint.into());
        self
    }

    pub fn text(&self) -> String {
        let mut out = format!("Error: {}", self.message);
        for hint in &self.hints {
            out.push('\n');
            out.push_str(hint);
        }
        out
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

pub type ToolResult = Result<Reply, ToolError>;

/// `**Title** (`path`)`, the title left out when it is the file name.
pub(crate) fn note_label(note: &Note) -> String {
    if *note.title == *note.stem() {
        format!("`{}`", note.id())
    } else {
        format!("**{}** (`{}`)", escape(&note.title), note.id())
    }
}

/// `1 note`, `2 notes`.
pub fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else if one.ends_with('s') {
        format!("{n} {one}es")
    } else {
        format!("{n} {one}s")
    }
}

/// Text safe inside `**…**` on one line.
pub fn escape(text: &str) -> String {
    text.replace('\n', " ").replace("**", "\\*\\*")
}

/// Cuts a string at `max` characters.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A fence longer than any backtick run in `text`.
pub fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}
