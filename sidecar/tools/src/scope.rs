//! Which notes a tool may answer with: its filter arguments and the
//! agent's access rule as THE note filter (`vault::filter`), the frontmatter
//! keys its query may name, and the judge the full text asks about what it
//! cannot decide alone. Shared by `search_notes`, `get_context` and
//! `retrieval`; `list_notes` builds its tags and time from the same parts.

use std::collections::BTreeSet;

use serde_json::Value;

use super::common::{Target, find_target};
use super::format::ToolError;
use super::state::ToolState;
use weft_search::dates::{End, parse_time};
use weft_vault::filter::{FileMeta, Filter, Folder, TimeRange, Value as FilterValue};
use weft_vault::props::Types;
use weft_vault::query::outgoing;
use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;

/// The [`FilterArgs`] of a tool's arguments, whose filter fields have the
/// same names in every tool that takes them.
macro_rules! filter_args {
    ($args:expr, $tags_all:expr, $tags_any:expr) => {
        $crate::scope::FilterArgs {
            tags_all: $tags_all,
            tags_any: $tags_any,
            path_prefix: $args.path_prefix.as_deref(),
            backlinks_to: $args.backlinks_to.as_deref(),
            links_from: $args.links_from.as_deref(),
            frontmatter: $args.frontmatter.as_ref(),
            modified_since: $args.modified_since.as_deref(),
        }
    };
}
pub(crate) use filter_args;

/// The filter parameters `search_notes` and `get_context` share.
#[derive(Debug, Default)]
pub struct FilterArgs<'a> {
    pub tags_all: &'a [String],
    pub tags_any: &'a [String],
    pub path_prefix: Option<&'a str>,
    pub backlinks_to: Option<&'a str>,
    pub links_from: Option<&'a str>,
    pub frontmatter: Option<&'a serde_json::Map<String, Value>>,
    pub modified_since: Option<&'a str>,
}

impl FilterArgs<'_> {
    /// Whether any filter is given.
    pub fn any(&self) -> bool {
        let given = |s: Option<&str>| s.is_some_and(|s| !s.trim().is_empty());
        self.tags_all
            .iter()
            .chain(self.tags_any)
            .any(|t| !t.trim().is_empty())
            || self
                .path_prefix
                .is_some_and(|p| Folder::new(p).map_or(true, |f| !f.is_root()))
            || given(self.backlinks_to)
            || given(self.links_from)
            || self.frontmatter.is_some_and(|f| !f.is_empty())
            || given(self.modified_since)
    }
}

/// Which notes a request may answer with: its filters and the agent's
/// access rule as THE note filter (`vault::filter`), and the frontmatter
/// keys its query may name.
#[derive(Debug)]
pub struct Scope {
    pub filter: Filter,
    /// The keys of the notes the agent may see, as written.
    pub keys: Vec<String>,
    /// The property types the vault declares.
    pub types: Types,
}

impl Scope {
    /// What a query in this scope is read in, at `now`.
    pub fn context(&self, now: weft_search::clock::Now) -> weft_search::query::Context<'_> {
        weft_search::query::Context {
            now,
            keys: &self.keys,
            types: &self.types,
        }
    }
}

/// The scope of a request's filter arguments.
pub fn scope(
    state: &ToolState,
    index: &VaultIndex,
    args: &FilterArgs<'_>,
) -> Result<Scope, ToolError> {
    let FilterArgs {
        tags_all,
        tags_any,
        path_prefix,
        backlinks_to,
        links_from,
        frontmatter,
        modified_since,
    } = *args;
    let mut all: Vec<Filter> = tags_all.iter().filter_map(|t| tag(t)).collect();
    let any: Vec<Filter> = tags_any.iter().filter_map(|t| tag(t)).collect();
    if !any.is_empty() {
        all.push(Filter::any_of(any));
    }
    if let Some(written) = path_prefix {
        // A folder however it is written (`projects\\`, `/projects/`).
        let folder =
            Folder::new(written).map_err(|e| ToolError::new(format!("`path_prefix`: {e}.")))?;
        all.push(Filter::Folder(folder));
    }
    all.extend(modified_since_filter(state, modified_since)?);
    if let Some(map) = frontmatter {
        for (key, value) in map {
            let values: Vec<FilterValue> = match value {
                Value::Null => Vec::new(),
                Value::String(s) if s.trim() == "*" => Vec::new(),
                Value::Array(items) => items
                    .iter()
                    .map(|item| FilterValue::of_json_as(item, index.types().fixed(key)))
                    .collect(),
                other => vec![FilterValue::of_json_as(other, index.types().fixed(key))],
            };
            all.push(Filter::property_in(key, &values));
        }
    }
    if let Some(target) = backlinks_to.map(str::trim).filter(|t| !t.is_empty()) {
        let sources: BTreeSet<Box<str>> = match find_target(state, index, target, "backlinks_to")? {
            Target::Note(id) => index
                .backlinks(id)
                .into_iter()
                .map(|r| index.note(r.source).path.clone())
                .collect(),
            Target::Missing { links, .. } => links
                .into_iter()
                .map(|r| index.note(r.source).path.clone())
                .collect(),
        };
        all.push(Filter::Paths(sources));
    }
    if let Some(source) = links_from.map(str::trim).filter(|t| !t.is_empty()) {
        let Target::Note(id) = find_target(state, index, source, "links_from")? else {
            return Err(ToolError::new(format!(
                "`links_from`: no note `{source}` exists, so it links nowhere."
            )));
        };
        all.push(Filter::Paths(
            outgoing(index, id)
                .into_iter()
                .filter_map(|o| o.resolution.note())
                .map(|t| index.note(t).path.clone())
                .collect(),
        ));
    }
    // The agent's sight joins the tool's filters: one filter, one pass.
    let policy = state.policy();
    all.push(Filter::clone(&policy.access.sight(index)));
    // Keys only unseen notes have are no fields to the agent.
    let keys = if policy.access.restricts() {
        index.frontmatter_keys_of(&|n| policy.access.sees(&n.path))
    } else {
        index.frontmatter_keys()
    };
    Ok(Scope {
        filter: Filter::all_of(all),
        keys,
        types: index.types().clone(),
    })
}

/// The filter of a tag argument (`#project`, `project`: the note has the
/// tag or one nested under it), none for a blank one.
pub fn tag(written: &str) -> Option<Filter> {
    let t = written.trim().trim_start_matches('#');
    (!t.is_empty()).then(|| Filter::Tag(t.into()))
}

/// The filter of a `modified_since` argument (a date, `7d`, `yesterday`,
/// in the vault's zone), none when it is absent or blank.
pub fn modified_since_filter(
    state: &ToolState,
    written: Option<&str>,
) -> Result<Option<Filter>, ToolError> {
    let Some(since) = written.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let from = parse_time(since, state.now(), End::Start)
        .map_err(|m| ToolError::new(format!("`modified_since`: {m}.")))?;
    Ok(Some(Filter::Modified(TimeRange {
        from: Some(from),
        to: None,
    })))
}

/// Whether the agent sees the note `id`: its sight ([`Access::sight`], THE
/// note filter of the notes it sees, built once per index generation) as
/// the predicate walks and lists ask.
///
/// [`Access::sight`]: Access::sight
pub fn sees_note<'a>(access: &Access, index: &'a VaultIndex) -> impl Fn(NoteId) -> bool + use<'a> {
    let sight = access.sight(index);
    move |id| sight.matches(index, id, &FileMeta::default())
}

/// A note's file times by vault path: the served vault's ([`ToolState`]:
/// the hub's stamps, a `stat` for a creation time), a fixture's in tests.
pub trait Times {
    fn modified(&self, path: &str) -> Option<i64>;
    fn created(&self, path: &str) -> Option<i64>;
}

impl Times for ToolState {
    fn modified(&self, path: &str) -> Option<i64> {
        ToolState::modified(self, path)
    }

    fn created(&self, path: &str) -> Option<i64> {
        ToolState::created(self, path)
    }
}

/// Whether the note `id` passes `filter` (THE rule, `vault::filter`), with
/// those of its file's times the filter asks for.
pub fn passes(times: &dyn Times, index: &VaultIndex, id: NoteId, filter: &Filter) -> bool {
    // Only the times it names: a creation time is a `stat` of the file.
    let read = filter.reads_file_times();
    let path = &index.note(id).path;
    let file = FileMeta {
        modified: read.modified.then(|| times.modified(path)).flatten(),
        created: read.created.then(|| times.created(path)).flatten(),
    };
    filter.matches(index, id, &file)
}

/// The judge the full text asks about the notes it cannot decide alone.
pub fn judge<'a>(
    times: &'a dyn Times,
    index: &'a VaultIndex,
) -> impl Fn(&str, &Filter) -> bool + 'a {
    move |path, filter| {
        index
            .id_of(path)
            .is_some_and(|id| passes(times, index, id, filter))
    }
}

/// The notes the agent sees that a query of filters alone selects
/// (`tag:x folder:y status:draft -tag:done`, THE query language), in path
/// order. Words are refused: only the full text judges them, and it ranks
/// rather than selects.
pub fn selected(
    state: &ToolState,
    index: &VaultIndex,
    query: &str,
) -> Result<Vec<String>, ToolError> {
    let scope = scope(state, index, &FilterArgs::default())?;
    let expr = weft_search::query::parse(query, &scope.context(state.now()))
        .map_err(|e| ToolError::new(format!("`where`: {}", e.message)).hint(e.hint))?;
    let filter = expr.filter().map_err(|word| {
        ToolError::new(format!(
            "`where` selects notes by tag:, folder:, key:value and dates; `{word}` is a word, \
             which only the full text judges."
        ))
        .hint("Find the notes with search_notes and pass their `paths`, or select them by tags, folders or properties.")
    })?;
    filter
        .check()
        .map_err(|e| ToolError::new(format!("`where`: {e}.")))?;
    Ok(seen_passing(state, index, filter))
}

/// The notes the agent sees that pass `filter`, in path order.
pub fn seen_passing(state: &ToolState, index: &VaultIndex, filter: Filter) -> Vec<String> {
    let sight = Filter::clone(&state.policy().access.sight(index));
    let filter = Filter::all_of(vec![filter, sight]);
    let mut paths: Vec<String> = index
        .notes()
        .filter(|(id, _)| passes(state, index, *id, &filter))
        .map(|(_, note)| note.path.to_string())
        .collect();
    paths.sort();
    paths
}
