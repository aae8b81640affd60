//! The page's port to the engine: `chrome.runtime.connect`, the `initialize` handshake, and
//! validated events.

use js_sys::Function;
use js_sys::JSON;
use panelot_protocol::AgentEvent;
use panelot_protocol::DecodeError;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event_str;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::status::EngineStatus;
use crate::status::StatusLine;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = connect)]
    fn runtime_connect(info: &JsValue) -> Port;

    type Port;
    #[wasm_bindgen(method, js_name = postMessage)]
    fn post_message(this: &Port, message: &JsValue);
    #[wasm_bindgen(method, getter, js_name = onMessage)]
    fn on_message(this: &Port) -> PortEvent;
    #[wasm_bindgen(method, getter, js_name = onDisconnect)]
    fn on_disconnect(this: &Port) -> PortEvent;

    type PortEvent;
    #[wasm_bindgen(method, js_name = addListener)]
    fn add_listener(this: &PortEvent, listener: &Function);
}

fn client_id() -> String {
    web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| "panelot-ui".to_owned())
}

/// Connects, sends `initialize`, and keeps the status line in step with the engine.
pub(crate) fn connect(status: StatusLine) -> Result<(), JsValue> {
    let port = runtime_connect(&JSON::parse(r#"{"name":"panelot-ui"}"#)?);

    let on_status = status.clone();
    let on_message = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
        let text = JSON::stringify(&message).ok().and_then(|s| s.as_string()).unwrap_or_default();
        handle_event(&on_status, &text);
    });
    port.on_message().add_listener(on_message.as_ref().unchecked_ref());
    on_message.forget();

    let on_status = status;
    let on_disconnect = Closure::<dyn FnMut()>::new(move || {
        if on_status.current().as_deref() != Some("reload-required") {
            on_status.set(EngineStatus::Disconnected, "The engine disconnected.");
        }
    });
    port.on_disconnect().add_listener(on_disconnect.as_ref().unchecked_ref());
    on_disconnect.forget();

    let initialize = json!({
        "type": "initialize",
        "submissionId": client_id(),
        "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH,
        "clientId": client_id(),
    });
    port.post_message(&JSON::parse(&initialize.to_string())?);
    Ok(())
}

fn handle_event(status: &StatusLine, text: &str) {
    match decode_event_str(text) {
        Ok(frame) => match frame.event {
            AgentEvent::Initialized(_) => {
                status.set(EngineStatus::Ready, "Connected to the engine.")
            }
            AgentEvent::FatalReloadRequired(event) => {
                status.set(EngineStatus::ReloadRequired, &event.message);
            }
            _ => {}
        },
        // Unknown event types come from a newer engine: ignored by design.
        Err(DecodeError::UnknownType(_)) => {}
        Err(err) => web_sys::console::error_1(&JsValue::from_str(&format!(
            "panelot: malformed engine event: {err}"
        ))),
    }
}
