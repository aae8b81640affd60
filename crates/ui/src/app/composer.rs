//! The composer: Enter sends (steers while a turn runs), Shift+Alt+Enter queues, Esc interrupts,
//! Shift+Enter is a newline; the queue dock above it.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::PresetId;
use panelot_protocol::engine::QueueRemoveParams;
use panelot_protocol::engine::QueueUpdateParams;
use panelot_protocol::engine::QueuedRun;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::TurnEnqueueParams;
use panelot_protocol::engine::TurnInterruptParams;
use panelot_protocol::engine::TurnSteerParams;
use web_sys::KeyboardEvent;

use super::AppState;
use super::submit_draft;
use super::submit_text;
use crate::Connection;
use crate::composer::Attach;
use crate::composer::ComposerAction;
use crate::composer::Modifiers;
use crate::composer::POLICIES;
use crate::composer::PageRead;
use crate::composer::TurnActivity;
use crate::composer::default_model_label;
use crate::composer::default_policy_label;
use crate::composer::key_action;
use crate::composer::model_value;
use crate::composer::parse_model_value;
use crate::composer::parse_policy_value;
use crate::composer::policy_label;
use crate::composer::policy_value;
use crate::composer::sendable;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::settings::model_options;
use crate::settings::preset_named;

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
    match (action, active_turn) {
        (ComposerAction::Steer, Some(expected_turn_id)) => {
            let input = state.take_input(&text);
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
            let input = state.take_input(&text);
            let overrides = state.overrides();
            let _ = host::send(|submission_id| {
                Op::TurnEnqueue(TurnEnqueueParams { submission_id, thread_id, input, overrides })
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
            <AttachedChips state=state/>
            <div class="composer-actions">
                <TurnChoices state=state/>
                <button type="button" class="attach-page" disabled=disabled on:click=move |_| attach(state, Attach::Page)>{move || i18n::text(state.lang.get(), Msg::AttachPage)}</button>
                <button type="button" class="attach-selection" disabled=disabled on:click=move |_| attach(state, Attach::Selection)>{move || i18n::text(state.lang.get(), Msg::AttachSelection)}</button>
                <span class="spacer"></span>
                <Show when=move || running.get()>
                    <button type="button" class="stop" on:click=move |_| act(state, ComposerAction::Interrupt)>{move || i18n::text(state.lang.get(), Msg::Stop)}</button>
                </Show>
                <button type="submit" disabled=disabled>{move || i18n::text(state.lang.get(), Msg::Send)}</button>
            </div>
        </form>
    }
}

/// Queued messages with edit and remove.
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
        let items = runs.into_iter().map(|run| view! { <QueuedItem state run/> }).collect_view();
        Some(
            view! { <section class="queue-dock"><header>{title}</header><ul>{items}</ul></section> },
        )
    }
}

/// One queued message: its text, or a box editing it (`queue.update`, keeping its overrides and
/// attachments).
#[component]
fn QueuedItem(state: AppState, run: QueuedRun) -> impl IntoView {
    let lang = state.lang.get_untracked();
    let editing = RwSignal::new(false);
    let text = RwSignal::new(run.input.text.clone());
    let thread_id =
        move || state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()));
    let remove = {
        let run_id = run.run_id.clone();
        move |_| {
            let Some(thread_id) = thread_id() else { return };
            let run_id = run_id.clone();
            let _ = host::send(|submission_id| {
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
            let input = panelot_protocol::engine::UserInput { text: edited, ..run.input.clone() };
            let (run_id, overrides) = (run.run_id.clone(), run.overrides.clone());
            let _ = host::send(|submission_id| {
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

/// The thread's preset, then the model and permission mode of the next turns (empty: the
/// thread's own, which is its preset's model when it has one).
#[component]
fn TurnChoices(state: AppState) -> impl IntoView {
    let t = move |msg| i18n::text(state.lang.get(), msg);
    // An open thread's preset is in its metadata (`thread.updated` patches it); a draft's is
    // kept until `thread.create` carries it.
    let preset_id = move || match state
        .thread
        .with(|v| v.as_ref().map(|v| v.meta.as_ref().map(|m| m.preset.clone())))
    {
        Some(meta) => meta.flatten(),
        None => state.draft_preset.get(),
    };
    let current_preset = Memo::new(move |_| preset_id().map(|p| p.to_string()).unwrap_or_default());
    let presets = Memo::new(move |_| {
        state.settings.with(|s| {
            s.iter()
                .flat_map(|s| &s.presets)
                .map(|p| (p.id.to_string(), p.preset.name.clone()))
                .collect::<Vec<_>>()
        })
    });
    let pick_preset = move |ev: leptos::ev::Event| {
        let preset = PresetId::new(event_target_value(&ev)).ok();
        let Some(thread_id) =
            state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()))
        else {
            state.draft_preset.set(preset);
            return;
        };
        let patch = ThreadMetaPatch { preset: Some(preset), ..ThreadMetaPatch::default() };
        super::threads::update(thread_id, patch);
    };
    let default_model = move || {
        let id = preset_id();
        let lang = state.lang.get();
        state.settings.with(|s| {
            default_model_label(
                lang,
                s.as_ref().and_then(|s| preset_named(&s.presets, id.as_ref())),
            )
        })
    };
    let default_policy = move || {
        let id = preset_id();
        let lang = state.lang.get();
        let thread = state
            .thread
            .with(|v| v.as_ref().and_then(|v| v.meta.as_ref()).and_then(|m| m.permission_policy));
        state.settings.with(|s| {
            default_policy_label(
                lang,
                thread,
                s.as_ref().and_then(|s| preset_named(&s.presets, id.as_ref())),
                s.as_ref().map(|s| s.permission_policy),
            )
        })
    };
    let models = move || {
        state
            .settings
            .with(|s| model_options(s.iter().flat_map(|s| &s.connections).filter(|c| c.enabled)))
    };
    let current_model =
        move || state.turn_model.with(|m| m.as_ref().map(model_value).unwrap_or_default());
    view! {
        <select class="thread-preset" aria-label=move || t(Msg::PresetForThread) on:change=pick_preset>
            <option value="" prop:selected=move || current_preset.with(String::is_empty)>{move || t(Msg::NoPreset)}</option>
            {move || presets.get().into_iter().map(|(value, label)| {
                let chosen = value.clone();
                view! { <option value=value prop:selected=move || current_preset.with(|c| *c == chosen)>{label}</option> }
            }).collect_view()}
        </select>
        <select class="turn-model" aria-label=move || t(Msg::ModelForTurn)
            on:change=move |ev| state.turn_model.set(parse_model_value(&event_target_value(&ev)))>
            <option value="" selected=move || state.turn_model.with(Option::is_none)>{default_model}</option>
            {move || models().into_iter().map(|(value, label)| {
                let selected = value == current_model();
                view! { <option value=value selected=selected>{label}</option> }
            }).collect_view()}
        </select>
        <select class="turn-policy" aria-label=move || t(Msg::PolicyForTurn)
            on:change=move |ev| state.turn_policy.set(parse_policy_value(&event_target_value(&ev)))>
            <option value="" selected=move || state.turn_policy.with(Option::is_none)>{default_policy}</option>
            {POLICIES.map(|p| view! {
                <option value=policy_value(Some(p)) selected=move || state.turn_policy.get() == Some(p)>{move || t(policy_label(p))}</option>
            })}
        </select>
        <label class="turn-trusted" title=move || t(Msg::TrustedInputHint)>
            <input type="checkbox" prop:checked=move || state.turn_trusted_input.get()
                on:change=move |ev| {
                    if !event_target_checked(&ev) {
                        state.turn_trusted_input.set(false);
                        return;
                    }
                    // Chrome asks for the debugger permission inside this click; the box stays
                    // checked only if it was granted.
                    crate::host::request_debugger_then(move |granted| {
                        state.turn_trusted_input.set(granted);
                    });
                }/>
            {move || t(Msg::TrustedInput)}
        </label>
    }
}

/// Chips of the context attached to the next message, each removable.
#[component]
fn AttachedChips(state: AppState) -> impl IntoView {
    move || {
        let lang = state.lang.get();
        let blocks = state.attached.get();
        (!blocks.is_empty()).then(|| {
            let chips = blocks.into_iter().enumerate().map(|(index, block)| {
                let tokens = block.approx_tokens.map(|n| format!(" · ~{n} tokens")).unwrap_or_default();
                view! {
                    <li class="chip" data-kind=format!("{:?}", block.kind).to_lowercase()>
                        <span>{block.label}{tokens}</span>
                        <button type="button" aria-label=i18n::text(lang, Msg::Detach)
                            on:click=move |_| state.attached.update(|a| { if index < a.len() { a.remove(index); } })>"×"</button>
                    </li>
                }
            }).collect_view();
            view! { <ul class="attached">{chips}</ul> }
        })
    }
}

/// Reads the active tab (`read_page.js`) and attaches its text or selection as context. Needs
/// host access to the tab; a refusal is shown, never retried behind the user's back.
fn attach(state: AppState, what: Attach) {
    leptos::task::spawn_local(async move {
        let lang = state.lang.get_untracked();
        let tab = match host::active_tab().await {
            Ok(tab) => tab,
            Err(detail) => {
                state.notice.set(Some(i18n::format(
                    lang,
                    Msg::AttachFailed,
                    &[("detail", &detail)],
                )));
                return;
            }
        };
        let Some(tab_id) = tab["id"].as_u64() else { return };
        let read = match host::run_in_tab(tab_id, "read_page.js").await {
            Ok(value) => PageRead::from_json(&value),
            Err(detail) => {
                state.notice.set(Some(i18n::format(
                    lang,
                    Msg::AttachFailed,
                    &[("detail", &detail)],
                )));
                return;
            }
        };
        let tab_ref = u32::try_from(tab_id).ok().map(|tab_id| TabRef {
            tab_id,
            window_id: tab["windowId"].as_u64().and_then(|w| u32::try_from(w).ok()),
            url: read.url.clone(),
            title: read.title.clone(),
        });
        match crate::composer::context_block(what, &read, tab_ref) {
            Some(block) => state.attached.update(|a| a.push(block)),
            None => state.notice.set(Some(i18n::text(lang, Msg::NothingSelected).to_owned())),
        }
    });
}
