//! The message stream: user, assistant (Markdown), reasoning (collapsible), rows of tool steps
//! (`activity`), notes and errors in arrival order, with the ‹n/m› branch switcher, then the
//! approval, question and recovery cards.

use leptos::prelude::*;
use panelot_protocol::NodeId;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::BranchPosition;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadLoadEarlierParams;
use panelot_protocol::engine::ThreadSelectBranchParams;

use super::activity::ErrorCard;
use super::activity::Opened;
use super::activity::error_card;
use super::activity::retrying_view;
use super::activity::steps_view;
use super::approval_card::ApprovalCard;
use super::cards::InteractionCard;
use super::cards::RecoveryCards;
use super::copy::CopyButton;
use super::copy::on_code_copy_click;
use super::empty_state::EmptyState;
use super::focus::focus_after_click;
use super::icon::icon;
use super::virtual_list::VirtualList;
use crate::contexts::Engine;
use crate::contexts::OpenThread;
use crate::contexts::Turns;
use crate::contexts::use_engine;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_turns;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::markdown;
use crate::markdown::Completeness;
use crate::state::files::FileChip;
use crate::state::files::size_label;
use crate::state::keys::sendable;
use crate::state::thread_view::Entry;
use crate::state::thread_view::EntryBody;
use crate::state::thread_view::EntryKey;
use crate::state::thread_view::Row;
use crate::state::thread_view::SendState;

/// The stream of the open thread: its rows drawn near the viewport (`virtual_list`), earlier
/// messages loaded as the person scrolls up to them.
#[component]
pub(crate) fn MessageStream() -> impl IntoView {
    let open = use_open_thread();
    let engine = use_engine();
    let keys =
        Memo::new(move |_| open.view.with(|v| v.as_ref().map(|v| v.rows()).unwrap_or_default()));
    let empty = move || keys.with(Vec::is_empty);
    let stream_ref = NodeRef::<leptos::html::Div>::new();
    let earlier = Earlier { requested: StoredValue::new(None) };
    let list =
        VirtualList::new(keys, stream_ref, Callback::new(move |()| earlier.load(engine, open)));
    Effect::new(move |shown: Option<Option<ThreadId>>| {
        let thread = open.tracked_thread_id();
        if shown.is_some_and(|shown| shown != thread) {
            list.reset();
        }
        list.changed();
        thread
    });
    view! {
        <div class="stream" role="log" aria-live="polite" node_ref=stream_ref
            on:scroll=move |_| list.scrolled()>
            <Show when=empty>
                <EmptyState/>
            </Show>
            <EarlierButton earlier=earlier/>
            {list.view(|key| view! { <EntryRow entry_key=key/> }.into_any())}
            <RecoveryCards/>
            <ApprovalCard/>
            <InteractionCard/>
        </div>
    }
}

/// One row (an entry, or a row of tool steps); re-renders only when that row changes (a
/// streaming answer does not redraw the rest of the stream).
#[component]
fn EntryRow(entry_key: EntryKey) -> impl IntoView {
    let page = use_page();
    let open = use_open_thread();
    let turns = use_turns();
    let row = Memo::new(move |_| open.view.with(|v| v.as_ref().and_then(|v| v.row(&entry_key))));
    let idle =
        Memo::new(move |_| open.view.with(|v| v.as_ref().is_some_and(|v| v.active_turn.is_none())));
    // The steps the person opened, kept while the row is drawn again.
    let opened: Opened = StoredValue::new(Default::default());
    move || {
        row.get().map(|row| {
            let lang = page.lang.get_untracked();
            match row {
                Row::Entry(entry) => render_entry(lang, turns, *entry, idle),
                Row::Steps(steps) => steps_view(lang, &steps, opened),
            }
        })
    }
}

/// The files sent with a message, as chips (name and size).
#[component]
fn FileChips(files: Vec<FileChip>) -> impl IntoView {
    let chips = files
        .into_iter()
        .map(|file| {
            let size = size_label(file.size_bytes);
            let title = format!("{} · {size}", file.name);
            view! {
                <li class="chip file" title=title>
                    {icon(Icon::Paperclip)}
                    <span class="name">{file.name}</span>
                    <span class="size">{size}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="msg-files">{chips}</ul> }
}

/// The files an edited message keeps, in its edit box: each can be taken off before sending.
#[component]
fn EditFileChips(
    /// The files kept so far.
    kept: RwSignal<Vec<FileChip>>,
    /// The label of each chip's remove button.
    detach: &'static str,
) -> impl IntoView {
    move || {
        let files = kept.get();
        (!files.is_empty()).then(|| {
            let chips = files
                .into_iter()
                .map(|file| {
                    let size = size_label(file.size_bytes);
                    let title = format!("{} · {size}", file.name);
                    let id = file.id.clone();
                    view! {
                        <li class="chip file" title=title>
                            {icon(Icon::Paperclip)}
                            <span class="name">{file.name}</span>
                            <span class="size">{size}</span>
                            <button type="button" class="detach" aria-label=detach title=detach
                                on:click=move |_| kept.update(|k| k.retain(|f| f.id != id))>{icon(Icon::Close)}</button>
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="msg-files editing">{chips}</ul> }
        })
    }
}

/// The view of one entry in `lang`; `idle` is whether the thread runs no turn (editing and
/// regenerating wait for it).
fn render_entry(lang: Lang, turns: Turns, entry: Entry, idle: Memo<bool>) -> AnyView {
    let t = move |msg| i18n::text(lang, msg);
    let key = entry.key.clone();
    let artifact = crate::state::artifacts::of_entry(&entry);
    let branch =
        entry.branch.filter(|b| b.count > 1).map(|b| view! { <BranchSwitcher position=b/> });
    match entry.body {
        EntryBody::User { text, steered, send_state, files } => {
            let editing = RwSignal::new(false);
            let draft = RwSignal::new(text.clone());
            // The files the edited message keeps (each can be taken off in the edit box).
            let kept = RwSignal::new(files.clone());
            let original_files = files.clone();
            let node_id = entry.node_id.clone();
            let editable = node_id.is_some() && !steered;
            let send_edit = move || {
                let edited = draft.get_untracked();
                if let Some(node_id) = node_id.clone()
                    && sendable(&edited)
                {
                    editing.set(false);
                    turns.fork(node_id, edited, kept.get_untracked());
                }
            };
            let send_on_click = send_edit.clone();
            let original = text.clone();
            let copied = text.clone();
            view! {
                <article class="msg user" class:steered=steered class:sending=send_state == SendState::Sending>
                    <header>{t(Msg::RoleUser)}{(send_state == SendState::Sending).then(|| view! { <span class="state">{t(Msg::Sending)}</span> })}</header>
                    <Show when=move || editing.get() fallback=move || view! { <p class="text">{text.clone()}</p> }>
                        <textarea class="edit-box" rows="3" prop:value=move || draft.get()
                            on:input=move |ev| draft.set(event_target_value(&ev))
                            on:keydown={
                                let send_edit = send_edit.clone();
                                move |ev: web_sys::KeyboardEvent| {
                                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                                        ev.prevent_default();
                                        send_edit();
                                    } else if ev.key() == "Escape" {
                                        ev.prevent_default();
                                        editing.set(false);
                                    }
                                }
                            }></textarea>
                        <EditFileChips kept detach=t(Msg::Detach)/>
                        <div class="actions">
                            <button class="btn-primary btn-sm send-edit" on:click={ let send = send_on_click.clone(); move |_| send() }>{t(Msg::SaveAndSend)}</button>
                            <button class="btn-sm cancel-edit" on:click=move |_| editing.set(false)>{t(Msg::Cancel)}</button>
                        </div>
                    </Show>
                    {(!files.is_empty()).then(|| {
                        let files = files.clone();
                        view! { <Show when=move || !editing.get()><FileChips files=files.clone()/></Show> }
                    })}
                    <footer class="msg-actions">
                        <CopyButton text=copied label=t(Msg::Copy)/>
                        {editable.then(|| view! {
                            <button class="edit" aria-label=t(Msg::Edit) title=t(Msg::Edit) disabled=move || !idle.get() on:click=move |ev| {
                                draft.set(original.clone());
                                kept.set(original_files.clone());
                                editing.set(true);
                                // The box opens focused, with the whole message selected.
                                focus_after_click(&ev, ".msg", ".edit-box");
                            }>{icon(Icon::Pencil)}</button>
                        })}
                        {branch}
                    </footer>
                </article>
            }
            .into_any()
        }
        EntryBody::Assistant { text, streaming, usage, cost_usd, .. } => {
            let completeness =
                if streaming { Completeness::Streaming } else { Completeness::Complete };
            // A model call that only called tools leaves an empty answer: nothing to regenerate.
            let regenerable = !streaming && !text.trim().is_empty();
            let html = markdown::render(&text, completeness, t(Msg::CopyCode));
            let usage = usage.map(|u| {
                let mut line = i18n::format(
                    lang,
                    Msg::Usage,
                    &[("input", &u.input.to_string()), ("output", &u.output.to_string())],
                );
                if let Some(cost) = cost_usd {
                    line.push_str(&format!(" · ${cost:.4}"));
                }
                line
            });
            view! {
                <article class="msg assistant" class:streaming=streaming>
                    <header>{t(Msg::RoleAssistant)}</header>
                    <div class="md" inner_html=html on:click=move |ev| on_code_copy_click(lang, ev)></div>
                    {usage.map(|u| view! { <footer class="usage">{u}</footer> })}
                    <footer class="msg-actions">
                        {regenerable.then(|| view! { <CopyButton text=text.clone() label=t(Msg::Copy)/> })}
                        {regenerable.then(|| view! {
                            <button class="regenerate" aria-label=t(Msg::Regenerate) title=t(Msg::Regenerate) disabled=move || !idle.get() on:click=move |_| turns.resend(&key)>{icon(Icon::Refresh)}</button>
                        })}
                        {branch}
                    </footer>
                </article>
            }
            .into_any()
        }
        EntryBody::Reasoning { text, streaming } => view! {
            <details class="msg reasoning" open=streaming>
                <summary>{t(Msg::Reasoning)}</summary>
                <p class="text">{text}</p>
            </details>
        }
        .into_any(),
        // A tool call is drawn in its row of steps (`Row::Steps`), never alone; one that saved
        // an artifact is its card.
        EntryBody::Tool { .. } => match artifact {
            Some(artifact) => super::artifact::artifact_card(lang, artifact),
            None => ().into_any(),
        },
        EntryBody::Approval { label, decision } => view! {
            <p class="msg approval-record">{label}{decision.map(|d| format!(" — {d}"))}</p>
        }
        .into_any(),
        EntryBody::Notice { text } => view! { <p class="msg notice-item">{text}</p> }.into_any(),
        EntryBody::TurnNote { stop_reason } => {
            let msg = match stop_reason {
                StopReason::MaxTokens => Msg::NoteMaxTokens,
                StopReason::ContentFilter => Msg::NoteContentFilter,
                StopReason::Interrupted
                | StopReason::End
                | StopReason::Error
                | StopReason::BudgetPause => Msg::NoteInterrupted,
            };
            view! { <p class="msg turn-note">{t(msg)}</p> }.into_any()
        }
        EntryBody::Error { code, message, retryable, error_kind, provider_details } => {
            let card = ErrorCard { key, code, message, retryable, error_kind, provider_details };
            error_card(lang, turns, card, idle)
        }
        EntryBody::Retrying { attempt, wait_ms, message } => {
            retrying_view(lang, attempt, wait_ms, message)
        }
    }
}

/// Loading the thread's earlier messages: a snapshot carries the latest ones, so a long thread
/// opens fast; the rest comes a page at a time, when the person scrolls up to the first message
/// shown or presses the button.
#[derive(Clone, Copy)]
struct Earlier {
    /// The node the last request loaded messages before: scrolling asks once per page.
    requested: StoredValue<Option<NodeId>>,
}

impl Earlier {
    /// Asks for the page before the first message shown, unless it was already asked for.
    fn load(self, engine: Engine, open: OpenThread) {
        let before = open.view.with_untracked(|v| v.as_ref()?.earlier_before().cloned());
        if before.is_some() && before != self.requested.get_value() {
            self.send(engine, open, before);
        }
    }

    fn send(self, engine: Engine, open: OpenThread, before: Option<NodeId>) {
        let (Some(before_node_id), Some(thread_id)) = (before, open.thread_id()) else {
            return;
        };
        self.requested.set_value(Some(before_node_id.clone()));
        let _ = engine.send(|submission_id| {
            Op::ThreadLoadEarlier(ThreadLoadEarlierParams {
                submission_id,
                thread_id,
                before_node_id,
                limit: None,
            })
        });
    }
}

/// The button that loads earlier messages, for when scrolling did not (or cannot) ask.
#[component]
fn EarlierButton(earlier: Earlier) -> impl IntoView {
    let page = use_page();
    let engine = use_engine();
    let open = use_open_thread();
    let before = Memo::new(move |_| {
        open.view.with(|v| v.as_ref().and_then(|v| v.earlier_before().cloned()))
    });
    let load = move |_| earlier.send(engine, open, before.get_untracked());
    view! {
        <Show when=move || before.with(Option::is_some)>
            <button class="earlier" type="button" on:click=load>
                {move || page.text(Msg::ShowEarlier)}
            </button>
        </Show>
    }
}

/// ‹n/m› among a message's siblings. An arrow moves the thread to the neighbour's branch and
/// reopens the thread: the engine handles a client's commands in order, so the snapshot that
/// answers the new subscription already shows the new branch.
#[component]
fn BranchSwitcher(position: BranchPosition) -> impl IntoView {
    let engine = use_engine();
    let open = use_open_thread();
    let go = move |target: Option<NodeId>| {
        let thread = open.thread_id();
        let (Some(node_id), Some(thread_id)) = (target, thread) else {
            return;
        };
        let selected = engine.send(|submission_id| {
            Op::ThreadSelectBranch(ThreadSelectBranchParams {
                submission_id,
                thread_id: thread_id.clone(),
                node_id,
            })
        });
        if selected.is_ok() {
            open.open(thread_id);
        }
    };
    let (previous, next) = (position.previous.clone(), position.next.clone());
    let (no_previous, no_next) = (previous.is_none(), next.is_none());
    view! {
        <nav class="branch-switcher" aria-label="branches">
            <button disabled=no_previous aria-label="previous"
                on:click=move |_| go(previous.clone())>"‹"</button>
            <span>{format!("{}/{}", position.index, position.count)}</span>
            <button disabled=no_next aria-label="next"
                on:click=move |_| go(next.clone())>"›"</button>
        </nav>
    }
}
