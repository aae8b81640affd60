//! The engine status line and the notice bar.

use leptos::prelude::*;

use crate::contexts::use_engine;
use crate::contexts::use_notices;
use crate::contexts::use_page;
use crate::i18n::Msg;
use crate::state::client::Connection;

/// The engine status line; `#engine-status[data-engine-status]` is what the end-to-end tests read.
#[component]
pub(crate) fn StatusLine() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let text = move || {
        let status = |msg| page.text(msg).to_owned();
        engine.connection.with(|connection| match connection {
            Connection::Connecting => status(Msg::StatusConnecting),
            Connection::Ready => status(Msg::StatusReady),
            Connection::Reconnecting { .. } => status(Msg::StatusReconnecting),
            Connection::ReloadRequired { message } => {
                format!("{} {message}", page.text(Msg::StatusReloadRequired))
            }
        })
    };
    view! {
        <p
            id="engine-status"
            role="status"
            data-engine-status=move || engine.connection.with(Connection::name)
            data-engine-sessions=move || engine.sessions.get().to_string()
        >
            {text}
        </p>
    }
}

/// The notice, with a button that dismisses it.
#[component]
pub(crate) fn NoticeBar() -> impl IntoView {
    let notices = use_notices();
    view! {
        <Show when=move || notices.current.with(Option::is_some)>
            <div class="notice" role="alert">
                <span>{move || notices.current.get().unwrap_or_default()}</span>
                <button on:click=move |_| notices.dismiss() aria-label="dismiss">"×"</button>
            </div>
        </Show>
    }
}
