//! One form's save, from the click to the engine's answer: the problems that kept it from being
//! sent, the submission waiting for its answer (with what was stored when it left, so a new
//! record is the id that appears), or the engine's refusal. The connection and MCP server
//! editors share it; `P` is the form's problem list entry, `K` the stored records' id.

use panelot_protocol::SubmissionId;

/// A save sent and waiting for the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSave<K> {
    /// The save sent.
    pub submission_id: SubmissionId,
    /// The records stored when it was sent (a new one is the id that appears).
    pub known: Vec<K>,
    /// The engine acknowledged it.
    pub acked: bool,
}

/// What became of an editor's last save.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SaveStatus<P, K> {
    /// Nothing sent since the form was opened.
    #[default]
    Idle,
    /// Not sent: what is wrong with the fields.
    Invalid(Vec<P>),
    /// Sent; waiting for the engine.
    Waiting(PendingSave<K>),
    /// The engine refused it, for this reason.
    Refused(String),
}

impl<P, K> SaveStatus<P, K> {
    /// Records that the save `submission_id` went out while `known` were stored.
    pub fn sent(&mut self, submission_id: SubmissionId, known: Vec<K>) {
        *self = SaveStatus::Waiting(PendingSave { submission_id, known, acked: false });
    }

    /// Takes the engine's answer to `submission_id` (`refusal` is the reason of a rejection);
    /// returns whether it answered this save.
    pub fn answer(&mut self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        let SaveStatus::Waiting(pending) = self else { return false };
        if &pending.submission_id != submission_id {
            return false;
        }
        match refusal {
            None => pending.acked = true,
            Some(reason) => *self = SaveStatus::Refused(reason.to_owned()),
        }
        true
    }
}
