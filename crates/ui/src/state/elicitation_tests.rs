//! Server questions as forms: fields read from a flat schema, answers typed and checked.

use pretty_assertions::assert_eq;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::*;

fn schema() -> Value {
    json!({"type": "object", "required": ["name", "age"], "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As on the card"},
        "age": {"type": "integer"},
        "height": {"type": "number", "default": 1.7},
        "agree": {"type": "boolean", "default": true},
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "nested": {"type": "object"}
    }})
}

fn entered(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))).collect()
}

#[test]
fn a_flat_schema_becomes_fields_and_other_kinds_are_left_out() {
    let fields = fields(&schema());
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["age", "name", "agree", "height", "size"]);
    assert_eq!(fields[1].label, "Your name");
    assert!(fields[0].required && fields[1].required && !fields[2].required);
    assert_eq!(fields[3].default, "1.7");
    assert_eq!(
        fields[4].kind,
        FieldKind::Choice(vec![("s".into(), "Small".into()), ("m".into(), "Medium".into())])
    );
    assert!(super::fields(&json!({"type": "object"})).is_empty());
}

#[test]
fn answers_are_typed_defaults_used_and_empty_optional_fields_left_out() {
    let fields = fields(&schema());
    let answer = answer(&fields, &entered(&[("name", " Ada "), ("age", "36"), ("size", "m")]));
    assert_eq!(
        answer,
        Ok(json!({"name": "Ada", "age": 36, "height": 1.7, "agree": true, "size": "m"}))
    );
    let fields: Vec<Field> =
        super::fields(&schema()).into_iter().filter(|f| f.name != "height").collect();
    let answer =
        super::answer(&fields, &entered(&[("name", "A"), ("age", "1"), ("agree", "false")]));
    assert_eq!(answer, Ok(json!({"name": "A", "age": 1, "agree": false})));
}

#[test]
fn missing_and_malformed_answers_are_named() {
    let fields = fields(&schema());
    assert_eq!(
        answer(&fields, &entered(&[("age", "3")])),
        Err(Problem::Missing("Your name".into()))
    );
    assert_eq!(
        answer(&fields, &entered(&[("name", "A"), ("age", "3.5")])),
        Err(Problem::NotAWholeNumber("age".into()))
    );
    assert_eq!(
        answer(&fields, &entered(&[("name", "A"), ("age", "3"), ("height", "tall")])),
        Err(Problem::NotANumber("height".into()))
    );
}
