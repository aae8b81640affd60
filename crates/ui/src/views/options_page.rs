//! The options page: model connections first while none is configured, then the default model
//! and permission mode, permission rules, model presets and the language.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::SettingsPatch;
use panelot_protocol::engine::SettingsUpdateParams;

use super::connections_section::ConnectionsSection;
use super::presets_section::PresetsSection;
use super::rules_section::RulesSection;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::state::choices::POLICIES;
use crate::state::choices::model_options;
use crate::state::choices::model_value;
use crate::state::choices::parse_model_value;
use crate::state::choices::parse_policy_value;
use crate::state::choices::policy_label;
use crate::state::choices::policy_value;
use crate::state::connection_form::SettingsScreen;
use crate::state::connection_form::first_screen;

/// The options page.
#[component]
pub(crate) fn OptionsPage() -> impl IntoView {
    let page = use_page();
    let settings = use_settings();
    let n_connections =
        move || settings.view.with(|s| s.as_ref().map_or(0, |s| s.connections.len()));
    let screen = move || first_screen(n_connections());
    let t = move |msg| page.text(msg);
    view! {
        <div class="settings">
            <h2>{move || t(Msg::Settings)}</h2>
            <Show when=move || screen() == SettingsScreen::ConnectionForm>
                <p class="first-run">{move || t(Msg::NoModelConfigured)}</p>
            </Show>
            <ConnectionsSection/>
            <ModelAndPolicy/>
            <RulesSection/>
            <PresetsSection/>
            <section>
                <h3>{move || t(Msg::Language)}</h3>
                <select on:change=move |ev| page.lang.set(Lang::from_tag(&event_target_value(&ev)))>
                    <option value="en" selected=move || page.lang.get() == Lang::En>"English"</option>
                    <option value="zh-CN" selected=move || page.lang.get() == Lang::ZhCn>"简体中文"</option>
                </select>
            </section>
        </div>
    }
}

/// The default model (any model of any connection) and the permission mode, each saved through
/// `settings.update` as soon as it changes.
#[component]
fn ModelAndPolicy() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let t = move |msg| page.text(msg);
    let models =
        move || settings.view.with(|s| model_options(s.iter().flat_map(|s| &s.connections)));
    let current_model = move || {
        settings.view.with(|s| {
            s.as_ref().and_then(|s| s.default_model.as_ref()).map(model_value).unwrap_or_default()
        })
    };
    let policy = move || settings.view.with(|s| s.as_ref().map(|s| s.permission_policy));
    let update = move |patch: SettingsPatch| {
        let _ = engine.send(|submission_id| {
            Op::SettingsUpdate(SettingsUpdateParams { submission_id, patch })
        });
    };
    let pick_model = move |ev: leptos::ev::Event| {
        if let Some(choice) = parse_model_value(&event_target_value(&ev)) {
            update(SettingsPatch { default_model: Some(choice), ..SettingsPatch::default() });
        }
    };
    let pick_policy = move |ev: leptos::ev::Event| {
        let chosen = parse_policy_value(&event_target_value(&ev));
        update(SettingsPatch { permission_policy: chosen, ..SettingsPatch::default() });
    };
    view! {
        <section class="model-and-policy">
            <label>{move || t(Msg::DefaultModel)}
                <select class="default-model" on:change=pick_model>
                    {move || models().into_iter().map(|(value, label)| {
                        let selected = value == current_model();
                        view! { <option value=value selected=selected>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label>{move || t(Msg::PermissionMode)}
                <select class="permission-mode" on:change=pick_policy>
                    {POLICIES.map(|p| view! {
                        <option value=policy_value(Some(p)) selected=move || policy() == Some(p)>{move || t(policy_label(p))}</option>
                    })}
                </select>
            </label>
        </section>
    }
}
