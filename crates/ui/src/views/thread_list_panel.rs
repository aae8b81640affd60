//! The thread list (the chat page's sidebar, the side panel's drawer): threads grouped pinned /
//! today / yesterday / last 7 days / older, with rename, pin, delete and activity badges.

use leptos::prelude::*;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMetaPatch;

use super::focus::focus_after_click;
use super::icon::icon;
use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_threads;
use crate::contexts::use_turns;
use crate::i18n::Msg;
use crate::icons::Icon;
use crate::state::thread_list::Group;

fn group_label(group: Group) -> Msg {
    match group {
        Group::Pinned => Msg::GroupPinned,
        Group::Today => Msg::GroupToday,
        Group::Yesterday => Msg::GroupYesterday,
        Group::LastWeek => Msg::GroupLastWeek,
        Group::Older => Msg::GroupOlder,
    }
}

/// The machine name of a group, for `data-group`.
fn group_name(group: Group) -> &'static str {
    match group {
        Group::Pinned => "pinned",
        Group::Today => "today",
        Group::Yesterday => "yesterday",
        Group::LastWeek => "last-week",
        Group::Older => "older",
    }
}

/// What the list's inline controls show.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RowMode {
    /// Rows only.
    Browsing,
    /// A title box on this row.
    Renaming(ThreadId),
    /// "Delete …?" with Delete / Cancel on this row.
    ConfirmingDelete(ThreadId),
}

/// A row of the list, flattened for keyed rendering.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Row {
    group: Option<Group>,
    thread_id: Option<ThreadId>,
    title: String,
    pinned: bool,
    running: bool,
    /// Approvals and questions waiting for the user.
    waiting: u32,
    revision: u64,
}

fn local_now() -> (u64, i32) {
    let now = js_sys::Date::new_0();
    // `getTimezoneOffset` is UTC minus local time, in minutes.
    (now.get_time() as u64, -(now.get_timezone_offset() as i32))
}

/// Threads grouped pinned / today / yesterday / last 7 days / older, with rename, pin, delete
/// and activity badges.
#[component]
pub(crate) fn ThreadListPanel() -> impl IntoView {
    let page = use_page();
    let threads = use_threads();
    let open = use_open_thread();
    let turns = use_turns();
    let rows = Memo::new(move |_| {
        let (now_ms, offset) = local_now();
        let untitled = page.text(Msg::Untitled);
        threads.list.with(|list| {
            let mut rows = Vec::new();
            for (group, members) in list.groups(now_ms, offset) {
                rows.push(Row {
                    group: Some(group),
                    thread_id: None,
                    title: String::new(),
                    pinned: false,
                    running: false,
                    waiting: 0,
                    revision: 0,
                });
                for summary in members {
                    let title = if summary.meta.title.is_empty() {
                        untitled.to_owned()
                    } else {
                        summary.meta.title.clone()
                    };
                    rows.push(Row {
                        group: None,
                        thread_id: Some(summary.meta.id.clone()),
                        title,
                        pinned: summary.meta.pinned,
                        running: summary.running,
                        waiting: summary.pending_approvals + summary.pending_interactions,
                        revision: summary.meta.revision,
                    });
                }
            }
            rows
        })
    });
    let open_id = move || open.tracked_thread_id();
    // One row at a time is renamed or asked about, inline (no `prompt`/`confirm` dialogs).
    let mode = RwSignal::new(RowMode::Browsing);
    let title_draft = RwSignal::new(String::new());
    view! {
        <section class="thread-list" aria-label=page.t(Msg::Threads)>
            <button type="button" class="new-thread" on:click=move |_| turns.new_draft()>
                {icon(Icon::NewChat)}{move || page.text(Msg::NewThread)}
            </button>
            <ul>
                <For each=move || rows.get() key=|row| row.clone() let:row>
                    {match (row.group, row.thread_id.clone()) {
                        (Some(group), _) => view! { <li class="group" data-group=group_name(group)>{page.t(group_label(group))}</li> }.into_any(),
                        (None, Some(thread_id)) => {
                            let current = thread_id.clone();
                            let selected = move || open_id().as_ref() == Some(&current);
                            let renaming = {
                                let id = thread_id.clone();
                                move || mode.with(|m| *m == RowMode::Renaming(id.clone()))
                            };
                            let confirming = {
                                let id = thread_id.clone();
                                move || mode.with(|m| *m == RowMode::ConfirmingDelete(id.clone()))
                            };
                            let to_open = thread_id.clone();
                            let rename = thread_id.clone();
                            let old_title = row.title.clone();
                            let pin = thread_id.clone();
                            let pinned = row.pinned;
                            let delete = thread_id;
                            let title = row.title.clone();
                            let pin_label = page.t(if pinned { Msg::Unpin } else { Msg::Pin });
                            // The rename box and the confirmation have their own copies.
                            let (rename_box, delete_box) = (rename.clone(), delete.clone());
                            // While the row is renamed, its title and buttons are hidden (CSS
                            // `.thread:has(.rename-box)`), so the box gets the whole width.
                            view! {
                                <li class="thread" class:selected=selected>
                                    <button type="button" class="open" on:click=move |_| open.open(to_open.clone())>
                                        <span class="title">{row.title.clone()}</span>
                                        {row.running.then(|| view! { <span class="badge running" title=page.t(Msg::BadgeRunning)></span> })}
                                        {(row.waiting > 0).then(|| view! { <span class="badge approval" title=page.t(Msg::BadgeWaiting)>"!"</span> })}
                                    </button>
                                    <span class="row-actions">
                                        <button type="button" class="btn-icon btn-sm btn-ghost rename" title=page.t(Msg::Rename) aria-label=page.t(Msg::Rename)
                                            on:click=move |ev| {
                                                title_draft.set(old_title.clone());
                                                mode.set(RowMode::Renaming(rename.clone()));
                                                focus_after_click(&ev, ".thread", ".rename-box");
                                            }>{icon(Icon::Pencil)}</button>
                                        <button type="button" class="btn-icon btn-sm btn-ghost pin" title=pin_label aria-label=pin_label aria-pressed=pinned.to_string()
                                            on:click=move |_| threads.update(pin.clone(), ThreadMetaPatch { pinned: Some(!pinned), ..ThreadMetaPatch::default() })>{icon(if pinned { Icon::PinOff } else { Icon::Pin })}</button>
                                        <button type="button" class="btn-icon btn-sm btn-ghost delete" title=page.t(Msg::Delete) aria-label=page.t(Msg::Delete)
                                            on:click=move |_| mode.set(RowMode::ConfirmingDelete(delete.clone()))>{icon(Icon::Trash)}</button>
                                    </span>
                                    {
                                        let save_to = rename_box;
                                        move || renaming().then(|| {
                                            let save_to = save_to.clone();
                                            view! { <RenameBox thread_id=save_to title_draft mode/> }
                                        })
                                    }
                                    {
                                        let doomed = delete_box;
                                        move || confirming().then(|| {
                                            let doomed = doomed.clone();
                                            let question = page.format(Msg::ConfirmDelete, &[("title", &title)]);
                                            let name = question.clone();
                                            view! {
                                                <div class="confirm" role="alertdialog" aria-label=name>
                                                    <span>{question}</span>
                                                    <span class="actions">
                                                        <button type="button" class="btn-sm btn-danger confirm-delete" on:click=move |_| {
                                                            let thread_id = doomed.clone();
                                                            threads.delete(thread_id);
                                                            mode.set(RowMode::Browsing);
                                                        }>{page.t(Msg::ConfirmDeleteYes)}</button>
                                                        <button type="button" class="btn-sm cancel-delete" on:click=move |_| mode.set(RowMode::Browsing)>{page.t(Msg::Cancel)}</button>
                                                    </span>
                                                </div>
                                            }
                                        })
                                    }
                                </li>
                            }.into_any()
                        }
                        (None, None) => ().into_any(),
                    }}
                </For>
            </ul>
        </section>
    }
}

/// The title box of a row being renamed: it takes the row's whole width, opens focused with the
/// old title selected (so typing replaces it; the rename button focuses it), saves on Enter or
/// when the focus leaves, and gives up on Escape.
#[component]
fn RenameBox(
    /// The thread renamed.
    thread_id: ThreadId,
    /// The title being typed.
    title_draft: RwSignal<String>,
    /// The list's row mode, set back to browsing when done.
    mode: RwSignal<RowMode>,
) -> impl IntoView {
    let page = use_page();
    let threads = use_threads();
    let save = move || {
        // The row may already be gone (Escape, then the blur that follows).
        if mode.get_untracked() != RowMode::Renaming(thread_id.clone()) {
            return;
        }
        let title = title_draft.get_untracked();
        if !title.trim().is_empty() {
            threads.update(
                thread_id.clone(),
                ThreadMetaPatch {
                    title: Some(title.trim().to_owned()),
                    ..ThreadMetaPatch::default()
                },
            );
        }
        mode.set(RowMode::Browsing);
    };
    let save_on_blur = save.clone();
    view! {
        <input type="text" class="rename-box" aria-label=page.t(Msg::RenameTo)
            prop:value=move || title_draft.get()
            on:input=move |ev| title_draft.set(event_target_value(&ev))
            on:blur=move |_| save_on_blur()
            on:keydown=move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
                "Enter" => { ev.prevent_default(); save(); }
                "Escape" => { ev.prevent_default(); ev.stop_propagation(); mode.set(RowMode::Browsing); }
                _ => {}
            }/>
    }
}
