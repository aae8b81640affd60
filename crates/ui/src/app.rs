//! The Leptos app: one set of components behind three entries (side panel, `chat.html?thread=`,
//! options). State lives in signals fed by the engine client's effects; components only render
//! view models and turn user gestures into Ops.

// `#[component]` makes the props struct and function of a `pub(super)` component trip
// `unreachable_pub`, whatever visibility they are given; the lint is a false positive here.
#[allow(unreachable_pub)]
mod composer;
#[allow(unreachable_pub)]
mod settings;
#[allow(unreachable_pub)]
mod stream;
#[allow(unreachable_pub)]
mod threads;

use leptos::prelude::*;
use panelot_protocol::AgentEvent;
use panelot_protocol::ConnectionId;
use panelot_protocol::Op;
use panelot_protocol::PresetId;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ConnectionCheck;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::SettingsGetParams;
use panelot_protocol::engine::SettingsView;
use panelot_protocol::engine::ThreadCreateParams;
use panelot_protocol::engine::ThreadListParams;
use panelot_protocol::engine::TurnOverrides;
use panelot_protocol::engine::TurnSubmitParams;
use panelot_protocol::engine::UserInput;
use wasm_bindgen::JsValue;

use crate::Connection;
use crate::Effect;
use crate::ThreadList;
use crate::ThreadView;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::settings::PresetEditor;

/// Which page this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    SidePanel,
    Chat,
    Options,
}

impl Entry {
    fn from_name(name: &str) -> Entry {
        match name {
            "chat" => Entry::Chat,
            "options" => Entry::Options,
            _ => Entry::SidePanel,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Entry::SidePanel => "sidepanel",
            Entry::Chat => "chat",
            Entry::Options => "options",
        }
    }
}

/// The app's signals; `Copy`, so every component and callback can hold it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AppState {
    pub(crate) entry: Entry,
    pub(crate) lang: RwSignal<Lang>,
    pub(crate) connection: RwSignal<Connection>,
    /// Sessions opened so far (1 after the first handshake, +1 per reconnect); shown as
    /// `data-engine-sessions` so tests can see a reconnect happen.
    pub(crate) sessions: RwSignal<u32>,
    pub(crate) threads: RwSignal<ThreadList>,
    pub(crate) thread: RwSignal<Option<ThreadView>>,
    /// The composer's text (kept here so a rejected message can be given back).
    pub(crate) draft: RwSignal<String>,
    /// Something the user should know (a rejection, a malformed event).
    pub(crate) notice: RwSignal<Option<String>>,
    /// A `thread.create` sent for a draft, and the first message waiting for it.
    pub(crate) pending_create: RwSignal<Option<(SubmissionId, String)>>,
    /// The engine's settings, once it has sent them.
    pub(crate) settings: RwSignal<Option<SettingsView>>,
    /// The composer's model for the next turns (`None`: the thread's).
    pub(crate) turn_model: RwSignal<Option<ModelChoice>>,
    /// The composer's permission mode for the next turns (`None`: the thread's).
    pub(crate) turn_policy: RwSignal<Option<PermissionPolicy>>,
    /// The composer offers the debugger's trusted-input tools (L2) to the next turns.
    pub(crate) turn_trusted_input: RwSignal<bool>,
    /// Context attached to the next message.
    pub(crate) attached: RwSignal<Vec<ContextBlock>>,
    /// Connection checks: `None` while one runs, then its report.
    pub(crate) checks: RwSignal<Vec<(ConnectionId, Option<ConnectionCheck>)>>,
    /// The preset of the draft's thread-to-be (an open thread's is in its metadata).
    pub(crate) draft_preset: RwSignal<Option<PresetId>>,
    /// The options page's preset form (here so that the engine's answer to a save reaches it).
    pub(crate) preset_editor: RwSignal<PresetEditor>,
}

impl AppState {
    pub(crate) fn t(self, msg: Msg) -> &'static str {
        i18n::text(self.lang.get_untracked(), msg)
    }

    /// Handles a client effect that concerns the views.
    pub(crate) fn handle(self, effect: Effect) {
        match effect {
            Effect::Status(connection) => {
                let ready = connection == Connection::Ready;
                self.connection.set(connection);
                if ready {
                    self.sessions.update(|n| *n += 1);
                }
                if ready {
                    // Settings are not replayed after a reconnect either.
                    let _ = host::send(|submission_id| {
                        Op::SettingsGet(SettingsGetParams { submission_id })
                    });
                }
                if ready && self.entry != Entry::Options {
                    // Lists are not replayed after a reconnect: ask again.
                    let _ = host::send(|submission_id| {
                        Op::ThreadList(ThreadListParams { submission_id, include_archived: false })
                    });
                }
            }
            Effect::Deliver(frame) => {
                self.threads.update(|list| {
                    list.apply(&frame.event);
                });
                self.thread.update(|view| {
                    if let Some(view) = view {
                        view.apply(&frame);
                    }
                });
                self.after_event(&frame.event);
                self.refresh_if_wanted();
            }
            Effect::Acked { submission_id, .. } => {
                self.answer_preset_editor(&submission_id, None);
                self.thread.update(|view| {
                    if let Some(view) = view {
                        view.confirm(&submission_id);
                    }
                });
            }
            Effect::Rejected { submission_id, message, .. } => {
                if self.answer_preset_editor(&submission_id, Some(&message)) {
                    // The form shows the reason next to what was typed.
                    return;
                }
                let mut restored = None;
                self.thread.update(|view| {
                    restored = view.as_mut().and_then(|v| v.roll_back(&submission_id));
                });
                if let Some(text) = restored {
                    self.draft.update(|draft| {
                        if draft.is_empty() {
                            *draft = text;
                        }
                    });
                }
                self.refresh_if_wanted();
                let text = i18n::format(
                    self.lang.get_untracked(),
                    Msg::Rejected,
                    &[("message", &message)],
                );
                self.notice.set(Some(text));
            }
            Effect::Malformed(detail) => {
                host::log_error(&detail);
                let text = i18n::format(
                    self.lang.get_untracked(),
                    Msg::MalformedEvent,
                    &[("detail", &detail)],
                );
                self.notice.set(Some(text));
            }
            // The host carries these out itself.
            Effect::Send(_) | Effect::SaveOutbox(_) | Effect::ReconnectAfter(_) => {}
        }
    }

    /// Gives the preset form the engine's answer if it is to the form's save; returns whether
    /// it was.
    fn answer_preset_editor(self, submission_id: &SubmissionId, refusal: Option<&str>) -> bool {
        let mut editor = self.preset_editor.get_untracked();
        let answered = editor.answer(submission_id, refusal);
        if answered {
            self.preset_editor.set(editor);
        }
        answered
    }

    /// Follow-ups that need the list and the view updated first. Only three event types have
    /// any; the rest are fully handled by the view models.
    fn after_event(self, event: &AgentEvent) {
        if let AgentEvent::ThreadCreated(created) = event {
            let pending = self.pending_create.get_untracked();
            if let (Some((id, text)), Some(sent)) = (pending, &created.submission_id)
                && &id == sent
            {
                self.pending_create.set(None);
                self.open_thread(created.thread.id.clone());
                submit_text(self, created.thread.id.clone(), &text);
            }
        }
        if let AgentEvent::SettingsState(state) = event {
            self.settings.set(Some(state.settings.clone()));
        }
        if let AgentEvent::ConnectionVerified(verified) = event {
            self.checks.update(|checks| {
                checks.retain(|(id, _)| id != &verified.connection_id);
                checks.push((verified.connection_id.clone(), Some(verified.report.clone())));
            });
        }
        if let AgentEvent::ThreadListed(_) = event {
            // The side panel opens on the most recent thread.
            let none_open = self.thread.with_untracked(Option::is_none);
            let drafting = !self.draft.with_untracked(String::is_empty);
            if none_open && !drafting && self.entry == Entry::SidePanel {
                let recent =
                    self.threads.with_untracked(|l| l.most_recent().map(|t| t.meta.id.clone()));
                if let Some(thread_id) = recent {
                    self.open_thread(thread_id);
                }
            }
        }
        if let AgentEvent::ThreadDeleted(deleted) = event {
            let open = self.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()));
            if open.as_ref() == Some(&deleted.thread_id) {
                self.thread.set(None);
            }
        }
    }

    /// Subscribes again when the view asks for a fresh snapshot (a fork's branch completed or was
    /// refused): the snapshot replaces the view's entries in place, without clearing it first.
    fn refresh_if_wanted(self) {
        let mut wanted = None;
        self.thread.update_untracked(|view| {
            if let Some(view) = view
                && view.take_refresh()
            {
                wanted = Some(view.thread_id().clone());
            }
        });
        if let Some(thread_id) = wanted {
            host::subscribe(thread_id);
        }
    }

    /// The message to send for `text`, with the attached context (which it takes).
    pub(crate) fn take_input(self, text: &str) -> UserInput {
        let attached_context = self.attached.try_update(std::mem::take).unwrap_or_default();
        UserInput { text: text.to_owned(), attached_context, ..UserInput::default() }
    }

    /// The composer's per-turn overrides.
    pub(crate) fn overrides(self) -> Option<TurnOverrides> {
        crate::composer::turn_overrides(
            self.turn_model.get_untracked(),
            self.turn_policy.get_untracked(),
            self.turn_trusted_input.get_untracked(),
        )
    }

    /// Shows `thread_id`: its snapshot first, then live events.
    pub(crate) fn open_thread(self, thread_id: ThreadId) {
        self.thread.set(Some(ThreadView::new(thread_id.clone())));
        host::subscribe(thread_id);
    }

    /// Closes the open thread: the composer then starts a draft, on the open thread's preset.
    pub(crate) fn new_draft(self) {
        let preset = self.thread.with_untracked(|v| v.as_ref()?.meta.as_ref()?.preset.clone());
        self.draft_preset.set(preset);
        self.thread.set(None);
        self.draft.set(String::new());
    }
}

/// Sends `text` as a new turn of `thread_id`, shown at once as an optimistic message.
pub(crate) fn submit_text(state: AppState, thread_id: ThreadId, text: &str) {
    let input = state.take_input(text);
    let overrides = state.overrides();
    let sent = host::send(|submission_id| {
        Op::TurnSubmit(TurnSubmitParams { submission_id, thread_id, input, overrides })
    });
    if let Ok(submission_id) = sent {
        state.thread.update(|view| {
            if let Some(view) = view {
                view.add_optimistic(submission_id, text, false);
            }
        });
    }
}

/// Sends the first message of a draft: the thread is created first (a draft is not stored until
/// its first message), and the message follows once `thread.created` arrives.
pub(crate) fn submit_draft(state: AppState, text: String) {
    let sent = host::send(|submission_id| {
        let preset = state.draft_preset.get_untracked();
        Op::ThreadCreate(ThreadCreateParams { submission_id, preset, folder_id: None })
    });
    if let Ok(submission_id) = sent {
        state.pending_create.set(Some((submission_id, text)));
    }
}

/// Mounts the page `entry` and connects to the engine.
pub(crate) fn start(entry: &str) -> Result<(), JsValue> {
    let entry = Entry::from_name(entry);
    let lang = web_sys::window()
        .and_then(|w| w.navigator().language())
        .map(|tag| Lang::from_tag(&tag))
        .unwrap_or_default();
    let state = AppState {
        entry,
        lang: RwSignal::new(lang),
        connection: RwSignal::new(Connection::Connecting),
        sessions: RwSignal::new(0),
        threads: RwSignal::new(ThreadList::default()),
        thread: RwSignal::new(None),
        draft: RwSignal::new(String::new()),
        notice: RwSignal::new(None),
        pending_create: RwSignal::new(None),
        settings: RwSignal::new(None),
        turn_model: RwSignal::new(None),
        turn_policy: RwSignal::new(None),
        turn_trusted_input: RwSignal::new(false),
        attached: RwSignal::new(Vec::new()),
        checks: RwSignal::new(Vec::new()),
        draft_preset: RwSignal::new(None),
        preset_editor: RwSignal::new(PresetEditor::default()),
    };
    let thread_param = query_thread();
    if let Some(thread_id) = &thread_param {
        state.thread.set(Some(ThreadView::new(thread_id.clone())));
    }
    let outbox_key = match (&thread_param, entry) {
        (Some(thread_id), _) => format!("panelot.outbox.{}.{thread_id}", entry.name()),
        (None, _) => format!("panelot.outbox.{}", entry.name()),
    };
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(match entry {
            Entry::SidePanel => "Panelot",
            Entry::Chat => "Panelot — Chat",
            Entry::Options => "Panelot — Settings",
        });
        if let Some(root) = document.document_element() {
            root.set_attribute("lang", lang.tag())?;
        }
    }
    leptos::mount::mount_to_body(move || view! { <App state=state/> });
    // After mounting, which sets up the executor `spawn_local` needs.
    if entry == Entry::Chat {
        host::remember_window();
    }
    host::start(outbox_key, thread_param, state);
    Ok(())
}

fn query_thread() -> Option<ThreadId> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    ThreadId::new(params.get("thread")?).ok()
}

/// The open thread's page in the other view: `chat.html?thread=…` or `sidepanel.html?thread=…`.
fn page_url(page: &str, state: AppState) -> String {
    let thread = state.thread.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()));
    match thread {
        Some(thread_id) => format!("{page}?thread={thread_id}"),
        None => page.to_owned(),
    }
}

/// Moves the conversation between the side panel and the full-page chat (Ctrl/Cmd+E, or the
/// side panel's button): the other view opens on the same thread and this one closes.
pub(crate) fn toggle_view(state: AppState) {
    let Some(window) = web_sys::window() else { return };
    match state.entry {
        Entry::SidePanel => {
            let _ = window.open_with_url_and_target(&page_url("chat.html", state), "_blank");
            // Closing a side panel page closes the panel.
            let _ = window.close();
        }
        Entry::Chat => {
            host::open_side_panel(page_url("sidepanel.html", state), move || {
                // Only closes a tab that script opened (the usual way here); otherwise it stays.
                let _ = window.close();
            });
        }
        Entry::Options => {}
    }
}

#[component]
fn App(state: AppState) -> impl IntoView {
    let handle = window_event_listener(leptos::ev::keydown, move |event| {
        let modifiers = crate::composer::Modifiers {
            shift: event.shift_key(),
            alt: event.alt_key(),
            ctrl_or_meta: event.ctrl_key() || event.meta_key(),
        };
        if crate::composer::is_toggle_view(&event.key(), modifiers) {
            event.prevent_default();
            toggle_view(state);
        }
    });
    on_cleanup(move || handle.remove());
    let body = match state.entry {
        Entry::Options => view! { <settings::SettingsPage state=state/> }.into_any(),
        Entry::Chat => view! {
            <div class="layout chat">
                <aside class="sidebar"><threads::ThreadListPanel state=state/></aside>
                <threads::ThreadPane state=state/>
            </div>
        }
        .into_any(),
        Entry::SidePanel => view! { <SidePanel state=state/> }.into_any(),
    };
    view! {
        <main class="panelot" data-entry=state.entry.name()>
            <header class="topbar">
                <h1>{state.t(Msg::AppName)}</h1>
                <StatusLine state=state/>
            </header>
            <NoticeBar state=state/>
            {body}
        </main>
    }
}

#[component]
fn SidePanel(state: AppState) -> impl IntoView {
    let drawer = RwSignal::new(false);
    let open_in_tab = move |_| {
        if let Some(window) = web_sys::window() {
            let _ = window.open_with_url_and_target(&page_url("chat.html", state), "_blank");
        }
    };
    view! {
        <div class="layout sidepanel">
            <nav class="toolbar">
                <button on:click=move |_| drawer.update(|d| *d = !*d) aria-expanded=move || drawer.get().to_string()>
                    {state.t(Msg::Threads)}
                </button>
                <button on:click=move |_| state.new_draft()>{state.t(Msg::NewThread)}</button>
                <button on:click=open_in_tab>{state.t(Msg::OpenInTab)}</button>
            </nav>
            <Show when=move || drawer.get()>
                <div class="drawer"><threads::ThreadListPanel state=state/></div>
            </Show>
            <threads::ThreadPane state=state/>
        </div>
    }
}

/// The engine status line; `#engine-status[data-engine-status]` is what the end-to-end tests read.
#[component]
fn StatusLine(state: AppState) -> impl IntoView {
    let text = move || {
        let lang = state.lang.get();
        state.connection.with(|connection| match connection {
            Connection::Connecting => i18n::text(lang, Msg::StatusConnecting).to_owned(),
            Connection::Ready => i18n::text(lang, Msg::StatusReady).to_owned(),
            Connection::Reconnecting { .. } => i18n::text(lang, Msg::StatusReconnecting).to_owned(),
            Connection::ReloadRequired { message } => {
                format!("{} {message}", i18n::text(lang, Msg::StatusReloadRequired))
            }
        })
    };
    view! {
        <p
            id="engine-status"
            role="status"
            data-engine-status=move || state.connection.with(Connection::name)
            data-engine-sessions=move || state.sessions.get().to_string()
        >
            {text}
        </p>
    }
}

#[component]
fn NoticeBar(state: AppState) -> impl IntoView {
    view! {
        <Show when=move || state.notice.with(Option::is_some)>
            <div class="notice" role="alert">
                <span>{move || state.notice.get().unwrap_or_default()}</span>
                <button on:click=move |_| state.notice.set(None) aria-label="dismiss">"×"</button>
            </div>
        </Show>
    }
}
