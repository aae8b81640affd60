//! The composer's choices: the model chip (the model of the next turns, grouped by connection,
//! its first option naming the model the thread gets without a choice), and the options popover:
//! the thread's preset (`thread.update`; a draft's goes with `thread.create`), the permission
//! mode and trusted input of the next turns.

use leptos::prelude::*;
use panelot_protocol::PresetId;
use panelot_protocol::engine::ThreadMetaPatch;

use super::popover::Popover;
use crate::contexts::use_draft;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::contexts::use_threads;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::choices::POLICIES;
use crate::state::choices::default_model_label;
use crate::state::choices::default_policy_label;
use crate::state::choices::model_groups;
use crate::state::choices::model_value;
use crate::state::choices::parse_model_value;
use crate::state::choices::parse_policy_value;
use crate::state::choices::policy_label;
use crate::state::choices::policy_value;
use crate::state::choices::preset_named;

/// The model chip, then the options popover.
#[component]
pub(crate) fn TurnChoices() -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let draft = use_draft();
    let settings = use_settings();
    let threads = use_threads();
    let t = move |msg| page.t(msg);
    // An open thread's preset is in its metadata (`thread.updated` patches it); a draft's is
    // kept until `thread.create` carries it.
    let preset_id = move || match open
        .view
        .with(|v| v.as_ref().map(|v| v.meta.as_ref().map(|m| m.preset.clone())))
    {
        Some(meta) => meta.flatten(),
        None => draft.preset.get(),
    };
    let current_preset = Memo::new(move |_| preset_id().map(|p| p.to_string()).unwrap_or_default());
    let presets = Memo::new(move |_| {
        settings.view.with(|s| {
            s.iter()
                .flat_map(|s| &s.presets)
                .map(|p| (p.id.to_string(), p.preset.name.clone()))
                .collect::<Vec<_>>()
        })
    });
    let pick_preset = move |ev: leptos::ev::Event| {
        let preset = PresetId::new(event_target_value(&ev)).ok();
        let Some(thread_id) = open.thread_id() else {
            draft.preset.set(preset);
            return;
        };
        let patch = ThreadMetaPatch { preset: Some(preset), ..ThreadMetaPatch::default() };
        threads.update(thread_id, patch);
    };
    // Without a choice the turn runs on the preset's model, else on the default model: the
    // first option names that model, so "default" is never a mystery.
    let default_model = move || {
        let id = preset_id();
        let lang = page.lang.get();
        settings.view.with(|s| {
            default_model_label(
                lang,
                s.as_ref().and_then(|s| preset_named(&s.presets, id.as_ref())),
                s.as_ref().and_then(|s| s.default_model.as_ref()),
            )
        })
    };
    let default_policy = move || {
        let id = preset_id();
        let lang = page.lang.get();
        let thread = open
            .view
            .with(|v| v.as_ref().and_then(|v| v.meta.as_ref()).and_then(|m| m.permission_policy));
        settings.view.with(|s| {
            default_policy_label(
                lang,
                thread,
                s.as_ref().and_then(|s| preset_named(&s.presets, id.as_ref())),
                s.as_ref().map(|s| s.permission_policy),
            )
        })
    };
    let groups = move || {
        settings
            .view
            .with(|s| model_groups(s.iter().flat_map(|s| &s.connections).filter(|c| c.enabled)))
    };
    let current_model =
        move || draft.turn_model.with(|m| m.as_ref().map(model_value).unwrap_or_default());
    let options_open = RwSignal::new(false);
    let changed = Signal::derive(move || {
        draft.turn_policy.with(Option::is_some) || draft.turn_trusted_input.get()
    });
    view! {
        <span class="model-chip">
            <select class="turn-model" aria-label=t(Msg::ModelForTurn) title=t(Msg::ModelForTurn)
                on:change=move |ev| draft.turn_model.set(parse_model_value(&event_target_value(&ev)))>
                <option value="" selected=move || draft.turn_model.with(Option::is_none)>{default_model}</option>
                {move || groups().into_iter().map(|(connection, models)| {
                    let options = models.into_iter().map(|(value, label)| {
                        let selected = value == current_model();
                        view! { <option value=value selected=selected>{label}</option> }
                    }).collect_view();
                    view! { <optgroup label=connection>{options}</optgroup> }
                }).collect_view()}
            </select>
        </span>
        <Popover open=options_open button_class="turn-options-button"
            label=t(Msg::TurnOptions) glyph=Icon::Options
            panel_class="up start turn-options" role="dialog" changed>
            <h3>{t(Msg::TurnOptions)}</h3>
            <label class="field">
                {t(Msg::PresetForThread)}
                <select class="thread-preset" on:change=pick_preset>
                    <option value="" prop:selected=move || current_preset.with(String::is_empty)>{t(Msg::NoPreset)}</option>
                    {move || presets.get().into_iter().map(|(value, label)| {
                        let chosen = value.clone();
                        view! { <option value=value prop:selected=move || current_preset.with(|c| *c == chosen)>{label}</option> }
                    }).collect_view()}
                </select>
            </label>
            <label class="field">
                {t(Msg::PolicyForTurn)}
                <select class="turn-policy"
                    on:change=move |ev| draft.turn_policy.set(parse_policy_value(&event_target_value(&ev)))>
                    <option value="" selected=move || draft.turn_policy.with(Option::is_none)>{default_policy}</option>
                    {POLICIES.map(|p| view! {
                        <option value=policy_value(Some(p)) selected=move || draft.turn_policy.get() == Some(p)>{t(policy_label(p))}</option>
                    })}
                </select>
            </label>
            <label class="check turn-trusted">
                // The debugger permission is granted at install; the trusted-input tools stay
                // off until a turn asks for them here.
                <input type="checkbox" prop:checked=move || draft.turn_trusted_input.get()
                    on:change=move |ev| draft.turn_trusted_input.set(event_target_checked(&ev))/>
                <span>
                    {t(Msg::TrustedInput)}
                    <span class="hint">{t(Msg::TrustedInputHint)}</span>
                </span>
            </label>
        </Popover>
    }
}
