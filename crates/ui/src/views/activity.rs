//! Agent activity in the stream: a row of tool steps, a model call being tried again, and the
//! card of a turn's error.
//!
//! A row of steps is HTML text (`state::activity::steps_html`): its parts are text and native
//! `<details>`, with nothing to handle but which of them the person opened, which one click
//! handler on the row remembers so a row drawn again (a step finished) keeps them open. Text
//! costs a fraction of the wasm that Leptos views of the same elements do.

use std::collections::BTreeSet;

use leptos::prelude::*;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ProviderDetails;
use panelot_protocol::engine::ProviderErrorKind;

use super::events::closest_target;
use super::icon::icon;
use crate::contexts::Turns;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::activity::Step;
use crate::state::activity::error_details;
use crate::state::activity::error_needs_settings;
use crate::state::activity::fill;
use crate::state::activity::steps_html;
use crate::state::thread_view::EntryKey;

/// The keys (`data-key`) of the steps a person opened in one row.
pub(crate) type Opened = StoredValue<BTreeSet<String>>;

/// A row of steps. `opened` outlives the row's redraws.
pub(crate) fn steps_view(lang: Lang, steps: &[Step], opened: Opened) -> AnyView {
    let html = opened.with_value(|open| steps_html(lang, steps, &|key| open.contains(key)));
    // A click on a summary toggles its `<details>` (the browser does that); remember it.
    let on_click = move |event: leptos::ev::MouseEvent| {
        let details =
            closest_target(&event, "summary").and_then(|summary| summary.parent_element());
        let Some(key) = details.and_then(|d| d.get_attribute("data-key")) else { return };
        opened.update_value(|open| {
            if !open.remove(&key) {
                open.insert(key);
            }
        });
    };
    view! { <div class="activity" on:click=on_click inner_html=html></div> }.into_any()
}

/// "Retrying in 2 s… (attempt 2)", counting down, with what failed.
pub(crate) fn retrying_view(lang: Lang, attempt: u32, wait_ms: u64, message: String) -> AnyView {
    let left = RwSignal::new(wait_ms.div_ceil(1000));
    let tick = set_interval_with_handle(
        move || left.update(|s| *s = s.saturating_sub(1)),
        std::time::Duration::from_secs(1),
    )
    .ok();
    on_cleanup(move || {
        if let Some(tick) = tick {
            tick.clear();
        }
    });
    let attempt = attempt.to_string();
    let line = move || match left.get() {
        0 => fill(lang, Msg::RetryingNow, &[("attempt", &attempt)]),
        seconds => {
            fill(lang, Msg::RetryingIn, &[("seconds", &seconds.to_string()), ("attempt", &attempt)])
        }
    };
    view! {
        <p class="msg retrying" role="status">
            {icon(Icon::Running)}
            <span class="retry-line">{line}</span>
            <span class="retry-why">{i18n::engine_text(lang, &message)}</span>
        </p>
    }
    .into_any()
}

/// What an error card shows.
pub(crate) struct ErrorCard {
    /// The error's entry (Retry sends its turn's message again).
    pub(crate) key: EntryKey,
    /// What failed.
    pub(crate) code: ErrorCode,
    /// The sentence: names the connection and what to check.
    pub(crate) message: String,
    /// Whether retrying may help.
    pub(crate) retryable: bool,
    /// The provider failure class.
    pub(crate) error_kind: Option<ProviderErrorKind>,
    /// What the provider said, shown on demand.
    pub(crate) provider_details: Option<ProviderDetails>,
}

/// A turn's error: the sentence, the provider's details behind "Details", Retry, and the
/// settings when they are what to check. `idle` is whether no turn runs (Retry waits for it).
pub(crate) fn error_card(lang: Lang, turns: Turns, card: ErrorCard, idle: Memo<bool>) -> AnyView {
    let t = move |msg| i18n::text(lang, msg);
    let ErrorCard { key, code, message, retryable, error_kind, provider_details } = card;
    let title = match code {
        ErrorCode::ProviderError => Msg::ErrorModelTitle,
        _ => Msg::ErrorTitle,
    };
    let settings = error_needs_settings(code, error_kind, provider_details.as_ref());
    let details = error_details(&message, provider_details.as_ref());
    let details = (!details.is_empty()).then(|| {
        let rows = details
            .into_iter()
            .map(|(label, value)| view! { <dt>{t(label)}</dt><dd>{value}</dd> })
            .collect_view();
        view! {
            <details class="error-details">
                <summary>{t(Msg::ErrorDetails)}</summary>
                <dl>{rows}</dl>
            </details>
        }
    });
    view! {
        <article class="msg error" role="alert" data-code=format!("{code:?}")>
            <header>{icon(Icon::Warning)}{t(title)}</header>
            <p class="error-message">{i18n::engine_text(lang, &message)}</p>
            {details}
            <div class="actions">
                <button class="btn-sm retry" class:btn-primary=retryable disabled=move || !idle.get()
                    on:click=move |_| turns.resend(&key)>{icon(Icon::Refresh)}{t(Msg::Retry)}</button>
                {settings.then(|| view! {
                    <a class="btn btn-sm open-settings" href="options.html" target="_blank">{icon(Icon::Settings)}{t(Msg::OpenSettings)}</a>
                })}
            </div>
        </article>
    }
    .into_any()
}
