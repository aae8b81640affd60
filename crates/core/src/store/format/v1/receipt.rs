//! A stored command receipt.

use panelot_protocol::ClientId;
use panelot_protocol::SubmissionId;
use serde::Deserialize;
use serde::Serialize;
use serde_json::Value;

use super::version::V1;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;
use crate::store::records::Receipt;
use crate::store::records::ReceiptKey;

/// A stored command receipt.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredReceipt {
    v: V1,
    key: StoredReceiptKey,
    op_type: String,
    fingerprint: String,
    answer: Value,
    created_at_ms: u64,
    expires_at_ms: u64,
}

#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct StoredReceiptKey {
    client_id: String,
    submission_id: String,
}

impl From<&Receipt> for StoredReceipt {
    fn from(receipt: &Receipt) -> Self {
        StoredReceipt {
            v: V1,
            key: StoredReceiptKey {
                client_id: receipt.key.client_id.to_string(),
                submission_id: receipt.key.submission_id.to_string(),
            },
            op_type: receipt.op_type.clone(),
            fingerprint: receipt.fingerprint.clone(),
            answer: receipt.answer.clone(),
            created_at_ms: receipt.created_at_ms,
            expires_at_ms: receipt.expires_at_ms,
        }
    }
}

impl TryFrom<StoredReceipt> for Receipt {
    type Error = FormatError;

    fn try_from(receipt: StoredReceipt) -> Result<Self, FormatError> {
        Ok(Receipt {
            key: ReceiptKey {
                client_id: id("key.clientId", receipt.key.client_id, ClientId::new)?,
                submission_id: id(
                    "key.submissionId",
                    receipt.key.submission_id,
                    SubmissionId::new,
                )?,
            },
            op_type: receipt.op_type,
            fingerprint: receipt.fingerprint,
            answer: receipt.answer,
            created_at_ms: receipt.created_at_ms,
            expires_at_ms: receipt.expires_at_ms,
        })
    }
}
