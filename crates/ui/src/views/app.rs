//! The page shell: the header (brand, the page's buttons, settings), the connection status when
//! there is trouble, the notice bar, and the layout of each page: the chat page's sidebar (a
//! drawer below 900 px), the side panel's drawer, the options page. Ctrl/Cmd+E moves the
//! conversation between the side panel and the full-page chat.

use leptos::prelude::*;

use super::icon::icon;
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
use crate::i18n;
use crate::i18n::Msg;
use crate::icons::Icon;
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
    // The thread list as a drawer (the side panel always, the chat page when narrow).
    let drawer = RwSignal::new(false);
    let body = match page.kind {
        PageKind::Options => view! { <div class="layout options"><OptionsPage/></div> }.into_any(),
        PageKind::Chat | PageKind::SidePanel => view! { <Conversation drawer/> }.into_any(),
    };
    view! {
        <main class="panelot" data-entry=page.kind.name()>
            <Header drawer/>
            <StatusLine/>
            <NoticeBar/>
            {body}
        </main>
    }
}

/// The header: one row at every width. Icon buttons carry their names as labels; the header is
/// rebuilt when the language changes (one reactive closure rather than one per label).
#[component]
fn Header(drawer: RwSignal<bool>) -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let turns = use_turns();
    let kind = page.kind;
    let conversation = kind != PageKind::Options;
    let open_in_tab = move |_| {
        if let Some(window) = web_sys::window() {
            let _ = window.open_with_url_and_target(&page_url("chat.html", open), "_blank");
        }
    };
    let toggle_drawer = move |_| {
        let opening = !drawer.get_untracked();
        drawer.set(opening);
        if opening {
            // Opening moves the focus into the drawer, so the keyboard goes where the eyes go.
            request_animation_frame(|| focus_selector("#thread-drawer .new-thread"));
        }
    };
    move || {
        let t = move |msg| i18n::text(page.lang.get(), msg);
        view! {
            <header class="topbar">
                {conversation.then(|| view! {
                    <button type="button" class="btn-icon btn-ghost drawer-toggle"
                        aria-label=t(Msg::Threads) title=t(Msg::Threads)
                        aria-controls="thread-drawer" aria-expanded=move || drawer.get().to_string()
                        on:click=toggle_drawer>
                        {icon(Icon::Threads)}
                    </button>
                })}
                <span class="brand">
                    <img class="brand-mark" src="icons/panelot.svg" alt=""/>
                    <span class="brand-name">{t(Msg::AppName)}</span>
                </span>
                {(kind == PageKind::Options).then(|| view! {
                    <span class="page-title">{t(Msg::Settings)}</span>
                })}
                <span class="spacer"></span>
                {conversation.then(|| view! {
                    <button type="button" class="btn-icon btn-ghost new-chat"
                        aria-label=t(Msg::NewThread) title=t(Msg::NewThread)
                        on:click=move |_| turns.new_draft()>
                        {icon(Icon::NewChat)}
                    </button>
                })}
                {(kind == PageKind::SidePanel).then(|| view! {
                    <button type="button" class="btn-icon btn-ghost open-in-tab"
                        aria-label=t(Msg::OpenInTab) title=t(Msg::OpenInTab)
                        on:click=open_in_tab>
                        {icon(Icon::OpenInTab)}
                    </button>
                })}
                {conversation.then(|| view! {
                    <button type="button" class="btn-icon btn-ghost open-settings"
                        aria-label=t(Msg::Settings) title=t(Msg::Settings)
                        on:click=move |_| host::open_settings(None)>
                        {icon(Icon::Settings)}
                    </button>
                })}
            </header>
        }
    }
}

/// Focuses the first element `selector` finds, if any.
fn focus_selector(selector: &str) {
    let element = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
    if let Some(element) = element {
        let _ = element.focus();
    }
}

/// The side panel and the chat page: the thread list (sidebar or drawer) and the open thread.
#[component]
fn Conversation(drawer: RwSignal<bool>) -> impl IntoView {
    let page = use_page();
    let class = match page.kind {
        PageKind::SidePanel => "layout sidepanel",
        PageKind::Chat | PageKind::Options => "layout chat",
    };
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        if event.key() == "Escape" && drawer.get_untracked() {
            event.stop_propagation();
            drawer.set(false);
            focus_selector(".drawer-toggle");
        }
    };
    // Picking a thread (even the open one) or starting a new chat closes the drawer.
    let on_click = move |event: web_sys::MouseEvent| {
        let picked = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.closest(".thread .open, .new-thread, .close-drawer").ok().flatten())
            .is_some();
        if picked {
            drawer.set(false);
        }
    };
    let drawer_class = match page.kind {
        PageKind::SidePanel => "sidebar drawer-panel",
        PageKind::Chat | PageKind::Options => "sidebar",
    };
    let close = page.t(Msg::Close);
    view! {
        <div class=class class:drawer-open=move || drawer.get()>
            <aside class=drawer_class id="thread-drawer" on:keydown=on_keydown on:click=on_click>
                <div class="drawer-head">
                    <h2>{move || page.text(Msg::Threads)}</h2>
                    <button type="button" class="btn-icon btn-ghost close-drawer" aria-label=close title=close>
                        {icon(Icon::Close)}
                    </button>
                </div>
                <ThreadListPanel/>
            </aside>
            <div class="scrim" on:click=move |_| drawer.set(false)></div>
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
