//! The cards the engine asks for besides approvals (`approval_card`): questions, user actions
//! and waits (for a page, for a time), and recovery of stopped runs.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::InteractionResponse;
use panelot_protocol::engine::InteractionResponseParams;
use panelot_protocol::engine::PendingInteraction;
use panelot_protocol::engine::RecoveryOption;
use panelot_protocol::engine::RunRecoveryState;
use panelot_protocol::engine::RunResolveUncertainParams;
use panelot_protocol::engine::RunResumeParams;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::UncertainResolution;
use panelot_protocol::engine::WatchCondition;

use crate::contexts::Engine;
use crate::contexts::OpenThread;
use crate::contexts::use_engine;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::elicitation;
use crate::state::memory_notes::local_time;
use crate::views::memory_section::utc_offset_min;

/// A time the engine gave, in the user's local time: the hour alone today, else with the date.
fn at(ms: u64) -> String {
    let offset = utc_offset_min();
    let when = local_time(ms, offset);
    let today = local_time(js_sys::Date::now() as u64, offset);
    match (when.split_once(' '), today.split_once(' ')) {
        (Some((day, time)), Some((now, _))) if day == now => time.to_owned(),
        _ => when,
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
                                <button class="answer btn-primary" on:click=submit>{t(Msg::Answer)}</button>
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
                                <button class="answer btn-primary" on:click=done>{t(Msg::Done)}</button>
                                <button on:click=skip>{t(Msg::Skip)}</button>
                            </div>
                        </section>
                    }.into_any()
                }
                InteractionRequestPayload::WatchPage { condition, value, deadline_at_ms, .. } => {
                    let until = match condition {
                        WatchCondition::Text => Msg::WatchText,
                        WatchCondition::TextGone => Msg::WatchTextGone,
                        WatchCondition::Url => Msg::WatchUrl,
                    };
                    let until = i18n::format(lang, until, &[("value", &value)]);
                    let ends = i18n::format(lang, Msg::WatchGivesUp, &[("time", &at(deadline_at_ms))]);
                    view! {
                        <section class="interaction-card wait-card" role="status" aria-label=t(Msg::WatchTitle)>
                            <header>{t(Msg::WatchTitle)}</header>
                            <p>{until}</p>
                            <p class="reason">{ends}</p>
                            <div class="actions">
                                <button on:click=skip>{t(Msg::StopWaiting)}</button>
                            </div>
                        </section>
                    }.into_any()
                }
                InteractionRequestPayload::ScheduleResume { resume_at_ms, reason } => {
                    let now = move |_| {
                        let value = serde_json::Value::Null;
                        answer(engine, &interaction, InteractionResponse::Submit { value });
                    };
                    let when = i18n::format(lang, Msg::ScheduleAt, &[("time", &at(resume_at_ms))]);
                    view! {
                        <section class="interaction-card wait-card" role="status" aria-label=t(Msg::ScheduleTitle)>
                            <header>{t(Msg::ScheduleTitle)}</header>
                            <p>{reason}</p>
                            <p class="reason">{when}</p>
                            <div class="actions">
                                <button class="answer btn-primary" on:click=now>{t(Msg::ContinueNow)}</button>
                                <button on:click=skip>{t(Msg::Cancel)}</button>
                            </div>
                        </section>
                    }.into_any()
                }
                InteractionRequestPayload::McpElicitation { server_id, message, schema } => {
                    elicitation_card(engine, lang, interaction, &server_id, message, &schema)
                }
            }
        })
    }
}

/// An MCP server's question during a tool call: its message and its form (all server text,
/// shown as text); Send answers with the typed values, Decline refuses.
fn elicitation_card(
    engine: Engine,
    lang: i18n::Lang,
    interaction: PendingInteraction,
    server: &str,
    message: String,
    schema: &serde_json::Value,
) -> AnyView {
    use crate::state::elicitation::FieldKind;
    use crate::state::elicitation::Problem;
    let t = move |msg| i18n::text(lang, msg);
    let fields = elicitation::fields(schema);
    let values = RwSignal::new(serde_json::Map::new());
    let problem = RwSignal::new(None::<String>);
    let set = move |name: String, value: String| {
        values.update(|v| {
            v.insert(name, value.into());
        })
    };
    let rows = fields
        .iter()
        .map(|field| {
            let name = field.name.clone();
            let input = match &field.kind {
                FieldKind::Boolean => {
                    let checked = field.default == "true";
                    view! {
                        <label class="check"><input type="checkbox" name=name.clone() prop:checked=checked
                            on:change=move |ev| set(name.clone(), event_target_checked(&ev).to_string())/>
                            {t(Msg::McpAskYes)}</label>
                    }
                    .into_any()
                }
                FieldKind::Choice(choices) => {
                    let options = choices
                        .iter()
                        .map(|(value, label)| {
                            let selected = *value == field.default;
                            view! { <option value=value.clone() selected=selected>{label.clone()}</option> }
                        })
                        .collect_view();
                    view! {
                        <select name=name.clone() on:change=move |ev| set(name.clone(), event_target_value(&ev))>
                            <option value="">"—"</option>{options}</select>
                    }
                    .into_any()
                }
                kind => {
                    let input_type = if matches!(kind, FieldKind::Text) { "text" } else { "number" };
                    view! {
                        <input type=input_type name=name.clone() value=field.default.clone()
                            on:input=move |ev| set(name.clone(), event_target_value(&ev))/>
                    }
                    .into_any()
                }
            };
            let label = if field.required { format!("{} *", field.label) } else { field.label.clone() };
            view! {
                <label class="field"><span>{label}</span>{input}
                    {field.description.clone().map(|d| view! { <small>{d}</small> })}</label>
            }
        })
        .collect_view();
    let (send, decline) = {
        let asked = interaction.clone();
        let send = move |_| match elicitation::answer(&fields, &values.get_untracked()) {
            Ok(value) => answer(engine, &asked, InteractionResponse::Submit { value }),
            Err(found) => {
                let (msg, field) = match found {
                    Problem::Missing(f) => (Msg::McpAskMissing, f),
                    Problem::NotANumber(f) => (Msg::McpAskNumber, f),
                    Problem::NotAWholeNumber(f) => (Msg::McpAskWhole, f),
                };
                problem.set(Some(i18n::format(lang, msg, &[("field", &field)])));
            }
        };
        let decline =
            move |_| answer(engine, &interaction, InteractionResponse::Cancel { note: None });
        (send, decline)
    };
    let title = i18n::format(lang, Msg::McpAskTitle, &[("server", server)]);
    let label = title.clone();
    view! {
        <section class="interaction-card mcp-ask" role="dialog" aria-label=label>
            <header>{title}</header>
            <p>{message}</p>
            {rows}
            {move || problem.get().map(|p| view! { <p class="reason" role="alert">{p}</p> })}
            <div class="actions">
                <button class="answer btn-primary" on:click=send>{t(Msg::McpAskSend)}</button>
                <button on:click=decline>{t(Msg::McpAskDecline)}</button>
            </div>
        </section>
    }
    .into_any()
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
    let run = run_id.clone();
    let sent = engine.send(|submission_id| match resolution {
        None => Op::RunResume(RunResumeParams { submission_id, thread_id, run_id }),
        Some(resolution) => Op::RunResolveUncertain(RunResolveUncertainParams {
            submission_id,
            thread_id,
            run_id,
            resolution,
        }),
    });
    // The card goes at once (a second press would be refused); the engine's answer brings the
    // run's state with a snapshot.
    if let Ok(submission_id) = sent {
        open.update(|view| view.recovering(&run, submission_id));
    }
}

/// Cards for runs that stopped: paused_uncertain (retry, mark done, fail), interrupted or paused
/// (continue; resume for a run the user paused from the page).
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
                    RunState::PausedByUser => i18n::text(lang, Msg::RecoveryPausedByUser).to_owned(),
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
                            RecoveryOption::Continue if run.state == RunState::PausedByUser => Msg::RecoveryResume,
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
