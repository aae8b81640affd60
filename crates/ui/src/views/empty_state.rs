//! What a new chat shows before its first message: without a model, what to do and a button
//! that opens the options page on the connection form; with one, what Panelot can do here.
//! Nothing while the settings have not arrived, so a first run never flashes the wrong one.
//!
//! The content is static text in the page's language, written as markup rather than Leptos
//! views (each view is generic code in the wasm, and the UI has a size budget); one click
//! handler runs its button.

use leptos::prelude::*;

use super::events::closest_target;
use super::icon::icon_html;
use crate::contexts::use_draft;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown::escape_html;
use crate::state::readiness::Readiness;
use crate::state::readiness::readiness;

/// The markup of the empty state in `lang`: `ready` says whether a message can run.
fn empty_html(lang: Lang, ready: bool) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let (state, glyph, title, text) = if ready {
        ("ready", Icon::Message, Msg::EmptyReadyTitle, Msg::EmptyReadyText)
    } else {
        ("no-model", Icon::Plug, Msg::EmptyNoModelTitle, Msg::EmptyNoModelText)
    };
    let button = if ready {
        String::new()
    } else {
        format!(
            "<button type=\"button\" class=\"btn-primary connect-model\">{}{}</button>",
            icon_html(Icon::Plug),
            t(Msg::ConnectModel)
        )
    };
    format!(
        "<div class=\"empty-state\" data-state=\"{state}\"><span class=\"empty-icon\">{}</span>\
         <h2>{}</h2><p>{}</p>{button}</div>",
        icon_html(glyph),
        t(title),
        t(text)
    )
}

/// The empty state of a draft or of a thread without messages.
#[component]
pub(crate) fn EmptyState() -> impl IntoView {
    let page = use_page();
    let settings = use_settings();
    let draft = use_draft();
    let html = move || {
        let preset = draft.preset.get();
        let turn_model = draft.turn_model.get();
        let ready =
            settings.view.with(|s| readiness(s.as_ref(), turn_model.as_ref(), preset.as_ref()));
        match ready {
            Readiness::Unknown => String::new(),
            Readiness::Ready(..) => empty_html(page.lang.get(), true),
            Readiness::NoModel => empty_html(page.lang.get(), false),
        }
    };
    let on_click = move |event: web_sys::MouseEvent| {
        let connect = closest_target(&event, ".connect-model");
        if connect.is_some() {
            host::open_settings(Some("connect"));
        }
    };
    view! { <div class="empty" inner_html=html on:click=on_click></div> }
}
