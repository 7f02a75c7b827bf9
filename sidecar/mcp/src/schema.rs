//! Tool parameter and result schemas: compact input schemas (every agent
//! pays for them in context before it does anything) and output schemas.
//! What agents send is read leniently by `tools::args`.
//!
//! Must not know any tool's meaning; tools declare their own types.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
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
    defaults_from_description(map);
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(props)) = map.get_mut(key) {
            for v in props.values_mut() {
                compact(v, defs);
            }
        }
    }
    // `true` says nothing; `false` the server enforces itself, naming the
    // accepted parameters.
    if matches!(map.get("additionalProperties"), Some(Value::Bool(_))) {
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

/// A description that only states a number's default (and bound), as
/// `Default 10.` or `Default 1, max 3.`, becomes JSON Schema's `default`
/// (and `maximum`): the same fact in fewer bytes.
fn defaults_from_description(map: &mut serde_json::Map<String, Value>) {
    let Some(Value::String(description)) = map.get("description") else {
        return;
    };
    let Some(rest) = description
        .strip_prefix("Default ")
        .and_then(|r| r.strip_suffix('.'))
    else {
        return;
    };
    let (default, maximum) = match rest.split_once(", ") {
        Some((default, bound)) => {
            let bound = bound
                .strip_prefix("max ")
                .or_else(|| bound.strip_prefix("at most "));
            match bound.and_then(|b| b.parse::<u64>().ok()) {
                Some(max) => (default, Some(max)),
                None => return,
            }
        }
        None => (rest, None),
    };
    let Ok(default) = default.parse::<u64>() else {
        return;
    };
    map.remove("description");
    map.insert("default".into(), Value::from(default));
    if let Some(max) = maximum {
        map.insert("maximum".into(), Value::from(max));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_tools::args::fixture::Args;

    #[test]
    fn schemas_are_compact() {
        let schema = serde_json::to_string(&*input::<Args>()).unwrap();
        assert_eq!(
            schema,
            r#"{"properties":{"limit":{"description":"How much.","type":"integer"},"path":{"description":"The note.","type":"string"},"tags":{"description":"Tags.","items":{"type":"string"},"type":"array"},"view":{"description":"Which.","enum":["full","body"],"type":"string"}},"required":["path"],"type":"object"}"#
        );
    }

    #[test]
    fn stated_defaults_and_bounds_become_schema_keywords() {
        let one = |description: &str| {
            let mut value = serde_json::json!({"description": description, "type": "integer"});
            compact(&mut value, None);
            value.to_string()
        };
        assert_eq!(one("Default 10."), r#"{"default":10,"type":"integer"}"#);
        assert_eq!(
            one("Default 1, max 3."),
            r#"{"default":1,"maximum":3,"type":"integer"}"#
        );
        assert_eq!(
            one("Default 20, at most 100."),
            r#"{"default":20,"maximum":100,"type":"integer"}"#
        );
        // Anything else stays the description it is.
        for kept in [
            "Default all.",
            "Paragraphs around a hit. Default 1.",
            "Default 1, or 2.",
        ] {
            assert!(one(kept).contains(kept), "{kept}");
        }
    }
}
