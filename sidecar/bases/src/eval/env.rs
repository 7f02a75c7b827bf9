//! What every row of a run shares (`Env`: the index, the files' times,
//! now, `this`, the formulas, the reader's sight) and how a note's
//! property reads as a value: typed as the vault types the key.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use chrono::NaiveDateTime;
use serde_json::Value as Json;
use weft_vault::VaultIndex;
use weft_vault::key::same_name;
use weft_vault::parse::wikilink_target;
use weft_vault::props::PropType;

use super::dates;
use super::value::{LinkValue, Row, Value};
use crate::expr::{Expr, MAX_DEPTH};

/// What the engine knows of a file besides the index: its times (Unix
/// seconds) and size in bytes, when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowMeta {
    pub modified: Option<i64>,
    pub created: Option<i64>,
    pub size: Option<u64>,
}

/// Where the engine asks for what the index does not hold of a file. It
/// asks for one fact at a time (`file.mtime` needs no size): a source
/// whose facts cost a `stat` each answers them one by one; one that holds
/// them all answers [`Files::meta`] alone.
pub trait Files {
    fn meta(&self, path: &str) -> RowMeta;

    fn modified(&self, path: &str) -> Option<i64> {
        self.meta(path).modified
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.meta(path).created
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.meta(path).size
    }
}

/// Why an expression could not be evaluated, and where in its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    pub message: String,
    pub span: Range<usize>,
}

impl EvalError {
    pub fn new(message: impl Into<String>, span: &Range<usize>) -> EvalError {
        EvalError {
            message: message.into(),
            span: span.clone(),
        }
    }
}

pub type Result<T> = std::result::Result<T, EvalError>;

/// Formulas by name, read once per base.
pub type Formulas = HashMap<String, Expr>;

/// What every row of a run shares.
pub struct Env<'a> {
    pub index: &'a VaultIndex,
    pub files: &'a dyn Files,
    /// Now, in the vault's local time.
    pub now: NaiveDateTime,
    /// A Unix time as the vault's local time.
    pub local: &'a dyn Fn(i64) -> NaiveDateTime,
    /// The base file, or the note that embeds the block.
    pub this: Option<Row>,
    pub formulas: &'a Formulas,
    /// Whether the reader may see a row (the agent's access rule): a row
    /// it may not see has no fields or properties here and is no row.
    pub sees: &'a dyn Fn(&Row) -> bool,
    /// Each key's type (declared, else inferred) and whether it is
    /// declared text, asked once per run (by the key as written).
    types: RefCell<HashMap<String, (Option<PropType>, bool)>>,
}

impl<'a> Env<'a> {
    pub fn new(
        index: &'a VaultIndex,
        files: &'a dyn Files,
        now: NaiveDateTime,
        local: &'a dyn Fn(i64) -> NaiveDateTime,
        this: Option<Row>,
        formulas: &'a Formulas,
        sees: &'a dyn Fn(&Row) -> bool,
    ) -> Env<'a> {
        Env {
            index,
            files,
            now,
            local,
            this,
            formulas,
            sees,
            types: RefCell::default(),
        }
    }

    /// `row` when the reader may see it.
    pub fn seen(&self, row: Row) -> Option<Row> {
        (self.sees)(&row).then_some(row)
    }

    /// The type of `key` and whether it is declared text.
    fn type_of(&self, key: &str) -> (Option<PropType>, bool) {
        if let Some(t) = self.types.borrow().get(key) {
            return *t;
        }
        let types = self.index.types();
        let t = (
            self.index.props().type_of(types, key),
            types.fixed(key).is_some_and(PropType::is_textual),
        );
        self.types.borrow_mut().insert(key.to_string(), t);
        t
    }

    /// The property `key` of `row`, typed as the vault types it; null
    /// when the row has none.
    pub fn property(&self, row: &Row, key: &str) -> Value {
        let Row::Note(id) = row else {
            return Value::Null;
        };
        if !(self.sees)(row) {
            return Value::Null;
        }
        let note = self.index.note(*id);
        let found = note
            .frontmatter
            .as_ref()
            .and_then(|fm| fm.iter().find(|(k, _)| same_name(k, key)));
        match found {
            Some((k, v)) => self.typed(v, k, note.folder(), 0),
            None => Value::Null,
        }
    }

    /// Every property of `row` as an object.
    pub fn properties(&self, row: &Row) -> Value {
        let Row::Note(id) = row else {
            return Value::Object(Vec::new());
        };
        if !(self.sees)(row) {
            return Value::Null;
        }
        let note = self.index.note(*id);
        let entries = note
            .frontmatter
            .as_ref()
            .map(|fm| {
                fm.iter()
                    .map(|(k, v)| (k.clone(), self.typed(v, k, note.folder(), 0)))
                    .collect()
            })
            .unwrap_or_default();
        Value::Object(entries)
    }

    /// A frontmatter value as a value of the language: a `[[link]]` is a
    /// link (resolved from `folder`), a date property's text a date, a
    /// number property's text a number.
    fn typed(&self, v: &Json, key: &str, folder: &str, depth: usize) -> Value {
        let (ty, textual) = self.type_of(key);
        self.typed_as(v, ty, textual, folder, depth)
    }

    /// [`Env::typed`] with the key's type (declared, else inferred) and
    /// whether it is declared text (then numbers and yes/no are text too).
    fn typed_as(
        &self,
        v: &Json,
        ty: Option<PropType>,
        textual: bool,
        folder: &str,
        depth: usize,
    ) -> Value {
        match v {
            Json::Null => Value::Null,
            // Of a text or list type, every value is text (`types.json`'s
            // word, as the one note filter reads it).
            Json::Bool(_) | Json::Number(_) if textual => Value::Str(v.to_string()),
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => n.as_f64().map_or(Value::Null, Value::Number),
            Json::String(s) => {
                if let Some(target) = wikilink_target(s.trim()) {
                    let display = s
                        .trim()
                        .strip_suffix("]]")
                        .and_then(|inner| inner.split_once('|'))
                        .map(|(_, shown)| shown.to_string());
                    return Value::Link(LinkValue {
                        target: target.to_string(),
                        display,
                        from: folder.to_string(),
                    });
                }
                match ty {
                    Some(PropType::Date | PropType::DateTime) => match dates::parse_date(s) {
                        Some((at, time)) => Value::Date(at, time),
                        None => Value::Str(s.clone()),
                    },
                    Some(PropType::Number) => match s.trim().parse::<f64>() {
                        Ok(n) => Value::Number(n),
                        Err(_) => Value::Str(s.clone()),
                    },
                    Some(PropType::Checkbox) => match s.trim() {
                        "true" => Value::Bool(true),
                        "false" => Value::Bool(false),
                        _ => Value::Str(s.clone()),
                    },
                    _ => Value::Str(s.clone()),
                }
            }
            Json::Array(items) if depth < MAX_DEPTH => Value::List(
                items
                    .iter()
                    .map(|item| self.typed_as(item, ty, textual, folder, depth + 1))
                    .collect(),
            ),
            Json::Object(map) if depth < MAX_DEPTH => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.typed_as(v, None, false, folder, depth + 1)))
                    .collect(),
            ),
            _ => Value::Null,
        }
    }
}
