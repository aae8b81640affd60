//! The options page, one column: model connections first (the form open while there is none),
//! the defaults (model and permission mode), the language, tool servers (MCP), model presets,
//! permission rules and the agent's memory.
//! The sections are HTML text from `state::connection_markup` and `state::options_markup`, each
//! handling the events of its controls (see `connections_section` for why).

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::SettingsPatch;
use panelot_protocol::engine::SettingsUpdateParams;

use super::connections_section::ConnectionsSection;
use super::mcp_section::McpSection;
use super::memory_section::MemorySection;
use super::presets_section::PresetsSection;
use super::rules_section::RulesSection;
use crate::contexts::Engine;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::state::choices::model_options;
use crate::state::choices::model_value;
use crate::state::choices::parse_model_value;
use crate::state::choices::parse_policy_value;
use crate::state::language::parse_language_value;
use crate::state::options_markup::agent_opens_html;
use crate::state::options_markup::defaults_html;
use crate::state::options_markup::language_html;

/// The options page.
#[component]
pub(crate) fn OptionsPage() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let defaults = move || {
        let lang = page.lang.get();
        settings.view.with(|s| {
            let connections = s.iter().flat_map(|s| &s.connections);
            let current = s.as_ref().and_then(|s| s.default_model.as_ref()).map(model_value);
            let policy = s.as_ref().map(|s| s.permission_policy);
            defaults_html(
                lang,
                &model_options(connections),
                current.as_deref().unwrap_or_default(),
                policy,
            )
        })
    };
    let language = move || {
        let chosen = settings.view.with(|s| s.as_ref().map(|s| s.language));
        language_html(page.lang.get(), page.system, chosen)
    };
    let agent_opens = move || {
        let on = settings.view.with(|s| s.as_ref().map(|s| s.agent_open_tools));
        agent_opens_html(page.lang.get(), on)
    };
    // Every section saves a choice as soon as it changes; every page gets the settings after it.
    let chose = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let name = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.get_attribute("name"));
        let patch = match name.as_deref() {
            Some("default-model") => SettingsPatch {
                default_model: parse_model_value(&value),
                ..SettingsPatch::default()
            },
            Some("permission-mode") => SettingsPatch {
                permission_policy: parse_policy_value(&value),
                ..SettingsPatch::default()
            },
            Some("agent-open-tools") => {
                let checked = ev
                    .target()
                    .and_then(|t| {
                        wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok()
                    })
                    .map(|input| input.checked());
                SettingsPatch { agent_open_tools: checked, ..SettingsPatch::default() }
            }
            Some("language") => {
                let language = parse_language_value(&value);
                // This page switches now; the engine's answer confirms it for every page.
                if let Some(language) = language {
                    page.follow_language(language);
                }
                SettingsPatch { language, ..SettingsPatch::default() }
            }
            _ => return,
        };
        if patch != SettingsPatch::default() {
            update(engine, patch);
        }
    };
    view! {
        <div class="settings">
            <ConnectionsSection/>
            <section class="model-and-policy" inner_html=defaults on:change=chose></section>
            <section class="language" inner_html=language on:change=chose></section>
            <section class="agent-opens" inner_html=agent_opens on:change=chose></section>
            <McpSection/>
            <PresetsSection/>
            <RulesSection/>
            <MemorySection/>
        </div>
    }
}

/// Sends a change of settings.
fn update(engine: Engine, patch: SettingsPatch) {
    let build: Box<dyn FnOnce(SubmissionId) -> Op> =
        Box::new(|submission_id| Op::SettingsUpdate(SettingsUpdateParams { submission_id, patch }));
    let _ = engine.send(build);
}
