//! Files the user attaches to a message: stored with the thread by `attachment.put` (bytes
//! and all, deleted with the thread), named by a message's `attachmentIds`, and put on a page's
//! file input by `upload_file`.
//!
//! A message names its files by id; when it is admitted the engine checks each is this
//! thread's and adds a `file` block of each (name, type, size, id) to the message's attached
//! context, so the stored message, its chips after a reload and what the model reads come from
//! the store, never from what a UI claims. `upload_file` may use only a file of a message on
//! the path of the calling turn (that turn's or an earlier one's): any other id or name is
//! refused before the call is judged. Its bytes are added to the dispatched call (never
//! stored with it), like an artifact's content for `download`.

use panelot_protocol::AttachmentId;
use panelot_protocol::Op;
use panelot_protocol::engine::ATTACHMENT_MAX_BYTES;
use panelot_protocol::engine::AttachmentPutParams;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::MESSAGE_ATTACHMENTS_MAX;
use panelot_protocol::engine::MESSAGE_ATTACHMENTS_MAX_BYTES;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::Trust;
use panelot_protocol::engine::UserInput;
use serde_json::Value;

use super::decision::Decision;
use super::decision::EffectRequest;
use super::decision::FollowUp;
use super::decision::Refused;
use super::decision::ResultBody;
use super::decision::Step;
use super::decision::ack;
use super::machine::dispatch::refuse;
use super::outbox::ToolOutcome;
use super::reads::Reads;
use crate::context::size_text;
use crate::store::AttachmentRecord;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// The tool that puts an attached file on a file input.
pub(crate) const UPLOAD_FILE: &str = "upload_file";

/// Longest file name, in characters.
const NAME_MAX_CHARS: usize = 255;

/// Parameters the engine adds to a dispatched `upload_file`: the file's name, type and bytes.
pub(crate) mod handed {
    /// The file's name.
    pub(crate) const NAME: &str = "name";
    /// Its MIME type.
    pub(crate) const MIME: &str = "mime";
    /// Its bytes, base64.
    pub(crate) const DATA: &str = "dataBase64";
}

/// A file of a message, as its `file` block describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileOnPath {
    pub(crate) id: AttachmentId,
    pub(crate) name: String,
    pub(crate) mime: String,
    pub(crate) size_bytes: u64,
}

/// `attachment.put`: stores the file with its thread, or refuses it (too large, not base64, a
/// bad name, an unknown thread, an id already used by a file of this thread or another).
pub(crate) async fn put<S: Store>(
    reads: &Reads<'_, S>,
    op: &Op,
    p: &AttachmentPutParams,
) -> Result<Decision, StoreError> {
    if reads.store.thread(&p.thread_id).await?.is_none() {
        return Ok(Decision::rejected(
            op,
            ErrorCode::ThreadNotFound,
            format!("no thread {}", p.thread_id),
        ));
    }
    let Some(size_bytes) = decoded_len(&p.data_base64) else {
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, "dataBase64 is not base64"));
    };
    if size_bytes > ATTACHMENT_MAX_BYTES {
        return Ok(Decision::rejected(
            op,
            ErrorCode::AttachmentTooLarge,
            format!(
                "{} is {}; a file may have at most {}",
                p.name,
                size_text(size_bytes),
                size_text(ATTACHMENT_MAX_BYTES)
            ),
        ));
    }
    if let Some(problem) = name_problem(&p.name) {
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, problem));
    }
    // The same id again from another command: never a second file under one id. The store
    // keeps ids unique across threads, so another thread's id is refused here, before the
    // commit, which would fail whole as an integrity error.
    if let Some(holder) = reads.store.attachment_thread(&p.attachment_id).await? {
        let message = if holder == p.thread_id {
            format!("attachment {} is already stored in this chat", p.attachment_id)
        } else {
            format!("attachment {} is already the id of a file of another chat", p.attachment_id)
        };
        return Ok(Decision::rejected(op, ErrorCode::AttachmentIdTaken, message));
    }
    let mime = p.mime.trim();
    let record = AttachmentRecord {
        id: p.attachment_id.clone(),
        thread_id: p.thread_id.clone(),
        name: p.name.trim().to_owned(),
        mime: if mime.is_empty() || !mime.is_ascii() || mime.len() > NAME_MAX_CHARS {
            "application/octet-stream".to_owned()
        } else {
            mime.to_ascii_lowercase()
        },
        size_bytes,
        created_at_ms: reads.env.now_ms(),
        data_base64: p.data_base64.clone(),
    };
    let mut unit = UnitOfWork::new();
    unit.push(WriteOp::PutAttachment(Box::new(record)));
    let mut decision = Decision::answer(ack(op, Some(p.thread_id.clone()), None));
    decision.unit = unit;
    Ok(decision)
}

/// The command with its message's files checked and described ([`expand`]), or its refusal;
/// `None` when it carries no message with files (nothing to change).
pub(crate) async fn expand_op(
    store: &impl Store,
    op: &Op,
) -> Result<Result<Option<Op>, Decision>, StoreError> {
    let (thread, input) = match op {
        Op::TurnSubmit(p) => (&p.thread_id, &p.input),
        Op::TurnEnqueue(p) => (&p.thread_id, &p.input),
        Op::TurnFork(p) => (&p.thread_id, &p.input),
        Op::TurnSteer(p) => (&p.thread_id, &p.input),
        Op::QueueUpdate(p) => (&p.thread_id, &p.input),
        _ => return Ok(Ok(None)),
    };
    let has_files = |input: &UserInput| {
        !input.attachment_ids.is_empty()
            || input
                .attached_context
                .iter()
                .any(|b| matches!(b.content, ContextContent::File { .. }))
    };
    if !has_files(input) {
        return Ok(Ok(None));
    }
    let input = match expand(store, thread, input).await? {
        Ok(input) => input,
        Err((code, message)) => return Ok(Err(Decision::rejected(op, code, message))),
    };
    let mut op = op.clone();
    match &mut op {
        Op::TurnSubmit(p) => p.input = input,
        Op::TurnEnqueue(p) => p.input = input,
        Op::TurnFork(p) => p.input = input,
        Op::TurnSteer(p) => p.input = input,
        Op::QueueUpdate(p) => p.input = input,
        _ => {}
    }
    Ok(Ok(Some(op)))
}

/// The message as it is admitted: each named file checked to be this thread's and described by
/// a `file` block of the engine's (blocks of that content a UI sent are dropped), or the
/// refusal of the message.
pub(crate) async fn expand(
    store: &impl Store,
    thread: &panelot_protocol::ThreadId,
    input: &UserInput,
) -> Result<Result<UserInput, (ErrorCode, String)>, StoreError> {
    let mut input = input.clone();
    input.attached_context.retain(|block| !matches!(block.content, ContextContent::File { .. }));
    if input.attachment_ids.is_empty() {
        return Ok(Ok(input));
    }
    if input.attachment_ids.len() > MESSAGE_ATTACHMENTS_MAX {
        let message = format!("a message may have at most {MESSAGE_ATTACHMENTS_MAX} files");
        return Ok(Err((ErrorCode::AttachmentTooLarge, message)));
    }
    let mut total = 0;
    let mut blocks = Vec::new();
    for (at, id) in input.attachment_ids.iter().enumerate() {
        if input.attachment_ids[..at].contains(id) {
            continue;
        }
        let Some(file) = store.attachment(thread, id).await? else {
            let message = format!("this chat has no attachment {id}");
            return Ok(Err((ErrorCode::AttachmentNotFound, message)));
        };
        total += file.size_bytes;
        blocks.push(file_block(&file));
    }
    if total > MESSAGE_ATTACHMENTS_MAX_BYTES {
        let message = format!(
            "the files of a message may have at most {} together; these have {}",
            size_text(MESSAGE_ATTACHMENTS_MAX_BYTES),
            size_text(total)
        );
        return Ok(Err((ErrorCode::AttachmentTooLarge, message)));
    }
    input.attached_context.extend(blocks);
    Ok(Ok(input))
}

fn file_block(file: &AttachmentRecord) -> ContextBlock {
    ContextBlock {
        kind: ContextKind::File,
        label: file.name.clone(),
        origin: None,
        trust: Trust::Trusted,
        provenance: Provenance::User,
        source_ref: None,
        tab: None,
        content: ContextContent::File {
            attachment_id: file.id.clone(),
            mime: file.mime.clone(),
            size_bytes: file.size_bytes,
        },
        approx_tokens: None,
    }
}

/// The files of the user's messages on `path`, oldest first.
pub(crate) fn on_path(path: &[NodeRecord]) -> Vec<FileOnPath> {
    let mut files = Vec::new();
    for record in path {
        let NodeBody::UserMessage { input, .. } = &record.body else { continue };
        for block in &input.attached_context {
            if let ContextContent::File { attachment_id, mime, size_bytes } = &block.content {
                files.push(FileOnPath {
                    id: attachment_id.clone(),
                    name: block.label.clone(),
                    mime: mime.clone(),
                    size_bytes: *size_bytes,
                });
            }
        }
    }
    files
}

/// The file an `upload_file` call names (its `attachment`: an id, or a file name, the newest
/// of that name), among the files of the path; the refusal names the ones it may use.
pub(crate) fn chosen<'f>(
    files: &'f [FileOnPath],
    params: &Value,
) -> Result<&'f FileOnPath, String> {
    let named = params.get("attachment").and_then(Value::as_str).unwrap_or_default().trim();
    let found = files
        .iter()
        .rev()
        .find(|file| file.id.as_str() == named)
        .or_else(|| files.iter().rev().find(|file| file.name == named));
    if let Some(file) = found {
        return Ok(file);
    }
    let mut message = format!(
        "`{named}` is not a file the user attached in this chat; upload_file takes only those."
    );
    if files.is_empty() {
        message.push_str(" The user attached none; ask them to attach the file to a message.");
    } else {
        let names: Vec<String> =
            files.iter().map(|file| format!("{} ({})", file.name, file.id)).collect();
        message.push_str(&format!(" Attached: {}.", names.join(", ")));
    }
    Err(message)
}

/// The refusal of the run's next call when it is an `upload_file` naming no file of the
/// calling turn's path: made before the call is judged (no card asks about a file the call
/// may not use), and counted like any failed check.
pub(crate) async fn refusal(
    store: &impl Store,
    run: &RunRecord,
) -> Result<Option<Step>, StoreError> {
    let Some(index) = run.tools.iter().position(|c| c.status != ToolCallStatus::Done) else {
        return Ok(None);
    };
    let call = &run.tools[index];
    // Parameters that do not name a file are the schema check's to refuse.
    let names_file = call.params.get("attachment").is_some_and(Value::is_string);
    if call.tool_name != UPLOAD_FILE || call.status != ToolCallStatus::Pending || !names_file {
        return Ok(None);
    }
    let Some(state) = super::reads::thread_state(store, &run.thread_id).await? else {
        return Ok(None);
    };
    let path = super::reads::path_to(store, &state, state.meta.leaf_id.as_ref()).await?;
    Ok(match chosen(&on_path(&path), &call.params) {
        Ok(_) => None,
        Err(message) => Some(refuse(run, index, message, Refused::Check)),
    })
}

/// Hands a dispatched `upload_file` the chosen file's name, type and bytes, read from the store
/// now; a file the store no longer has ends the call. Every other effect passes unchanged.
pub(crate) async fn with_attachment(
    store: &impl Store,
    request: EffectRequest,
) -> Result<EffectRequest, FollowUp> {
    let EffectRequest::Tool { run, index, mut call } = request else { return Ok(request) };
    if call.tool != UPLOAD_FILE {
        return Ok(EffectRequest::Tool { run, index, call });
    }
    let path = match super::reads::thread_state(store, &call.thread_id).await {
        Ok(Some(state)) => super::reads::path_to(store, &state, state.meta.leaf_id.as_ref()).await,
        Ok(None) => Ok(Vec::new()),
        Err(err) => Err(err),
    };
    let files = match path {
        Ok(path) => on_path(&path),
        Err(err) => return Err(FollowUp::Fail(run, err.to_string())),
    };
    let file = match chosen(&files, &call.params) {
        Ok(file) => file.clone(),
        Err(message) => {
            let body = ResultBody::Outcome(ToolOutcome::failed(message));
            return Err(FollowUp::WriteResult { run, index, body });
        }
    };
    let record = match store.attachment(&call.thread_id, &file.id).await {
        Ok(Some(record)) => record,
        Ok(None) => {
            let message = format!("the file {} is no longer stored", file.name);
            let body = ResultBody::Outcome(ToolOutcome::failed(message));
            return Err(FollowUp::WriteResult { run, index, body });
        }
        Err(err) => return Err(FollowUp::Fail(run, err.to_string())),
    };
    if let Some(args) = call.params.as_object_mut() {
        args.insert(handed::NAME.to_owned(), Value::String(record.name));
        args.insert(handed::MIME.to_owned(), Value::String(record.mime));
        args.insert(handed::DATA.to_owned(), Value::String(record.data_base64));
    }
    Ok(EffectRequest::Tool { run, index, call })
}

/// What the model reads of a file block: what it is and how to use it.
/// Why a file name cannot be stored.
fn name_problem(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty() {
        return Some("the file has no name".to_owned());
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Some(format!("a file name may have at most {NAME_MAX_CHARS} characters"));
    }
    if name.chars().any(|c| c.is_control() || c == '/' || c == '\\') {
        return Some("a file name may not hold folders or control characters".to_owned());
    }
    None
}

/// The size of the bytes `text` encodes in standard base64 (padding optional), or `None` when
/// it is not base64.
pub(crate) fn decoded_len(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    let body = bytes.strip_suffix(b"==").or_else(|| bytes.strip_suffix(b"=")).unwrap_or(bytes);
    if !body.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/') {
        return None;
    }
    let n = body.len() as u64;
    match n % 4 {
        1 => None,
        rest => Some(n / 4 * 3 + rest.saturating_sub(1)),
    }
}

#[cfg(test)]
#[path = "attachments_tests.rs"]
mod tests;
