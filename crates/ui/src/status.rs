//! The page shell and its engine-status line.

use wasm_bindgen::JsValue;
use web_sys::Element;

/// Engine connection as shown to the user; `data-engine-status` carries the machine name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EngineStatus {
    Connecting,
    Ready,
    ReloadRequired,
    Disconnected,
}

impl EngineStatus {
    fn name(self) -> &'static str {
        match self {
            EngineStatus::Connecting => "connecting",
            EngineStatus::Ready => "ready",
            EngineStatus::ReloadRequired => "reload-required",
            EngineStatus::Disconnected => "disconnected",
        }
    }
}

/// The status line of the page.
#[derive(Debug, Clone)]
pub(crate) struct StatusLine {
    element: Element,
}

impl StatusLine {
    pub(crate) fn set(&self, status: EngineStatus, text: &str) {
        let _ = self.element.set_attribute("data-engine-status", status.name());
        self.element.set_text_content(Some(text));
    }

    pub(crate) fn current(&self) -> Option<String> {
        self.element.get_attribute("data-engine-status")
    }
}

fn page_title(entry: &str) -> &'static str {
    match entry {
        "chat" => "Panelot — Chat",
        "options" => "Panelot — Settings",
        _ => "Panelot",
    }
}

/// Builds the shell into `<body>` and returns its status line.
pub(crate) fn mount(entry: &str) -> Result<StatusLine, JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    document.set_title(page_title(entry));
    let body = document.body().ok_or_else(|| JsValue::from_str("no body"))?;
    let main = document.create_element("main")?;
    main.set_class_name("panelot");
    main.set_attribute("data-entry", entry)?;
    let heading = document.create_element("h1")?;
    heading.set_text_content(Some("Panelot"));
    let element = document.create_element("p")?;
    element.set_id("engine-status");
    main.append_child(&heading)?;
    main.append_child(&element)?;
    body.append_child(&main)?;
    let line = StatusLine { element };
    line.set(EngineStatus::Connecting, "Connecting to the engine…");
    Ok(line)
}
