//! The options page's memory: the agent's notes, each edited in place or deleted after a yes
//! asked on its row (no `confirm()` dialog), and a new note added below them (`memory.save`,
//! `memory.delete`). The markup is text from `state::memory_notes` (see `connections_section`
//! for why); it is drawn again when the notes, the note opened or the answer to a save change,
//! never while typing, and what is typed is read from the boxes' events into the editor.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::MemoryDeleteParams;
use panelot_protocol::engine::MemorySaveParams;
use wasm_bindgen::JsCast;

use super::events::closest_target;
use super::events::target_element;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n::Msg;
use crate::state::memory_notes::MemoryEditor;
use crate::state::memory_notes::NoteStatus;
use crate::state::memory_notes::NoteTarget;
use crate::state::memory_notes::memory_add_html;
use crate::state::memory_notes::memory_list_html;

/// Minutes east of UTC here (`getTimezoneOffset` is UTC minus local time).
pub(crate) fn utc_offset_min() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

/// The agent's memory: its notes and the form that adds one.
#[component]
pub(crate) fn MemorySection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let editor = settings.memory_editor;
    let notes = Memo::new(move |_| {
        settings.view.with(|s| s.as_ref().map(|s| s.memory.clone()).unwrap_or_default())
    });
    // What changes the drawing: not the text typed, which the boxes already show.
    let shape = Memo::new(move |_| {
        editor.with(|e| (e.target.clone(), e.confirming.clone(), e.status.clone()))
    });
    let list = move || {
        shape.track();
        let lang = page.lang.get();
        notes.with(|n| editor.with_untracked(|e| memory_list_html(lang, n, e, utc_offset_min())))
    };
    let add = move || {
        shape.track();
        let lang = page.lang.get();
        editor.with_untracked(|e| memory_add_html(lang, e))
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(button) = closest_target(&ev, "[data-act]") else {
            return;
        };
        let key = button.get_attribute("data-key").unwrap_or_default();
        let mut shown = editor.get_untracked();
        match button.get_attribute("data-act").as_deref() {
            Some("add") => {
                shown.add();
                focus_later("input[name=memory-key]");
            }
            Some("edit") => {
                if notes.with_untracked(|n| shown.edit(n, &key)) {
                    focus_later("textarea[name=memory-value]");
                }
            }
            Some("cancel") => shown.close(),
            Some("ask-delete") => shown.confirming = Some(key),
            Some("keep") => shown.confirming = None,
            Some("delete") => {
                shown.confirming = None;
                if shown.target == NoteTarget::Stored(key.clone()) {
                    shown.close();
                }
                let _ = engine.send(Box::new(|submission_id| {
                    Op::MemoryDelete(MemoryDeleteParams { submission_id, key })
                }));
            }
            Some("save") => {
                let lang = page.lang.get_untracked();
                if let Some((key, value)) = notes.with_untracked(|n| shown.submit(lang, n)) {
                    let sent = engine.send(Box::new(|submission_id| {
                        Op::MemorySave(MemorySaveParams { submission_id, key, value })
                    }));
                    if let Ok(submission_id) = sent {
                        shown.status = NoteStatus::Waiting(submission_id);
                    }
                }
            }
            _ => return,
        }
        editor.set(shown);
    };
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        let name = target_element(&ev).and_then(|el| el.get_attribute("name"));
        let apply = |e: &mut MemoryEditor| match name.as_deref() {
            Some("memory-key") => e.draft.key = text,
            Some("memory-value") => e.draft.value = text,
            _ => {}
        };
        // Typing leaves the drawing alone (the `shape` memo ignores the draft).
        editor.update(apply);
    };
    view! {
        <section class="memory" on:click=on_click on:input=on_input>
            <h2>{page.tr(Msg::Memory)}</h2>
            <p class="section-intro">{page.tr(Msg::MemoryIntro)}</p>
            <ul class="memory-list" inner_html=list></ul>
            <div class="memory-add" inner_html=add></div>
        </section>
    }
}

/// Focuses the element `selector` of the memory section once it is drawn again.
fn focus_later(selector: &'static str) {
    request_animation_frame(move || {
        let found = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&format!(".memory {selector}")).ok().flatten());
        if let Some(element) = found.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = element.focus();
        }
    });
}
