//! Checking a tool call's parameters against the tool's JSON Schema, before anything runs.
//!
//! Only the keywords our tool schemas use are understood (`type`, `properties`, `required`,
//! `additionalProperties: false`, `enum`, `minimum`, `maximum`, `minLength`, `maxLength`,
//! `items`, `maxItems`); the first violation is reported with its path so the model can fix the
//! call. A schema keyword outside that set is ignored, never an error for the model.

use serde_json::Value;

/// Checks `params` against `schema`; the error names the first offending path.
pub fn validate_params(schema: &Value, params: &Value) -> Result<(), String> {
    check(schema, params, "params")
}

fn check(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !has_type(value, expected)
    {
        return Err(format!("{path} must be {} (got {})", article(expected), type_name(value)));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        return Err(format!("{path} must be one of {}", Value::Array(options.clone())));
    }
    check_number(schema, value, path)?;
    check_string(schema, value, path)?;
    check_array(schema, value, path)?;
    check_object(schema, value, path)
}

fn check_number(
    schema: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(n) = value.as_f64() else {
        return Ok(());
    };
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
        && n < min
    {
        return Err(format!("{path} must be at least {min}"));
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
        && n > max
    {
        return Err(format!("{path} must be at most {max}"));
    }
    Ok(())
}

fn check_string(
    schema: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(s) = value.as_str() else {
        return Ok(());
    };
    let len = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        return Err(format!("{path} must have at least {min} characters"));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        return Err(format!("{path} must have at most {max} characters"));
    }
    Ok(())
}

fn check_array(
    schema: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(items) = value.as_array() else {
        return Ok(());
    };
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && items.len() as u64 > max
    {
        return Err(format!("{path} must have at most {max} items"));
    }
    if let Some(item_schema) = schema.get("items") {
        for (idx, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{idx}]"))?;
        }
    }
    Ok(())
}

fn check_object(
    schema: &serde_json::Map<String, Value>,
    value: &Value,
    path: &str,
) -> Result<(), String> {
    let Some(fields) = value.as_object() else {
        return Ok(());
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
        if let Some(name) = name.as_str()
            && !fields.contains_key(name)
        {
            return Err(format!("{path}.{name} is required"));
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (name, field) in fields {
        match properties.and_then(|p| p.get(name)) {
            Some(field_schema) => check(field_schema, field, &format!("{path}.{name}"))?,
            None if closed => return Err(format!("{path}.{name} is not a known parameter")),
            None => {}
        }
    }
    Ok(())
}

fn has_type(value: &Value, expected: &str) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        // An unknown type keyword constrains nothing we can check.
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn article(kind: &str) -> String {
    match kind {
        "object" | "array" | "integer" => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::validate_params;

    fn schema() -> serde_json::Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["ref"],
            "properties": {
                "ref": {"type": "string", "minLength": 1, "maxLength": 8},
                "clicks": {"type": "integer", "minimum": 1, "maximum": 3},
                "button": {"enum": ["left", "right"]},
                "keys": {"type": "array", "maxItems": 2, "items": {"type": "string"}}
            }
        })
    }

    #[test]
    fn valid_params_pass() {
        let ok = json!({"ref": "e1", "clicks": 2, "button": "left", "keys": ["a"]});
        assert_eq!(validate_params(&schema(), &ok), Ok(()));
    }

    #[test]
    fn each_violation_names_its_path() {
        let cases = [
            (json!([]), "params must be an object (got an array)"),
            (json!({}), "params.ref is required"),
            (json!({"ref": 3}), "params.ref must be a string (got a number)"),
            (json!({"ref": ""}), "params.ref must have at least 1 characters"),
            (json!({"ref": "123456789"}), "params.ref must have at most 8 characters"),
            (json!({"ref": "e", "clicks": 1.5}), "params.clicks must be an integer (got a number)"),
            (json!({"ref": "e", "clicks": 9}), "params.clicks must be at most 3"),
            (
                json!({"ref": "e", "button": "middle"}),
                "params.button must be one of [\"left\",\"right\"]",
            ),
            (
                json!({"ref": "e", "keys": ["a", 1]}),
                "params.keys[1] must be a string (got a number)",
            ),
            (json!({"ref": "e", "keys": ["a", "b", "c"]}), "params.keys must have at most 2 items"),
            (json!({"ref": "e", "extra": true}), "params.extra is not a known parameter"),
        ];
        for (params, message) in cases {
            assert_eq!(validate_params(&schema(), &params), Err(message.to_owned()), "{params}");
        }
    }
}
