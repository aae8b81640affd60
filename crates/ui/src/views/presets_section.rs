//! The options page's model presets: each stored one with Edit and Delete, and the form that
//! adds one or edits the one chosen (`preset.save`).

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::engine::PresetDeleteParams;
use panelot_protocol::engine::PresetSaveParams;

use crate::contexts::Page;
use crate::contexts::use_engine;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::i18n;
use crate::i18n::Msg;
use crate::state::choices::POLICIES;
use crate::state::choices::parse_policy_value;
use crate::state::choices::policy_label;
use crate::state::choices::policy_value;
use crate::state::preset_form::EFFORTS;
use crate::state::preset_form::FormStatus;
use crate::state::preset_form::PresetEditor;
use crate::state::preset_form::PresetForm;
use crate::state::preset_form::TOOL_FAMILIES;
use crate::state::preset_form::effort_value;
use crate::state::preset_form::parse_effort_value;
use crate::state::preset_form::preset_model_options;
use crate::state::preset_form::preset_summary;

/// Model presets: each stored one with Edit and Delete, and a form that adds one or edits the
/// one chosen. The form waits for the engine's answer: a refusal shows next to it with what was
/// typed kept; a save empties it. The form is no `<form>`: Enter in a box must not submit it.
#[component]
pub(crate) fn PresetsSection() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let settings = use_settings();
    let editor = settings.preset_editor;
    let t = move |msg| page.text(msg);
    let list = move || {
        let lang = page.lang.get();
        let (presets, connections) = settings
            .view
            .with(|s| s.as_ref().map(|s| (s.presets.clone(), s.connections.clone())))
            .unwrap_or_default();
        presets
            .into_iter()
            .map(|stored| {
                let (model, policy) = preset_summary(&stored.preset, &connections);
                let policy = policy.map(|m| format!(" · {}", i18n::text(lang, m)));
                let id = stored.id.clone();
                let edit = move |_| {
                    let opened = settings.view.with_untracked(|s| {
                        s.as_ref().and_then(|s| PresetEditor::edit(&s.presets, id.as_str()))
                    });
                    if let Some(opened) = opened {
                        editor.set(opened);
                    }
                };
                let id = stored.id.clone();
                let delete = move |_| {
                    let preset_id = id.clone();
                    if editor.with_untracked(|e| e.editing.as_ref() == Some(&preset_id)) {
                        editor.set(PresetEditor::default());
                    }
                    let _ = engine.send(|submission_id| {
                        Op::PresetDelete(PresetDeleteParams { submission_id, preset_id })
                    });
                };
                view! {
                    <li data-preset=stored.id.as_str().to_owned()>
                        <strong>{stored.preset.name}</strong>" — "{model}{policy}" "
                        <button type="button" class="edit-preset" on:click=edit>{i18n::text(lang, Msg::Edit)}</button>
                        <button type="button" class="delete-preset" aria-label=i18n::text(lang, Msg::Delete) on:click=delete>"×"</button>
                    </li>
                }
            })
            .collect_view()
    };
    let save = move |_| {
        let mut shown = editor.get_untracked();
        if let Some(preset) = shown.submit() {
            let preset_id = shown.editing.clone();
            let sent = engine.send(|submission_id| {
                Op::PresetSave(PresetSaveParams { submission_id, preset_id, preset })
            });
            if let Ok(submission_id) = sent {
                shown.status = FormStatus::Waiting(submission_id);
            }
        }
        editor.set(shown);
    };
    // Rebuilt only when the connections or the chosen model change, not at each keystroke.
    let models = Memo::new(move |_| {
        let current = editor.with(|e| e.form.model.clone());
        settings
            .view
            .with(|s| preset_model_options(s.iter().flat_map(|s| &s.connections), &current))
    });
    let policies = std::iter::once(None).chain(POLICIES.map(Some)).map(|p| view! {
        <option value=policy_value(p) prop:selected=move || editor.with(|e| e.form.policy == p)>
            {move || t(p.map_or(Msg::Inherit, policy_label))}
        </option>
    }).collect_view();
    let efforts = std::iter::once((None, Msg::ProviderDefault))
        .chain(EFFORTS.map(|(e, _, label)| (Some(e), label)))
        .map(|(e, label)| view! {
            <option value=effort_value(e) prop:selected=move || editor.with(|ed| ed.form.reasoning_effort == e)>
                {move || t(label)}
            </option>
        })
        .collect_view();
    let families = TOOL_FAMILIES.map(|(level, name, label)| view! {
        <label>
            <input type="checkbox" name=name prop:checked=move || editor.with(|e| e.form.has_tool(level))
                on:change=move |ev| editor.update(|e| e.form.set_tool(level, event_target_checked(&ev)))/>
            {move || t(label)}
        </label>
    });
    let inherit = move || editor.with(|e| e.form.tool_levels.is_none());
    let notes = Memo::new(move |_| editor.with(|e| e.notes(page.lang.get())));
    view! {
        <section class="presets">
            <h3>{move || t(Msg::Presets)}</h3>
            <ul class="preset-list">{list}</ul>
            <div class="preset-form">
                {preset_text(page, editor, "name", Msg::ConnectionName, "text", |f| &f.name, |f| &mut f.name)}
                <label>{move || t(Msg::PresetModel)}
                    <select name="model" on:change=move |ev| editor.update(|e| e.form.model = event_target_value(&ev))>
                        <option value="" prop:selected=move || editor.with(|e| e.form.model.is_empty())>{move || t(Msg::ChooseModel)}</option>
                        {move || models.get().into_iter().map(|(value, label)| {
                            let chosen = value.clone();
                            view! { <option value=value prop:selected=move || editor.with(|e| e.form.model == chosen)>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label>{move || t(Msg::Instructions)}
                    <textarea name="instructions" rows="3" prop:value=move || editor.with(|e| e.form.instructions.clone())
                        on:input=move |ev| editor.update(|e| e.form.instructions = event_target_value(&ev))></textarea>
                </label>
                <label>{move || t(Msg::PermissionMode)}
                    <select name="policy" on:change=move |ev| editor.update(|e| e.form.policy = parse_policy_value(&event_target_value(&ev)))>
                        {policies}
                    </select>
                </label>
                <fieldset class="preset-tools">
                    <legend>{move || t(Msg::ToolFamilies)}</legend>
                    <label>
                        <input type="checkbox" name="default-tools" prop:checked=inherit
                            on:change=move |ev| editor.update(|e| e.form.keep_default_tools(event_target_checked(&ev)))/>
                        {move || t(Msg::DefaultToolFamilies)}
                    </label>
                    // While the default is kept, the families show what it means.
                    <fieldset class="families" disabled=inherit>{families}</fieldset>
                </fieldset>
                {preset_text(page, editor, "temperature", Msg::Temperature, "decimal", |f| &f.temperature, |f| &mut f.temperature)}
                {preset_text(page, editor, "max-tokens", Msg::MaxTokens, "numeric", |f| &f.max_tokens, |f| &mut f.max_tokens)}
                <label>{move || t(Msg::ReasoningEffort)}
                    <select name="effort" on:change=move |ev| editor.update(|e| e.form.reasoning_effort = parse_effort_value(&event_target_value(&ev)))>
                        {efforts}
                    </select>
                </label>
                <ul class="problems" role="alert">{move || notes.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                <button type="button" class="save-preset" on:click=save>{move || t(editor.with(PresetEditor::save_label))}</button>
                <Show when=move || editor.with(|e| e.editing.is_some())>
                    <button type="button" class="cancel-preset" on:click=move |_| editor.set(PresetEditor::default())>{move || t(Msg::Cancel)}</button>
                </Show>
            </div>
        </section>
    }
}

/// A labelled one-line text box of the preset form showing the field `get` reads and `set`
/// writes. Numbers are text boxes too (`inputmode` brings up the number keyboard), so the
/// browser never blocks a save the validation would explain better.
fn preset_text(
    page: Page,
    editor: RwSignal<PresetEditor>,
    name: &'static str,
    label: Msg,
    inputmode: &'static str,
    get: fn(&PresetForm) -> &String,
    set: fn(&mut PresetForm) -> &mut String,
) -> impl IntoView {
    view! {
        <label>{move || page.text(label)}
            <input type="text" name=name inputmode=inputmode
                prop:value=move || editor.with(|e| get(&e.form).clone())
                on:input=move |ev| editor.update(|e| *set(&mut e.form) = event_target_value(&ev))/>
        </label>
    }
}
