//! The options page's model presets: each stored one with Edit and Delete, and the form that
//! adds one or edits the one chosen (`preset.save`). The form waits for the engine's answer: a
//! refusal shows next to it with what was typed kept; a save empties it. The form is no
//! `<form>`: Enter in a box must not submit it.
//!
//! The markup is text from `state::options_markup` (see `connections_section` for why); the
//! fields are drawn again only when the form is opened, emptied or its families change, never
//! while typing, and what they hold is read from their events into the editor.

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::PresetDeleteParams;
use panelot_protocol::engine::PresetSaveParams;

use super::events::closest_target;
use super::events::target_element;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n::Msg;
use crate::state::choices::parse_policy_value;
use crate::state::connection_markup::problems_html;
use crate::state::options_markup::preset_actions_html;
use crate::state::options_markup::preset_fields_html;
use crate::state::options_markup::preset_list_html;
use crate::state::preset_form::FormStatus;
use crate::state::preset_form::PresetEditor;
use crate::state::preset_form::PresetForm;
use crate::state::preset_form::TOOL_FAMILIES;
use crate::state::preset_form::parse_effort_value;
use crate::state::preset_form::preset_model_options;

/// Model presets: the stored ones and the form.
#[component]
pub(crate) fn PresetsSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let editor = settings.preset_editor;
    let redraw = RwSignal::new(0u32);
    let send = move |build: Box<dyn FnOnce(SubmissionId) -> Op>| engine.send(build).ok();
    let connections = Memo::new(move |_| {
        settings.view.with(|s| s.as_ref().map(|s| s.connections.clone()).unwrap_or_default())
    });
    // The form is drawn again when it is opened on another preset, emptied after a save, or
    // when the models offered change; never while typing.
    let shape = Memo::new(move |_| {
        editor.with(|e| (e.editing.clone(), matches!(e.status, FormStatus::Saved)))
    });
    let models = Memo::new(move |_| {
        let current = editor.with_untracked(|e| e.form.model.clone());
        connections.with(|c| preset_model_options(c.iter(), &current))
    });
    let list = move || {
        let lang = page.lang.get();
        settings.view.with(|s| {
            let presets = s.as_ref().map(|s| s.presets.as_slice()).unwrap_or_default();
            connections.with(|c| preset_list_html(lang, presets, c))
        })
    };
    let fields = move || {
        redraw.track();
        shape.track();
        let lang = page.lang.get();
        models.with(|m| editor.with_untracked(|e| preset_fields_html(lang, &e.form, m)))
    };
    let notes = move || {
        let lang = page.lang.get();
        editor.with(|e| problems_html(&e.notes(lang)))
    };
    let actions = move || {
        let (label, editing) = editor.with(|e| (e.save_label(), e.editing.is_some()));
        preset_actions_html(page.lang.get(), label, editing)
    };
    let change = move |apply: &dyn Fn(&mut PresetForm)| editor.update(|e| apply(&mut e.form));
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(button) = closest_target(&ev, "[data-act]") else {
            return;
        };
        let id = button.get_attribute("data-id").unwrap_or_default();
        match button.get_attribute("data-act").as_deref() {
            Some("edit") => {
                let opened = settings.view.with_untracked(|s| {
                    s.as_ref().and_then(|s| PresetEditor::edit(&s.presets, &id))
                });
                if let Some(opened) = opened {
                    editor.set(opened);
                }
            }
            Some("delete") => {
                if editor.with_untracked(|e| e.editing.as_ref().is_some_and(|p| p.as_str() == id)) {
                    editor.set(PresetEditor::default());
                }
                if let Ok(preset_id) = panelot_protocol::PresetId::new(id) {
                    send(Box::new(|submission_id| {
                        Op::PresetDelete(PresetDeleteParams { submission_id, preset_id })
                    }));
                }
            }
            Some("save") => {
                let mut shown = editor.get_untracked();
                if let Some(preset) = shown.submit() {
                    let preset_id = shown.editing.clone();
                    let sent = send(Box::new(|submission_id| {
                        Op::PresetSave(PresetSaveParams { submission_id, preset_id, preset })
                    }));
                    if let Some(submission_id) = sent {
                        shown.status = FormStatus::Waiting(submission_id);
                    }
                }
                editor.set(shown);
            }
            Some("cancel") => {
                editor.set(PresetEditor::default());
                redraw.update(|n| *n += 1);
            }
            _ => {}
        }
    };
    let on_input = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        match field_name(&ev).as_deref() {
            Some("name") => change(&|f| f.name.clone_from(&text)),
            Some("instructions") => change(&|f| f.instructions.clone_from(&text)),
            Some("temperature") => change(&|f| f.temperature.clone_from(&text)),
            Some("max-tokens") => change(&|f| f.max_tokens.clone_from(&text)),
            _ => {}
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let on = event_target_checked(&ev);
        match field_name(&ev).as_deref() {
            Some("model") => change(&|f| f.model.clone_from(&value)),
            Some("policy") => change(&|f| f.policy = parse_policy_value(&value)),
            Some("effort") => change(&|f| f.reasoning_effort = parse_effort_value(&value)),
            Some("default-tools") => {
                change(&|f| f.keep_default_tools(on));
                // The families open (or close) with the default's box.
                redraw.update(|n| *n += 1);
            }
            Some(name) => {
                if let Some((level, ..)) = TOOL_FAMILIES.iter().find(|(_, n, _)| *n == name) {
                    change(&|f| f.set_tool(*level, on));
                }
            }
            None => {}
        }
    };
    view! {
        <section class="presets">
            <h2>{page.tr(Msg::Presets)}</h2>
            <ul class="preset-list" inner_html=list on:click=on_click></ul>
            <div class="preset-form" on:click=on_click on:input=on_input on:change=on_change>
                <div class="form-fields" inner_html=fields></div>
                <ul class="problems" role="alert" inner_html=notes></ul>
                <div class="actions" inner_html=actions></div>
            </div>
        </section>
    }
}

/// The `name` of the field an event came from.
fn field_name(ev: &leptos::ev::Event) -> Option<String> {
    target_element(ev)?.get_attribute("name")
}
