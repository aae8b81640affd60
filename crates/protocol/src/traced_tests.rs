//! The one value deserializer against serde: the same values, and the same field paths and
//! messages for bad input as serde_path_to_error over serde_json gave.

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use serde::Deserialize;
use serde_json::Value;
use serde_json::json;

use super::from_value;
use super::from_value_traced;

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Outer {
    name: String,
    count: u8,
    inner: Option<Inner>,
    #[serde(default)]
    items: Vec<Inner>,
    #[serde(default)]
    shapes: Vec<Shape>,
    #[serde(default)]
    scores: BTreeMap<String, u32>,
    #[serde(default)]
    raw: Value,
    #[serde(default)]
    wrapped: Option<Wrapped>,
    #[serde(default)]
    pair: Option<(u8, String)>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Inner {
    at_ms: u64,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
enum Shape {
    Dot,
    Circle { radius: u32 },
    Named(String),
    Pair(u8, u8),
}

#[derive(Deserialize, Debug, PartialEq)]
struct Wrapped(u16);

/// What `serde_path_to_error` over serde_json's value deserializer says of `value`.
fn reference(value: Value) -> Result<Outer, (String, String)> {
    serde_path_to_error::deserialize::<_, Outer>(value)
        .map_err(|err| (err.path().to_string(), err.into_inner().to_string()))
}

fn traced(value: Value) -> Result<Outer, (String, String)> {
    from_value_traced::<Outer>(value).map_err(|err| (err.path, err.error.to_string()))
}

fn base() -> Value {
    json!({"name": "a", "count": 1, "inner": {"atMs": 5, "tags": ["x"]},
        "items": [{"atMs": 1}, {"atMs": 2, "tags": []}],
        "shapes": ["dot", {"circle": {"radius": 3}}, {"named": "n"}, {"pair": [1, 2]}],
        "scores": {"k": 7}, "raw": {"any": [1, null]}, "wrapped": 9, "pair": [1, "p"]})
}

#[test]
fn good_values_read_as_serde_json_reads_them() {
    let want = serde_json::from_value::<Outer>(base()).unwrap();
    assert_eq!(from_value::<Outer>(base()).unwrap(), want);
    assert_eq!(traced(base()).unwrap(), want);
    let minimal = json!({"name": "a", "count": 1, "inner": null});
    assert_eq!(traced(minimal.clone()).unwrap(), serde_json::from_value(minimal).unwrap());
}

#[test]
fn bad_values_get_the_path_and_message_serde_path_to_error_gives() {
    let cases: Vec<(&str, Value)> = vec![
        ("/name", json!(5)),
        ("/count", json!(300)),
        ("/count", json!(-1)),
        ("/count", json!(1.5)),
        ("/inner", json!("x")),
        ("/inner", json!({})),
        ("/inner", json!({"atMs": 1, "bogus": 2})),
        ("/inner/atMs", json!(true)),
        ("/inner/tags", json!("x")),
        ("/inner/tags", json!([1])),
        ("/items", json!({})),
        ("/items/1/atMs", json!("late")),
        ("/items/1", json!(null)),
        ("/shapes/0", json!("square")),
        ("/shapes/0", json!(5)),
        ("/shapes/0", json!({"circle": {"radius": 3}, "dot": null})),
        ("/shapes/0", json!({})),
        ("/shapes/0", json!({"dot": 1})),
        ("/shapes/1/circle/radius", json!("big")),
        ("/shapes/1/circle", json!({})),
        ("/shapes/1/circle", json!([3])),
        ("/shapes/1", json!("circle")),
        ("/shapes/2/named", json!(1)),
        ("/shapes/2", json!("named")),
        ("/shapes/3/pair", json!([1])),
        ("/shapes/3/pair", json!([1, 2, 3])),
        ("/shapes/3/pair", json!({"a": 1})),
        ("/scores/k", json!(-3)),
        ("/scores", json!([1])),
        ("/wrapped", json!("w")),
        ("/pair", json!([1])),
        ("/pair", json!([1, "p", 3])),
        ("/pair/1", json!(2)),
        ("/extra", json!(1)),
    ];
    for (pointer, bad) in cases {
        let mut value = base();
        match value.pointer_mut(pointer) {
            Some(slot) => *slot = bad.clone(),
            None => {
                value["extra"] = bad.clone();
            }
        }
        let want = reference(value.clone()).unwrap_err();
        assert_eq!(traced(value.clone()).unwrap_err(), want, "{pointer} = {bad}");
        assert_eq!(from_value::<Outer>(value).unwrap_err().to_string(), want.1);
    }
    let missing = json!({"count": 1, "inner": null});
    assert_eq!(traced(missing.clone()).unwrap_err(), reference(missing).unwrap_err());
    assert_eq!(
        traced(json!([1])).unwrap_err(),
        (".".to_owned(), "invalid type: sequence, expected struct Outer".to_owned())
    );
}

/// The one difference from serde_json: a struct is never read from an array.
#[test]
fn a_struct_written_as_an_array_is_refused() {
    let mut value = base();
    value["inner"] = json!([5, ["x"]]);
    assert!(serde_json::from_value::<Outer>(value.clone()).is_ok());
    assert_eq!(
        traced(value).unwrap_err(),
        ("inner".to_owned(), "invalid type: sequence, expected struct Inner".to_owned())
    );
}
