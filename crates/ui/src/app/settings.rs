//! The settings page: the connection form comes first while no model is configured; saving sends
//! `connection.save` and the list shows what the engine stored (keys are never shown back).

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::ConnectionDeleteParams;
use panelot_protocol::engine::ConnectionSaveParams;

use super::AppState;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::settings::ConnectionForm;
use crate::settings::ConnectionKind;
use crate::settings::SettingsScreen;
use crate::settings::first_screen;

/// The options page.
#[component]
pub(super) fn SettingsPage(state: AppState) -> impl IntoView {
    let connections = move || {
        state.settings.with(|s| s.as_ref().map(|s| s.connections.clone()).unwrap_or_default())
    };
    let screen = move || first_screen(connections().len());
    let t = move |msg| i18n::text(state.lang.get(), msg);
    view! {
        <div class="settings">
            <h2>{move || t(Msg::Settings)}</h2>
            <Show when=move || screen() == SettingsScreen::ConnectionForm>
                <p class="first-run">{move || t(Msg::NoModelConfigured)}</p>
            </Show>
            <section>
                <h3>{move || t(Msg::Connections)}</h3>
                <ul class="connections">
                    {move || connections().into_iter().map(|c| {
                        let id = c.id.clone();
                        let delete = move |_| {
                            let connection_id = id.clone();
                            let _ = host::send(|submission_id| {
                                Op::ConnectionDelete(ConnectionDeleteParams { submission_id, connection_id })
                            });
                        };
                        view! {
                            <li data-connection=c.id.to_string()>
                                {c.name}" — "{c.model_ids.join(", ")}" · "{c.base_url}
                                <button type="button" on:click=delete>"×"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <ConnectionFormView state=state/>
            </section>
            <section>
                <h3>{move || t(Msg::Language)}</h3>
                <select on:change=move |ev| state.lang.set(Lang::from_tag(&event_target_value(&ev)))>
                    <option value="en" selected=move || state.lang.get() == Lang::En>"English"</option>
                    <option value="zh-CN" selected=move || state.lang.get() == Lang::ZhCn>"简体中文"</option>
                </select>
            </section>
        </div>
    }
}

#[component]
fn ConnectionFormView(state: AppState) -> impl IntoView {
    let form = RwSignal::new(ConnectionForm::new(ConnectionKind::default()));
    let problems = RwSignal::new(Vec::<String>::new());
    let saved = RwSignal::new(false);
    let t = move |msg| i18n::text(state.lang.get(), msg);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let lang = state.lang.get_untracked();
        match form.get_untracked().validate() {
            Ok(draft) => {
                let connection = draft.to_input();
                let _ = host::send(|submission_id| {
                    Op::ConnectionSave(ConnectionSaveParams { submission_id, connection })
                });
                form.set(ConnectionForm::new(ConnectionKind::default()));
                problems.set(Vec::new());
                saved.set(true);
            }
            Err(found) => {
                saved.set(false);
                problems.set(
                    found
                        .into_iter()
                        .map(|(field, problem)| {
                            i18n::format(
                                lang,
                                problem.message(),
                                &[("field", i18n::text(lang, field.label()))],
                            )
                        })
                        .collect(),
                );
            }
        }
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
            <ul class="problems" role="alert">{move || problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
            <Show when=move || saved.get()><p class="saved">{move || t(Msg::Saved)}</p></Show>
            <button type="submit">{move || t(Msg::Save)}</button>
        </form>
    }
}
