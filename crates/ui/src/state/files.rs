//! Files the user attaches to the next message: which of the picked files fit the limits (a
//! file, a message's files together, how many), the chips the composer and the message bubble
//! show, and the commands that send them (each file is stored with the thread by
//! `attachment.put` before the message that names it).

use panelot_protocol::AttachmentId;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ATTACHMENT_MAX_BYTES;
use panelot_protocol::engine::AttachmentPutParams;
use panelot_protocol::engine::ContextContent;
use panelot_protocol::engine::MESSAGE_ATTACHMENTS_MAX;
use panelot_protocol::engine::MESSAGE_ATTACHMENTS_MAX_BYTES;
use panelot_protocol::engine::UserInput;

/// A file the user picked, before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickedFile {
    /// Its name.
    pub name: String,
    /// Its size.
    pub size_bytes: u64,
}

/// A file attached to the next message, read and waiting to be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFile {
    /// The id it will be stored under.
    pub id: AttachmentId,
    /// Its name.
    pub name: String,
    /// Its MIME type (`application/octet-stream` when the browser does not know).
    pub mime: String,
    /// Its size.
    pub size_bytes: u64,
    /// Its bytes, base64.
    pub data_base64: String,
    /// The thread that stores it already under `id` (a refused message's file, given back);
    /// `None` for a file not sent yet.
    pub stored_in: Option<ThreadId>,
}

/// A file chip: on the composer's next message or on a sent one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChip {
    /// The attachment.
    pub id: String,
    /// The file's name.
    pub name: String,
    /// Its size.
    pub size_bytes: u64,
}

/// Why a picked file is not attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRefusal {
    /// The file alone is over [`ATTACHMENT_MAX_BYTES`].
    TooLarge {
        /// The file.
        name: String,
    },
    /// With the files already attached, the message would be over
    /// [`MESSAGE_ATTACHMENTS_MAX_BYTES`].
    MessageTooLarge {
        /// The file.
        name: String,
    },
    /// The message already has [`MESSAGE_ATTACHMENTS_MAX`] files.
    TooMany {
        /// The file.
        name: String,
    },
}

/// Which of `picked` may join a message that has `attached` already (in order, each counted
/// with the ones accepted before it): `Ok` for those, the refusal for the others. Nothing
/// attached is dropped.
pub fn admit(attached: &[PendingFile], picked: &[PickedFile]) -> Vec<Result<(), FileRefusal>> {
    let mut count = attached.len();
    let mut total: u64 = attached.iter().map(|f| f.size_bytes).sum();
    picked
        .iter()
        .map(|file| {
            let name = file.name.clone();
            if file.size_bytes > ATTACHMENT_MAX_BYTES {
                return Err(FileRefusal::TooLarge { name });
            }
            if count >= MESSAGE_ATTACHMENTS_MAX {
                return Err(FileRefusal::TooMany { name });
            }
            if total + file.size_bytes > MESSAGE_ATTACHMENTS_MAX_BYTES {
                return Err(FileRefusal::MessageTooLarge { name });
            }
            count += 1;
            total += file.size_bytes;
            Ok(())
        })
        .collect()
}

/// A size as a person reads it: bytes, KB or MB (of 1,000, as the limits are said).
pub fn size_label(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..999_500 => format!("{} KB", (bytes + 500) / 1_000),
        _ => {
            let tenths = (bytes + 50_000) / 100_000;
            match tenths % 10 {
                0 => format!("{} MB", tenths / 10),
                rest => format!("{}.{rest} MB", tenths / 10),
            }
        }
    }
}

/// The chips of a sent message: its file blocks, as the engine described them.
pub fn chips_of(input: &UserInput) -> Vec<FileChip> {
    input
        .attached_context
        .iter()
        .filter_map(|block| match &block.content {
            ContextContent::File { attachment_id, size_bytes, .. } => Some(FileChip {
                id: attachment_id.to_string(),
                name: block.label.clone(),
                size_bytes: *size_bytes,
            }),
            ContextContent::Text { .. } | ContextContent::Image { .. } | ContextContent::Empty => {
                None
            }
        })
        .collect()
}

/// The chip of a file waiting to be sent.
pub fn chip_of(file: &PendingFile) -> FileChip {
    FileChip { id: file.id.to_string(), name: file.name.clone(), size_bytes: file.size_bytes }
}

/// The `attachment.put` that stores `file` with `thread`.
pub fn put_op(submission_id: SubmissionId, thread_id: ThreadId, file: PendingFile) -> Op {
    Op::AttachmentPut(AttachmentPutParams {
        submission_id,
        thread_id,
        attachment_id: file.id,
        name: file.name,
        mime: file.mime,
        data_base64: file.data_base64,
    })
}

/// The bytes of a `data:` URL (what `FileReader.readAsDataURL` gives), base64.
pub fn base64_of_data_url(url: &str) -> Option<&str> {
    let (head, data) = url.split_once(',')?;
    head.ends_with(";base64").then_some(data)
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
