//! A file attached to a thread, stored with its bytes (base64, as it travelled).

use panelot_protocol::AttachmentId;
use panelot_protocol::ThreadId;
use serde::Deserialize;
use serde::Serialize;

use super::version::V1;
use crate::store::format::error::FormatError;
use crate::store::format::error::id;
use crate::store::records::AttachmentRecord;

/// A stored attachment.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct StoredAttachment {
    v: V1,
    id: String,
    thread_id: String,
    name: String,
    mime: String,
    size_bytes: u64,
    created_at_ms: u64,
    data_base64: String,
}

impl From<&AttachmentRecord> for StoredAttachment {
    fn from(it: &AttachmentRecord) -> Self {
        StoredAttachment {
            v: V1,
            id: it.id.to_string(),
            thread_id: it.thread_id.to_string(),
            name: it.name.clone(),
            mime: it.mime.clone(),
            size_bytes: it.size_bytes,
            created_at_ms: it.created_at_ms,
            data_base64: it.data_base64.clone(),
        }
    }
}

impl TryFrom<StoredAttachment> for AttachmentRecord {
    type Error = FormatError;

    fn try_from(it: StoredAttachment) -> Result<Self, FormatError> {
        Ok(AttachmentRecord {
            id: id("id", it.id, AttachmentId::new)?,
            thread_id: id("threadId", it.thread_id, ThreadId::new)?,
            name: it.name,
            mime: it.mime,
            size_bytes: it.size_bytes,
            created_at_ms: it.created_at_ms,
            data_base64: it.data_base64,
        })
    }
}
