//! Serializing to a JSON value through JSON text.
//!
//! serde_json's value serializer compiles a second serializer of each type it writes, next to
//! the text serializer that every type written to the store or a port already has (in the
//! engine's wasm, about 23 KB after wasm-opt). The workspace's crates call [`to_value`] instead
//! of `serde_json::to_value`; writing the text and parsing it back costs a little time on values
//! that are small and rare (a command's fingerprint, a request to the page, a setting).

use serde::Serialize;
use serde_json::Error;
use serde_json::Value;

/// The JSON value of `value`, as `serde_json::to_value` makes it, through its text.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    serde_json::from_str(&serde_json::to_string(value)?)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::to_value;
    use crate::decode::decode_op;

    #[test]
    fn values_are_serde_jsons() {
        let op = decode_op(json!({"type": "turn.submit", "submissionId": "s1", "threadId": "t1",
            "input": {"text": "hi", "browserContext": {"capturedAtMs": 5, "referencedTabs": []}}}))
        .unwrap();
        assert_eq!(to_value(&op).unwrap(), serde_json::to_value(&op).unwrap());
        let numbers = (0.1_f64, 1e300_f64, -0.0_f64, u64::MAX, i64::MIN, 0.30000000000000004_f64);
        assert_eq!(to_value(&numbers).unwrap(), serde_json::to_value(numbers).unwrap());
        assert_eq!(to_value("a\u{0}é").unwrap(), serde_json::to_value("a\u{0}é").unwrap());
    }
}
