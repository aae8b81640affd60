//! One UI session over one port: the handshake, then Ops answered with events.
//!
//! The session is a pure state machine (text in, frames out) so every host (service worker,
//! native, simulation) drives it the same way and tests need no transport.

use panelot_protocol::AgentEvent;
use panelot_protocol::Budget;
use panelot_protocol::ClientId;
use panelot_protocol::DecodeError;
use panelot_protocol::EventFrame;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::CommandRejectedEvent;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ErrorEvent;
use panelot_protocol::parse_budgeted;
use serde_json::Value;

use panelot_protocol::engine::InitializeParams;

use crate::handshake::Handshake;
use crate::handshake::judge_first_message;

/// Frames to send on the port, and whether to close it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    /// Frames to post on the port, in order.
    pub frames: Vec<EventFrame>,
    /// Whether to close the port after posting them.
    pub close: bool,
}

impl Reply {
    fn one(event: AgentEvent) -> Self {
        Reply { frames: vec![EventFrame::new(event)], close: false }
    }
}

/// What a message means for the session.
// Consumed right away, never stored: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum SessionStep {
    /// Answer with this reply (a refusal, a decode error, a closed session).
    Reply(Reply),
    /// The handshake succeeded; the host answers `initialized` (with a snapshot if asked).
    Opened(Box<InitializeParams>),
    /// A valid Op on an open session.
    Op {
        /// The session's client.
        client_id: ClientId,
        /// The Op.
        op: Op,
    },
}

/// State of one port.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Session {
    /// Waiting for `initialize`.
    #[default]
    AwaitingInitialize,
    /// Handshake done.
    Open {
        /// The client, part of every command receipt key.
        client_id: ClientId,
    },
    /// Refused; the port is being closed.
    Closed,
}

impl Session {
    /// Whether the handshake succeeded.
    pub fn is_open(&self) -> bool {
        matches!(self, Session::Open { .. })
    }

    /// Handles one message received as text.
    pub fn on_text(&mut self, text: &str) -> SessionStep {
        match parse_budgeted(text, &Budget::OP) {
            Ok(value) => self.on_value(value),
            Err(err) => SessionStep::Reply(self.on_undecodable(None, &err)),
        }
    }

    /// Handles one parsed message.
    pub fn on_value(&mut self, raw: Value) -> SessionStep {
        match self {
            Session::AwaitingInitialize => self.handshake(raw),
            Session::Open { client_id } => {
                let client_id = client_id.clone();
                let submission_id = submission_id_of(&raw);
                match panelot_protocol::decode_op(raw) {
                    Ok(Op::Initialize(params)) => SessionStep::Reply(reject(
                        params.submission_id,
                        "the session is already initialized".into(),
                    )),
                    Ok(op) => SessionStep::Op { client_id, op },
                    Err(err) => SessionStep::Reply(self.on_undecodable(submission_id, &err)),
                }
            }
            Session::Closed => SessionStep::Reply(Reply { frames: Vec::new(), close: true }),
        }
    }

    fn handshake(&mut self, raw: Value) -> SessionStep {
        match judge_first_message(raw) {
            Handshake::Accepted(params) => {
                *self = Session::Open { client_id: params.client_id.clone() };
                SessionStep::Opened(Box::new(params))
            }
            Handshake::Refused(event) => {
                *self = Session::Closed;
                SessionStep::Reply(Reply { frames: vec![EventFrame::new(*event)], close: true })
            }
        }
    }

    fn on_undecodable(&mut self, submission_id: Option<SubmissionId>, err: &DecodeError) -> Reply {
        if matches!(self, Session::AwaitingInitialize) {
            *self = Session::Closed;
            let event = crate::handshake::reload_required_for(err);
            return Reply { frames: vec![EventFrame::new(event)], close: true };
        }
        match submission_id {
            Some(submission_id) => Reply::one(AgentEvent::CommandRejected(CommandRejectedEvent {
                submission_id,
                code: ErrorCode::InvalidCommand,
                message: err.to_string(),
            })),
            None => Reply::one(error_event(ErrorCode::InvalidCommand, &err.to_string())),
        }
    }
}

fn error_event(code: ErrorCode, message: &str) -> AgentEvent {
    AgentEvent::Error(ErrorEvent {
        submission_id: None,
        thread_id: None,
        code,
        message: message.to_owned(),
        retryable: false,
        error_kind: None,
        provider_details: None,
    })
}

/// An `error` event for a failure inside the engine (a store failure).
pub fn internal_error(message: &str) -> AgentEvent {
    error_event(ErrorCode::Internal, message)
}

fn submission_id_of(raw: &Value) -> Option<SubmissionId> {
    let text = raw.get("submissionId")?.as_str()?;
    SubmissionId::new(text).ok()
}

fn reject(submission_id: SubmissionId, message: String) -> Reply {
    Reply::one(AgentEvent::CommandRejected(CommandRejectedEvent {
        submission_id,
        code: ErrorCode::InvalidCommand,
        message,
    }))
}

#[cfg(test)]
mod tests {
    use panelot_protocol::ENGINE_PROTOCOL;
    use panelot_protocol::ENGINE_SCHEMA_HASH;
    use panelot_protocol::EventKind;
    use panelot_protocol::OpKind;

    use super::*;

    fn reply_kinds(step: &SessionStep) -> Vec<EventKind> {
        match step {
            SessionStep::Reply(reply) => reply.frames.iter().map(|f| f.event.kind()).collect(),
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    fn open() -> Session {
        let mut session = Session::default();
        let init = format!(
            r#"{{"type":"initialize","submissionId":"s1","protocol":"{ENGINE_PROTOCOL}","schemaHash":"{ENGINE_SCHEMA_HASH}","clientId":"c1"}}"#
        );
        assert!(
            matches!(session.on_text(&init), SessionStep::Opened(p) if p.client_id.as_str() == "c1")
        );
        assert!(session.is_open());
        session
    }

    #[test]
    fn ops_after_initialize_reach_the_engine_with_the_client() {
        let mut session = open();
        let step = session.on_text(r#"{"type":"ping","submissionId":"p1"}"#);
        assert!(
            matches!(&step, SessionStep::Op { client_id, op } if client_id.as_str() == "c1" && op.kind() == OpKind::Ping),
            "{step:?}"
        );
    }

    #[test]
    fn garbage_before_initialize_closes_with_reload_required() {
        let mut session = Session::default();
        let step = session.on_text("not json");
        assert_eq!(reply_kinds(&step), [EventKind::FatalReloadRequired]);
        assert!(matches!(step, SessionStep::Reply(Reply { close: true, .. })));
        assert_eq!(session, Session::Closed);
    }

    #[test]
    fn malformed_op_after_initialize_is_rejected_by_submission_id() {
        let mut session = open();
        let SessionStep::Reply(reply) =
            session.on_text(r#"{"type":"thread.delete","submissionId":"d1"}"#)
        else {
            panic!()
        };
        let AgentEvent::CommandRejected(event) = &reply.frames[0].event else { panic!() };
        assert_eq!((event.submission_id.as_str(), event.code), ("d1", ErrorCode::InvalidCommand));
        assert!(event.message.contains("threadId"), "{}", event.message);
        assert_eq!(reply_kinds(&session.on_text(r#"{"type":"ping"}"#)), [EventKind::Error]);
    }

    #[test]
    fn a_second_initialize_is_refused_and_the_session_stays_open() {
        let mut session = open();
        let again = format!(
            r#"{{"type":"initialize","submissionId":"s2","protocol":"{ENGINE_PROTOCOL}","schemaHash":"{ENGINE_SCHEMA_HASH}","clientId":"c1"}}"#
        );
        assert_eq!(reply_kinds(&session.on_text(&again)), [EventKind::CommandRejected]);
        assert!(session.is_open());
    }
}
