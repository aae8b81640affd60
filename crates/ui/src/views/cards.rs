//! The cards the engine asks for: approvals (every parameter, the origin and flags; answered
//! from the keyboard), questions and user actions, and recovery of stopped runs.

use leptos::ev;
use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::ApprovalDecision;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ApprovalResponseParams;
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
use panelot_protocol::engine::UncertainResolution;
use wasm_bindgen::JsCast;

use crate::contexts::Engine;
use crate::contexts::OpenThread;
use crate::contexts::use_engine;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;

/// Answers an approval. Accepting one whose target the extension may not reach yet
/// (`host_permission`) first asks Chrome for that origin, inside this click or key press (the
/// browser only asks during a user gesture); the answer goes to the engine once Chrome replied.
fn respond(engine: Engine, approval: &PendingApproval, decision: ApprovalDecision) {
    let accepts = match &decision {
        ApprovalDecision::Accept
        | ApprovalDecision::AcceptForSession
        | ApprovalDecision::AcceptForSite => true,
        ApprovalDecision::Decline { .. } | ApprovalDecision::Cancel => false,
    };
    let approval_id = approval.approval_id.clone();
    let send = move || {
        let _ = engine.send(|submission_id| {
            Op::ApprovalResponse(ApprovalResponseParams { submission_id, approval_id, decision })
        });
    };
    let request = &approval.request;
    match (&request.target_origin, accepts && request.flags.contains(&ApprovalFlag::HostPermission))
    {
        (Some(origin), true) => host::request_origin_then(origin, send),
        _ => send(),
    }
}

/// The catalog key of an approval flag.
fn flag_label(flag: ApprovalFlag) -> Msg {
    match flag {
        ApprovalFlag::SensitivePayload => Msg::FlagSensitivePayload,
        ApprovalFlag::EscalationL2 => Msg::FlagEscalation,
        ApprovalFlag::HostPermission => Msg::FlagHostPermission,
        ApprovalFlag::TaintedInput => Msg::FlagTainted,
        ApprovalFlag::InternationalizedHost => Msg::FlagIdnHost,
    }
}

/// The machine name of an approval flag, for `data-flag`.
fn flag_name(flag: ApprovalFlag) -> &'static str {
    match flag {
        ApprovalFlag::SensitivePayload => "sensitive_payload",
        ApprovalFlag::EscalationL2 => "escalation_l2",
        ApprovalFlag::HostPermission => "host_permission",
        ApprovalFlag::TaintedInput => "tainted_input",
        ApprovalFlag::InternationalizedHost => "internationalized_host",
    }
}

fn answer(engine: Engine, interaction: &PendingInteraction, response: InteractionResponse) {
    let interaction_id = interaction.interaction_id.clone();
    let _ = engine.send(|submission_id| {
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
pub(crate) fn InteractionCard() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let current = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().and_then(|v| v.interactions.first().cloned()))
    });
    move || {
        current.get().map(|interaction| {
            let lang = page.lang.get_untracked();
            let t = move |msg| i18n::text(lang, msg);
            let skip = {
                let interaction = interaction.clone();
                move |_| answer(engine, &interaction, InteractionResponse::Cancel { note: None })
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
                        answer(engine, &interaction, InteractionResponse::Submit { value });
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
                        answer(engine, &interaction, InteractionResponse::Submit { value });
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
pub(crate) fn ApprovalCard() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let current = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().and_then(|v| v.approvals.first().cloned()))
    });
    let count = Memo::new(move |_| open.view.with(|v| v.as_ref().map_or(0, |v| v.approvals.len())));
    let handle = window_event_listener(ev::keydown, move |event| {
        let Some(approval) = current.get_untracked() else { return };
        // Typing (in the decline note, say) is not an answer.
        let in_text_field = event.target().is_some_and(|t| {
            t.clone().dyn_into::<web_sys::HtmlTextAreaElement>().is_ok()
                || t.dyn_into::<web_sys::HtmlInputElement>().is_ok()
        });
        if in_text_field {
            return;
        }
        let decision = match event.key().as_str() {
            "y" | "Y" => ApprovalDecision::Accept,
            "s" | "S" => ApprovalDecision::AcceptForSession,
            // "For this site" needs a site: a card without an origin does not offer it.
            "a" | "A" if approval.request.target_origin.is_some() => {
                ApprovalDecision::AcceptForSite
            }
            "n" | "N" => ApprovalDecision::Decline { note: None },
            "Escape" => ApprovalDecision::Cancel,
            _ => return,
        };
        event.prevent_default();
        respond(engine, &approval, decision);
    });
    on_cleanup(move || handle.remove());
    move || {
        current.get().map(|approval| {
            let lang = page.lang.get_untracked();
            let t = move |msg| i18n::text(lang, msg);
            let request = approval.request.clone();
            let site = request.target_origin.clone();
            let title = match &site {
                Some(origin) => i18n::format(lang, Msg::ApprovalTitle, &[("tool", &request.label), ("origin", origin)]),
                None => i18n::format(lang, Msg::ApprovalTitleNoSite, &[("tool", &request.label)]),
            };
            let params = serde_json::to_string_pretty(&request.params).unwrap_or_default();
            let flags = request.flags.iter().map(|f| view! { <li class="flag" data-flag=flag_name(*f)>{t(flag_label(*f))}</li> }).collect_view();
            let has_flags = !request.flags.is_empty();
            let decline_note = RwSignal::new(String::new());
            let (a1, a2, a3, a4, a5) = (approval.clone(), approval.clone(), approval.clone(), approval.clone(), approval);
            view! {
                <section class="approval-card" role="dialog" aria-label=title>
                    <header>{title.clone()}{move || (count.get() > 1).then(|| format!(" (1/{})", count.get()))}</header>
                    <p class="tool"><code>{request.tool}</code></p>
                    {has_flags.then(|| view! { <ul class="flags">{flags}</ul> })}
                    <pre class="params">{params}</pre>
                    <input type="text" class="decline-note" placeholder="note" on:input=move |ev| decline_note.set(event_target_value(&ev))/>
                    <div class="actions">
                        <button autofocus=true data-decision="accept" on:click=move |_| respond(engine, &a1, ApprovalDecision::Accept)>{t(Msg::ApprovalAccept)}</button>
                        <button data-decision="accept_for_session" on:click=move |_| respond(engine, &a2, ApprovalDecision::AcceptForSession)>{t(Msg::ApprovalSession)}</button>
                        {site.is_some().then(|| view! {
                            <button data-decision="accept_for_site" on:click=move |_| respond(engine, &a3, ApprovalDecision::AcceptForSite)>{t(Msg::ApprovalSite)}</button>
                        })}
                        <button data-decision="decline" on:click=move |_| {
                            let note = decline_note.get_untracked();
                            respond(engine, &a4, ApprovalDecision::Decline { note: (!note.trim().is_empty()).then_some(note) });
                        }>{t(Msg::ApprovalDecline)}</button>
                        <button data-decision="cancel" on:click=move |_| respond(engine, &a5, ApprovalDecision::Cancel)>{t(Msg::ApprovalCancel)}</button>
                    </div>
                </section>
            }
        })
    }
}

fn recover(engine: Engine, open: OpenThread, run: &RunRecoveryState, option: RecoveryOption) {
    let Some(thread_id) = open.thread_id() else { return };
    let run_id = run.run_id.clone();
    let resolution = match option {
        RecoveryOption::Continue => None,
        RecoveryOption::Retry => Some(UncertainResolution::Retry),
        RecoveryOption::MarkDone => Some(UncertainResolution::MarkDone),
        RecoveryOption::Fail => Some(UncertainResolution::Fail),
    };
    let _ = engine.send(|submission_id| match resolution {
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
pub(crate) fn RecoveryCards() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let runs = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().map(|v| v.recovery.clone()).unwrap_or_default())
    });
    move || {
        let lang = page.lang.get_untracked();
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
                        view! { <button on:click=move |_| recover(engine, open, &run, option)>{i18n::text(lang, label)}</button> }
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
