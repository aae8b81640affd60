//! Starts a page: its language and title, the contexts, the engine port (whose effects go to the
//! router), and the mounted [`App`](crate::views::App).

use leptos::prelude::*;
use panelot_protocol::ThreadId;
use wasm_bindgen::JsValue;

use crate::contexts;
use crate::contexts::PageKind;
use crate::host;
use crate::i18n::Lang;
use crate::views::App;

/// Mounts the page `entry` and connects to the engine, with what `early.js` read from
/// `chrome.storage` (`stored`).
pub(crate) fn start(entry: &str, stored: &JsValue) -> Result<(), JsValue> {
    let kind = PageKind::from_name(entry);
    let lang = web_sys::window()
        .and_then(|w| w.navigator().language())
        .map(|tag| Lang::from_tag(&tag))
        .unwrap_or_default();
    let thread_param = query_thread();
    // One outbox per page, so that the side panel and a chat tab do not overwrite each other's.
    let outbox_key = match &thread_param {
        Some(thread_id) => format!("panelot.outbox.{}.{thread_id}", kind.name()),
        None => format!("panelot.outbox.{}", kind.name()),
    };
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(match kind {
            PageKind::SidePanel => "Panelot",
            PageKind::Chat => "Panelot — Chat",
            PageKind::Options => "Panelot — Settings",
        });
        if let Some(root) = document.document_element() {
            root.set_attribute("lang", lang.tag())?;
        }
    }
    let stored = host::Stored::read(stored, &outbox_key);
    leptos::mount::mount_to_body(move || {
        // Inside the mount, whose owner the contexts belong to and whose executor
        // `spawn_local` needs.
        let router = contexts::provide_all(kind, lang, thread_param.clone());
        if kind == PageKind::Chat {
            host::remember_window();
        }
        // Before the app is drawn: the engine prepares its answer (the open thread's snapshot)
        // meanwhile.
        host::start(outbox_key, thread_param, stored, move |effect| router.handle(effect));
        // A chat page opened on an artifact (from the side panel) shows it at once.
        if kind == PageKind::Chat {
            router.open.artifact.set(query_artifact());
        }
        view! { <App/> }
    });
    Ok(())
}

fn query_artifact() -> Option<crate::state::artifacts::Shown> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    crate::state::artifacts::from_query(params.get("artifact"), params.get("item"))
}

fn query_thread() -> Option<ThreadId> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    ThreadId::new(params.get("thread")?).ok()
}
