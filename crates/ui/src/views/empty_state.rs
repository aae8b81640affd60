//! What a new chat shows before its first message: without a model, what to do and a button
//! that opens the options page on the connection form; with one, what Panelot can do here.
//! Nothing while the settings have not arrived, so a first run never flashes the wrong one.

use leptos::prelude::*;

use super::icon::icon;
use crate::contexts::use_draft;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::host;
use crate::i18n;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::readiness::Readiness;
use crate::state::readiness::readiness;

/// The empty state of a draft or of a thread without messages.
#[component]
pub(crate) fn EmptyState() -> impl IntoView {
    let page = use_page();
    let settings = use_settings();
    let draft = use_draft();
    let state = Memo::new(move |_| {
        let preset = draft.preset.get();
        let turn_model = draft.turn_model.get();
        settings.view.with(|s| match readiness(s.as_ref(), turn_model.as_ref(), preset.as_ref()) {
            Readiness::Unknown => None,
            Readiness::Ready(..) => Some(true),
            Readiness::NoModel => Some(false),
        })
    });
    // Rebuilt when the language changes: the texts inside are plain.
    move || {
        let t = move |msg| i18n::text(page.lang.get(), msg);
        match state.get() {
            None => ().into_any(),
            Some(false) => view! {
                <div class="empty-state" data-state="no-model">
                    <span class="empty-icon">{icon(Icon::Plug)}</span>
                    <h2>{t(Msg::EmptyNoModelTitle)}</h2>
                    <p>{t(Msg::EmptyNoModelText)}</p>
                    <button type="button" class="btn-primary connect-model"
                        on:click=move |_| host::open_settings(Some("connect"))>
                        {icon(Icon::Plug)}{t(Msg::ConnectModel)}
                    </button>
                </div>
            }
            .into_any(),
            Some(true) => view! {
                <div class="empty-state" data-state="ready">
                    <span class="empty-icon">{icon(Icon::Message)}</span>
                    <h2>{t(Msg::EmptyReadyTitle)}</h2>
                    <p>{t(Msg::EmptyReadyText)}</p>
                </div>
            }
            .into_any(),
        }
    }
}
