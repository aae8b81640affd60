//! `internally_tagged!` against serde's own `#[serde(tag = …)]`: the same JSON out, the same
//! values and errors in, refusing everything serde refuses.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;
use serde_json::json;

internally_tagged! {
    #[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    /// Declared through the macro.
    #[derive(Serialize, Debug, Clone, PartialEq)]
    enum Ours {
        /// A struct variant.
        TextBlock {
            /// Renamed by `rename_all_fields`.
            text_value: String,
            /// Optional.
            count: Option<u32>,
        },
        /// A field renamed by hand.
        Image {
            #[serde(rename = "dataBase64")]
            data: String,
        },
        /// Nested JSON.
        Call { params: Value },
        /// A unit variant.
        Empty,
    }
}

/// The same enum with serde's derive.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
enum Theirs {
    TextBlock {
        text_value: String,
        count: Option<u32>,
    },
    Image {
        #[serde(rename = "dataBase64")]
        data: String,
    },
    Call {
        params: Value,
    },
    Empty,
}

fn theirs(ours: Ours) -> Theirs {
    match ours {
        Ours::TextBlock { text_value, count } => Theirs::TextBlock { text_value, count },
        Ours::Image { data } => Theirs::Image { data },
        Ours::Call { params } => Theirs::Call { params },
        Ours::Empty => Theirs::Empty,
    }
}

fn decode_ours(value: &Value) -> Result<Ours, String> {
    serde_json::from_value(value.clone()).map_err(|err| err.to_string())
}

fn decode_theirs(value: &Value) -> Result<Theirs, String> {
    serde_json::from_value(value.clone()).map_err(|err| err.to_string())
}

#[test]
fn every_variant_serializes_and_decodes_as_serde_does() {
    let samples = [
        Ours::TextBlock { text_value: "hi".into(), count: Some(2) },
        Ours::TextBlock { text_value: String::new(), count: None },
        Ours::Image { data: "AAAA".into() },
        Ours::Call { params: json!({"a": [1, {"b": null}]}) },
        Ours::Empty,
    ];
    for ours in samples {
        let text = serde_json::to_string(&ours).unwrap();
        assert_eq!(text, serde_json::to_string(&theirs(ours.clone())).unwrap());
        assert_eq!(serde_json::from_str::<Ours>(&text).unwrap(), ours);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(decode_ours(&value).map(theirs), decode_theirs(&value));
    }
}

#[test]
fn errors_read_as_serde_writes_them() {
    for value in [
        json!({"textValue": "a"}),
        json!({"kind": "nope"}),
        json!({"kind": 1, "textValue": "a"}),
        json!({"kind": "text_block"}),
        json!({"kind": "text_block", "textValue": 5}),
        json!({"kind": "text_block", "textValue": "a", "extra": 1}),
        json!({"kind": "image", "data": "x"}),
        json!("text_block"),
        json!(null),
    ] {
        let (ours, theirs) = (decode_ours(&value), decode_theirs(&value));
        assert!(ours.is_err() && theirs.is_err(), "{value}: {ours:?} {theirs:?}");
        if value.is_object() {
            assert_eq!(ours.unwrap_err(), theirs.unwrap_err(), "{value}");
        }
    }
}

#[test]
fn the_two_forms_serde_also_takes_are_refused() {
    // The sequence form of a tagged enum, and unknown fields beside a unit variant's tag.
    for value in [json!(["text_block", "a", null]), json!({"kind": "empty", "extra": 1})] {
        assert!(decode_theirs(&value).is_ok(), "{value}");
        assert!(decode_ours(&value).is_err(), "{value}");
    }
}

#[test]
fn errors_keep_the_path_of_the_enum() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code, reason = "only decoded")]
    struct Outer {
        items: Vec<Ours>,
    }
    let value = json!({"items": [{"kind": "empty"}, {"kind": "image", "dataBase64": 3}]});
    let err = serde_path_to_error::deserialize::<_, Outer>(value).unwrap_err();
    assert_eq!(err.path().to_string(), "items[1]");
    assert!(err.inner().to_string().contains("invalid type: integer `3`"), "{err}");
}

fn arb_field() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<u8>().prop_map(|n| json!(n)),
        Just(json!(-1)),
        "[a-z]{0,3}".prop_map(Value::String),
        Just(json!([1])),
        Just(json!({"b": 1})),
    ]
}

/// Objects and arrays made of the enum's words, so that many are valid.
fn arb_input() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "kind",
        "textValue",
        "text_value",
        "count",
        "dataBase64",
        "data",
        "params",
        "extra",
    ]);
    let tag = prop::sample::select(vec!["text_block", "image", "call", "empty", "Empty", "x"]);
    let object = (prop::option::of(tag), prop::collection::btree_map(key, arb_field(), 0..4))
        .prop_map(|(tag, fields)| {
            let mut map: serde_json::Map<String, Value> =
                fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            if let Some(tag) = tag {
                map.insert("kind".into(), json!(tag));
            }
            Value::Object(map)
        });
    prop_oneof![
        4 => object,
        1 => prop::collection::vec(arb_field(), 0..3).prop_map(Value::Array),
        1 => arb_field(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    #[test]
    fn accepts_only_what_serde_accepts_and_decodes_it_the_same(value in arb_input()) {
        let (ours, theirs) = (decode_ours(&value), decode_theirs(&value));
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => prop_assert_eq!(self::theirs(ours), theirs),
            (Ok(ours), Err(err)) => prop_assert!(false, "{} accepted as {:?}; serde: {}", value, ours, err),
            (Err(_), Ok(_)) => {
                let unit_with_extras = value.get("kind") == Some(&json!("empty"));
                prop_assert!(value.is_array() || unit_with_extras, "{} refused", value);
            }
            (Err(ours), Err(theirs)) => {
                if value.is_object() {
                    prop_assert_eq!(ours, theirs);
                }
            }
        }
    }
}
