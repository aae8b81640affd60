//! The message stream: user, assistant (Markdown), reasoning (collapsible), tool cards, notes and
//! errors in arrival order, with the ‹n/m› branch switcher, approval and recovery cards.

mod cards;

use leptos::prelude::*;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::engine::BranchPosition;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadSelectBranchParams;
use panelot_protocol::engine::TurnForkParams;
use panelot_protocol::engine::UserInput;

use super::AppState;
use crate::Delivery;
use crate::Entry;
use crate::EntryBody;
use crate::EntryKey;
use crate::composer::sendable;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::markdown;
use crate::markdown::Completeness;
use cards::ApprovalCard;
use cards::InteractionCard;
use cards::RecoveryCards;

/// Distance from the bottom, in CSS pixels, within which the stream follows new output.
const FOLLOW_THRESHOLD_PX: i32 = 40;

/// The stream of the open thread.
#[component]
pub(super) fn MessageStream(state: AppState) -> impl IntoView {
    let keys = Memo::new(move |_| {
        state.thread.with(|v| {
            v.as_ref()
                .map(|v| v.entries().iter().map(|e| e.key.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    let empty = move || keys.with(Vec::is_empty);
    // Follow new output while the user is at the bottom; scrolling up stops following until they
    // scroll back down (40 px counts as the bottom).
    let stream_ref = NodeRef::<leptos::html::Div>::new();
    let follow = RwSignal::new(true);
    let on_scroll = move |_| {
        if let Some(el) = stream_ref.get_untracked() {
            let gap = el.scroll_height() - el.scroll_top() - el.client_height();
            follow.set(gap < FOLLOW_THRESHOLD_PX);
        }
    };
    Effect::new(move |_| {
        state.thread.track();
        if follow.get_untracked()
            && let Some(el) = stream_ref.get_untracked()
        {
            request_animation_frame(move || el.set_scroll_top(el.scroll_height()));
        }
    });
    view! {
        <div class="stream" role="log" aria-live="polite" node_ref=stream_ref on:scroll=on_scroll>
            <Show when=empty>
                <p class="empty">{move || i18n::text(state.lang.get(), Msg::EmptyThread)}</p>
            </Show>
            <For each=move || keys.get() key=|key| key.clone() let:key>
                <EntryRow state=state entry_key=key/>
            </For>
            <RecoveryCards state=state/>
            <ApprovalCard state=state/>
            <InteractionCard state=state/>
        </div>
    }
}

/// One entry; re-renders only when that entry changes (a streaming answer does not redraw the
/// rest of the stream).
#[component]
fn EntryRow(state: AppState, entry_key: EntryKey) -> impl IntoView {
    let entry = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().and_then(|v| v.entry(&entry_key).cloned()))
    });
    let idle = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().is_some_and(|v| v.active_turn.is_none()))
    });
    move || entry.get().map(|entry| render_entry(state, entry, idle))
}

/// Sends `text` as a new sibling of the user message `sibling_of` (edit and resend, regenerate,
/// retry); the view shows the new branch at once.
fn fork(state: AppState, sibling_of: NodeId, text: String) {
    let Some(thread_id) =
        state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()))
    else {
        return;
    };
    let input = UserInput { text: text.clone(), ..UserInput::default() };
    let overrides = state.overrides();
    let sibling_of_node_id = sibling_of.clone();
    let sent = host::send(|submission_id| {
        Op::TurnFork(TurnForkParams {
            submission_id,
            thread_id,
            sibling_of_node_id,
            input,
            overrides,
        })
    });
    if let Ok(submission_id) = sent {
        state.thread.update(|v| {
            if let Some(v) = v {
                v.fork(&sibling_of, submission_id, &text);
            }
        });
    }
}

/// Regenerates (or retries) the answer at `key` by sending its turn's message again as a sibling.
fn resend(state: AppState, key: &EntryKey) {
    let source = state.thread.with_untracked(|v| v.as_ref().and_then(|v| v.resend_source(key)));
    if let Some((node_id, text)) = source {
        fork(state, node_id, text);
    }
}

fn render_entry(state: AppState, entry: Entry, idle: Memo<bool>) -> AnyView {
    let lang = state.lang.get_untracked();
    let t = move |msg| i18n::text(lang, msg);
    let key = entry.key.clone();
    let branch =
        entry.branch.filter(|b| b.count > 1).map(|b| view! { <BranchSwitcher state position=b/> });
    match entry.body {
        EntryBody::User { text, steered, delivery } => {
            let editing = RwSignal::new(false);
            let draft = RwSignal::new(text.clone());
            let node_id = entry.node_id.clone();
            let editable = node_id.is_some() && !steered;
            let send_edit = move || {
                let edited = draft.get_untracked();
                if let Some(node_id) = node_id.clone()
                    && sendable(&edited)
                {
                    editing.set(false);
                    fork(state, node_id, edited);
                }
            };
            let send_on_click = send_edit.clone();
            let original = text.clone();
            view! {
                <article class="msg user" class:steered=steered class:sending=delivery == Delivery::Sending>
                    <header>{t(Msg::RoleUser)}{(delivery == Delivery::Sending).then(|| view! { <span class="state">{t(Msg::Sending)}</span> })}</header>
                    <Show when=move || editing.get() fallback=move || view! { <p class="text">{text.clone()}</p> }>
                        <textarea class="edit-box" rows="3" prop:value=move || draft.get()
                            on:input=move |ev| draft.set(event_target_value(&ev))
                            on:keydown={
                                let send_edit = send_edit.clone();
                                move |ev: web_sys::KeyboardEvent| {
                                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                                        ev.prevent_default();
                                        send_edit();
                                    } else if ev.key() == "Escape" {
                                        ev.prevent_default();
                                        editing.set(false);
                                    }
                                }
                            }></textarea>
                        <div class="actions">
                            <button class="send-edit" on:click={ let send = send_on_click.clone(); move |_| send() }>{t(Msg::SaveAndSend)}</button>
                            <button class="cancel-edit" on:click=move |_| editing.set(false)>{t(Msg::Cancel)}</button>
                        </div>
                    </Show>
                    <footer class="msg-actions">
                        {editable.then(|| view! {
                            <button class="edit" disabled=move || !idle.get() on:click=move |_| { draft.set(original.clone()); editing.set(true); }>{t(Msg::Edit)}</button>
                        })}
                        {branch}
                    </footer>
                </article>
            }
            .into_any()
        }
        EntryBody::Assistant { text, streaming, usage, cost_usd, .. } => {
            let completeness =
                if streaming { Completeness::Streaming } else { Completeness::Complete };
            // A model call that only called tools leaves an empty answer: nothing to regenerate.
            let regenerable = !streaming && !text.trim().is_empty();
            let html = markdown::render(&text, completeness);
            let usage = usage.map(|u| {
                let mut line = i18n::format(
                    lang,
                    Msg::Usage,
                    &[("input", &u.input.to_string()), ("output", &u.output.to_string())],
                );
                if let Some(cost) = cost_usd {
                    line.push_str(&format!(" · ${cost:.4}"));
                }
                line
            });
            view! {
                <article class="msg assistant" class:streaming=streaming>
                    <header>{t(Msg::RoleAssistant)}</header>
                    <div class="md" inner_html=html></div>
                    {usage.map(|u| view! { <footer class="usage">{u}</footer> })}
                    <footer class="msg-actions">
                        {regenerable.then(|| view! {
                            <button class="regenerate" disabled=move || !idle.get() on:click=move |_| resend(state, &key)>{t(Msg::Regenerate)}</button>
                        })}
                        {branch}
                    </footer>
                </article>
            }
            .into_any()
        }
        EntryBody::Reasoning { text, streaming } => view! {
            <details class="msg reasoning" open=streaming>
                <summary>{t(Msg::Reasoning)}</summary>
                <p class="text">{text}</p>
            </details>
        }
        .into_any(),
        EntryBody::Tool { tool_name, label, params_summary, progress, result } => {
            let (status, class) = match &result {
                None => (t(Msg::ToolRunning), "running"),
                Some(r) if r.ok => (t(Msg::ToolOk), "ok"),
                Some(_) => (t(Msg::ToolFailed), "failed"),
            };
            let details = result
                .and_then(|r| r.details)
                .map(|d| serde_json::to_string_pretty(&d).unwrap_or_default());
            let progress = progress.map(|p| p.to_string());
            view! {
                <details class=format!("tool-card {class}")>
                    <summary>
                        <span class="label">{label}</span>
                        <span class="state">{status}</span>
                        <code class="params">{params_summary}</code>
                    </summary>
                    <p class="tool-name"><code>{tool_name}</code></p>
                    {progress.map(|p| view! { <pre class="progress">{p}</pre> })}
                    {details.map(|d| view! { <pre class="details">{d}</pre> })}
                </details>
            }
            .into_any()
        }
        EntryBody::Approval { label, decision } => view! {
            <p class="msg approval-record">{label}{decision.map(|d| format!(" — {d}"))}</p>
        }
        .into_any(),
        EntryBody::Notice { text } => view! { <p class="msg notice-item">{text}</p> }.into_any(),
        EntryBody::TurnNote { stop_reason } => {
            let msg = match stop_reason {
                StopReason::MaxTokens => Msg::NoteMaxTokens,
                StopReason::ContentFilter => Msg::NoteContentFilter,
                StopReason::Interrupted
                | StopReason::End
                | StopReason::Error
                | StopReason::BudgetPause => Msg::NoteInterrupted,
            };
            view! { <p class="msg turn-note">{t(msg)}</p> }.into_any()
        }
        EntryBody::Error { message, retryable, provider_details, .. } => {
            let diagnosis = provider_details.map(|d| {
                [
                    d.status.map(|s| format!("HTTP {s}")),
                    d.reason,
                    d.upstream_message,
                    d.request_id.map(|r| format!("request {r}")),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · ")
            });
            view! {
                <article class="msg error" role="alert">
                    <header>{t(Msg::ErrorTitle)}</header>
                    <p>{message}</p>
                    {diagnosis.map(|d| view! { <p class="diagnosis">{d}</p> })}
                    <p class="next-step">
                        <a href="options.html" target="_blank">{t(Msg::OpenSettings)}</a>
                        <button class="retry" class:suggested=retryable disabled=move || !idle.get() on:click=move |_| resend(state, &key)>{t(Msg::Retry)}</button>
                    </p>
                </article>
            }
            .into_any()
        }
    }
}

/// ‹n/m› among a message's siblings. An arrow moves the thread to the neighbour's branch and
/// reopens the thread: the engine handles a client's commands in order, so the snapshot that
/// answers the new subscription already shows the new branch.
#[component]
fn BranchSwitcher(state: AppState, position: BranchPosition) -> impl IntoView {
    let go = move |target: Option<NodeId>| {
        let thread = state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()));
        let (Some(node_id), Some(thread_id)) = (target, thread) else {
            return;
        };
        let selected = host::send(|submission_id| {
            Op::ThreadSelectBranch(ThreadSelectBranchParams {
                submission_id,
                thread_id: thread_id.clone(),
                node_id,
            })
        });
        if selected.is_ok() {
            state.open_thread(thread_id);
        }
    };
    let (previous, next) = (position.previous.clone(), position.next.clone());
    let (no_previous, no_next) = (previous.is_none(), next.is_none());
    view! {
        <nav class="branch-switcher" aria-label="branches">
            <button disabled=no_previous aria-label="previous"
                on:click=move |_| go(previous.clone())>"‹"</button>
            <span>{format!("{}/{}", position.index, position.count)}</span>
            <button disabled=no_next aria-label="next"
                on:click=move |_| go(next.clone())>"›"</button>
        </nav>
    }
}
