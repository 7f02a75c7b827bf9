//! Tool parameter and result schemas: compact input schemas (every agent
//! pays for them in context before it does anything), output schemas, and
//! lenient parsing of what agents actually send (`"10"` for 10, `"a,b"` for
//! a list, `Full` for `full`).
//!
//! Must not know any tool's meaning; tools declare their own types.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

/// A tool's input schema, compacted: `$ref`s inlined, `Option` written as
/// the plain type (absent = not given), no `$schema`, `format`, `null`
/// defaults or `additionalProperties` (the server reports unknown
/// parameters itself, with the accepted ones).
pub fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let raw = rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("input schema of {}: {e}", std::any::type_name::<T>()));
    let mut value = Value::Object((*raw).clone());
    let defs = value.get("$defs").cloned();
    compact(&mut value, defs.as_ref());
    if let Value::Object(map) = &mut value {
        map.remove("$defs");
        map.remove("$schema");
        map.remove("additionalProperties");
        map.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
        return Arc::new(map.clone());
    }
    raw
}

/// A tool's output schema (what its structured content is), as JSON Schema
/// 2020-12 for the serialised form.
pub fn output<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_output::<T>()
}

fn compact(value: &mut Value, defs: Option<&Value>) {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            for item in items {
                compact(item, defs);
            }
        }
        return;
    };
    if let Some(Value::String(reference)) = map.get("$ref").cloned() {
        let name = reference.trim_start_matches("#/$defs/");
        if let Some(target) = defs.and_then(|d| d.get(name)) {
            let description = map.remove("description");
            map.remove("$ref");
            if let Value::Object(target) = target.clone() {
                for (k, v) in target {
                    map.entry(k).or_insert(v);
                }
            }
            if let Some(d) = description {
                map.insert("description".into(), d);
            }
        }
    }
    // `anyOf: [X, {type: null}]` → X.
    if let Some(Value::Array(options)) = map.get("anyOf").cloned() {
        let non_null: Vec<&Value> = options
            .iter()
            .filter(|o| o.get("type") != Some(&Value::String("null".into())))
            .collect();
        if non_null.len() == 1 && options.len() == 2 {
            map.remove("anyOf");
            if let Value::Object(inner) = non_null[0].clone() {
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
            return compact(value, defs);
        }
    }
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let kept: Vec<Value> = types
            .into_iter()
            .filter(|t| t != &Value::String("null".into()))
            .collect();
        map.insert(
            "type".into(),
            if kept.len() == 1 {
                kept[0].clone()
            } else {
                Value::Array(kept)
            },
        );
    }
    if map.get("format").is_some_and(|f| {
        f.as_str()
            .is_some_and(|f| f.starts_with("uint") || f.starts_with("int") || f == "double")
    }) {
        map.remove("format");
        if map.get("minimum") == Some(&Value::from(0)) {
            map.remove("minimum");
        }
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    map.remove("title");
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            for v in props.values_mut() {
                compact(v, defs);
            }
        }
    }
    if map.get("additionalProperties") == Some(&Value::Bool(true)) {
        map.remove("additionalProperties");
    }
    for key in ["items", "additionalProperties"] {
        if let Some(v) = map.get_mut(key) {
            compact(v, defs);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(v) = map.get_mut(key) {
            compact(v, defs);
        }
    }
}

/// Lenient deserializers for optional parameters.
pub mod lenient {
    use super::*;

    fn number(value: &Value) -> Option<f64> {
        match value {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A count: `10`, `10.0` or `"10"`.
    pub fn usize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match number(&v) {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => {
                    Ok(Some(n as usize))
                }
                _ => Err(de::Error::custom(format!(
                    "expected a whole number of 0 or more, found {v}"
                ))),
            },
        }
    }

    /// A small count (depths, windows).
    pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        usize(d).map(|n| n.map(|n| n.min(u32::MAX as usize) as u32))
    }

    /// `true`, `"true"`, `"yes"`, `1`.
    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(v) => {
                let text = match &v {
                    Value::String(s) => s.trim().to_lowercase(),
                    Value::Number(n) => n.to_string(),
                    _ => String::new(),
                };
                match text.as_str() {
                    "true" | "yes" | "1" | "on" => Ok(Some(true)),
                    "false" | "no" | "0" | "off" => Ok(Some(false)),
                    _ => Err(de::Error::custom(format!(
                        "expected true or false, found {v}"
                    ))),
                }
            }
        }
    }

    /// A list of strings: `["a", "b"]`, or one string (`"a"`, `"a, b"`).
    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        let value = Option::<Value>::deserialize(d)?;
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(
                s.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            )),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(de::Error::custom(format!(
                        "expected a list of strings, found {other}"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(de::Error::custom(format!(
                "expected a list of strings, found {other}"
            ))),
        }
    }
}

/// A string choice that accepts any case and a few aliases, and says the
/// accepted values when it fails. Its schema is a plain string `enum`.
macro_rules! choice {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($variant:ident = $text:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, schemars::JsonSchema, serde::Serialize)]
        $vis enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            #[allow(dead_code)]
            pub const VALUES: &'static [&'static str] = &[$($text),+];

            #[allow(dead_code)]
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                let k = s.trim().to_lowercase().replace('-', "_");
                $( if k == $text $(|| k == $alias)* { return Ok($name::$variant); } )+
                Err(serde::de::Error::custom(format!(
                    "`{s}` is not accepted; expected one of: {}",
                    [$($text),+].join(", ")
                )))
            }
        }
    };
}

pub(crate) use choice;

#[cfg(test)]
mod tests {
    use super::*;

    choice! {
        enum View { Full = "full", Body = "body" | "content" }
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        /// The note.
        #[serde(alias = "note")]
        path: String,
        /// How much.
        #[serde(default, deserialize_with = "lenient::usize")]
        limit: Option<usize>,
        /// Which.
        view: Option<View>,
        /// Tags.
        #[serde(default, deserialize_with = "lenient::strings")]
        tags: Option<Vec<String>>,
    }

    #[test]
    fn schemas_are_compact() {
        let schema = serde_json::to_string(&*input::<Args>()).unwrap();
        assert_eq!(
            schema,
            r#"{"properties":{"limit":{"description":"How much.","type":"integer"},"path":{"description":"The note.","type":"string"},"tags":{"description":"Tags.","items":{"type":"string"},"type":"array"},"view":{"description":"Which.","enum":["full","body"],"type":"string"}},"required":["path"],"type":"object"}"#
        );
    }

    #[test]
    fn lenient_values() {
        let a: Args =
            serde_json::from_str(r#"{"note":"x","limit":"5","view":"Content","tags":"a, b"}"#)
                .unwrap();
        assert_eq!(
            (a.limit, a.view, a.tags),
            (
                Some(5),
                Some(View::Body),
                Some(vec!["a".into(), "b".into()])
            )
        );
        let e = serde_json::from_str::<Args>(r#"{"path":"x","view":"all"}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("expected one of: full, body"), "{e}");
        let e = serde_json::from_str::<Args>(r#"{"path":"x","limit":-1}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("whole number"), "{e}");
        let e = serde_json::from_str::<Args>(r#"{"file":"x"}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("unknown field `file`"), "{e}");
    }
}
