//! Focusing what a click just opened: an edit or rename box gets the keyboard at once, with its
//! text selected (`autofocus` only works for what is in the page when it loads).
//!
//! It finds the box from the clicked element rather than through a node ref and an effect:
//! those are generic code in the wasm, and the UI has a size budget.

use wasm_bindgen::JsCast;

/// After the next frame (once the box the click opened is rendered), focuses the element
/// `inner` inside the clicked element's closest `around`, and selects its text.
pub(crate) fn focus_after_click(event: &web_sys::MouseEvent, around: &str, inner: &'static str) {
    let Some(container) = event
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|t| t.closest(around).ok().flatten())
    else {
        return;
    };
    leptos::prelude::request_animation_frame(move || {
        let Some(element) = container.query_selector(inner).ok().flatten() else { return };
        if let Some(input) = element.dyn_ref::<web_sys::HtmlInputElement>() {
            let _ = input.focus();
            input.select();
        } else if let Some(area) = element.dyn_ref::<web_sys::HtmlTextAreaElement>() {
            let _ = area.focus();
            area.select();
        }
    });
}
