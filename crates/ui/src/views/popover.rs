//! A popover: a button that opens a small panel anchored to it (the composer's attach menu and
//! per-turn options). The panel stays in the document while closed (`hidden`), so its controls
//! keep their state and can be found by tests; opening moves the focus to its first control; it
//! closes on Escape (focus back to the button), on a click outside, and when its owner closes it.
//!
//! The DOM is reached through the events' own elements rather than node refs and effects: each
//! of those is generic code in the wasm, and the UI has a size budget.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::events::closest_target;
use super::icon::icon;
use crate::icons::Icon;

/// The first control of the popover around `button`, if it has one.
fn first_control(button: &web_sys::Element) -> Option<web_sys::HtmlElement> {
    button
        .parent_element()?
        .query_selector(".popover button:not(:disabled), .popover select, .popover input")
        .ok()
        .flatten()?
        .dyn_into::<web_sys::HtmlElement>()
        .ok()
}

/// The button and its panel.
#[component]
pub(crate) fn Popover(
    /// Whether the panel is open; the owner may close it (after a menu item ran, say).
    open: RwSignal<bool>,
    /// The button's class, besides `btn-icon btn-ghost`; unique on the page (it tells this
    /// popover's clicks from others').
    button_class: &'static str,
    /// The button's name (`aria-label` and `title`).
    label: &'static str,
    /// The button's icon.
    glyph: Icon,
    /// The panel's classes: `up` or `down`, `start` or `end`, and its own.
    panel_class: &'static str,
    /// The panel's role: `menu` or `dialog`.
    role: &'static str,
    /// Whether the button shows a dot (`data-changed`): something in the panel differs from the
    /// default.
    #[prop(optional, into)]
    changed: Option<Signal<bool>>,
    /// The panel's content.
    children: Children,
) -> impl IntoView {
    // A click anywhere outside this popover closes it, as menus do.
    let selector = format!(".{button_class}");
    let outside = window_event_listener(ev::click, move |event| {
        if !open.get_untracked() {
            return;
        }
        let inside = closest_target(&event, ".popover-anchor")
            .is_some_and(|anchor| anchor.query_selector(&selector).ok().flatten().is_some());
        if !inside {
            open.set(false);
        }
    });
    on_cleanup(move || outside.remove());
    let toggle = move |event: ev::MouseEvent| {
        let opening = !open.get_untracked();
        open.set(opening);
        let button = event.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        if let Some(button) = button.filter(|_| opening) {
            // Once the panel is shown, the keyboard goes into it.
            request_animation_frame(move || {
                if let Some(first) = first_control(&button) {
                    let _ = first.focus();
                }
            });
        }
    };
    let on_keydown = move |event: ev::KeyboardEvent| {
        if event.key() == "Escape" && open.get_untracked() {
            // Escape in the composer stops a turn; here it only closes the panel.
            event.prevent_default();
            event.stop_propagation();
            open.set(false);
            let button = event
                .current_target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|anchor| anchor.first_element_child())
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(button) = button {
                let _ = button.focus();
            }
        }
    };
    let changed = move || changed.is_some_and(|c| c.get());
    view! {
        <span class="popover-anchor" on:keydown=on_keydown>
            <button
                type="button"
                class=format!("btn-icon btn-ghost {button_class}")
                aria-label=label
                title=label
                aria-haspopup=if role == "menu" { "menu" } else { "dialog" }
                aria-expanded=move || open.get().to_string()
                data-changed=move || changed().to_string()
                on:click=toggle
            >
                {icon(glyph)}
            </button>
            <div class=format!("popover {panel_class}") role=role aria-label=label hidden=move || !open.get()>
                {children()}
            </div>
        </span>
    }
}
