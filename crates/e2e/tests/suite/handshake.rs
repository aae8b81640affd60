//! The engine in the service worker answers `initialize`: the right schema hash opens a session,
//! a wrong one gets `fatal.reload_required` and a closed port. The UI page shell does the same
//! handshake on its own.

use panelot_e2e::Browser;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

fn exchange(
    browser: &mut Browser,
    page: &panelot_testkit::cdp::Page,
    messages: &[Value],
    expected: usize,
) -> Value {
    browser.exchange(page, messages, expected).unwrap_or_else(|err| panic!("{err:#}"))
}

fn initialize(hash: &str) -> Value {
    json!({"type": "initialize", "submissionId": "e2e-init", "protocol": ENGINE_PROTOCOL,
           "schemaHash": hash, "clientId": "e2e-client"})
}

fn decoded(events: &Value) -> Vec<AgentEvent> {
    events
        .as_array()
        .expect("events array")
        .iter()
        .map(|e| {
            decode_event(e.clone()).unwrap_or_else(|err| panic!("engine sent {e}: {err}")).event
        })
        .collect()
}

#[test]
fn engine_handshake_in_chromium() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_extension_page("sidepanel.html").expect("open the side panel page");

    // The right hash: `initialized` with the engine's hash, then the session answers a ping.
    let result = exchange(
        &mut browser,
        &page,
        &[initialize(ENGINE_SCHEMA_HASH), json!({"type": "ping", "submissionId": "e2e-ping"})],
        2,
    );
    assert_eq!(result["how"], "complete", "{result}");
    let events = decoded(&result["events"]);
    let AgentEvent::Initialized(init) = &events[0] else { panic!("first event: {events:?}") };
    assert_eq!(
        (init.submission_id.as_str(), init.protocol.as_str(), init.schema_hash.as_str()),
        ("e2e-init", ENGINE_PROTOCOL, ENGINE_SCHEMA_HASH)
    );
    assert!(
        matches!(&events[1], AgentEvent::Pong(p) if p.submission_id.as_str() == "e2e-ping"),
        "{events:?}"
    );

    // A wrong hash: `fatal.reload_required` echoing the client's protocol, then the port closes
    // (the engine closes it: nothing else arrives and the page sees the disconnect).
    let result = exchange(&mut browser, &page, &[initialize("0123abcd")], 2);
    assert_eq!(result["how"], "disconnected", "{result}");
    let events = decoded(&result["events"]);
    assert_eq!(events.len(), 1, "{events:?}");
    let AgentEvent::FatalReloadRequired(fatal) = &events[0] else { panic!("{events:?}") };
    assert_eq!(
        (fatal.submission_id.as_str(), fatal.protocol.as_str(), fatal.schema_hash.as_str()),
        ("e2e-init", ENGINE_PROTOCOL, ENGINE_SCHEMA_HASH)
    );
    assert!(fatal.message.contains("0123abcd"), "{}", fatal.message);

    // The page's own wasm UI did the same handshake and shows the engine as ready.
    let ready = browser.cdp.wait_until(
        &page,
        panelot_e2e::side_panel::sel::READY,
        std::time::Duration::from_secs(30),
    );
    if let Err(err) = ready {
        let body = browser.cdp.evaluate(&page, "document.body.outerHTML").unwrap_or_default();
        panic!("the UI never showed the engine ready: {err}\npage: {body}\n{}", browser.log_tail());
    }
}
