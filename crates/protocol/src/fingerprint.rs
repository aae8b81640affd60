//! Fingerprints of command payloads for idempotent command receipts.

use serde_json::Value;

use crate::canonical::canonical_json;
use crate::canonical::sha256_hex;
use crate::engine::Op;

/// Fields that identify a command rather than describe it; they are left out of the fingerprint
/// (the type and ids are part of the receipt key itself).
const IDENTITY_FIELDS: [&str; 3] = ["type", "submissionId", "clientId"];

/// SHA-256 (hex) of the canonical JSON of the Op's payload, without its type and ids. Two Ops with
/// the same meaning (fields in another order, an absent optional field or an explicit `null`) get
/// the same fingerprint, because the typed Op is encoded, not the bytes received.
pub fn command_fingerprint(op: &Op) -> Result<String, serde_json::Error> {
    let mut value = crate::text_value::to_value(op)?;
    if let Value::Object(fields) = &mut value {
        for key in IDENTITY_FIELDS {
            fields.remove(key);
        }
    }
    Ok(sha256_hex(canonical_json(&value).as_bytes()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::decode::decode_op;

    fn fp(value: Value) -> String {
        command_fingerprint(&decode_op(value).unwrap()).unwrap()
    }

    #[test]
    fn same_meaning_same_fingerprint_other_payload_other_fingerprint() {
        let a = fp(json!({"type": "turn.submit", "submissionId": "s1", "threadId": "t1",
            "input": {"text": "hi"}}));
        let b = fp(json!({"input": {"text": "hi", "attachmentIds": []}, "threadId": "t1",
            "overrides": null, "submissionId": "s2", "type": "turn.submit"}));
        let c = fp(json!({"type": "turn.submit", "submissionId": "s1", "threadId": "t1",
            "input": {"text": "hi!"}}));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 64);
    }
}
