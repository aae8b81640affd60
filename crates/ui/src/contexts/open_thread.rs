//! The thread the page shows: its view model, fed by the engine's events once subscribed.

use leptos::prelude::*;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;

use super::engine::Engine;
use super::page::PageKind;
use crate::state::artifacts;
use crate::state::artifacts::Shown;
use crate::state::keys::TurnActivity;
use crate::state::thread_view::ThreadView;

/// The open thread; `None` while the composer holds a draft (a thread not stored yet).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenThread {
    /// The thread's view model.
    pub(crate) view: RwSignal<Option<ThreadView>>,
    /// The artifact of the thread the viewer shows, if any.
    pub(crate) artifact: RwSignal<Option<Shown>>,
    engine: Engine,
}

impl OpenThread {
    /// Shows `thread_id`: its snapshot first, then live events.
    pub(crate) fn open(self, thread_id: ThreadId) {
        // Another thread (or the same one anew, on another branch) has its own artifacts.
        self.artifact.set(None);
        self.view.set(Some(ThreadView::new(thread_id.clone())));
        self.engine.subscribe(thread_id);
    }

    /// Subscribes again when the view asks for a fresh snapshot (a fork's branch completed or
    /// was refused): the snapshot replaces the view's entries in place, without clearing it.
    pub(crate) fn refresh_if_wanted(self) {
        let mut wanted = None;
        self.view.update_untracked(|view| {
            if let Some(view) = view
                && view.take_refresh()
            {
                wanted = Some(view.thread_id().clone());
            }
        });
        if let Some(thread_id) = wanted {
            self.engine.subscribe(thread_id);
        }
    }

    /// Shows an artifact of the open thread: in the viewer of the chat page, or from the side
    /// panel (too narrow to read a document in) in the chat page opened beside it.
    pub(crate) fn show_artifact(self, kind: PageKind, shown: Shown) {
        match kind {
            PageKind::Chat => self.artifact.set(Some(shown)),
            PageKind::SidePanel | PageKind::Options => {
                if let Some(thread) = self.thread_id() {
                    crate::host::open_chat_beside(artifacts::chat_url(thread.as_str(), &shown));
                }
            }
        }
    }

    /// The open thread's id. Not tracked: for handlers.
    pub(crate) fn thread_id(self) -> Option<ThreadId> {
        self.view.with_untracked(|v| v.as_ref().map(|v| v.thread_id().clone()))
    }

    /// The open thread's id. Tracked.
    pub(crate) fn tracked_thread_id(self) -> Option<ThreadId> {
        self.view.with(|v| v.as_ref().map(|v| v.thread_id().clone()))
    }

    /// The open thread's running turn, if any. Not tracked.
    pub(crate) fn active_turn(self) -> Option<TurnId> {
        self.view.with_untracked(|v| v.as_ref()?.active_turn.as_ref().map(|t| t.turn_id.clone()))
    }

    /// Whether the open thread runs a turn, and whether it takes steering. Not tracked.
    pub(crate) fn activity(self) -> TurnActivity {
        self.view.with_untracked(|v| match v.as_ref().and_then(|v| v.active_turn.as_ref()) {
            None => TurnActivity::Idle,
            Some(turn) if turn.steerable => TurnActivity::Steerable,
            Some(_) => TurnActivity::NotSteerable,
        })
    }

    /// Changes the view model, if a thread is open.
    pub(crate) fn update(self, change: impl FnOnce(&mut ThreadView)) {
        self.view.update(|view| {
            if let Some(view) = view {
                change(view);
            }
        });
    }
}

/// Provides the [`OpenThread`] context, showing `thread_id` if the page was opened on one (its
/// subscription is made by the port at start).
pub(crate) fn provide_open_thread(engine: Engine, thread_id: Option<ThreadId>) -> OpenThread {
    let open = OpenThread {
        view: RwSignal::new(thread_id.map(ThreadView::new)),
        artifact: RwSignal::new(None),
        engine,
    };
    provide_context(open);
    open
}

/// The [`OpenThread`] context.
pub(crate) fn use_open_thread() -> OpenThread {
    expect_context()
}
