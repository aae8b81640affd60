//! The engine status line, shown only when there is trouble (connecting, reconnecting, a reload
//! needed), and the notice bar.

use leptos::prelude::*;

use super::icon::icon;
use crate::contexts::use_engine;
use crate::contexts::use_notices;
use crate::contexts::use_page;
use crate::host;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::client::EngineLink;

/// The engine status line; `#engine-status[data-engine-status]` is what the end-to-end tests
/// read. A working link says nothing (the element stays, empty and hidden): only trouble
/// is worth a line of the page.
#[component]
pub(crate) fn StatusLine() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let text = move || {
        let status = |msg| page.text(msg).to_owned();
        engine.link.with(|link| match link {
            EngineLink::Connecting => status(Msg::StatusConnecting),
            EngineLink::Ready => String::new(),
            EngineLink::Reconnecting { .. } => status(Msg::StatusReconnecting),
            EngineLink::ReloadRequired { message } => {
                format!("{} {message}", page.text(Msg::StatusReloadRequired))
            }
        })
    };
    view! {
        <p
            id="engine-status"
            role="status"
            data-engine-status=move || engine.link.with(EngineLink::name)
            data-engine-sessions=move || engine.sessions.get().to_string()
        >
            {text}
        </p>
    }
}

/// The notice, with a button that dismisses it; a notice about settings (no model yet) also has
/// a button that opens them.
#[component]
pub(crate) fn NoticeBar() -> impl IntoView {
    let page = use_page();
    let notices = use_notices();
    let (connect, dismiss) = (page.t(Msg::ConnectModel), page.t(Msg::Dismiss));
    view! {
        <Show when=move || notices.current.with(Option::is_some)>
            <div class="notice" role="alert">
                {icon(Icon::Warning)}
                <span class="text">{move || notices.current.get().unwrap_or_default()}</span>
                <span class="actions">
                    <button type="button" class="btn-sm btn-primary notice-settings"
                        hidden=move || !notices.settings_link.get()
                        on:click=move |_| host::open_settings(Some("connect"))>
                        {connect}
                    </button>
                    <button type="button" class="btn-icon btn-sm btn-ghost dismiss"
                        aria-label=dismiss title=dismiss
                        on:click=move |_| notices.dismiss()>
                        {icon(Icon::Close)}
                    </button>
                </span>
            </div>
        </Show>
    }
}
