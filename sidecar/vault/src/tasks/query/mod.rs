//! ```` ```tasks ```` query blocks, read and run headless as the Tasks
//! plugin runs them: one instruction a line (a line ending in `\` goes on;
//! `#` starts a comment), filters ANDed (`filter.rs`, boolean lines
//! `boolean.rs`), `sort by` with the plugin's default sorts after,
//! `group by`, `limit` and `limit groups` (`order.rs`), `explain`,
//! `ignore global query`, `preset NAME`, the `{{query.file.…}}`
//! placeholders, and the layout lines (`hide …`, `show …`, `short mode`),
//! which only change how Obsidian draws the tasks. What Weft cannot do —
//! JavaScript (`… by function`), placeholders that need Obsidian — and
//! what the plugin would not understand are errors naming the line.
//!
//! Pure: the caller says what today is, which note holds the query, and
//! the settings (global query, presets); `run.rs` runs a query over the
//! index.

pub mod boolean;
pub mod filter;
pub mod order;
pub mod run;
pub mod scan;

use super::TaskSettings;
use crate::date::Date;
use filter::Filter;
use order::Order;
use scan::Statement;

/// A query read.
#[derive(Debug, Clone, Default)]
pub struct TasksQuery {
    /// ANDed.
    pub filters: Vec<Filter>,
    /// The user's, in order (the defaults follow when sorting).
    pub sorts: Vec<Order>,
    pub groups: Vec<Order>,
    pub limit: Option<usize>,
    /// Tasks in each group at most.
    pub group_limit: Option<usize>,
    pub explain: bool,
    /// The layout lines as written: how Obsidian draws the tasks.
    pub layout: Vec<String>,
    /// The statements the filters, sorts and groups came from (the global
    /// query's first), for `explain`.
    pub explained: Vec<Explained>,
}

/// One statement and what it became, for `explain`.
#[derive(Debug, Clone)]
pub enum Explained {
    Filter(Filter),
    Sort(Order),
    Group(Order),
    Limit(String),
}

/// Why a query cannot run: the statement, where it is, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    /// 0-based lines of the query's text (the block's first line 0).
    pub first: u32,
    pub last: u32,
    pub statement: String,
    pub message: String,
    /// Where the statement came from when not the query's own text: the
    /// global query, a preset.
    pub from: Option<String>,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = match &self.from {
            Some(from) => format!("in {from}"),
            None if self.first == self.last => format!("line {}", self.first + 1),
            None => format!("lines {}–{}", self.first + 1, self.last + 1),
        };
        write!(f, "{place}: `{}`: {}", self.statement, self.message)
    }
}

/// What a query is read with.
#[derive(Debug, Clone, Copy)]
pub struct QueryContext<'a> {
    pub today: Date,
    /// The vault path of the note holding the query (`{{query.file.path}}`).
    pub file: Option<&'a str>,
    /// Its properties (`{{query.file.property('x')}}`).
    pub properties: Option<&'a serde_json::Map<String, serde_json::Value>>,
    pub settings: &'a TaskSettings,
}

/// How deep presets may name presets.
const MAX_PRESET_DEPTH: usize = 4;

/// Reads `source`; the first error when any (the plugin stops there too).
pub fn parse(source: &str, ctx: &QueryContext) -> Result<TasksQuery, QueryError> {
    let mut errors = Vec::new();
    let query = read(source, ctx, &mut errors, true);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(query),
    }
}

/// Every error of `source`, each with its lines (for diagnostics).
pub fn check(source: &str, ctx: &QueryContext) -> Vec<QueryError> {
    let mut errors = Vec::new();
    read(source, ctx, &mut errors, false);
    errors
}

fn read(
    source: &str,
    ctx: &QueryContext,
    errors: &mut Vec<QueryError>,
    stop_at_first: bool,
) -> TasksQuery {
    let mut query = TasksQuery::default();
    let statements = scan::statements(source);
    let ignore_global = statements
        .iter()
        .any(|s| s.text.to_lowercase().starts_with("ignore global query"));
    let global = ctx.settings.global_query.trim();
    if !global.is_empty() && !ignore_global {
        let mut global_errors = Vec::new();
        for s in scan::statements(global) {
            instruction(&s, ctx, &mut query, &mut global_errors, 0);
        }
        errors.extend(global_errors.into_iter().map(|e| QueryError {
            from: Some("the Tasks plugin's global query".into()),
            ..e
        }));
    }
    for s in &statements {
        instruction(s, ctx, &mut query, errors, 0);
        if stop_at_first && !errors.is_empty() {
            break;
        }
    }
    query
}

/// Reads one statement into `query`.
fn instruction(
    s: &Statement,
    ctx: &QueryContext,
    query: &mut TasksQuery,
    errors: &mut Vec<QueryError>,
    depth: usize,
) {
    let error = |message: String| QueryError {
        first: s.first,
        last: s.last,
        statement: s.text.clone(),
        message,
        from: None,
    };
    if s.text.starts_with('#') {
        return;
    }
    let text = match placeholders(&s.text, ctx) {
        Ok(t) => t,
        Err(e) => return errors.push(error(e)),
    };
    // A placeholder may give several instructions (a property holding
    // lines, a preset): each is read in turn, on the statement's lines.
    if text.contains('\n') {
        if depth >= MAX_PRESET_DEPTH {
            return errors.push(error(format!(
                "placeholders give placeholders more than {MAX_PRESET_DEPTH} deep"
            )));
        }
        for part in scan::statements(&text) {
            let part = Statement {
                first: s.first,
                last: s.last,
                text: part.text,
            };
            instruction(&part, ctx, query, errors, depth + 1);
        }
        return;
    }
    let lower = text.to_lowercase();
    if let Some(name) = lower.strip_prefix("preset ") {
        let name = name.trim();
        let Some((_, preset)) = ctx
            .settings
            .presets
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            let known: Vec<&str> = ctx.settings.presets.iter().map(|(n, _)| &**n).collect();
            return errors.push(error(if known.is_empty() {
                format!("there is no preset `{name}`: the Tasks plugin's settings define none")
            } else {
                format!(
                    "there is no preset `{name}`; the Tasks plugin's settings define {}",
                    known.join(", ")
                )
            }));
        };
        if depth >= MAX_PRESET_DEPTH {
            return errors.push(error(format!(
                "presets name presets more than {MAX_PRESET_DEPTH} deep"
            )));
        }
        let mut inner = Vec::new();
        for p in scan::statements(preset) {
            instruction(&p, ctx, query, &mut inner, depth + 1);
        }
        errors.extend(inner.into_iter().map(|e| QueryError {
            first: s.first,
            last: s.last,
            from: None,
            message: format!("in preset `{name}`: `{}`: {}", e.statement, e.message),
            statement: s.text.clone(),
        }));
        return;
    }
    if ["short mode", "full mode", "short", "full"].contains(&lower.as_str())
        || lower.starts_with("view ")
    {
        query.layout.push(text);
        return;
    }
    if lower == "explain" {
        query.explain = true;
        return;
    }
    if lower == "ignore global query" {
        return;
    }
    if let Some(rest) = lower.strip_prefix("limit ") {
        match limit(rest) {
            Ok((groups, n)) => {
                if groups {
                    query.group_limit = Some(n);
                } else {
                    query.limit = Some(n);
                }
                query.explained.push(Explained::Limit(text));
            }
            Err(e) => errors.push(error(e)),
        }
        return;
    }
    if let Some(rest) = lower.strip_prefix("sort by ") {
        match Order::sort(rest.trim()) {
            Ok(order) => {
                query.sorts.push(order);
                query.explained.push(Explained::Sort(order));
            }
            Err(e) => errors.push(error(e)),
        }
        return;
    }
    if let Some(rest) = lower.strip_prefix("group by ") {
        match Order::group(rest.trim()) {
            Ok(order) => {
                query.groups.push(order);
                query.explained.push(Explained::Group(order));
            }
            Err(e) => errors.push(error(e)),
        }
        return;
    }
    if let Some(rest) = lower
        .strip_prefix("hide ")
        .or_else(|| lower.strip_prefix("show "))
    {
        // As the plugin reads them: an option's name starts the rest.
        match LAYOUT.iter().any(|o| rest.trim().starts_with(o)) {
            true => query.layout.push(text),
            false => errors.push(error(format!(
                "do not understand hide/show option `{}`; the options are {}",
                rest.trim(),
                LAYOUT.join(", ")
            ))),
        }
        return;
    }
    match parse_filter(&text, ctx.today) {
        Some(Ok(f)) => {
            query.filters.push(f.clone());
            query.explained.push(Explained::Filter(f));
        }
        Some(Err(e)) => errors.push(error(e)),
        None => errors.push(error(
            "do not understand query (see the Tasks plugin's query reference: filters such as \
             `not done`, `due before tomorrow`, `path includes X`, then `sort by`, `group by`, \
             `limit`)"
                .into(),
        )),
    }
}

/// Reads one filter line, on `today`: a test, or tests joined on a
/// boolean line. `None`: not a filter the plugin knows.
pub fn parse_filter(line: &str, today: Date) -> Option<Result<Filter, String>> {
    filter_at(line, today, 0)
}

fn filter_at(line: &str, today: Date, depth: usize) -> Option<Result<Filter, String>> {
    filter::parse_test(line, today)
        .or_else(|| boolean::parse(line, depth, &|text, d| filter_at(text, today, d)))
}

/// What `hide` and `show` take.
const LAYOUT: &[&str] = &[
    "id",
    "depends on",
    "priority",
    "recurrence rule",
    "on completion",
    "created date",
    "start date",
    "scheduled date",
    "due date",
    "cancelled date",
    "done date",
    "tags",
    "urgency",
    "backlink",
    "nested backlink",
    "group count",
    "edit button",
    "postpone button",
    "task count",
    "tree",
    "toolbar",
];

/// `limit 50`, `limit to 50 tasks`, `limit groups 5`, `limit groups to 5
/// tasks`: whether of groups, and the number.
fn limit(rest: &str) -> Result<(bool, usize), String> {
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let groups = words.first() == Some(&"groups");
    if groups {
        words.remove(0);
    }
    if words.first() == Some(&"to") {
        words.remove(0);
    }
    if matches!(words.last(), Some(&"tasks" | &"task")) {
        words.pop();
    }
    match words.as_slice() {
        [n] => n
            .parse::<usize>()
            .map(|n| (groups, n))
            .map_err(|_| format!("`{n}` is not a number of tasks")),
        _ => Err("write `limit N`, `limit to N tasks` or `limit groups N`".into()),
    }
}

/// `{{query.file.path}}` and its kin, from the note holding the query;
/// `{{query.file.property('x')}}`, `{{query.file.hasProperty('x')}}`;
/// `{{preset.NAME}}`.
fn placeholders(text: &str, ctx: &QueryContext) -> Result<String, String> {
    if !(text.contains("{{") && text.contains("}}")) {
        return Ok(text.to_string());
    }
    crate::template::fill_with(text, |name| placeholder(name, ctx).map(Some))
}

fn placeholder(name: &str, ctx: &QueryContext) -> Result<String, String> {
    if let Some(preset) = name.strip_prefix("preset.") {
        return ctx
            .settings
            .presets
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(preset))
            .map(|(_, text)| text.to_string())
            .ok_or_else(|| format!("there is no preset `{preset}` for `{{{{{name}}}}}`"));
    }
    let unsupported = || {
        format!(
            "the placeholder `{{{{{name}}}}}` is not supported (query.file.path, \
             pathWithoutExtension, folder, root, filename, filenameWithoutExtension, \
             property('name'), hasProperty('name') and preset.NAME are; JavaScript is not)"
        )
    };
    if !name.starts_with("query.file.") {
        return Err(unsupported());
    }
    let Some(path) = ctx.file else {
        return Err(
            "the line holds a placeholder `{{query.file…}}` but the query is not run from a \
             note, so it has no values; run the note's block (its path and block number) \
             instead"
                .into(),
        );
    };
    let filename = path.rsplit('/').next().unwrap_or(path);
    let value = match &name["query.file.".len()..] {
        "path" => path.to_string(),
        "pathWithoutExtension" => crate::note::strip_md(path).to_string(),
        "folder" => filter::folder_text(path),
        "root" => filter::root_text(path),
        "filename" => filename.to_string(),
        "filenameWithoutExtension" => crate::note::strip_md(filename).to_string(),
        call => {
            let (function, key) = property_call(call).ok_or_else(unsupported)?;
            let value = ctx.properties.and_then(|p| {
                p.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(key))
                    .map(|(_, v)| v)
            });
            match function {
                "hasProperty" => value.is_some_and(|v| !v.is_null()).to_string(),
                _ => value.map_or(String::new(), property_text),
            }
        }
    };
    Ok(value)
}

/// `property('x')` or `hasProperty("x")`: the function and the name.
fn property_call(call: &str) -> Option<(&str, &str)> {
    let (function, rest) = call.split_once('(')?;
    let function = function.trim();
    if !matches!(function, "property" | "hasProperty") {
        return None;
    }
    let inner = rest.strip_suffix(')')?.trim();
    let quote = inner.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let key = inner.strip_prefix(quote)?.strip_suffix(quote)?;
    (!key.contains(quote)).then_some((function, key))
}

/// A property's value as a placeholder writes it: text as it is, a list
/// as its items joined by commas (as JavaScript writes an array), nothing
/// for null.
fn property_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items
            .iter()
            .map(property_text)
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

impl TasksQuery {
    /// The plugin's `explain` text: each filter with its dates expanded,
    /// then the groups, sorts and limits.
    pub fn explanation(&self, today: Date) -> String {
        let mut lines = vec!["Explanation of this Tasks code block query:".to_string()];
        let mut body = Vec::new();
        for part in &self.explained {
            match part {
                Explained::Filter(f) => f.explain(today, 1, &mut body),
                Explained::Sort(o) => body.push(format!("  {}", o.text("sort"))),
                Explained::Group(o) => body.push(format!("  {}", o.text("group"))),
                Explained::Limit(text) => body.push(format!("  {text}")),
            }
        }
        if self.filters.is_empty() {
            body.insert(
                0,
                "  No filters supplied. All tasks will match the query.".into(),
            );
        }
        lines.push(String::new());
        lines.extend(body);
        lines.join("\n")
    }
}

/// A ```` ```tasks ```` block of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryBlock {
    /// 0-based line of the opening fence (the query's line 0 is the next).
    pub line: u32,
    /// The query's text, without the quote marks (`> `) its fence stands
    /// after.
    pub query: String,
}

/// The ```` ```tasks ```` blocks of a note's text (fences of three or more
/// backticks or tildes, in quotes and callouts too; an unclosed block runs
/// to the end).
pub fn blocks(text: &str) -> Vec<QueryBlock> {
    struct Open<'t> {
        line: u32,
        fence: char,
        len: usize,
        prefix: &'t str,
        tasks: bool,
        query: String,
    }
    let mut out = Vec::new();
    // Most notes hold none: one search says so.
    if !text.contains("tasks") {
        return out;
    }
    let mut open: Option<Open> = None;
    for (n, line) in text.lines().enumerate() {
        let lead = line.len() - line.trim_start_matches([' ', '\t', '>']).len();
        let trimmed = line[lead..].trim_end();
        let first = trimmed.chars().next();
        let run = |c: char| trimmed.chars().take_while(|x| *x == c).count();
        match &mut open {
            None => {
                if let Some(c @ ('`' | '~')) = first
                    && run(c) >= 3
                {
                    let info = trimmed[run(c)..].trim();
                    open = Some(Open {
                        line: n as u32,
                        fence: c,
                        len: run(c),
                        prefix: &line[..lead],
                        tasks: info.split_whitespace().next() == Some("tasks"),
                        query: String::new(),
                    });
                }
            }
            Some(block) => {
                if first == Some(block.fence)
                    && run(block.fence) >= block.len
                    && trimmed[run(block.fence)..].trim().is_empty()
                {
                    if let Some(done) = open.take().filter(|b| b.tasks) {
                        out.push(QueryBlock {
                            line: done.line,
                            query: done.query,
                        });
                    }
                } else if block.tasks {
                    // The quote marks the fence stands after, taken off.
                    let marks = block.prefix.trim_end_matches([' ', '\t']);
                    let body = match line.strip_prefix(marks) {
                        Some(rest) if !marks.is_empty() => rest.strip_prefix(' ').unwrap_or(rest),
                        _ => line,
                    };
                    block.query.push_str(body);
                    block.query.push('\n');
                }
            }
        }
    }
    if let Some(block) = open.filter(|b| b.tasks) {
        out.push(QueryBlock {
            line: block.line,
            query: block.query,
        });
    }
    out
}

#[cfg(test)]
mod tests;
