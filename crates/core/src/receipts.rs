//! Idempotent commands: a durable receipt per (client, submission) holding the command type, the
//! fingerprint of its payload and its terminal answer.
//!
//! A repeat with the same type and payload replays the stored answer. The same id with another
//! type or payload is refused with `invalid_command` and the receipt stays as it was.

use panelot_protocol::AgentEvent;
use panelot_protocol::ClientId;
use panelot_protocol::EventFrame;
use panelot_protocol::EventKind;
use panelot_protocol::Op;
use panelot_protocol::command_fingerprint;
use panelot_protocol::engine::CommandAckEvent;
use panelot_protocol::engine::CommandRejectedEvent;
use serde_json::Value;

use crate::store::RECEIPT_TTL_MS;
use crate::store::Receipt;
use crate::store::ReceiptKey;
use crate::store::Store;
use crate::store::StoreError;

/// What the receipt store says about an incoming command.
// Consumed right away, never stored: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ReceiptCheck {
    /// Never seen: run it, and commit its receipt with its domain write.
    New(PendingReceipt),
    /// Seen with the same type and payload: send this answer again.
    Replay(EventFrame),
    /// Seen with another type or payload: refuse, leave the receipt alone.
    Conflict(String),
}

/// The parts of a receipt known before the command runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingReceipt {
    /// Its key.
    pub key: ReceiptKey,
    /// The command type.
    pub op_type: String,
    /// The payload fingerprint.
    pub fingerprint: String,
}

impl PendingReceipt {
    /// The receipt recording `answer` as the command's terminal answer.
    pub fn complete(self, answer: &AgentEvent, now_ms: u64) -> Result<Receipt, StoreError> {
        // Through text: the engine writes events as text anyway, and a second serializer of
        // every event (into a value) would only serve this.
        let corrupt = |err: serde_json::Error| StoreError::Corrupt(err.to_string());
        let text = serde_json::to_string(answer).map_err(corrupt)?;
        let answer: Value = serde_json::from_str(&text).map_err(corrupt)?;
        Ok(Receipt {
            key: self.key,
            op_type: self.op_type,
            fingerprint: self.fingerprint,
            answer,
            created_at_ms: now_ms,
            expires_at_ms: now_ms + RECEIPT_TTL_MS,
        })
    }
}

/// Looks up the receipt of `op` from `client`. Expired receipts count as unseen.
pub async fn check_receipt<S: Store>(
    store: &S,
    client: &ClientId,
    op: &Op,
    now_ms: u64,
) -> Result<ReceiptCheck, StoreError> {
    let key = ReceiptKey { client_id: client.clone(), submission_id: op.submission_id().clone() };
    let op_type = op.kind().wire_name().to_owned();
    let fingerprint =
        command_fingerprint(op).map_err(|err| StoreError::Corrupt(err.to_string()))?;
    let Some(stored) = store.receipt(&key).await?.filter(|r| r.expires_at_ms > now_ms) else {
        return Ok(ReceiptCheck::New(PendingReceipt { key, op_type, fingerprint }));
    };
    if stored.op_type != op_type {
        return Ok(ReceiptCheck::Conflict(format!(
            "submission {} was already used for `{}`",
            key.submission_id, stored.op_type
        )));
    }
    if stored.fingerprint != fingerprint {
        return Ok(ReceiptCheck::Conflict(format!(
            "submission {} was already used with another payload",
            key.submission_id
        )));
    }
    let answer = decode_answer(stored.answer).map_err(StoreError::Corrupt)?;
    Ok(ReceiptCheck::Replay(EventFrame::new(answer)))
}

/// Reads a stored answer back. A command's final word is an ack or a refusal
/// (`answer_is_final`), so only those two are read: a decoder of every event would double the
/// engine's event code for this one use.
fn decode_answer(answer: Value) -> Result<AgentEvent, String> {
    let Value::Object(mut fields) = answer else {
        return Err("receipt answer is not a JSON object".to_owned());
    };
    let kind = match fields.remove("type") {
        Some(Value::String(name)) => EventKind::from_wire_name(&name),
        _ => None,
    };
    let fields = Value::Object(fields);
    let answer = match kind {
        Some(EventKind::CommandAck) => {
            panelot_protocol::from_value::<CommandAckEvent>(fields).map(AgentEvent::CommandAck)
        }
        Some(EventKind::CommandRejected) => {
            panelot_protocol::from_value::<CommandRejectedEvent>(fields)
                .map(AgentEvent::CommandRejected)
        }
        _ => {
            return Err("receipt answer is neither `command.ack` nor `command.rejected`".to_owned());
        }
    };
    answer.map_err(|err| format!("receipt answer: {err}"))
}

/// The client settled answers are recorded under. An answer to an approval or a question is
/// also kept by the id of what it answered, so the same answer sent again by another view (the
/// panel and the chat tab both show the card, or a view that reconnected) is acknowledged
/// rather than refused, while a different answer is told what was decided.
const SETTLED_CLIENT: &str = "engine:settled";

/// The id an approval or interaction answer settles.
fn settles(op: &Op) -> Option<&str> {
    match op {
        Op::ApprovalResponse(p) => Some(p.approval_id.as_str()),
        Op::InteractionResponse(p) => Some(p.interaction_id.as_str()),
        _ => None,
    }
}

fn settled_key(id: &str) -> Result<ReceiptKey, StoreError> {
    let corrupt = |err: panelot_protocol::IdError| StoreError::Corrupt(err.to_string());
    Ok(ReceiptKey {
        client_id: ClientId::new(SETTLED_CLIENT).map_err(corrupt)?,
        submission_id: panelot_protocol::SubmissionId::new(id).map_err(corrupt)?,
    })
}

/// The record of an answer that settled an approval or question, for [`settled_answer`];
/// `None` for other commands and for answers that were refused.
pub fn settled_receipt(
    op: &Op,
    answer: &AgentEvent,
    now_ms: u64,
) -> Result<Option<Receipt>, StoreError> {
    let (Some(id), AgentEvent::CommandAck(_)) = (settles(op), answer) else {
        return Ok(None);
    };
    let pending = PendingReceipt {
        key: settled_key(id)?,
        op_type: op.kind().wire_name().to_owned(),
        fingerprint: command_fingerprint(op).map_err(|err| StoreError::Corrupt(err.to_string()))?,
    };
    pending.complete(answer, now_ms).map(Some)
}

/// The answer to `op` when what it answers was already settled: an ack naming the same thread
/// and run when it is the same answer, a refusal saying so when it is another, `None` when
/// nothing is on record (or the record expired).
pub async fn settled_answer<S: Store>(
    store: &S,
    op: &Op,
    now_ms: u64,
) -> Result<Option<AgentEvent>, StoreError> {
    let Some(id) = settles(op) else { return Ok(None) };
    let Some(stored) = store.receipt(&settled_key(id)?).await?.filter(|r| r.expires_at_ms > now_ms)
    else {
        return Ok(None);
    };
    let fingerprint =
        command_fingerprint(op).map_err(|err| StoreError::Corrupt(err.to_string()))?;
    if stored.op_type != op.kind().wire_name() || stored.fingerprint != fingerprint {
        return Ok(Some(AgentEvent::CommandRejected(CommandRejectedEvent {
            submission_id: op.submission_id().clone(),
            code: panelot_protocol::engine::ErrorCode::InvalidCommand,
            message: format!("{id} was already answered otherwise"),
        })));
    }
    match decode_answer(stored.answer).map_err(StoreError::Corrupt)? {
        AgentEvent::CommandAck(ack) => Ok(Some(AgentEvent::CommandAck(CommandAckEvent {
            submission_id: op.submission_id().clone(),
            ..ack
        }))),
        _ => Ok(None),
    }
}
