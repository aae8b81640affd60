//! The composer: Enter sends (steers while a turn runs), Shift+Alt+Enter queues, Esc interrupts,
//! Shift+Enter is a newline; the queue dock above it.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::QueueRemoveParams;
use panelot_protocol::engine::TurnEnqueueParams;
use panelot_protocol::engine::TurnInterruptParams;
use panelot_protocol::engine::TurnSteerParams;
use panelot_protocol::engine::UserInput;
use web_sys::KeyboardEvent;

use super::AppState;
use super::submit_draft;
use super::submit_text;
use crate::Connection;
use crate::composer::ComposerAction;
use crate::composer::Modifiers;
use crate::composer::TurnActivity;
use crate::composer::key_action;
use crate::composer::sendable;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;

fn activity(state: AppState) -> TurnActivity {
    state.thread.with_untracked(|v| match v.as_ref().and_then(|v| v.active_turn.as_ref()) {
        None => TurnActivity::Idle,
        Some(turn) if turn.steerable => TurnActivity::Steerable,
        Some(_) => TurnActivity::NotSteerable,
    })
}

/// Carries out a composer action with the current draft.
fn act(state: AppState, action: ComposerAction) {
    let text = state.draft.get_untracked();
    let thread = state.thread.with_untracked(|v| {
        v.as_ref()
            .map(|v| (v.thread_id().clone(), v.active_turn.as_ref().map(|t| t.turn_id.clone())))
    });
    match action {
        ComposerAction::Default => return,
        ComposerAction::Interrupt => {
            if let Some((thread_id, _)) = thread {
                let _ = host::send(|submission_id| {
                    Op::TurnInterrupt(TurnInterruptParams { submission_id, thread_id })
                });
            }
            return;
        }
        ComposerAction::Submit | ComposerAction::Steer | ComposerAction::Enqueue => {}
    }
    if !sendable(&text) {
        return;
    }
    state.draft.set(String::new());
    let Some((thread_id, active_turn)) = thread else {
        submit_draft(state, text);
        return;
    };
    let input = UserInput { text: text.clone(), ..UserInput::default() };
    match (action, active_turn) {
        (ComposerAction::Steer, Some(expected_turn_id)) => {
            if let Ok(id) = host::send(|submission_id| {
                Op::TurnSteer(TurnSteerParams { submission_id, thread_id, expected_turn_id, input })
            }) {
                state.thread.update(|v| {
                    if let Some(v) = v {
                        v.add_optimistic(id, &text, true);
                    }
                });
            }
        }
        (ComposerAction::Enqueue, _) => {
            // Queued messages show in the queue dock once `queue.updated` arrives, not in the stream.
            let _ = host::send(|submission_id| {
                Op::TurnEnqueue(TurnEnqueueParams {
                    submission_id,
                    thread_id,
                    input,
                    overrides: None,
                })
            });
        }
        _ => submit_text(state, thread_id, &text),
    }
}

/// The text box with its buttons, or the reload explanation once input is disabled.
#[component]
pub(super) fn Composer(state: AppState) -> impl IntoView {
    let disabled =
        move || state.connection.with(|c| matches!(c, Connection::ReloadRequired { .. }));
    let running = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().is_some_and(|v| v.active_turn.is_some()))
    });
    let on_keydown = move |event: KeyboardEvent| {
        let modifiers = Modifiers {
            shift: event.shift_key(),
            alt: event.alt_key(),
            ctrl_or_meta: event.ctrl_key() || event.meta_key(),
        };
        let action = key_action(&event.key(), modifiers, activity(state), event.is_composing());
        if action != ComposerAction::Default {
            event.prevent_default();
            act(state, action);
        }
    };
    let placeholder = move || {
        let msg =
            if running.get() { Msg::ComposerPlaceholderRunning } else { Msg::ComposerPlaceholder };
        i18n::text(state.lang.get(), msg)
    };
    view! {
        <QueueDock state=state/>
        <form class="composer" on:submit=move |ev| { ev.prevent_default(); act(state, if running.get_untracked() { ComposerAction::Steer } else { ComposerAction::Submit }); }>
            <Show when=disabled>
                <p class="disabled-reason" role="alert">{move || i18n::text(state.lang.get(), Msg::InputDisabledReload)}</p>
            </Show>
            <textarea
                rows="3"
                aria-label=placeholder
                placeholder=placeholder
                disabled=disabled
                prop:value=move || state.draft.get()
                on:input=move |ev| state.draft.set(event_target_value(&ev))
                on:keydown=on_keydown
            ></textarea>
            <div class="composer-actions">
                <Show when=move || running.get()>
                    <button type="button" class="stop" on:click=move |_| act(state, ComposerAction::Interrupt)>{move || i18n::text(state.lang.get(), Msg::Stop)}</button>
                </Show>
                <button type="submit" disabled=disabled>{move || i18n::text(state.lang.get(), Msg::Send)}</button>
            </div>
        </form>
    }
}

/// Queued messages with remove.
#[component]
fn QueueDock(state: AppState) -> impl IntoView {
    let queue = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().map(|v| v.queue.clone()).unwrap_or_default())
    });
    move || {
        let runs = queue.get();
        if runs.is_empty() {
            return None;
        }
        let lang = state.lang.get_untracked();
        let title = i18n::format(lang, Msg::Queued, &[("n", &runs.len().to_string())]);
        let items = runs
            .into_iter()
            .map(|run| {
                let run_id = run.run_id.clone();
                let remove = move |_| {
                    let Some(thread_id) = state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone())) else { return };
                    let run_id = run_id.clone();
                    let _ = host::send(|submission_id| Op::QueueRemove(QueueRemoveParams { submission_id, thread_id, run_id }));
                };
                view! {
                    <li><span>{run.input.text}</span><button on:click=remove>{i18n::text(lang, Msg::Remove)}</button></li>
                }
            })
            .collect_view();
        Some(
            view! { <section class="queue-dock"><header>{title}</header><ul>{items}</ul></section> },
        )
    }
}
