//! The message stream: user, assistant (Markdown), reasoning (collapsible), tool cards, notes and
//! errors in arrival order, with the ‹n/m› branch switcher, approval and recovery cards.

use leptos::ev;
use leptos::prelude::*;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::engine::ApprovalDecision;
use panelot_protocol::engine::ApprovalResponseParams;
use panelot_protocol::engine::BranchPosition;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::InteractionResponseParams;
use panelot_protocol::engine::PendingApproval;
use panelot_protocol::engine::PendingInteraction;
use panelot_protocol::engine::RecoveryOption;
use panelot_protocol::engine::RunRecoveryState;
use panelot_protocol::engine::RunResolveUncertainParams;
use panelot_protocol::engine::RunResumeParams;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadSelectBranchParams;
use panelot_protocol::engine::UncertainResolution;

use super::AppState;
use crate::Delivery;
use crate::Entry;
use crate::EntryBody;
use crate::EntryKey;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::markdown;
use crate::markdown::Completeness;

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
    move || entry.get().map(|entry| render_entry(state, entry))
}

fn render_entry(state: AppState, entry: Entry) -> AnyView {
    let lang = state.lang.get_untracked();
    let t = move |msg| i18n::text(lang, msg);
    let branch =
        entry.branch.filter(|b| b.count > 1).map(|b| view! { <BranchSwitcher state position=b/> });
    match entry.body {
        EntryBody::User { text, steered, delivery } => view! {
            <article class="msg user" class:steered=steered class:sending=delivery == Delivery::Sending>
                <header>{t(Msg::RoleUser)}{(delivery == Delivery::Sending).then(|| view! { <span class="state">{t(Msg::Sending)}</span> })}</header>
                <p class="text">{text}</p>
                {branch}
            </article>
        }
        .into_any(),
        EntryBody::Assistant { text, streaming, usage, cost_usd, .. } => {
            let completeness = if streaming { Completeness::Streaming } else { Completeness::Complete };
            let html = markdown::render(&text, completeness);
            let usage = usage.map(|u| {
                let mut line = i18n::format(lang, Msg::Usage, &[("input", &u.input.to_string()), ("output", &u.output.to_string())]);
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
                    {branch}
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
            let details = result.and_then(|r| r.details).map(|d| serde_json::to_string_pretty(&d).unwrap_or_default());
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
                [d.status.map(|s| format!("HTTP {s}")), d.reason, d.upstream_message, d.request_id.map(|r| format!("request {r}"))]
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
                        {retryable.then(|| view! { <span class="hint">{t(Msg::Retry)}</span> })}
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

fn respond(approval: &PendingApproval, decision: ApprovalDecision) {
    let approval_id = approval.approval_id.clone();
    let _ = host::send(|submission_id| {
        Op::ApprovalResponse(ApprovalResponseParams { submission_id, approval_id, decision })
    });
}

fn answer(interaction: &PendingInteraction, response: InteractionResponse) {
    let interaction_id = interaction.interaction_id.clone();
    let _ = host::send(|submission_id| {
        Op::InteractionResponse(InteractionResponseParams {
            submission_id,
            interaction_id,
            response,
        })
    });
}

/// The oldest question of the model to the user: suggested answers as buttons, a free answer
/// always possible; or a step the user does themselves, confirmed with "Done".
#[component]
fn InteractionCard(state: AppState) -> impl IntoView {
    let current = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().and_then(|v| v.interactions.first().cloned()))
    });
    move || {
        current.get().map(|interaction| {
            let lang = state.lang.get_untracked();
            let t = move |msg| i18n::text(lang, msg);
            let skip = {
                let interaction = interaction.clone();
                move |_| answer(&interaction, InteractionResponse::Cancel { note: None })
            };
            match interaction.request.clone() {
                InteractionRequestPayload::AskUser { questions } => {
                    let answers = RwSignal::new(serde_json::Map::new());
                    let rows = questions.into_iter().map(|q| {
                        let id = q.id.clone();
                        let options = q.options.into_iter().map(|o| {
                            let (id, value) = (id.clone(), o.value.clone());
                            view! { <button type="button" title=o.description.unwrap_or_default()
                                on:click=move |_| answers.update(|a| { a.insert(id.clone(), value.clone().into()); })>{o.label}</button> }
                        }).collect_view();
                        let free_id = id.clone();
                        view! {
                            <fieldset class="question">
                                <legend>{q.question}</legend>
                                <div class="options">{options}</div>
                                <input type="text" prop:value=move || answers.with(|a| a.get(&id).and_then(|v| v.as_str()).unwrap_or_default().to_owned())
                                    on:input=move |ev| answers.update(|a| { a.insert(free_id.clone(), event_target_value(&ev).into()); })/>
                            </fieldset>
                        }
                    }).collect_view();
                    let submit = move |_| {
                        let value = serde_json::Value::Object(answers.get_untracked());
                        answer(&interaction, InteractionResponse::Submit { value });
                    };
                    view! {
                        <section class="interaction-card" role="dialog" aria-label=t(Msg::QuestionTitle)>
                            <header>{t(Msg::QuestionTitle)}</header>
                            {rows}
                            <div class="actions">
                                <button class="answer" on:click=submit>{t(Msg::Answer)}</button>
                                <button on:click=skip>{t(Msg::Skip)}</button>
                            </div>
                        </section>
                    }.into_any()
                }
                InteractionRequestPayload::RequestUserAction { instruction, .. } => {
                    let done = move |_| {
                        let value = serde_json::json!({"done": true});
                        answer(&interaction, InteractionResponse::Submit { value });
                    };
                    view! {
                        <section class="interaction-card" role="dialog" aria-label=t(Msg::UserActionTitle)>
                            <header>{t(Msg::UserActionTitle)}</header>
                            <p>{instruction}</p>
                            <div class="actions">
                                <button class="answer" on:click=done>{t(Msg::Done)}</button>
                                <button on:click=skip>{t(Msg::Skip)}</button>
                            </div>
                        </section>
                    }.into_any()
                }
                // The engine does not ask these yet; offer the one answer that always works.
                InteractionRequestPayload::WatchPage { .. }
                | InteractionRequestPayload::ScheduleResume { .. }
                | InteractionRequestPayload::McpElicitation { .. } => view! {
                    <section class="interaction-card"><button on:click=skip>{t(Msg::Skip)}</button></section>
                }.into_any(),
            }
        })
    }
}

/// The oldest pending approval with every parameter; Y / S / A / N / Esc answer it from the
/// keyboard as soon as it shows.
#[component]
fn ApprovalCard(state: AppState) -> impl IntoView {
    let current = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().and_then(|v| v.approvals.first().cloned()))
    });
    let count =
        Memo::new(move |_| state.thread.with(|v| v.as_ref().map_or(0, |v| v.approvals.len())));
    let handle = window_event_listener(ev::keydown, move |event| {
        let Some(approval) = current.get_untracked() else { return };
        // Typing in the composer is not an answer.
        let in_text_field = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlTextAreaElement>(t).ok())
            .is_some();
        if in_text_field {
            return;
        }
        let decision = match event.key().as_str() {
            "y" | "Y" => ApprovalDecision::Accept,
            "s" | "S" => ApprovalDecision::AcceptForSession,
            "a" | "A" => ApprovalDecision::AcceptForSite,
            "n" | "N" => ApprovalDecision::Decline { note: None },
            "Escape" => ApprovalDecision::Cancel,
            _ => return,
        };
        event.prevent_default();
        respond(&approval, decision);
    });
    on_cleanup(move || handle.remove());
    move || {
        current.get().map(|approval| {
            let lang = state.lang.get_untracked();
            let t = move |msg| i18n::text(lang, msg);
            let request = approval.request.clone();
            let origin = request.target_origin.clone().unwrap_or_default();
            let title = i18n::format(lang, Msg::ApprovalTitle, &[("tool", &request.label), ("origin", &origin)]);
            let params = serde_json::to_string_pretty(&request.params).unwrap_or_default();
            let flags = request.flags.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", ");
            let decline_note = RwSignal::new(String::new());
            let (a1, a2, a3, a4, a5) = (approval.clone(), approval.clone(), approval.clone(), approval.clone(), approval);
            view! {
                <section class="approval-card" role="dialog" aria-label=title>
                    <header>{title.clone()}{move || (count.get() > 1).then(|| format!(" (1/{})", count.get()))}</header>
                    <p class="tool"><code>{request.tool}</code></p>
                    {(!flags.is_empty()).then(|| view! { <p class="flags">{flags}</p> })}
                    <pre class="params">{params}</pre>
                    <input type="text" class="decline-note" placeholder="note" on:input=move |ev| decline_note.set(event_target_value(&ev))/>
                    <div class="actions">
                        <button autofocus=true on:click=move |_| respond(&a1, ApprovalDecision::Accept)>{t(Msg::ApprovalAccept)}</button>
                        <button on:click=move |_| respond(&a2, ApprovalDecision::AcceptForSession)>{t(Msg::ApprovalSession)}</button>
                        <button on:click=move |_| respond(&a3, ApprovalDecision::AcceptForSite)>{t(Msg::ApprovalSite)}</button>
                        <button on:click=move |_| {
                            let note = decline_note.get_untracked();
                            respond(&a4, ApprovalDecision::Decline { note: (!note.trim().is_empty()).then_some(note) });
                        }>{t(Msg::ApprovalDecline)}</button>
                        <button on:click=move |_| respond(&a5, ApprovalDecision::Cancel)>{t(Msg::ApprovalCancel)}</button>
                    </div>
                </section>
            }
        })
    }
}

fn recover(state: AppState, run: &RunRecoveryState, option: RecoveryOption) {
    let Some(thread_id) =
        state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()))
    else {
        return;
    };
    let run_id = run.run_id.clone();
    let resolution = match option {
        RecoveryOption::Continue => None,
        RecoveryOption::Retry => Some(UncertainResolution::Retry),
        RecoveryOption::MarkDone => Some(UncertainResolution::MarkDone),
        RecoveryOption::Fail => Some(UncertainResolution::Fail),
    };
    let _ = host::send(|submission_id| match resolution {
        None => Op::RunResume(RunResumeParams { submission_id, thread_id, run_id }),
        Some(resolution) => Op::RunResolveUncertain(RunResolveUncertainParams {
            submission_id,
            thread_id,
            run_id,
            resolution,
        }),
    });
}

/// Cards for runs that stopped: paused_uncertain (retry, mark done, fail), interrupted (continue).
#[component]
fn RecoveryCards(state: AppState) -> impl IntoView {
    let runs = Memo::new(move |_| {
        state.thread.with(|v| v.as_ref().map(|v| v.recovery.clone()).unwrap_or_default())
    });
    move || {
        let lang = state.lang.get_untracked();
        runs.get()
            .into_iter()
            .map(|run| {
                let text = match run.state {
                    RunState::PausedUncertain => i18n::format(lang, Msg::RecoveryUncertain, &[("tool", run.tool_name.as_deref().unwrap_or("?"))]),
                    RunState::Interrupted
                    | RunState::PausedBudget
                    | RunState::Queued
                    | RunState::Preparing
                    | RunState::StreamingModel
                    | RunState::WaitingApproval
                    | RunState::WaitingInteraction
                    | RunState::ExecutingTool
                    | RunState::Failed
                    | RunState::Completed => i18n::text(lang, Msg::RecoveryInterrupted).to_owned(),
                };
                let buttons = run
                    .options
                    .iter()
                    .map(|option| {
                        let label = match option {
                            RecoveryOption::Continue => Msg::RecoveryContinue,
                            RecoveryOption::Retry => Msg::Retry,
                            RecoveryOption::MarkDone => Msg::RecoveryMarkDone,
                            RecoveryOption::Fail => Msg::RecoveryFail,
                        };
                        let (run, option) = (run.clone(), *option);
                        view! { <button on:click=move |_| recover(state, &run, option)>{i18n::text(lang, label)}</button> }
                    })
                    .collect_view();
                view! {
                    <section class="recovery-card" role="alert">
                        <p>{text}</p>
                        <p class="reason">{run.reason.clone()}</p>
                        <div class="actions">{buttons}</div>
                    </section>
                }
            })
            .collect_view()
    }
}
