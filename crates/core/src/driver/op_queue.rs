//! Back-pressure before the engine: a host queues port messages while the engine works through
//! earlier ones, and at most [`OP_QUEUE_CAPACITY`] commands per thread may wait. One more is
//! refused at once with `overloaded` (not receipted: a resend later is judged afresh), so a
//! flooding client cannot grow the worker's memory without bound.

use panelot_protocol::AgentEvent;
use panelot_protocol::EventFrame;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CommandRejectedEvent;
use panelot_protocol::engine::ErrorCode;
use serde::Deserialize;

use crate::sorted_map::SortedMap;

/// Commands that may wait per thread.
pub const OP_QUEUE_CAPACITY: usize = 32;

/// What a host needs to know of a queued message without decoding it fully.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Peek {
    submission_id: Option<String>,
    thread_id: Option<String>,
}

/// A place in the queue, returned with [`OpQueue::done`] once the engine handled the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket(Option<ThreadId>);

/// Counts of waiting commands per thread.
#[derive(Debug, Default)]
pub struct OpQueue {
    waiting: SortedMap<ThreadId, usize>,
}

impl OpQueue {
    /// A queue with nothing waiting.
    pub fn new() -> Self {
        Self::default()
    }

    /// Admits a message about to be queued, or refuses it with the frame to send back. Messages
    /// that name no thread (or do not parse: the engine reports those) always pass.
    pub fn admit(&mut self, text: &str) -> Result<Ticket, Box<EventFrame>> {
        let peek: Option<Peek> = serde_json::from_str(text).ok();
        let Some(Peek { submission_id, thread_id: Some(thread) }) = peek else {
            return Ok(Ticket(None));
        };
        let Ok(thread) = ThreadId::new(thread) else {
            return Ok(Ticket(None));
        };
        let waiting = self.waiting.get_or_insert_with(thread.clone(), || 0);
        if *waiting >= OP_QUEUE_CAPACITY {
            let submission = submission_id.and_then(|s| SubmissionId::new(s).ok());
            let Some(submission_id) = submission else {
                // Without an id there is nobody to answer; the engine rejects it anyway.
                return Ok(Ticket(None));
            };
            let rejected = AgentEvent::CommandRejected(CommandRejectedEvent {
                submission_id,
                code: ErrorCode::Overloaded,
                message: format!(
                    "{OP_QUEUE_CAPACITY} commands for this thread are already waiting; try again"
                ),
            });
            return Err(Box::new(EventFrame::new(rejected)));
        }
        *waiting += 1;
        Ok(Ticket(Some(thread)))
    }

    /// The engine has handled the message of `ticket`.
    pub fn done(&mut self, ticket: Ticket) {
        if let Some(thread) = ticket.0
            && let Some(waiting) = self.waiting.get_mut(&thread)
        {
            *waiting = waiting.saturating_sub(1);
            if *waiting == 0 {
                self.waiting.remove(&thread);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn submit(n: usize, thread: &str) -> String {
        format!(
            r#"{{"type":"turn.submit","submissionId":"s{n}","threadId":"{thread}","input":{{"text":"x"}}}}"#
        )
    }

    #[test]
    fn the_thirty_third_waiting_command_of_a_thread_is_refused_until_one_is_done() {
        let mut queue = OpQueue::new();
        let tickets: Vec<Ticket> =
            (0..OP_QUEUE_CAPACITY).map(|n| queue.admit(&submit(n, "t1")).unwrap()).collect();
        let refused = queue.admit(&submit(99, "t1")).unwrap_err();
        match &refused.event {
            AgentEvent::CommandRejected(r) => {
                assert_eq!((r.code, r.submission_id.as_str()), (ErrorCode::Overloaded, "s99"));
            }
            other => panic!("{other:?}"),
        }
        // Other threads and thread-less messages are not affected.
        assert!(queue.admit(&submit(100, "t2")).is_ok());
        assert!(queue.admit(r#"{"type":"ping","submissionId":"p"}"#).is_ok());
        assert!(queue.admit("not json").is_ok());
        queue.done(tickets[0].clone());
        assert!(queue.admit(&submit(101, "t1")).is_ok());
    }
}
