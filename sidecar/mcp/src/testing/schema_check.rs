//! A small JSON Schema validator for the subset schemars emits (types,
//! properties, required, additionalProperties, items, enum, const, $ref to
//! $defs, anyOf/oneOf/allOf, numeric bounds, array lengths), so tests can
//! check structured content against output schemas without a crate.

use serde_json::Value;

/// Validates `value` against `schema` (whose `$defs` serve `$ref`s).
pub fn validate(schema: &Value, value: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.as_i64().is_some()
                || value.as_u64().is_some()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Value::Object(s) = schema else {
        if schema == &Value::Bool(false) {
            errors.push(format!("{at}: not allowed"));
        }
        return;
    };
    if let Some(Value::String(r)) = s.get("$ref") {
        let name = r.trim_start_matches("#/$defs/");
        match root.get("$defs").and_then(|d| d.get(name)) {
            Some(target) => check(root, target, value, at, errors),
            None => errors.push(format!("{at}: unresolved $ref {r}")),
        }
    }
    match s.get("type") {
        Some(Value::String(t)) if !type_matches(t, value) => {
            errors.push(format!("{at}: expected {t}, found {value}"));
            return;
        }
        Some(Value::Array(ts))
            if !ts
                .iter()
                .any(|t| t.as_str().is_some_and(|t| type_matches(t, value))) =>
        {
            errors.push(format!("{at}: expected one of {ts:?}, found {value}"));
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        errors.push(format!("{at}: {value} is not one of {options:?}"));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        errors.push(format!("{at}: expected {c}, found {value}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = s.get(key) {
            let passing = options
                .iter()
                .filter(|o| {
                    let mut e = Vec::new();
                    check(root, o, value, at, &mut e);
                    e.is_empty()
                })
                .count();
            let ok = if key == "anyOf" {
                passing >= 1
            } else {
                passing == 1
            };
            if !ok {
                errors.push(format!(
                    "{at}: {passing} of the {key} options match {value}"
                ));
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for o in all {
            check(root, o, value, at, errors);
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            errors.push(format!("{at}: {n} < minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            errors.push(format!("{at}: {n} > maximum {max}"));
        }
    }
    if let Value::Object(map) = value {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = s.get("required") {
            for r in required {
                if let Some(r) = r.as_str()
                    && !map.contains_key(r)
                {
                    errors.push(format!("{at}: missing required `{r}`"));
                }
            }
        }
        for (k, v) in map {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, v, &format!("{at}.{k}"), errors),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{at}: unexpected property `{k}`"))
                    }
                    Some(extra @ Value::Object(_)) => {
                        check(root, extra, v, &format!("{at}.{k}"), errors)
                    }
                    _ => {}
                },
            }
        }
    }
    if let Value::Array(items) = value {
        if let Some(item) = s.get("items") {
            for (i, v) in items.iter().enumerate() {
                check(root, item, v, &format!("{at}[{i}]"), errors);
            }
        }
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            errors.push(format!("{at}: fewer than {min} items"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && (items.len() as u64) > max
        {
            errors.push(format!("{at}: more than {max} items"));
        }
    }
}

#[test]
fn the_validator_catches_mismatches() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": 0},
            "b": {"$ref": "#/$defs/B"},
            "c": {"type": ["string", "null"]},
            "d": {"type": "array", "items": {"enum": ["x", "y"]}}
        },
        "required": ["a"],
        "additionalProperties": false,
        "$defs": {"B": {"type": "object", "properties": {"z": {"type": "boolean"}}, "required": ["z"]}}
    });
    assert!(
        validate(
            &schema,
            &serde_json::json!({"a": 1, "b": {"z": true}, "c": null, "d": ["x"]})
        )
        .is_ok()
    );
    let errors = validate(
        &schema,
        &serde_json::json!({"a": -1, "b": {}, "c": 3, "d": ["q"], "e": 1}),
    )
    .unwrap_err();
    assert_eq!(errors.len(), 5, "{errors:?}");
    assert!(validate(&schema, &serde_json::json!({})).is_err());
}
