//! Messages on their way to the engine, kept with what they carried until the engine answers,
//! so that a refused message (a full queue, a turn that ended meanwhile, a file the engine did
//! not take) gives the composer back its text, its context chips and its files, not the text
//! alone.
//!
//! A file is stored with its thread by its own `attachment.put`, sent before the message; the
//! engine answers commands in order, so when the message is refused every put before it has
//! been answered: a file whose put was not refused is stored in that thread. Such a file comes
//! back marked so ([`PendingFile::stored_in`]): sent to that thread again it is named without
//! storing its bytes twice, and sent to another thread it goes under a new id (an id names one
//! file of one thread; the engine refuses it otherwise with `attachment_id_taken`). A file whose
//! put was refused does not come back: the composer says why next to the box.

use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ErrorCode;

use super::files::PendingFile;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

/// The messages sent from this page that the engine has not answered yet.
#[derive(Debug, Default)]
pub struct Sent {
    messages: Vec<SentMessage>,
}

/// A message as it was sent.
#[derive(Debug)]
struct SentMessage {
    submission_id: SubmissionId,
    thread_id: ThreadId,
    text: String,
    attached: Vec<ContextBlock>,
    files: Vec<SentFile>,
}

/// A file of a sent message.
#[derive(Debug)]
pub struct SentFile {
    /// The file, under the id the message names.
    pub file: PendingFile,
    /// The `attachment.put` that stores it; `None` when it was stored before (a message given
    /// back and sent again to the same thread).
    pub put: Option<SubmissionId>,
    /// The engine refused the put.
    refused: bool,
}

impl SentFile {
    /// A file sent with its message: stored by `put`, or stored already (`None`).
    pub fn new(file: PendingFile, put: Option<SubmissionId>) -> SentFile {
        SentFile { file, put, refused: false }
    }
}

/// What a refused message gives back to the composer.
#[derive(Debug, Clone, PartialEq)]
pub struct GivenBack {
    /// The text.
    pub text: String,
    /// The context chips.
    pub attached: Vec<ContextBlock>,
    /// The files the engine stored, marked as stored in the message's thread.
    pub files: Vec<PendingFile>,
    /// A file's put was refused (its refusal, shown by the box, is why the message was).
    pub lost_files: bool,
}

/// A refused `attachment.put` of a file of a sent message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutRefused {
    /// The file's name.
    pub name: String,
    /// The engine's code.
    pub code: ErrorCode,
}

impl Sent {
    /// Keeps what the message `submission_id` to `thread_id` carried until it is answered.
    pub fn record(
        &mut self,
        submission_id: SubmissionId,
        thread_id: ThreadId,
        text: String,
        attached: Vec<ContextBlock>,
        files: Vec<SentFile>,
    ) {
        self.messages.push(SentMessage { submission_id, thread_id, text, attached, files });
    }

    /// The engine took the message: nothing to give back any more.
    pub fn accepted(&mut self, submission_id: &SubmissionId) {
        self.messages.retain(|m| &m.submission_id != submission_id);
    }

    /// The engine refused the command `submission_id`: when it is the put of a file of a sent
    /// message, that file is marked and described. `None` for any other command.
    pub fn put_refused(
        &mut self,
        submission_id: &SubmissionId,
        code: ErrorCode,
    ) -> Option<PutRefused> {
        let file = self
            .messages
            .iter_mut()
            .flat_map(|m| m.files.iter_mut())
            .find(|f| f.put.as_ref() == Some(submission_id))?;
        file.refused = true;
        Some(PutRefused { name: file.file.name.clone(), code })
    }

    /// The engine refused the message `submission_id`: what it carried, to give back.
    pub fn refused(&mut self, submission_id: &SubmissionId) -> Option<GivenBack> {
        let at = self.messages.iter().position(|m| &m.submission_id == submission_id)?;
        let message = self.messages.remove(at);
        let lost_files = message.files.iter().any(|f| f.refused);
        let files = message
            .files
            .into_iter()
            .filter(|f| !f.refused)
            .map(|f| PendingFile { stored_in: Some(message.thread_id.clone()), ..f.file })
            .collect();
        Some(GivenBack { text: message.text, attached: message.attached, files, lost_files })
    }
}

impl PutRefused {
    /// What the composer says of it, in `lang`, next to the box: the engine's `code` in
    /// words (`message` is its English explanation, for a code without words of its own).
    pub fn line(&self, lang: Lang, message: &str) -> String {
        let name = [("name", self.name.as_str())];
        match self.code {
            ErrorCode::AttachmentIdTaken => i18n::format(lang, Msg::FileIdTaken, &name),
            ErrorCode::AttachmentTooLarge => i18n::format(lang, Msg::FileTooLarge, &name),
            ErrorCode::ProtocolMismatch
            | ErrorCode::ThreadNotFound
            | ErrorCode::TurnMismatch
            | ErrorCode::TurnNotSteerable
            | ErrorCode::NoActiveTurn
            | ErrorCode::QueueFull
            | ErrorCode::Overloaded
            | ErrorCode::Interrupted
            | ErrorCode::ProviderError
            | ErrorCode::NotConfigured
            | ErrorCode::InvalidCommand
            | ErrorCode::Internal
            | ErrorCode::AttachmentNotFound => {
                let detail = i18n::engine_text(lang, message);
                i18n::format(lang, Msg::FileNotStored, &[("name", &self.name), ("detail", &detail)])
            }
        }
    }
}

/// How a file goes with a message to `thread`: named as it is (stored there already), or stored
/// by a put, under a new id (`fresh_id`) when another thread stored it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sending {
    /// Stored in the thread already: only named.
    Named,
    /// To store with an `attachment.put` first.
    Put,
}

/// How `file` goes with a message to `thread`; a file stored by another thread gets the id
/// `fresh_id` first.
pub fn sending(
    file: &mut PendingFile,
    thread: &ThreadId,
    fresh_id: impl FnOnce() -> Option<panelot_protocol::AttachmentId>,
) -> Sending {
    match &file.stored_in {
        Some(stored) if stored == thread => Sending::Named,
        Some(_) => {
            if let Some(id) = fresh_id() {
                file.id = id;
            }
            file.stored_in = None;
            Sending::Put
        }
        None => Sending::Put,
    }
}

#[cfg(test)]
#[path = "sent_tests.rs"]
mod tests;
