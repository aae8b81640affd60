//! The options page's connections: the stored ones with the report of their last check, and the
//! form that adds one (`connection.save`).

use leptos::prelude::*;
use panelot_protocol::ConnectionId;
use panelot_protocol::Op;
use panelot_protocol::engine::ConnectionCheckFailure;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionSaveParams;
use panelot_protocol::engine::ConnectionVerifyParams;

use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::connection_form::ConnectionForm as ConnectionFormData;
use crate::state::connection_form::ConnectionKind;
use crate::state::connection_form::problem_text;
use crate::state::urls::origin_of;

/// Model connections: each stored one (keys are never shown back) with Verify and delete, and
/// the form that adds one.
#[component]
pub(crate) fn ConnectionsSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let connections = move || {
        settings.view.with(|s| s.as_ref().map(|s| s.connections.clone()).unwrap_or_default())
    };
    let t = move |msg| page.text(msg);
    view! {
    <section>
        <h3>{move || t(Msg::Connections)}</h3>
        <ul class="connections">
            {move || connections().into_iter().map(|c| {
                let id = c.id.clone();
                let delete = move |_| {
                    let connection_id = id.clone();
                    let _ = engine.send(|submission_id| {
                        Op::ConnectionDelete(ConnectionDeleteParams { submission_id, connection_id })
                    });
                };
                let verify_id = c.id.clone();
                let verify = move |_| {
                    let connection_id = verify_id.clone();
                    settings.record_check(connection_id.clone(), None);
                    let _ = engine.send(|submission_id| {
                        Op::ConnectionVerify(ConnectionVerifyParams { submission_id, connection_id, model: None })
                    });
                };
                let extras = [
                    (!c.header_names.is_empty()).then(|| c.header_names.join(", ")),
                    (!c.quirks.is_empty()).then(|| c.quirks.join(", ")),
                ].into_iter().flatten().collect::<Vec<_>>().join(" · ");
                let report_id = c.id.clone();
                view! {
                    <li data-connection=c.id.to_string()>
                        {c.name}" — "{c.model_ids.join(", ")}" · "{c.base_url}
                        {(!extras.is_empty()).then(|| view! { <span class="extras">" · "{extras}</span> })}
                        <button type="button" class="verify" on:click=verify>{move || t(Msg::Verify)}</button>
                        <button type="button" on:click=delete>"×"</button>
                        <CheckReport connection_id=report_id/>
                    </li>
                }
            }).collect_view()}
        </ul>
        <ConnectionForm/>
    </section>
    }
}

/// The result of the last check of a connection: "checking…", or what worked and what failed.
#[component]
fn CheckReport(connection_id: ConnectionId) -> impl IntoView {
    let page = use_page();
    let settings = use_settings();
    let check = Memo::new(move |_| {
        settings.checks.with(|checks| {
            checks.iter().find(|(id, _)| id == &connection_id).map(|(_, report)| report.clone())
        })
    });
    move || {
        let lang = page.lang.get();
        let t = move |msg| i18n::text(lang, msg);
        let yes_no = move |ok: bool| t(if ok { Msg::Yes } else { Msg::No });
        match check.get()? {
            None => Some(
                view! { <p class="check-report" data-state="running">{t(Msg::Verifying)}</p> }
                    .into_any(),
            ),
            Some(report) => {
                let checks = i18n::format(
                    lang,
                    Msg::VerifyChecks,
                    &[
                        ("reachable", yes_no(report.reachable)),
                        ("key", yes_no(report.key_valid)),
                        ("streaming", yes_no(report.streaming)),
                        ("tools", yes_no(report.tool_use)),
                    ],
                );
                let verdict = match report.failure {
                    None => Msg::VerifyOk,
                    Some(ConnectionCheckFailure::InvalidKey) => Msg::VerifyInvalidKey,
                    Some(ConnectionCheckFailure::Unreachable) => Msg::VerifyUnreachable,
                    Some(ConnectionCheckFailure::NoModel) => Msg::VerifyNoModel,
                    Some(ConnectionCheckFailure::ProtocolMismatch) => Msg::VerifyProtocolMismatch,
                    Some(ConnectionCheckFailure::NoToolUse) => Msg::VerifyNoToolUse,
                };
                let state_name = if report.failure.is_none() { "ok" } else { "failed" };
                let models = report.models.map(|m| m.join(", "));
                Some(
                    view! {
                        <div class="check-report" data-state=state_name role="status">
                            <p class="verdict">{t(verdict)}</p>
                            <p class="checks">{checks}{report.model.map(|m| format!(" · {m}"))}</p>
                            {report.diagnosis.map(|d| view! { <p class="diagnosis">{d}</p> })}
                            {models.map(|m| view! { <p class="models">{m}</p> })}
                        </div>
                    }
                    .into_any(),
                )
            }
        }
    }
}

/// The form that adds a connection; saving first asks for host access to its server.
#[component]
fn ConnectionForm() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let form = RwSignal::new(ConnectionFormData::new(ConnectionKind::default()));
    let problems = RwSignal::new(Vec::<String>::new());
    let saved = RwSignal::new(false);
    let t = move |msg| page.text(msg);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let lang = page.lang.get_untracked();
        match form.get_untracked().validate() {
            Ok(draft) => {
                if let Some(origin) = origin_of(&draft.base_url) {
                    host::request_host_access(&origin);
                }
                let connection = draft.to_input();
                let _ = engine.send(|submission_id| {
                    Op::ConnectionSave(ConnectionSaveParams { submission_id, connection })
                });
                form.set(ConnectionFormData::new(ConnectionKind::default()));
                problems.set(Vec::new());
                saved.set(true);
            }
            Err(found) => {
                saved.set(false);
                problems.set(
                    found
                        .into_iter()
                        .map(|(f, problem)| problem_text(lang, f.label(), problem))
                        .collect(),
                );
            }
        }
    };
    let quirk_names = move || {
        settings.view.with(|s| s.as_ref().map(|s| s.quirk_names.clone()).unwrap_or_default())
    };
    let kinds = ConnectionKind::ALL
        .into_iter()
        .map(|kind| view! { <option value=kind.value() selected=move || form.with(|f| f.kind == kind)>{move || t(kind.label())}</option> })
        .collect_view();
    view! {
        <form class="connection-form" on:submit=save>
            <label>{move || t(Msg::ConnectionKind)}
                <select on:change=move |ev| {
                    if let Some(kind) = ConnectionKind::from_value(&event_target_value(&ev)) {
                        form.update(|f| { f.kind = kind; f.base_url = kind.default_base_url().to_owned(); });
                    }
                }>{kinds}</select>
            </label>
            <label>{move || t(Msg::ConnectionName)}
                <input type="text" prop:value=move || form.with(|f| f.name.clone()) on:input=move |ev| form.update(|f| f.name = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::BaseUrl)}
                <input type="url" prop:value=move || form.with(|f| f.base_url.clone()) on:input=move |ev| form.update(|f| f.base_url = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::ApiKey)}
                <input type="password" autocomplete="off" prop:value=move || form.with(|f| f.api_key.clone()) on:input=move |ev| form.update(|f| f.api_key = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::DefaultModel)}
                <input type="text" prop:value=move || form.with(|f| f.default_model.clone()) on:input=move |ev| form.update(|f| f.default_model = event_target_value(&ev))/>
            </label>
            <label>{move || t(Msg::CustomHeaders)}
                <textarea class="headers" rows="2" spellcheck="false" prop:value=move || form.with(|f| f.headers.clone()) on:input=move |ev| form.update(|f| f.headers = event_target_value(&ev))></textarea>
            </label>
            <fieldset class="quirks">
                <legend>{move || t(Msg::Quirks)}</legend>
                {move || quirk_names().into_iter().map(|name| {
                    let checked_name = name.clone();
                    let toggled = name.clone();
                    view! {
                        <label class="quirk">
                            <input type="checkbox" value=name.clone()
                                prop:checked=move || form.with(|f| f.quirks.contains(&checked_name))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    form.update(|f| {
                                        f.quirks.retain(|q| q != &toggled);
                                        if on { f.quirks.push(toggled.clone()); }
                                    });
                                }/>
                            {name}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <ul class="problems" role="alert">{move || problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
            <Show when=move || saved.get()><p class="saved">{move || t(Msg::Saved)}</p></Show>
            <button type="submit">{move || t(Msg::Save)}</button>
        </form>
    }
}
