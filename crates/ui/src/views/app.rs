//! The page shell: the header (brand, the page's buttons, settings), the connection status when
//! there is trouble, the notice bar, and the layout of each page: the chat page's sidebar (a
//! drawer below 900 px), the side panel's drawer, the options page. Ctrl/Cmd+E moves the
//! conversation between the side panel and the full-page chat.

use leptos::prelude::*;

use super::events::closest_target;
use super::icon::icon;
use super::icon::icon_html;
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
use crate::markdown::escape_html;
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

/// What a header button does; its `data-action` in the markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderAction {
    /// Opens or closes the thread drawer.
    Drawer,
    /// Starts a new chat.
    NewChat,
    /// Opens the thread in a chat tab (side panel).
    OpenInTab,
    /// Opens the options page.
    Settings,
}

impl HeaderAction {
    const ALL: [HeaderAction; 4] = [
        HeaderAction::Drawer,
        HeaderAction::NewChat,
        HeaderAction::OpenInTab,
        HeaderAction::Settings,
    ];

    fn name(self) -> &'static str {
        match self {
            HeaderAction::Drawer => "drawer",
            HeaderAction::NewChat => "new-chat",
            HeaderAction::OpenInTab => "open-in-tab",
            HeaderAction::Settings => "settings",
        }
    }

    /// The button's class (what tests and the stylesheet find it by), label and icon.
    fn button(self) -> (&'static str, Msg, Icon) {
        match self {
            HeaderAction::Drawer => ("drawer-toggle", Msg::Threads, Icon::Threads),
            HeaderAction::NewChat => ("new-chat", Msg::NewThread, Icon::NewChat),
            HeaderAction::OpenInTab => ("open-in-tab", Msg::OpenInTab, Icon::OpenInTab),
            HeaderAction::Settings => ("open-settings", Msg::Settings, Icon::Settings),
        }
    }

    /// Whether the page `kind` has this button.
    fn on(self, kind: PageKind) -> bool {
        match self {
            HeaderAction::Drawer | HeaderAction::NewChat | HeaderAction::Settings => {
                kind != PageKind::Options
            }
            HeaderAction::OpenInTab => kind == PageKind::SidePanel,
        }
    }
}

/// The header's markup in `lang`: static buttons whose clicks [`Header`] handles by their
/// `data-action`. Written as text rather than as Leptos views: each view is generic code in the
/// wasm, and the UI has a size budget; nothing here changes but the language.
fn header_html(kind: PageKind, lang: i18n::Lang) -> String {
    let t = |msg| escape_html(i18n::text(lang, msg));
    let button = |action: HeaderAction| {
        let (class, label, glyph) = action.button();
        let label = t(label);
        let expanded = if action == HeaderAction::Drawer {
            " aria-controls=\"thread-drawer\" aria-expanded=\"false\""
        } else {
            ""
        };
        format!(
            "<button type=\"button\" class=\"btn-icon btn-ghost {class}\" data-action=\"{}\" \
             aria-label=\"{label}\" title=\"{label}\"{expanded}>{}</button>",
            action.name(),
            icon_html(glyph)
        )
    };
    let buttons = |actions: &[HeaderAction]| -> String {
        actions.iter().filter(|a| a.on(kind)).map(|a| button(*a)).collect()
    };
    let title = match kind {
        PageKind::Options => format!("<span class=\"page-title\">{}</span>", t(Msg::Settings)),
        PageKind::SidePanel | PageKind::Chat => String::new(),
    };
    format!(
        "{}<span class=\"brand\"><img class=\"brand-mark\" src=\"icons/panelot.svg\" alt=\"\">\
         <span class=\"brand-name\">{}</span></span>{title}<span class=\"spacer\"></span>{}",
        buttons(&[HeaderAction::Drawer]),
        t(Msg::AppName),
        buttons(&[HeaderAction::NewChat, HeaderAction::OpenInTab, HeaderAction::Settings]),
    )
}

/// Opens or closes the drawer, keeping the toggle's `aria-expanded` in step.
fn set_drawer(drawer: RwSignal<bool>, open: bool) {
    drawer.set(open);
    let toggle = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".drawer-toggle").ok().flatten());
    if let Some(toggle) = toggle {
        let _ = toggle.set_attribute("aria-expanded", if open { "true" } else { "false" });
    }
}

/// The header: one row at every width, rebuilt when the language changes. Icon buttons carry
/// their names as labels.
#[component]
fn Header(drawer: RwSignal<bool>) -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let turns = use_turns();
    let kind = page.kind;
    let on_click = move |event: web_sys::MouseEvent| {
        let action = closest_target(&event, "[data-action]")
            .and_then(|b| b.get_attribute("data-action"))
            .and_then(|name| HeaderAction::ALL.into_iter().find(|a| a.name() == name));
        match action {
            None => {}
            Some(HeaderAction::Drawer) => {
                let opening = !drawer.get_untracked();
                set_drawer(drawer, opening);
                if opening {
                    // The keyboard goes where the eyes go.
                    request_animation_frame(|| focus_selector("#thread-drawer .new-thread"));
                }
            }
            Some(HeaderAction::NewChat) => turns.new_draft(),
            Some(HeaderAction::OpenInTab) => {
                if let Some(window) = web_sys::window() {
                    let _ = window.open_with_url_and_target(&page_url("chat.html", open), "_blank");
                }
            }
            Some(HeaderAction::Settings) => host::open_settings(None),
        }
    };
    view! {
        <header class="topbar" inner_html=move || header_html(kind, page.lang.get()) on:click=on_click></header>
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
            set_drawer(drawer, false);
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
            set_drawer(drawer, false);
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
            <div class="scrim" on:click=move |_| set_drawer(drawer, false)></div>
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
