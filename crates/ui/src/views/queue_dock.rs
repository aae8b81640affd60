//! The queue dock: messages queued to run as later turns, each editable (`queue.update`, keeping
//! its overrides and attachments) and removable.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::QueueRemoveParams;
use panelot_protocol::engine::QueueUpdateParams;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::UserInput;
use web_sys::KeyboardEvent;

use crate::contexts::use_engine;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::keys::sendable;

/// Queued messages with edit and remove.
#[component]
pub(crate) fn QueueDock() -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let queue = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().map(|v| v.queue.clone()).unwrap_or_default())
    });
    move || {
        let runs = queue.get();
        if runs.is_empty() {
            return None;
        }
        let title = page.format(Msg::Queued, &[("n", &runs.len().to_string())]);
        let items = runs.into_iter().map(|run| view! { <QueuedItem run/> }).collect_view();
        Some(
            view! { <section class="queue-dock"><header>{title}</header><ul>{items}</ul></section> },
        )
    }
}

/// One queued message: its text, or a box editing it (`queue.update`, keeping its overrides and
/// attachments).
#[component]
fn QueuedItem(run: QueuedRun) -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let lang = page.lang.get_untracked();
    let editing = RwSignal::new(false);
    let text = RwSignal::new(run.input.text.clone());
    let thread_id = move || open.thread_id();
    let remove = {
        let run_id = run.run_id.clone();
        move |_| {
            let Some(thread_id) = thread_id() else { return };
            let run_id = run_id.clone();
            let _ = engine.send(|submission_id| {
                Op::QueueRemove(QueueRemoveParams { submission_id, thread_id, run_id })
            });
        }
    };
    let save = {
        let run = run.clone();
        move || {
            let edited = text.get_untracked();
            let Some(thread_id) = thread_id() else { return };
            if !sendable(&edited) {
                return;
            }
            let input = UserInput { text: edited, ..run.input.clone() };
            let (run_id, overrides) = (run.run_id.clone(), run.overrides.clone());
            let _ = engine.send(|submission_id| {
                Op::QueueUpdate(QueueUpdateParams {
                    submission_id,
                    thread_id,
                    run_id,
                    input,
                    overrides,
                })
            });
            editing.set(false);
        }
    };
    let save_on_click = save.clone();
    let shown = run.input.text;
    view! {
        <li class="queued">
            <Show when=move || editing.get() fallback=move || view! { <span class="text">{shown.clone()}</span> }>
                <textarea class="queued-edit" rows="2" prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:keydown={
                        let save = save.clone();
                        move |ev: KeyboardEvent| {
                            if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                                ev.prevent_default();
                                save();
                            } else if ev.key() == "Escape" {
                                ev.prevent_default();
                                editing.set(false);
                            }
                        }
                    }></textarea>
            </Show>
            <Show when=move || !editing.get() fallback={
                let save = save_on_click;
                move || {
                    let save = save.clone();
                    view! { <button class="save-queued" on:click=move |_| save()>{i18n::text(lang, Msg::SaveQueued)}</button> }
                }
            }>
                <button class="edit-queued" on:click=move |_| editing.set(true)>{i18n::text(lang, Msg::EditQueued)}</button>
            </Show>
            <button class="remove-queued" on:click=remove>{i18n::text(lang, Msg::Remove)}</button>
        </li>
    }
}
