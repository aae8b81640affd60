//! The composer: Enter sends (steers while a turn runs; a paused turn takes no steering, so
//! Enter sends a new turn then, which ends it), Shift+Alt+Enter queues, Esc interrupts,
//! Shift+Enter is a newline. The queue dock sits above it and the attached context above the
//! text box; under it one row of controls that fits a 320 px side panel: the attach menu, the
//! model chip and the per-turn options (`turn_choices`), then stop and send. With an MCP server
//! configured, a leading `/` opens the prompts' menu over the box and the attach menu lists the
//! servers' resources (`mcp_picker`).

use leptos::prelude::*;
use panelot_protocol::AttachmentId;
use panelot_protocol::engine::TabRef;
use wasm_bindgen::JsCast;
use web_sys::KeyboardEvent;

use super::icon::icon;
use super::mcp_picker::FetchRefusal;
use super::mcp_picker::PendingChips;
use super::mcp_picker::Picker;
use super::mcp_picker::PromptArgsForm;
use super::mcp_picker::ResourceList;
use super::mcp_picker::SlashMenu;
use super::mcp_picker::focus_later;
use super::mcp_picker::has_servers;
use super::popover::Popover;
use super::queue_dock::QueueDock;
use super::turn_choices::TurnChoices;
use crate::contexts::Draft;
use crate::contexts::Notices;
use crate::contexts::Page;
use crate::contexts::tabs_in_view;
use crate::contexts::use_draft;
use crate::contexts::use_engine;
use crate::contexts::use_mcp;
use crate::contexts::use_notices;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_settings;
use crate::contexts::use_turns;
use crate::host;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::attach::Attach;
use crate::state::attach::PageRead;
use crate::state::attach::context_block;
use crate::state::files::FileRefusal;
use crate::state::files::PendingFile;
use crate::state::files::PickedFile;
use crate::state::files::admit;
use crate::state::files::size_label;
use crate::state::keys::ComposerAction;
use crate::state::keys::Modifiers;
use crate::state::keys::key_action;
use crate::state::tab_choice::default_tab;
use crate::state::thread_view::ComposerMode;
use crate::state::thread_view::ThreadView;

/// The text box with its controls, or the reload explanation once input is disabled.
#[component]
pub(crate) fn Composer() -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let draft = use_draft();
    let turns = use_turns();
    let disabled = move || engine.reload_required();
    // What a message does now, as the engine takes it: a paused turn takes no steering (a new
    // message ends it), so the composer reads as idle then, with words for the paused turn.
    let mode = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().map_or(ComposerMode::Idle, ThreadView::composer_mode))
    });
    let running = move || mode.get() == ComposerMode::Running;
    let picker = Picker::new();
    let on_keydown = move |event: KeyboardEvent| {
        if picker.keydown(&event) {
            return;
        }
        let modifiers = Modifiers {
            shift: event.shift_key(),
            alt: event.alt_key(),
            ctrl_or_meta: event.ctrl_key() || event.meta_key(),
        };
        let action = key_action(&event.key(), modifiers, open.activity(), event.is_composing());
        if action != ComposerAction::Default {
            event.prevent_default();
            turns.act(action);
        }
    };
    let placeholder = move || {
        let msg = match mode.get() {
            ComposerMode::Idle => Msg::ComposerPlaceholder,
            ComposerMode::Running => Msg::ComposerPlaceholderRunning,
            ComposerMode::Paused => Msg::ComposerPlaceholderPaused,
            ComposerMode::Undecided => Msg::ComposerPlaceholderUndecided,
        };
        page.text(msg)
    };
    // Labels are the page's language when the composer is made (placeholders follow changes).
    let (stop, send) = (page.t(Msg::Stop), page.t(Msg::Send));
    view! {
        <div class="composer-area">
            <QueueDock/>
            <form class="composer" on:submit=move |ev| { ev.prevent_default(); turns.act(if mode.get_untracked() == ComposerMode::Running { ComposerAction::Steer } else { ComposerAction::Submit }); }>
                <Show when=disabled>
                    <p class="disabled-reason" role="alert">{page.t(Msg::InputDisabledReload)}</p>
                </Show>
                <SlashMenu/>
                <FileRefusals/>
                <AttachedChips/>
                <PromptArgsForm/>
                <FetchRefusal/>
                <textarea
                    rows="2"
                    aria-label=placeholder
                    placeholder=placeholder
                    aria-controls=move || picker.active_option().map(|_| "slash-menu")
                    aria-activedescendant=move || picker.active_option()
                    disabled=disabled
                    prop:value=move || draft.text.get()
                    on:input=move |ev| draft.text.set(event_target_value(&ev))
                    on:keydown=on_keydown
                ></textarea>
                <input type="file" multiple class="attach-file-input" hidden tabindex="-1"
                    aria-hidden="true" on:change=move |ev| pick_files(page, draft, &ev)/>
                <div class="composer-row">
                    <AttachMenu/>
                    <TurnChoices/>
                    <span class="spacer"></span>
                    <Show when=running>
                        <button type="button" class="btn-icon stop" aria-label=stop title=stop
                            on:click=move |_| turns.act(ComposerAction::Interrupt)>{icon(Icon::Stop)}</button>
                    </Show>
                    <button type="submit" class="btn-icon btn-primary send" disabled=disabled
                        aria-label=send title=send>{icon(Icon::Send)}</button>
                </div>
            </form>
        </div>
    }
}

/// The attach menu: the text of the page the next message is about, or its selection; with an
/// MCP server configured, one of the servers' resources (a list in the same panel).
#[component]
fn AttachMenu() -> impl IntoView {
    let page = use_page();
    let draft = use_draft();
    let notices = use_notices();
    let settings = use_settings();
    let (mcp, engine) = (use_mcp(), use_engine());
    let open = RwSignal::new(false);
    let resources = RwSignal::new(false);
    // The panel opens on its first items again.
    Effect::new(move |_| {
        if !open.get() {
            resources.set(false);
        }
    });
    let pick = move |what: Attach| {
        open.set(false);
        attach(page, draft, notices, what);
    };
    // The items stay in the document while the resource list shows (hidden): a click on one
    // that left the document would count as outside the menu and close it.
    view! {
        <Popover open button_class="attach-menu" label=page.t(Msg::Attach) glyph=Icon::Plus
            panel_class="up start menu" role="menu">
            <button type="button" role="menuitem" class="attach-page" hidden=move || resources.get()
                on:click=move |_| pick(Attach::Page)>
                {icon(Icon::Page)}{page.t(Msg::AttachPage)}
            </button>
            <button type="button" role="menuitem" class="attach-selection" hidden=move || resources.get()
                on:click=move |_| pick(Attach::Selection)>
                {icon(Icon::Selection)}{page.t(Msg::AttachSelection)}
            </button>
            <button type="button" role="menuitem" class="attach-mcp-resource"
                hidden=move || resources.get() || !has_servers(settings)
                on:click=move |_| {
                    resources.set(true);
                    mcp.refresh(engine);
                    // This item is hidden now: the keyboard goes into the list.
                    focus_later(".mcp-resources .mcp-back");
                }>
                {icon(Icon::Plug)}{page.t(Msg::AttachMcpResource)}
            </button>
            <button type="button" role="menuitem" class="attach-file" hidden=move || resources.get()
                on:click=move |ev| {
                    open.set(false);
                    // The composer's own file input: the browser's file picker, in this click.
                    let input = ev.target().and_then(|t| {
                        let el: web_sys::Element = t.dyn_into().ok()?;
                        el.closest(".composer").ok().flatten()?.query_selector(".attach-file-input").ok().flatten()
                    });
                    if let Some(input) = input.and_then(|i| i.dyn_into::<web_sys::HtmlElement>().ok()) {
                        input.click();
                    }
                }>
                {icon(Icon::Paperclip)}{page.t(Msg::AttachFile)}
            </button>
            <ResourceList shown=resources on_chosen=Callback::new(move |()| open.set(false))/>
        </Popover>
    }
}

/// Chips of the context attached to the next message, each removable.
#[component]
fn AttachedChips() -> impl IntoView {
    let page = use_page();
    let draft = use_draft();
    let mcp = use_mcp();
    move || {
        let lang = page.lang.get();
        let blocks = draft.attached.get();
        let files = draft.files.get();
        let fetching = mcp.fetches.with(|f| !f.pending.is_empty());
        (!blocks.is_empty() || !files.is_empty() || fetching).then(|| {
            let detach = crate::i18n::text(lang, Msg::Detach);
            let file_chips = files.into_iter().map(|file| {
                let id = file.id.clone();
                let size = size_label(file.size_bytes);
                let title = format!("{} · {size}", file.name);
                view! {
                    <li class="chip file" data-kind="file" title=title>
                        {icon(Icon::Paperclip)}
                        <span class="name">{file.name}</span>
                        <span class="size">{size}</span>
                        <button type="button" aria-label=detach title=detach
                            on:click=move |_| draft.files.update(|f| f.retain(|it| it.id != id))>{icon(Icon::Close)}</button>
                    </li>
                }
            }).collect_view();
            let chips = blocks.into_iter().enumerate().map(|(index, block)| {
                let tokens = block.approx_tokens.map(|n| format!(" · ~{n} tokens")).unwrap_or_default();
                view! {
                    <li class="chip" data-kind=format!("{:?}", block.kind).to_lowercase()>
                        <span>{block.label}{tokens}</span>
                        <button type="button" aria-label=crate::i18n::text(lang, Msg::Detach) title=crate::i18n::text(lang, Msg::Detach)
                            on:click=move |_| draft.attached.update(|a| { if index < a.len() { a.remove(index); } })>{icon(Icon::Close)}</button>
                    </li>
                }
            }).collect_view();
            view! { <ul class="attached">{chips}{file_chips}<PendingChips/></ul> }
        })
    }
}

/// Why picked files were not attached, near the box until dismissed (the box, its text and the
/// files that fit stay as they were).
#[component]
fn FileRefusals() -> impl IntoView {
    let page = use_page();
    let draft = use_draft();
    move || {
        let refusals = draft.file_refusals.get();
        (!refusals.is_empty()).then(|| {
            let dismiss = page.text(Msg::Dismiss);
            let lines = refusals.into_iter().map(|line| view! { <li>{line}</li> }).collect_view();
            view! {
                <div class="file-refusals" role="alert">
                    <ul>{lines}</ul>
                    <button type="button" class="btn-icon btn-ghost" aria-label=dismiss title=dismiss
                        on:click=move |_| draft.file_refusals.set(Vec::new())>{icon(Icon::Close)}</button>
                </div>
            }
        })
    }
}

/// The files picked in the composer's file input: those over a limit are refused (said near the
/// box), the others read and attached to the next message as chips.
fn pick_files(page: Page, draft: Draft, event: &web_sys::Event) {
    let Some(input) = host::input_of(event) else { return };
    let files = host::picked(&input);
    // Cleared, so that picking the same file again is a change too.
    input.set_value("");
    let picked: Vec<PickedFile> =
        files.iter().map(|f| PickedFile { name: f.name(), size_bytes: f.size() as u64 }).collect();
    let verdicts = draft.files.with_untracked(|attached| admit(attached, &picked));
    let mut refusals = Vec::new();
    let mut accepted = Vec::new();
    for (file, verdict) in files.into_iter().zip(verdicts) {
        match verdict {
            Ok(()) => accepted.push(file),
            Err(refusal) => {
                let (msg, name) = match refusal {
                    FileRefusal::TooLarge { name } => (Msg::FileTooLarge, name),
                    FileRefusal::MessageTooLarge { name } => (Msg::FilesTooLarge, name),
                    FileRefusal::TooMany { name } => (Msg::FilesTooMany, name),
                };
                refusals.push(page.format(msg, &[("name", &name)]));
            }
        }
    }
    draft.file_refusals.set(refusals);
    leptos::task::spawn_local(async move {
        for file in accepted {
            match host::read_base64(&file).await {
                Ok(data_base64) => {
                    let Ok(id) = AttachmentId::new(host::new_attachment_id()) else { continue };
                    let mime = file.type_();
                    let pending = PendingFile {
                        id,
                        name: file.name(),
                        mime: if mime.is_empty() {
                            "application/octet-stream".to_owned()
                        } else {
                            mime
                        },
                        size_bytes: file.size() as u64,
                        data_base64,
                        stored_in: None,
                    };
                    draft.files.update(|f| f.push(pending));
                }
                Err(detail) => {
                    let line = page.format(
                        Msg::FileReadFailed,
                        &[("name", &file.name()), ("detail", &detail)],
                    );
                    draft.file_refusals.update(|r| r.push(line));
                }
            }
        }
    });
}

/// Reads the tab the next message is about (`read_page.js`; the same tab its browser context
/// will name) and attaches its text or selection as context. Needs host access to the tab; a
/// refusal is shown, never retried behind the user's back.
fn attach(page: Page, draft: Draft, notices: Notices, what: Attach) {
    leptos::task::spawn_local(async move {
        let failed = |detail: &str| page.format(Msg::AttachFailed, &[("detail", detail)]);
        let tab = match tabs_in_view(page.kind).await {
            Ok((viewer, tabs)) => default_tab(viewer, &tabs).cloned(),
            Err(detail) => return notices.show(failed(&detail)),
        };
        let Some(tab) = tab else { return notices.show(failed("no web page is open")) };
        let read = match host::run_in_tab(tab.tab_id, "read_page.js").await {
            Ok(value) => PageRead::from_json(&value),
            Err(detail) => return notices.show(failed(&detail)),
        };
        let tab_ref = Some(TabRef {
            tab_id: tab.tab_id,
            window_id: Some(tab.window_id),
            url: read.url.clone(),
            title: read.title.clone(),
        });
        match context_block(what, &read, tab_ref) {
            Some(block) => draft.attached.update(|a| a.push(block)),
            None => notices.show(page.t(Msg::NothingSelected).to_owned()),
        }
    });
}
