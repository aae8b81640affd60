//! The storage format of the records a store keeps as text: runs, nodes, thread metas,
//! receipts and attachments, each as one JSON document with its format version in `"v"`.
//!
//! Stored records are a contract of their own, apart from the protocol: the types that are
//! written (`v1`) mirror the engine's records and the wire types they embed, with the stored
//! text of every enum spelled out, so a change of the protocol cannot change what is on disk
//! unnoticed. A change of the format is a new version.
//!
//! Versions and migrations:
//! * A record carries `"v": N`. Version 0 is the JSON the records' serde derives wrote before
//!   they had a version (no `"v"` at all); every later version names itself.
//! * Only the current version has types. An older record is migrated on its JSON, one step per
//!   version ([`MIGRATIONS`]), and then read by the current types; a step is never edited once
//!   shipped.
//! * Records are migrated when read and written back in the current version only when the
//!   engine next writes them (nodes never are: they are append-only), so every version that was
//!   ever written must stay readable.
//! * A record of a newer version than this build knows is refused as corrupt, as is one whose
//!   `"v"` is not a number.
//!
//! Settings are not records of this format: each is typed by its key in [`crate::settings`].

mod error;
mod v0;
mod v1;

use panelot_protocol::engine::ThreadMeta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Map;
use serde_json::Value;

use self::error::FormatError;
use self::error::Kind;
use self::v1::StoredAttachment;
use self::v1::StoredNode;
use self::v1::StoredReceipt;
use self::v1::StoredRun;
use self::v1::StoredThread;
use super::backend::StoreError;
use super::records::AttachmentRecord;
use super::records::NodeRecord;
use super::records::Receipt;
use super::runs::RunRecord;

/// The format version this build writes.
pub const FORMAT_VERSION: u64 = MIGRATIONS.len() as u64;

/// One step: moves a record's JSON from version `i` to `i + 1` (setting its `"v"`).
type Migration = fn(Kind, &mut Map<String, Value>) -> Result<(), FormatError>;

/// Migration `i` moves a record from version `i` to `i + 1`. Append only.
const MIGRATIONS: [Migration; 1] = [v0::to_v1];

/// Encodes a run.
pub fn encode_run(run: &RunRecord) -> Result<String, StoreError> {
    encode(Kind::Run, &StoredRun::from(run))
}

/// Decodes a stored run of any known version.
pub fn decode_run(text: &str) -> Result<RunRecord, StoreError> {
    decode::<StoredRun, _>(Kind::Run, text)
}

/// Encodes a node.
pub fn encode_node(node: &NodeRecord) -> Result<String, StoreError> {
    encode(Kind::Node, &StoredNode::from(node))
}

/// Decodes a stored node of any known version.
pub fn decode_node(text: &str) -> Result<NodeRecord, StoreError> {
    decode::<StoredNode, _>(Kind::Node, text)
}

/// Encodes a thread's metadata.
pub fn encode_thread(meta: &ThreadMeta) -> Result<String, StoreError> {
    encode(Kind::Thread, &StoredThread::from(meta))
}

/// Decodes a thread's stored metadata of any known version.
pub fn decode_thread(text: &str) -> Result<ThreadMeta, StoreError> {
    decode::<StoredThread, _>(Kind::Thread, text)
}

/// Encodes a command receipt.
pub fn encode_receipt(receipt: &Receipt) -> Result<String, StoreError> {
    encode(Kind::Receipt, &StoredReceipt::from(receipt))
}

/// Decodes a stored command receipt of any known version.
pub fn decode_receipt(text: &str) -> Result<Receipt, StoreError> {
    decode::<StoredReceipt, _>(Kind::Receipt, text)
}

/// Encodes an attachment.
pub fn encode_attachment(attachment: &AttachmentRecord) -> Result<String, StoreError> {
    encode(Kind::Attachment, &StoredAttachment::from(attachment))
}

/// Decodes a stored attachment of any known version.
pub fn decode_attachment(text: &str) -> Result<AttachmentRecord, StoreError> {
    decode::<StoredAttachment, _>(Kind::Attachment, text)
}

fn corrupt(kind: Kind, err: FormatError) -> StoreError {
    StoreError::Corrupt(format!("{kind} record: {err}"))
}

fn encode<S: Serialize>(kind: Kind, stored: &S) -> Result<String, StoreError> {
    serde_json::to_string(stored).map_err(|err| corrupt(kind, err.into()))
}

fn decode<S, D>(kind: Kind, text: &str) -> Result<D, StoreError>
where
    S: DeserializeOwned,
    D: TryFrom<S, Error = FormatError>,
{
    read::<S>(kind, text).and_then(D::try_from).map_err(|err| corrupt(kind, err))
}

/// Reads a record of the current version, or migrates an older one first.
///
/// Through a JSON value: the value deserializer is the one the engine's other types use, so the
/// stored types add no second JSON reader to the engine's wasm.
fn read<S: DeserializeOwned>(kind: Kind, text: &str) -> Result<S, FormatError> {
    let mut value: Value = serde_json::from_str(text)?;
    let Value::Object(record) = &mut value else {
        return Err(FormatError::NotAnObject);
    };
    let version = match record.get("v") {
        None => 0,
        Some(v) => v.as_u64().ok_or(FormatError::BadVersion)?,
    };
    if version != FORMAT_VERSION {
        let Some(steps) = usize::try_from(version).ok().and_then(|from| MIGRATIONS.get(from..))
        else {
            return Err(FormatError::Newer { found: version, known: FORMAT_VERSION });
        };
        for step in steps {
            step(kind, record)?;
        }
    }
    Ok(panelot_protocol::from_value(value)?)
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
