//! The thread list (the chat page's sidebar, the side panel's drawer): threads grouped pinned /
//! today / yesterday / last 7 days / older, with rename, pin, delete and activity badges.

use leptos::prelude::*;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadMetaPatch;

use crate::contexts::use_open_thread;
use crate::contexts::use_page;
use crate::contexts::use_threads;
use crate::contexts::use_turns;
use crate::i18n::Msg;
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
    approvals: u32,
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
                    approvals: 0,
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
                        approvals: summary.pending_approvals,
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
            <button class="new-thread" on:click=move |_| turns.new_draft()>{page.t(Msg::NewThread)}</button>
            <ul>
                <For each=move || rows.get() key=|row| row.clone() let:row>
                    {match (row.group, row.thread_id.clone()) {
                        (Some(group), _) => view! { <li class="group" data-group=group_name(group)>{page.t(group_label(group))}</li> }.into_any(),
                        (None, Some(thread_id)) => {
                            let current = thread_id.clone();
                            let selected = move || open_id().as_ref() == Some(&current);
                            let to_open = thread_id.clone();
                            let rename = thread_id.clone();
                            let old_title = row.title.clone();
                            let pin = thread_id.clone();
                            let pinned = row.pinned;
                            let delete = thread_id;
                            let title = row.title.clone();
                            view! {
                                <li class="thread" class:selected=selected>
                                    <button class="open" on:click=move |_| open.open(to_open.clone())>
                                        {row.title.clone()}
                                        {row.running.then(|| view! { <span class="badge running" title=page.t(Msg::BadgeRunning)>"●"</span> })}
                                        {(row.approvals > 0).then(|| view! { <span class="badge approval" title=page.t(Msg::BadgeApproval)>"!"</span> })}
                                    </button>
                                    <button class="icon rename" title=page.t(Msg::Rename) on:click={
                                        let id = rename.clone();
                                        move |_| { title_draft.set(old_title.clone()); mode.set(RowMode::Renaming(id.clone())); }
                                    }>"✎"</button>
                                    <button class="icon pin" title=page.t(if pinned { Msg::Unpin } else { Msg::Pin }) on:click=move |_| {
                                        threads.update(pin.clone(), ThreadMetaPatch { pinned: Some(!pinned), ..ThreadMetaPatch::default() });
                                    }>{if pinned { "★" } else { "☆" }}</button>
                                    <button class="icon delete" title=page.t(Msg::Delete) on:click={
                                        let id = delete.clone();
                                        move |_| mode.set(RowMode::ConfirmingDelete(id.clone()))
                                    }>"🗑"</button>
                                    {
                                        let renaming = rename.clone();
                                        let save_to = rename;
                                        move || (mode.get() == RowMode::Renaming(renaming.clone())).then(|| {
                                            let save_to = save_to.clone();
                                            let save = move || {
                                                let title = title_draft.get_untracked();
                                                if !title.trim().is_empty() {
                                                    threads.update(save_to.clone(), ThreadMetaPatch { title: Some(title.trim().to_owned()), ..ThreadMetaPatch::default() });
                                                }
                                                mode.set(RowMode::Browsing);
                                            };
                                            view! {
                                                <input type="text" class="rename-box" aria-label=page.t(Msg::RenameTo) autofocus=true
                                                    prop:value=move || title_draft.get()
                                                    on:input=move |ev| title_draft.set(event_target_value(&ev))
                                                    on:keydown=move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
                                                        "Enter" => { ev.prevent_default(); save(); }
                                                        "Escape" => { ev.prevent_default(); mode.set(RowMode::Browsing); }
                                                        _ => {}
                                                    }/>
                                            }
                                        })
                                    }
                                    {
                                        let confirming = delete.clone();
                                        let doomed = delete;
                                        move || (mode.get() == RowMode::ConfirmingDelete(confirming.clone())).then(|| {
                                            let doomed = doomed.clone();
                                            let question = page.format(Msg::ConfirmDelete, &[("title", &title)]);
                                            view! {
                                                <span class="confirm" role="alertdialog">
                                                    <span>{question}</span>
                                                    <button class="confirm-delete" on:click=move |_| {
                                                        let thread_id = doomed.clone();
                                                        threads.delete(thread_id);
                                                        mode.set(RowMode::Browsing);
                                                    }>{page.t(Msg::ConfirmDeleteYes)}</button>
                                                    <button class="cancel-delete" on:click=move |_| mode.set(RowMode::Browsing)>{page.t(Msg::Cancel)}</button>
                                                </span>
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
