//! Canonical JSON (sorted keys, no insignificant whitespace) and SHA-256 digests of it, used for
//! command fingerprints and schema hashes.

use serde_json::Value;
use sha2::Digest;
use sha2::Sha256;

/// Writes `value` as canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace,
/// strings and numbers as `serde_json` prints them.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (idx, item) in items.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(fields) => {
            // Sorted by inserting each key at its place (a map's keys are distinct): `sort` would
            // compile a stable sort of its own into the engine wasm only for this.
            let mut keys: Vec<&String> = Vec::with_capacity(fields.len());
            for key in fields.keys() {
                let at = keys.binary_search(&key).unwrap_or_else(|at| at);
                keys.insert(at, key);
            }
            out.push('{');
            for (idx, key) in keys.into_iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(field) = fields.get(key) {
                    write_canonical(field, out);
                }
            }
            out.push('}');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&value.to_string());
        }
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    hex
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a: Value =
            serde_json::from_str(r#"{ "b": [1, {"y":2,"x":"\u00e9"}], "a": null }"#).unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":null,"b":[1,{"x":"é","y":2}]}"#);
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_ne!(canonical_json(&json!({"a": 1})), canonical_json(&json!({"a": 1.0})));
    }
}
