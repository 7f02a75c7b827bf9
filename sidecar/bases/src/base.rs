//! A base as its YAML writes it — `filters` (an expression, or `and` /
//! `or` / `not` of them, nested), `formulas`, `properties` (display
//! names), `summaries`, `views` — read into a checked [`Base`] whose
//! expressions are parsed; and the ```` ```base ```` blocks of a note.
//! Keys a view type of a plugin adds are left alone. An error says where
//! (`views[1].sort[0]`) and what.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use serde_json::Value as Json;

use crate::expr::{self, Expr, Kind};

/// The largest base read (a file or a block).
pub const MAX_BASE_BYTES: usize = 1 << 20;
/// How deeply `and` / `or` / `not` may nest.
const MAX_FILTER_DEPTH: usize = 32;

/// Why a base cannot be used: what, and where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseError {
    /// Where in the base (`views[0].filters.and[1]`), empty for the whole.
    pub at: String,
    pub message: String,
}

impl std::fmt::Display for BaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.at.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.at, self.message)
        }
    }
}

impl std::error::Error for BaseError {}

fn error(at: &str, message: impl Into<String>) -> BaseError {
    BaseError {
        at: at.to_string(),
        message: message.into(),
    }
}

/// An expression with its source, as a base writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub source: String,
    pub expr: Expr,
}

impl Written {
    /// Reads `source` as an expression; an error says it stands `at`.
    pub fn read(at: &str, source: &str) -> Result<Written, BaseError> {
        let expr = expr::parse(source).map_err(|e| {
            error(
                at,
                format!(
                    "{} in `{source}` (at {})",
                    e.message,
                    pointer(source, &e.span)
                ),
            )
        })?;
        if let Some((name, span)) = unknown_call(&expr) {
            return Err(error(
                at,
                format!(
                    "unknown function `{name}` in `{source}` (at {}); the global functions are {}",
                    pointer(source, &span),
                    crate::eval::GLOBALS.join(", ")
                ),
            ));
        }
        Ok(Written {
            source: source.to_string(),
            expr,
        })
    }
}

/// The first call of a global function the language does not have.
fn unknown_call(e: &Expr) -> Option<(String, Range<usize>)> {
    e.nodes()
        .into_iter()
        .filter_map(|n| match &n.kind {
            Kind::Call(name, _) if !crate::eval::GLOBALS.contains(&name.as_str()) => {
                Some((name.clone(), n.span.clone()))
            }
            _ => None,
        })
        .min_by_key(|(_, span)| span.start)
}

/// Where in an expression's source a range stands, for errors: the text
/// there, or "the end".
pub fn pointer(source: &str, span: &Range<usize>) -> String {
    match source.get(span.clone()) {
        Some(t) if !t.is_empty() => format!("`{t}`"),
        _ => "the end".into(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum FilterNode {
    Expr(Written),
    /// Every one (`and`).
    All(Vec<FilterNode>),
    /// At least one (`or`).
    Any(Vec<FilterNode>),
    /// None of them (`not`).
    None(Vec<FilterNode>),
}

/// A sort or group key: a property as views name it, and its direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    pub property: String,
    pub descending: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// `table`, `cards`, `list`, `map`, or a plugin's.
    pub kind: String,
    pub name: String,
    pub filters: Option<FilterNode>,
    /// The columns, as written.
    pub order: Vec<String>,
    pub sort: Vec<SortKey>,
    pub group_by: Option<SortKey>,
    pub limit: Option<usize>,
    /// Column → summary name (built-in, or one of the base's `summaries`).
    pub summaries: Vec<(String, String)>,
    /// Why the view cannot run (its filter does not read): said when it is
    /// asked for, so the base's other views still run.
    pub problem: Option<BaseError>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Base {
    pub filters: Option<FilterNode>,
    /// In the order written; none depends on itself (checked).
    pub formulas: Vec<(String, Written)>,
    /// Property (as `properties:` writes it, `note.` dropped) → display name.
    pub display: HashMap<String, String>,
    /// Custom summaries by name.
    pub summaries: Vec<(String, Written)>,
    pub views: Vec<View>,
}

/// Whether a vault path is a base file (`.base`, in any case).
pub fn is_base_path(path: &str) -> bool {
    // `get`: the last five bytes may start inside a character.
    path.len() > 5
        && path
            .get(path.len() - 5..)
            .is_some_and(|ext| ext.eq_ignore_ascii_case(".base"))
}

/// The property id a view's `order`, `sort` or `properties` key names, as
/// columns are keyed: `note.` dropped (`note.status` is `status`).
pub fn column_id(written: &str) -> &str {
    written.strip_prefix("note.").unwrap_or(written).trim()
}

impl Base {
    /// A base of one table view made from a query's parts: a filter
    /// expression, the columns, sort keys (`-due` descending), a property
    /// to group by and a limit.
    pub fn of_query(
        filter: Option<&str>,
        columns: &[String],
        sort: &[String],
        group_by: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Base, BaseError> {
        let filters = match filter.map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => Some(FilterNode::Expr(Written::read("filter", f)?)),
            None => None,
        };
        let key = |written: &str| {
            let written = written.trim();
            match written.strip_prefix('-') {
                Some(rest) => SortKey {
                    property: rest.trim().to_string(),
                    descending: true,
                },
                None => SortKey {
                    property: written.trim_start_matches('+').to_string(),
                    descending: false,
                },
            }
        };
        let order: Vec<String> = if columns.is_empty() {
            vec!["file.name".into()]
        } else {
            columns.iter().map(|c| c.trim().to_string()).collect()
        };
        Ok(Base {
            filters,
            formulas: Vec::new(),
            display: HashMap::new(),
            summaries: Vec::new(),
            views: vec![View {
                kind: "table".into(),
                name: "Query".into(),
                filters: None,
                order,
                sort: sort.iter().map(|s| key(s)).collect(),
                group_by: group_by.map(key),
                limit,
                summaries: Vec::new(),
                problem: None,
            }],
        })
    }

    /// Reads a base's YAML.
    pub fn parse(yaml: &str) -> Result<Base, BaseError> {
        if yaml.len() > MAX_BASE_BYTES {
            return Err(error(
                "",
                format!(
                    "the base is {} bytes; at most {MAX_BASE_BYTES} are read",
                    yaml.len()
                ),
            ));
        }
        let doc: Json = if yaml.trim().is_empty() {
            Json::Object(Default::default())
        } else {
            serde_norway::from_str(yaml)
                .map_err(|e| error("", format!("the base is not YAML that reads: {e}")))?
        };
        let Json::Object(top) = doc else {
            return Err(error(
                "",
                "a base is a mapping of filters, formulas, properties, summaries and views",
            ));
        };
        let filters = match top.get("filters") {
            None | Some(Json::Null) => None,
            Some(f) => Some(filter("filters", f, 0)?),
        };
        let formulas = named_exprs(&top, "formulas")?;
        check_cycles(&formulas)?;
        let summaries = named_exprs(&top, "summaries")?;
        let mut display = HashMap::new();
        if let Some(Json::Object(props)) = top.get("properties") {
            for (key, conf) in props {
                if let Some(Json::String(shown)) = conf.get("displayName") {
                    display.insert(column_id(key).to_string(), shown.clone());
                }
            }
        }
        let views = match top.get("views") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| view(&format!("views[{i}]"), v, i))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(error("views", "`views` is a list of views")),
        };
        Ok(Base {
            filters,
            formulas,
            display,
            summaries,
            views,
        })
    }

    /// The view named `name` (as names compare: case aside), or the first
    /// one (a table of every row when the base has none).
    pub fn view(&self, name: Option<&str>) -> Result<View, BaseError> {
        let view = self.view_named(name)?;
        match &view.problem {
            Some(problem) => Err(problem.clone()),
            None => Ok(view),
        }
    }

    fn view_named(&self, name: Option<&str>) -> Result<View, BaseError> {
        match name {
            None => Ok(self.views.first().cloned().unwrap_or_else(|| View {
                kind: "table".into(),
                name: "Table".into(),
                filters: None,
                order: vec!["file.name".into()],
                sort: Vec::new(),
                group_by: None,
                limit: None,
                summaries: Vec::new(),
                problem: None,
            })),
            Some(wanted) => self
                .views
                .iter()
                .find(|v| v.name == wanted)
                .or_else(|| {
                    self.views
                        .iter()
                        .find(|v| v.name.eq_ignore_ascii_case(wanted))
                })
                .cloned()
                .ok_or_else(|| {
                    let names: Vec<&str> = self.views.iter().map(|v| v.name.as_str()).collect();
                    error(
                        "views",
                        format!(
                            "there is no view named `{wanted}`; the views are: {}",
                            if names.is_empty() {
                                "none".to_string()
                            } else {
                                names.join(", ")
                            }
                        ),
                    )
                }),
        }
    }
}

fn named_exprs(
    top: &serde_json::Map<String, Json>,
    key: &str,
) -> Result<Vec<(String, Written)>, BaseError> {
    match top.get(key) {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Object(map)) => map
            .iter()
            .map(|(name, source)| {
                let at = format!("{key}.{name}");
                let source = scalar_text(source)
                    .ok_or_else(|| error(&at, "an expression is a text (quote it)"))?;
                Ok((name.clone(), Written::read(&at, &source)?))
            })
            .collect(),
        Some(_) => Err(error(key, format!("`{key}` maps names to expressions"))),
    }
}

/// A YAML scalar as an expression's text (`limit: 3` reads as `3`).
fn scalar_text(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        Json::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Refuses formulas that depend on themselves, through others or not.
fn check_cycles(formulas: &[(String, Written)]) -> Result<(), BaseError> {
    let deps: HashMap<&str, Vec<String>> = formulas
        .iter()
        .map(|(name, w)| (name.as_str(), formula_refs(&w.expr)))
        .collect();
    // Depth-first from each formula, iterative, with the path kept.
    for (start, _) in formulas {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen: HashSet<String> = HashSet::new();
        while let Some((name, path)) = stack.pop() {
            for dep in deps.get(name.as_str()).into_iter().flatten() {
                if dep == start {
                    let mut cycle = path.clone();
                    cycle.push(dep.clone());
                    return Err(error(
                        &format!("formulas.{start}"),
                        format!(
                            "the formulas depend on each other in a cycle: {}",
                            cycle.join(" → ")
                        ),
                    ));
                }
                if deps.contains_key(dep.as_str()) && seen.insert(dep.clone()) {
                    let mut next = path.clone();
                    next.push(dep.clone());
                    stack.push((dep.clone(), next));
                }
            }
        }
    }
    Ok(())
}

/// The formulas an expression names (`formula.x`, `formula["x"]`).
pub fn formula_refs(e: &Expr) -> Vec<String> {
    let is_formula = |o: &Expr| matches!(&o.kind, Kind::Name(n) if n == "formula");
    e.nodes()
        .into_iter()
        .filter_map(|n| match &n.kind {
            Kind::Member(object, name, _) if is_formula(object) => Some(name.clone()),
            Kind::Index(object, key) if is_formula(object) => match &key.kind {
                Kind::Str(name) => Some(name.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A filter: a text expression, or a mapping of one of `and`, `or`, `not`
/// to a list of filters.
fn filter(at: &str, v: &Json, depth: usize) -> Result<FilterNode, BaseError> {
    if depth > MAX_FILTER_DEPTH {
        return Err(error(
            at,
            format!("filters nest more than {MAX_FILTER_DEPTH} levels deep"),
        ));
    }
    match v {
        Json::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            let [key] = keys[..] else {
                return Err(error(
                    at,
                    "a filter object has exactly one of `and`, `or`, `not`",
                ));
            };
            let at = format!("{at}.{key}");
            let items: Vec<FilterNode> = match &map[key] {
                Json::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| filter(&format!("{at}[{i}]"), item, depth + 1))
                    .collect::<Result<_, _>>()?,
                Json::Null => Vec::new(),
                one => vec![filter(&at, one, depth + 1)?],
            };
            match key.as_str() {
                "and" => Ok(FilterNode::All(items)),
                "or" => Ok(FilterNode::Any(items)),
                "not" => Ok(FilterNode::None(items)),
                other => Err(error(
                    &at,
                    format!("`{other}` is no filter: use `and`, `or` or `not`"),
                )),
            }
        }
        other => match scalar_text(other) {
            Some(source) => Ok(FilterNode::Expr(Written::read(at, &source)?)),
            None => Err(error(
                at,
                "a filter is an expression or one of `and`, `or`, `not`",
            )),
        },
    }
}

fn view(at: &str, v: &Json, i: usize) -> Result<View, BaseError> {
    let Json::Object(map) = v else {
        return Err(error(at, "a view is a mapping (type, name, order…)"));
    };
    let text = |key: &str| map.get(key).and_then(scalar_text);
    // A filter that does not read spoils its view only.
    let (filters, problem) = match map.get("filters") {
        None | Some(Json::Null) => (None, None),
        Some(f) => match filter(&format!("{at}.filters"), f, 0) {
            Ok(f) => (Some(f), None),
            Err(e) => (None, Some(e)),
        },
    };
    let order = match map.get("order") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .map(|c| {
                scalar_text(c)
                    .ok_or_else(|| error(&format!("{at}.order"), "a column is a property's name"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(error(
                &format!("{at}.order"),
                "`order` is a list of properties",
            ));
        }
    };
    let key = |at: &str, v: &Json| -> Result<SortKey, BaseError> {
        let property = v
            .get("property")
            .or_else(|| v.get("column"))
            .and_then(scalar_text)
            .ok_or_else(|| error(at, "needs a `property`"))?;
        let descending = match v.get("direction").and_then(scalar_text) {
            None => false,
            Some(d) if d.eq_ignore_ascii_case("asc") => false,
            Some(d) if d.eq_ignore_ascii_case("desc") => true,
            Some(d) => {
                return Err(error(
                    at,
                    format!("direction `{d}` is neither ASC nor DESC"),
                ));
            }
        };
        Ok(SortKey {
            property,
            descending,
        })
    };
    let sort = match map.get("sort") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(j, s)| key(&format!("{at}.sort[{j}]"), s))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(error(
                &format!("{at}.sort"),
                "`sort` is a list of {property, direction}",
            ));
        }
    };
    let group_by = match map.get("groupBy") {
        None | Some(Json::Null) => None,
        Some(g) => Some(key(&format!("{at}.groupBy"), g)?),
    };
    let limit = match map.get("limit") {
        None | Some(Json::Null) => None,
        Some(Json::Number(n)) if n.as_u64().is_some() => n.as_u64().map(|n| n as usize),
        Some(_) => return Err(error(&format!("{at}.limit"), "`limit` is a whole number")),
    };
    let summaries = match map.get("summaries") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Object(m)) => m
            .iter()
            .map(|(column, name)| {
                scalar_text(name)
                    .map(|n| (column.clone(), n))
                    .ok_or_else(|| error(&format!("{at}.summaries.{column}"), "a summary's name"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(error(
                &format!("{at}.summaries"),
                "`summaries` maps columns to summaries",
            ));
        }
    };
    Ok(View {
        kind: text("type").unwrap_or_else(|| "table".into()),
        name: text("name").unwrap_or_else(|| format!("View {}", i + 1)),
        filters,
        order,
        sort,
        group_by,
        limit,
        summaries,
        problem,
    })
}

/// The ```` ```base ```` blocks of a note's text: the byte range of each
/// block's YAML (between its fences), in order. A block left open runs to
/// the end of the text, as Markdown reads it.
pub fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut open: Option<(char, usize, usize, bool)> = None; // fence char, length, body start, is base
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_end_matches(['\n', '\r']);
        let indent = trimmed.len() - trimmed.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let body = &trimmed[indent..];
        let Some(fence_char) = body.chars().next().filter(|c| *c == '`' || *c == '~') else {
            continue;
        };
        let run = body.len() - body.trim_start_matches(fence_char).len();
        if run < 3 {
            continue;
        }
        match open {
            None => {
                let info = body[run..].trim();
                if fence_char == '`' && info.contains('`') {
                    continue;
                }
                let is_base = info.split_whitespace().next() == Some("base");
                open = Some((fence_char, run, at, is_base));
            }
            Some((c, len, body_start, is_base)) => {
                if c == fence_char && run >= len && body[run..].trim().is_empty() {
                    if is_base {
                        out.push(body_start..start);
                    }
                    open = None;
                }
            }
        }
    }
    if let Some((_, _, body_start, true)) = open {
        out.push(body_start..text.len());
    }
    out
}
