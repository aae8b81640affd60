//! Resource budgets of untrusted JSON: depth, nodes, array lengths, keys and bytes, checked before
//! any field is read, with property tests that the walk never panics.

use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::*;

/// Reference measurement, written recursively and independently of the iterative walk.
#[derive(Default, Debug)]
struct Measure {
    depth: u32,
    nodes: u64,
    max_array: u64,
    max_keys: u64,
    text: u64,
    binary: u64,
}

fn measure(value: &Value, depth: u32, binary_slot: bool, m: &mut Measure) {
    m.nodes += 1;
    match value {
        Value::String(s) if binary_slot => m.binary += s.len() as u64,
        Value::String(s) => m.text += s.len() as u64,
        Value::Array(items) => {
            m.depth = m.depth.max(depth + 1);
            m.max_array = m.max_array.max(items.len() as u64);
            for item in items {
                measure(item, depth + 1, false, m);
            }
        }
        Value::Object(fields) => {
            m.depth = m.depth.max(depth + 1);
            m.max_keys = m.max_keys.max(fields.len() as u64);
            for (key, field) in fields {
                m.text += key.len() as u64;
                measure(field, depth + 1, is_binary_key(key), m);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn fits(m: &Measure, b: &Budget) -> bool {
    m.depth <= b.max_depth
        && m.nodes <= b.max_nodes
        && m.max_array <= b.max_array_len
        && m.max_keys <= b.max_object_keys
        && m.text <= b.max_text_bytes
        && m.binary <= b.max_binary_bytes
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z\\u{4e00}]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(7, 80, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "bb", "dataBase64", "base64", "text"]),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

fn arb_budget() -> impl Strategy<Value = Budget> {
    (0u32..7, 0u64..60, 0u64..7, 0u64..6, 0u64..60, 0u64..30).prop_map(
        |(
            max_depth,
            max_nodes,
            max_array_len,
            max_object_keys,
            max_text_bytes,
            max_binary_bytes,
        )| {
            Budget {
                max_depth,
                max_nodes,
                max_array_len,
                max_object_keys,
                max_text_bytes,
                max_binary_bytes,
                max_raw_bytes: u64::MAX,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn walk_agrees_with_reference_measure(value in arb_json(), budget in arb_budget()) {
        let mut m = Measure::default();
        measure(&value, 0, false, &mut m);
        prop_assert_eq!(check_budget(&value, &budget).is_ok(), fits(&m, &budget), "{:?}", m);
    }
}

#[test]
fn deep_nesting_is_rejected_without_recursion() {
    let mut value = json!(1);
    for _ in 0..3_000 {
        value = Value::Array(vec![value]);
    }
    let err = check_budget(&value, &Budget::OP).unwrap_err();
    assert_eq!(err, BudgetExceeded { limit: BudgetLimit::Depth, max: 64 });
    // Unwind the tree iteratively: dropping it recursively could overflow a test thread's stack.
    let mut cursor = value;
    while let Value::Array(mut items) = cursor {
        cursor = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn binary_payloads_count_against_the_binary_budget() {
    let budget = Budget { max_text_bytes: 20, max_binary_bytes: 4, ..Budget::OP };
    assert!(check_budget(&json!({"dataBase64": "abcd"}), &budget).is_ok());
    assert_eq!(
        check_budget(&json!({"dataBase64": "abcde"}), &budget).unwrap_err().limit,
        BudgetLimit::BinaryBytes
    );
    assert_eq!(
        check_budget(&json!({"text": "x".repeat(30)}), &budget).unwrap_err().limit,
        BudgetLimit::TextBytes
    );
}

#[test]
fn wide_values_are_rejected() {
    let wide = Value::Array(vec![Value::Null; 8_193]);
    assert_eq!(check_budget(&wide, &Budget::OP).unwrap_err().limit, BudgetLimit::ArrayLength);
    let many: serde_json::Map<String, Value> =
        (0..8_193).map(|i| (format!("k{i}"), Value::Null)).collect();
    assert_eq!(
        check_budget(&Value::Object(many), &Budget::OP).unwrap_err().limit,
        BudgetLimit::ObjectKeys
    );
}
