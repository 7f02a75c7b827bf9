//! `file.*`: a row's fields (`name`, `path`, `folder`, `ext`, `size`,
//! times, `tags`, `links`, `backlinks`, `embeds`, `properties`) and its
//! methods (`asLink`, `hasLink`, `hasTag`, `hasProperty`, `inFolder`), from
//! the index — the one resolver for where links lead.

use std::ops::Range;
use std::sync::Arc;

use weft_vault::filter::Folder;
use weft_vault::note::folder_of;

use super::env::{Env, EvalError, Result};
use super::value::{LinkValue, Place, Row, Value, file_target, link_place};

/// The last path segment.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The field `name` of the file `row`.
pub(super) fn field(env: &Env<'_>, row: &Row, name: &str, span: &Range<usize>) -> Result<Value> {
    let index = env.index;
    if !(env.sees)(row) {
        return Ok(Value::Null);
    }
    let path = row.path(index);
    let note = match row {
        Row::Note(id) => Some(index.note(*id)),
        Row::File(_) => None,
    };
    let time = |t: Option<i64>| t.map_or(Value::Null, |t| Value::Date((env.local)(t), true));
    Ok(match name {
        "name" => Value::Str(match note {
            Some(_) => file_target(file_name(path)).to_string(),
            None => file_name(path).to_string(),
        }),
        "basename" => {
            let name = file_name(path);
            Value::Str(
                name.rsplit_once('.')
                    .map_or(name, |(stem, _)| stem)
                    .to_string(),
            )
        }
        "path" => Value::Str(path.to_string()),
        "folder" => Value::Str(match folder_of(path) {
            "" => "/".to_string(),
            folder => folder.to_string(),
        }),
        "ext" => Value::Str(
            file_name(path)
                .rsplit_once('.')
                .map_or("", |(_, ext)| ext)
                .to_string(),
        ),
        "size" => match note {
            Some(n) => Value::Number(f64::from(n.len)),
            None => env
                .files
                .size(path)
                .map_or(Value::Null, |s| Value::Number(s as f64)),
        },
        "mtime" => time(env.files.modified(path)),
        "ctime" => time(env.files.created(path)),
        "file" => Value::File(row.clone()),
        "properties" => env.properties(row),
        "tags" => {
            let mut tags: Vec<Value> = Vec::new();
            for tag in note.iter().flat_map(|n| &n.tags) {
                let t = Value::Str(tag.name.to_string());
                if !tags
                    .iter()
                    .any(|seen| matches!((seen, &t), (Value::Str(a), Value::Str(b)) if a.eq_ignore_ascii_case(b)))
                {
                    tags.push(t);
                }
            }
            Value::List(tags)
        }
        "links" | "embeds" => {
            let embeds = name == "embeds";
            Value::List(
                note.iter()
                    .flat_map(|n| n.links.iter().map(move |l| (n, l)))
                    .filter(|(_, l)| !embeds || l.embed)
                    .map(|(n, l)| {
                        Value::Link(LinkValue {
                            target: l.target().to_string(),
                            display: None,
                            from: n.folder().to_string(),
                        })
                    })
                    .collect(),
            )
        }
        "backlinks" => {
            let Row::Note(id) = row else {
                return Ok(Value::List(Vec::new()));
            };
            let mut sources: Vec<_> = index.backlinks(*id).into_iter().map(|r| r.source).collect();
            sources.sort_by(|a, b| index.note(*a).path.cmp(&index.note(*b).path));
            sources.dedup();
            Value::List(
                sources
                    .into_iter()
                    .filter_map(|s| env.seen(Row::Note(s)))
                    .map(Value::File)
                    .collect(),
            )
        }
        _ => {
            return Err(EvalError::new(
                format!(
                    "a file has no field `{name}` (name, basename, path, folder, ext, size, ctime, \
                     mtime, tags, links, backlinks, embeds, properties, file)"
                ),
                span,
            ));
        }
    })
}

/// Where a value given to `hasLink` or `linksTo` leads.
pub(super) fn place_of(env: &Env<'_>, v: &Value) -> Option<Place> {
    match v {
        Value::File(row) => Some(Place::Row(row.clone())),
        Value::Link(link) => Some(link_place(env.index, link)),
        Value::Str(s) => Some(link_place(
            env.index,
            &LinkValue {
                target: s.clone(),
                display: None,
                from: String::new(),
            },
        )),
        _ => None,
    }
}

/// Whether the file `row` links to `target` (body or properties).
pub(super) fn has_link(env: &Env<'_>, row: &Row, target: &Place) -> bool {
    let Row::Note(id) = row else { return false };
    let index = env.index;
    index.note(*id).links.iter().any(|l| {
        let here = match index.resolve_link(*id, l) {
            weft_vault::Resolution::Note(n)
            | weft_vault::Resolution::Ambiguous { chosen: n, .. } => Place::Row(Row::Note(n)),
            weft_vault::Resolution::Attachment(p) => Place::Row(Row::File(Arc::from(&*p))),
            weft_vault::Resolution::Unresolved => {
                Place::Unresolved(weft_vault::key::path_key(l.target()))
            }
        };
        here == *target
    })
}

/// The methods of a file; `None` for a name that is none of them.
pub(super) fn method(
    env: &Env<'_>,
    row: &Row,
    name: &str,
    args: &[Value],
    span: &Range<usize>,
) -> Option<Result<Value>> {
    let index = env.index;
    let text = |v: &Value| v.text(index);
    Some(Ok(match name {
        "asLink" => Value::Link(LinkValue {
            target: file_target(row.path(index)).to_string(),
            display: args.first().map(text),
            from: String::new(),
        }),
        "hasLink" => Value::Bool(
            args.first()
                .and_then(|a| place_of(env, a))
                .is_some_and(|place| has_link(env, row, &place)),
        ),
        "hasTag" => {
            let Row::Note(id) = row else {
                return Some(Ok(Value::Bool(false)));
            };
            let tags = &index.note(*id).tags;
            let wanted: Vec<String> = args.iter().flat_map(flatten).map(|v| text(&v)).collect();
            Value::Bool(
                wanted
                    .iter()
                    .any(|w| tags.iter().any(|t| weft_vault::tags::matches(w, &t.name))),
            )
        }
        "hasProperty" => {
            let key = args.first().map(text).unwrap_or_default();
            Value::Bool(!matches!(env.property(row, &key), Value::Null) || has_key(env, row, &key))
        }
        "inFolder" => {
            let folder = args.first().map(text).unwrap_or_default();
            match Folder::new(&folder) {
                Ok(f) => Value::Bool(f.contains(row.path(index))),
                Err(e) => return Some(Err(EvalError::new(format!("inFolder: {e}"), span))),
            }
        }
        _ => return None,
    }))
}

/// Whether the note has the key at all (with an empty value too).
fn has_key(env: &Env<'_>, row: &Row, key: &str) -> bool {
    let Row::Note(id) = row else { return false };
    let wanted = weft_vault::key::name_key(key);
    env.index
        .note(*id)
        .frontmatter
        .as_ref()
        .is_some_and(|fm| fm.keys().any(|k| weft_vault::key::name_key(k) == wanted))
}

/// A list's items, or the value itself.
fn flatten(v: &Value) -> Vec<Value> {
    match v {
        Value::List(items) => items.clone(),
        one => vec![one.clone()],
    }
}
