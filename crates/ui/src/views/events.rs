//! Events of markup drawn as text (`inner_html`): one listener on the container finds the element
//! an event is about.

use wasm_bindgen::JsCast;

/// The element an event was dispatched to.
pub(crate) fn target_element(event: &web_sys::Event) -> Option<web_sys::Element> {
    event.target()?.dyn_into::<web_sys::Element>().ok()
}

/// The nearest element matching `selector` from the one an event was dispatched to, itself
/// included.
pub(crate) fn closest_target(event: &web_sys::Event, selector: &str) -> Option<web_sys::Element> {
    target_element(event)?.closest(selector).ok().flatten()
}
