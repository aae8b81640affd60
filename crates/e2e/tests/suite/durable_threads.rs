//! The engine runs in the service worker over IndexedDB: a thread created and renamed through a
//! port survives the worker being killed, and the new worker streams under a newer epoch.

use panelot_e2e::Browser;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::EventFrame;
use panelot_protocol::decode_event;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

fn initialize(submission: &str, subscribe: Option<&str>) -> Value {
    let mut init = json!({"type": "initialize", "submissionId": submission, "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-durable"});
    if let Some(thread) = subscribe {
        init["subscribe"] = json!({"threadId": thread});
    }
    init
}

fn frames(result: &Value) -> Vec<EventFrame> {
    result["events"]
        .as_array()
        .unwrap_or_else(|| panic!("no events: {result}"))
        .iter()
        .map(|e| decode_event(e.clone()).unwrap_or_else(|err| panic!("engine sent {e}: {err}")))
        .collect()
}

#[test]
fn threads_survive_a_killed_service_worker() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");

    // initialized, thread.created, command.ack
    let result = browser
        .exchange(
            &page,
            &[initialize("i1", None), json!({"type": "thread.create", "submissionId": "create-1"})],
            3,
        )
        .unwrap();
    let created = frames(&result);
    let AgentEvent::CommandAck(ack) = &created[2].event else { panic!("{created:?}") };
    let thread = ack.thread_id.clone().expect("the ack names the thread");

    // initialized, thread.updated, command.ack
    let rename = json!({"type": "thread.update", "submissionId": "rename-1", "threadId": thread.as_str(),
        "patch": {"title": "Durable"}});
    let result = browser.exchange(&page, &[initialize("i2", None), rename], 3).unwrap();
    let renamed = frames(&result);
    assert!(
        matches!(&renamed[2].event, AgentEvent::CommandAck(a) if a.revision == Some(2)),
        "{renamed:?}"
    );
    let first_epoch = renamed[1].stream.as_ref().expect("thread events carry a cursor").epoch;

    browser.kill_service_worker().expect("kill the service worker");

    // A new port wakes a new worker, which finds the thread in IndexedDB.
    let result = browser.exchange(&page, &[initialize("i3", Some(thread.as_str()))], 1).unwrap();
    let reopened = frames(&result);
    let AgentEvent::Initialized(init) = &reopened[0].event else { panic!("{reopened:?}") };
    let snapshot = init.snapshot.as_ref().expect("the subscribed thread's snapshot");
    assert_eq!(
        (snapshot.meta.id.as_str(), snapshot.meta.title.as_str()),
        (thread.as_str(), "Durable")
    );
    let epoch = reopened[0].stream.as_ref().expect("the snapshot's cursor").epoch;
    assert!(
        epoch > first_epoch,
        "a new worker streams under a newer epoch ({epoch} after {first_epoch})"
    );

    // A resend of the lost-ack rename replays its stored answer instead of renaming again.
    let rename_again = json!({"type": "thread.update", "submissionId": "rename-1", "threadId": thread.as_str(),
        "patch": {"title": "Durable"}});
    let result = browser.exchange(&page, &[initialize("i4", None), rename_again], 2).unwrap();
    let replay = frames(&result);
    assert!(
        matches!(&replay[1].event, AgentEvent::CommandAck(a) if a.revision == Some(2)),
        "{replay:?}"
    );
}
