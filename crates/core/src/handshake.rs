//! The `initialize` handshake: a UI must speak the engine's protocol name and schema hash, or it
//! is told to reload and its port is closed.

use panelot_protocol::AgentEvent;
use panelot_protocol::DecodeError;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::InitializeProbe;
use panelot_protocol::Op;
use panelot_protocol::engine::FatalReloadRequiredEvent;
use panelot_protocol::engine::InitializeParams;
use panelot_protocol::engine::InitializedEvent;
use panelot_protocol::engine::ThreadSnapshot;
use panelot_protocol::probe_initialize;
use serde_json::Value;

/// What the host does with the first message of a port.
#[derive(Debug, Clone, PartialEq)]
pub enum Handshake {
    /// Versions match: the session is open for this client.
    Accepted(InitializeParams),
    /// Send this event and close the port.
    Refused(Box<AgentEvent>),
}

/// Judges the first message of a port. A message that is not a valid current `initialize` but
/// carries the version fields of one is answered with `fatal.reload_required` (echoing the
/// client's protocol), so that a UI of any version stops reconnecting. Anything else is refused
/// the same way with an explanation.
pub fn judge_first_message(raw: Value) -> Handshake {
    let probe = probe_initialize(&raw);
    match panelot_protocol::decode_op(raw) {
        Ok(Op::Initialize(params)) => judge_versions(params),
        Ok(other) => Handshake::Refused(Box::new(reload_required(
            probe.unwrap_or_default(),
            format!("the first message must be `initialize`, not `{}`", other.kind().wire_name()),
        ))),
        Err(err) => Handshake::Refused(Box::new(reload_required(
            probe.unwrap_or_default(),
            version_or_decode_message(&err),
        ))),
    }
}

fn judge_versions(params: InitializeParams) -> Handshake {
    if params.protocol != ENGINE_PROTOCOL || params.schema_hash != ENGINE_SCHEMA_HASH {
        let probe = InitializeProbe {
            submission_id: params.submission_id.to_string(),
            protocol: params.protocol.clone(),
            schema_hash: params.schema_hash.clone(),
        };
        let message = format!(
            "this page was built for protocol {} with schema {}, the engine speaks {} with schema \
             {}; reload the extension pages",
            params.protocol, params.schema_hash, ENGINE_PROTOCOL, ENGINE_SCHEMA_HASH
        );
        return Handshake::Refused(Box::new(reload_required(probe, message)));
    }
    Handshake::Accepted(params)
}

fn version_or_decode_message(err: &DecodeError) -> String {
    format!("the first message is not a valid `initialize` ({err}); reload the extension pages")
}

/// The refusal of a first message that could not even be parsed.
pub fn reload_required_for(err: &DecodeError) -> AgentEvent {
    reload_required(InitializeProbe::default(), version_or_decode_message(err))
}

fn reload_required(probe: InitializeProbe, message: String) -> AgentEvent {
    AgentEvent::FatalReloadRequired(FatalReloadRequiredEvent {
        submission_id: probe.submission_id,
        protocol: probe.protocol,
        schema_hash: ENGINE_SCHEMA_HASH.to_owned(),
        message,
    })
}

/// The answer to an accepted `initialize`.
pub fn initialized(params: &InitializeParams, snapshot: Option<ThreadSnapshot>) -> AgentEvent {
    AgentEvent::Initialized(InitializedEvent {
        submission_id: params.submission_id.clone(),
        protocol: ENGINE_PROTOCOL.to_owned(),
        schema_hash: ENGINE_SCHEMA_HASH.to_owned(),
        snapshot,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn init(hash: &str) -> Value {
        json!({"type": "initialize", "submissionId": "s1", "protocol": ENGINE_PROTOCOL,
               "schemaHash": hash, "clientId": "c1"})
    }

    #[test]
    fn matching_versions_are_accepted() {
        let Handshake::Accepted(params) = judge_first_message(init(ENGINE_SCHEMA_HASH)) else {
            panic!("refused");
        };
        let AgentEvent::Initialized(event) = initialized(&params, None) else { panic!() };
        assert_eq!(event.schema_hash, ENGINE_SCHEMA_HASH);
        assert_eq!(event.submission_id.as_str(), "s1");
    }

    #[test]
    fn wrong_hash_is_told_to_reload_with_its_protocol_echoed() {
        let Handshake::Refused(refusal) = judge_first_message(init("0000")) else {
            panic!("accepted");
        };
        let AgentEvent::FatalReloadRequired(event) = *refusal else { panic!("{refusal:?}") };
        assert_eq!(event.protocol, ENGINE_PROTOCOL);
        assert_eq!(event.submission_id, "s1");
        assert!(event.message.contains("0000"), "{}", event.message);
    }

    #[test]
    fn an_older_client_shape_is_still_told_to_reload() {
        let old = json!({"type": "initialize", "submissionId": "s9", "protocol": "panelot/engine-v0",
                         "schemaHash": "abc", "protocolVersion": 3});
        let Handshake::Refused(refusal) = judge_first_message(old) else {
            panic!("accepted");
        };
        let AgentEvent::FatalReloadRequired(event) = *refusal else { panic!("{refusal:?}") };
        assert_eq!(
            (event.protocol.as_str(), event.submission_id.as_str()),
            ("panelot/engine-v0", "s9")
        );
    }

    #[test]
    fn a_first_message_that_is_not_initialize_is_refused() {
        let ping = json!({"type": "ping", "submissionId": "p"});
        assert!(matches!(judge_first_message(ping), Handshake::Refused(_)));
    }
}
