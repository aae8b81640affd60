//! The page shell: the header with the status line, the notice bar, and the layout of each page
//! (the chat's sidebar and thread pane, the side panel's toolbar and drawer, the options page);
//! Ctrl/Cmd+E moves the conversation between the side panel and the full-page chat.

use leptos::prelude::*;

use super::options_page::OptionsPage;
use super::status::NoticeBar;
use super::status::StatusLine;
use super::thread_list_panel::ThreadListPanel;
use super::thread_pane::ThreadPane;
use crate::contexts::OpenThread;
use crate::contexts::PageKind;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_turns;
use crate::host;
use crate::i18n::Msg;
use crate::state::keys::Modifiers;
use crate::state::keys::is_toggle_view;

/// The page.
#[component]
pub(crate) fn App() -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        let modifiers = Modifiers {
            shift: event.shift_key(),
            alt: event.alt_key(),
            ctrl_or_meta: event.ctrl_key() || event.meta_key(),
        };
        if is_toggle_view(&event.key(), modifiers) {
            event.prevent_default();
            toggle_view(page.kind, open);
        }
    });
    on_cleanup(move || handle.remove());
    let body = match page.kind {
        PageKind::Options => view! { <OptionsPage/> }.into_any(),
        PageKind::Chat => view! {
            <div class="layout chat">
                <aside class="sidebar"><ThreadListPanel/></aside>
                <ThreadPane/>
            </div>
        }
        .into_any(),
        PageKind::SidePanel => view! { <SidePanel/> }.into_any(),
    };
    view! {
        <main class="panelot" data-entry=page.kind.name()>
            <header class="topbar">
                <h1>{page.t(Msg::AppName)}</h1>
                <StatusLine/>
            </header>
            <NoticeBar/>
            {body}
        </main>
    }
}

/// The side panel: a toolbar (threads drawer, new thread, open in a tab) over the thread pane.
#[component]
fn SidePanel() -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let turns = use_turns();
    let drawer = RwSignal::new(false);
    let open_in_tab = move |_| {
        if let Some(window) = web_sys::window() {
            let _ = window.open_with_url_and_target(&page_url("chat.html", open), "_blank");
        }
    };
    view! {
        <div class="layout sidepanel">
            <nav class="toolbar">
                <button on:click=move |_| drawer.update(|d| *d = !*d) aria-expanded=move || drawer.get().to_string()>
                    {page.t(Msg::Threads)}
                </button>
                <button on:click=move |_| turns.new_draft()>{page.t(Msg::NewThread)}</button>
                <button on:click=open_in_tab>{page.t(Msg::OpenInTab)}</button>
            </nav>
            <Show when=move || drawer.get()>
                <div class="drawer"><ThreadListPanel/></div>
            </Show>
            <ThreadPane/>
        </div>
    }
}

/// The open thread's page in the other view: `chat.html?thread=…` or `sidepanel.html?thread=…`.
fn page_url(page: &str, open: OpenThread) -> String {
    match open.thread_id() {
        Some(thread_id) => format!("{page}?thread={thread_id}"),
        None => page.to_owned(),
    }
}

/// Moves the conversation between the side panel and the full-page chat (Ctrl/Cmd+E, or the
/// side panel's button): the other view opens on the same thread and this one closes.
fn toggle_view(kind: PageKind, open: OpenThread) {
    let Some(window) = web_sys::window() else { return };
    match kind {
        PageKind::SidePanel => {
            let _ = window.open_with_url_and_target(&page_url("chat.html", open), "_blank");
            // Closing a side panel page closes the panel.
            let _ = window.close();
        }
        PageKind::Chat => {
            host::open_side_panel(page_url("sidepanel.html", open), move || {
                // Only closes a tab that script opened (the usual way here); otherwise it stays.
                let _ = window.close();
            });
        }
        PageKind::Options => {}
    }
}
