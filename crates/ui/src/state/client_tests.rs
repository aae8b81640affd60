//! Tests of the engine client state machine: handshake, outbox, reconnect, reload.

use panelot_protocol::decode_op_str;
use panelot_protocol::engine::ThreadCreateParams;
use panelot_protocol::engine::ThreadListParams;
use panelot_protocol::engine::TurnSubmitParams;
use panelot_protocol::engine::UserInput;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn client() -> EngineClient {
    let client_id = ClientId::new("client-1").unwrap();
    EngineClient::new(client_id, "page-a").unwrap()
}

/// Opens a port and answers the `initialize`, returning the effects of the answer.
fn connect(client: &mut EngineClient) -> Vec<ClientEffect> {
    let effects = client.opened();
    let init = sent_ops(&effects).into_iter().find(|op| matches!(op, Op::Initialize(_))).unwrap();
    let answer = json!({"type": "initialized", "submissionId": init.submission_id().as_str(),
        "protocol": ENGINE_PROTOCOL, "schemaHash": ENGINE_SCHEMA_HASH, "snapshot": null});
    client.received(&answer.to_string())
}

fn sent_ops(effects: &[ClientEffect]) -> Vec<Op> {
    effects
        .iter()
        .filter_map(|e| match e {
            ClientEffect::Send(text) => Some(decode_op_str(text).unwrap()),
            _ => None,
        })
        .collect()
}

fn submit(client: &mut EngineClient, text: &str) -> (SubmissionId, Vec<ClientEffect>) {
    let thread_id = ThreadId::new("t-1").unwrap();
    client
        .send(|submission_id| {
            Op::TurnSubmit(TurnSubmitParams {
                submission_id,
                thread_id,
                input: UserInput { text: text.to_owned(), ..UserInput::default() },
                overrides: None,
            })
        })
        .unwrap()
}

fn ids(ops: &[Op]) -> Vec<String> {
    ops.iter().map(|op| format!("{}:{}", op.kind().wire_name(), op.submission_id())).collect()
}

#[test]
fn handshake_sends_initialize_with_client_id_and_subscription() {
    let mut client = client();
    client.subscribe(ThreadId::new("t-1").unwrap());
    let effects = client.opened();
    let ops = sent_ops(&effects);
    let Some(Op::Initialize(init)) = ops.first() else { panic!("{effects:?}") };
    assert_eq!(init.client_id.as_str(), "client-1");
    assert_eq!(init.schema_hash, ENGINE_SCHEMA_HASH);
    assert_eq!(init.subscribe.as_ref().map(|s| s.thread_id.as_str()), Some("t-1"));
    assert_eq!(client.link(), &EngineLink::Connecting);

    let effects = connect(&mut client);
    assert_eq!(effects[0], ClientEffect::Status(EngineLink::Ready));
    assert!(matches!(effects.last(), Some(ClientEffect::Deliver(_))), "{effects:?}");
}

#[test]
fn commands_wait_in_the_outbox_until_acked() {
    let mut client = client();
    connect(&mut client);
    let (id, effects) = submit(&mut client, "hello");
    assert_eq!(ids(&sent_ops(&effects)), [format!("turn.submit:{id}")]);
    assert!(effects.iter().any(|e| matches!(e, ClientEffect::SaveOutbox(_))), "{effects:?}");
    assert_eq!(client.outbox().len(), 1);

    let ack = json!({"type": "command.ack", "submissionId": id.as_str(), "threadId": "t-1",
        "runId": null, "revision": null});
    let effects = client.received(&ack.to_string());
    assert!(client.outbox().is_empty());
    assert_eq!(effects[0], ClientEffect::SaveOutbox("[]".to_owned()));
    assert_eq!(
        effects[1],
        ClientEffect::Acked { submission_id: id, thread_id: Some(ThreadId::new("t-1").unwrap()) }
    );
}

#[test]
fn rejection_drops_the_command_and_asks_for_a_rollback() {
    let mut client = client();
    connect(&mut client);
    let (id, _) = submit(&mut client, "hello");
    let rejected = json!({"type": "command.rejected", "submissionId": id.as_str(),
        "code": "queue_full", "message": "the queue is full"});
    let effects = client.received(&rejected.to_string());
    assert!(client.outbox().is_empty());
    assert_eq!(
        effects.last(),
        Some(&ClientEffect::Rejected {
            submission_id: id,
            code: ErrorCode::QueueFull,
            message: "the queue is full".to_owned()
        })
    );
}

#[test]
fn unacknowledged_commands_are_resent_with_the_same_ids_after_reconnect() {
    let mut client = client();
    connect(&mut client);
    let (first, _) = submit(&mut client, "one");
    let (second, _) = submit(&mut client, "two");
    let ack = json!({"type": "command.ack", "submissionId": first.as_str(), "threadId": null,
        "runId": null, "revision": null});
    client.received(&ack.to_string());

    let effects = client.closed();
    assert_eq!(
        effects,
        [
            ClientEffect::Status(EngineLink::Reconnecting { attempt: 0 }),
            ClientEffect::ReconnectAfter(500)
        ]
    );
    let effects = connect(&mut client);
    assert_eq!(ids(&sent_ops(&effects)), [format!("turn.submit:{second}")]);
}

#[test]
fn commands_sent_while_disconnected_go_out_once_the_session_opens() {
    let mut client = client();
    client.opened();
    client.closed();
    let (id, effects) = submit(&mut client, "offline");
    assert!(sent_ops(&effects).is_empty(), "{effects:?}");
    let effects = connect(&mut client);
    assert_eq!(ids(&sent_ops(&effects)), [format!("turn.submit:{id}")]);
}

#[test]
fn control_ops_are_not_kept_in_the_outbox() {
    let mut client = client();
    connect(&mut client);
    let (_, effects) = client
        .send(|submission_id| {
            Op::ThreadList(ThreadListParams { submission_id, include_archived: false })
        })
        .unwrap();
    assert_eq!(sent_ops(&effects).len(), 1);
    assert!(client.outbox().is_empty());
}

#[test]
fn the_outbox_survives_a_page_reload() {
    let mut client = client();
    let (_, effects) = client
        .send(|submission_id| {
            Op::ThreadCreate(ThreadCreateParams { submission_id, preset: None, folder_id: None })
        })
        .unwrap();
    let Some(ClientEffect::SaveOutbox(saved)) = effects.last() else { panic!("{effects:?}") };

    let mut reloaded = EngineClient::new(ClientId::new("client-1").unwrap(), "page-b").unwrap();
    assert_eq!(reloaded.restore_outbox(saved), 1);
    assert_eq!(reloaded.restore_outbox("not json"), 0);
    let effects = connect(&mut reloaded);
    assert_eq!(ids(&sent_ops(&effects)), ["thread.create:page-a-1"]);
}

#[test]
fn a_restored_outbox_keeps_commands_with_valid_ids_and_resends_them_as_saved() {
    let create = json!({"type": "thread.create", "submissionId": "old-1", "preset": null,
        "folderId": null});
    let saved = json!([
        create,
        {"type": "thread.list", "submissionId": "old-2", "includeArchived": false},
        {"type": "thread.explode", "submissionId": "old-3"},
        {"type": "thread.delete", "submissionId": "bad id", "threadId": "t"},
        {"type": "thread.delete", "threadId": "t"},
        {"type": 5, "submissionId": "old-4"},
        "thread.create",
        create,
    ]);
    let mut reloaded = client();
    assert_eq!(reloaded.restore_outbox(&saved.to_string()), 2);
    assert_eq!(reloaded.outbox().len(), 1, "the same command once");
    let effects = connect(&mut reloaded);
    let sent: Vec<&String> = effects
        .iter()
        .filter_map(|e| match e {
            ClientEffect::Send(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(sent, [&create.to_string()]);
}

#[test]
fn the_saved_outbox_is_the_array_of_pending_ops() {
    let mut client = client();
    let (first, _) = submit(&mut client, "one");
    let (_, effects) = submit(&mut client, "two");
    let Some(ClientEffect::SaveOutbox(saved)) = effects.last() else { panic!("{effects:?}") };
    let ops: Vec<Op> = serde_json::from_str::<Vec<serde_json::Value>>(saved)
        .unwrap()
        .into_iter()
        .map(|value| decode_op_str(&value.to_string()).unwrap())
        .collect();
    assert_eq!(ids(&ops), [format!("turn.submit:{first}"), "turn.submit:page-a-2".to_owned()]);
}

#[test]
fn reconnect_backoff_doubles_up_to_eight_seconds_and_resets_on_success() {
    assert_eq!(
        (0..8).map(reconnect_delay_ms).collect::<Vec<_>>(),
        [500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]
    );
    assert_eq!(reconnect_delay_ms(u32::MAX), 8000);

    let mut client = client();
    let delays: Vec<u32> = (0..4)
        .map(|_| {
            client.opened();
            client.closed().into_iter().find_map(|e| match e {
                ClientEffect::ReconnectAfter(ms) => Some(ms),
                _ => None,
            })
        })
        .map(Option::unwrap)
        .collect();
    assert_eq!(delays, [500, 1000, 2000, 4000]);
    connect(&mut client);
    assert_eq!(client.closed().last(), Some(&ClientEffect::ReconnectAfter(500)));
}

#[test]
fn reload_required_stops_reconnecting_and_disables_input() {
    let mut client = client();
    client.opened();
    let fatal = json!({"type": "fatal.reload_required", "submissionId": "x",
        "protocol": ENGINE_PROTOCOL, "schemaHash": "other", "message": "reload Panelot"});
    let effects = client.received(&fatal.to_string());
    assert_eq!(
        effects[0],
        ClientEffect::Status(EngineLink::ReloadRequired { message: "reload Panelot".to_owned() })
    );
    assert!(client.closed().is_empty());
    assert!(client.opened().is_empty());
    assert!(!client.input_enabled());
    let refused = client.send(|submission_id| Op::Ping(PingParams { submission_id }));
    assert_eq!(refused.err(), Some(ClientError::ReloadRequired));
}

#[test]
fn heartbeat_pings_only_while_ready() {
    let mut client = client();
    assert!(client.heartbeat().is_empty());
    connect(&mut client);
    let ops = sent_ops(&client.heartbeat());
    assert!(matches!(ops.as_slice(), [Op::Ping(_)]), "{ops:?}");
    assert_eq!(PING_INTERVAL_MS, 20_000);
}

#[test]
fn unknown_events_are_ignored_and_malformed_known_ones_reported() {
    let mut client = client();
    connect(&mut client);
    assert!(client.received(r#"{"type":"from.the.future","x":1}"#).is_empty());
    let effects = client.received(r#"{"type":"pong"}"#);
    assert!(
        matches!(effects.as_slice(), [ClientEffect::Malformed(m)] if m.contains("pong")),
        "{effects:?}"
    );
    let effects = client.received("{");
    assert!(matches!(effects.as_slice(), [ClientEffect::Malformed(_)]), "{effects:?}");
}

#[test]
fn an_initialized_for_an_old_port_is_ignored() {
    let mut client = client();
    client.opened();
    client.closed();
    let stale = json!({"type": "initialized", "submissionId": "page-a-1",
        "protocol": ENGINE_PROTOCOL, "schemaHash": ENGINE_SCHEMA_HASH, "snapshot": null});
    assert!(client.received(&stale.to_string()).is_empty());
    assert_eq!(client.link(), &EngineLink::Reconnecting { attempt: 0 });
}

/// `early.js` reads the client id before the wasm runs: under another key every page would make
/// a new client, and a resent command would no longer find its receipt.
#[test]
fn the_early_script_reads_the_client_id_under_its_key() {
    let early = include_str!("../../static/early.js");
    assert!(early.contains(&format!("chrome.storage.local.get(\"{CLIENT_ID_KEY}\")")), "{early}");
}

#[test]
fn a_large_command_is_sent_and_kept_but_left_out_of_the_saved_outbox() {
    let mut client = client();
    connect(&mut client);
    let (small, _) = submit(&mut client, "hello");
    let (large, effects) = submit(&mut client, &"x".repeat(OUTBOX_SAVE_MAX_BYTES));
    assert_eq!(sent_ops(&effects).len(), 1, "sent now like any command");
    assert_eq!(client.outbox().len(), 2, "and resent after a reconnect");
    let Some(ClientEffect::SaveOutbox(saved)) = effects.last() else { panic!("{effects:?}") };
    assert!(saved.contains(small.as_str()), "{saved}");
    assert!(!saved.contains(large.as_str()), "the large one is not saved");
}
