//! The thread list, kept in step with the engine's broadcasts, and changes to a thread's
//! metadata (title, pin, preset).

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ThreadDeleteParams;
use panelot_protocol::engine::ThreadMetaPatch;
use panelot_protocol::engine::ThreadUpdateParams;

use super::engine::Engine;
use crate::state::thread_list::ThreadList;

/// The thread list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Threads {
    /// Every thread's summary.
    pub(crate) list: RwSignal<ThreadList>,
    engine: Engine,
}

impl Threads {
    /// Sends `thread.update` with `patch` (no revision check: the last change wins).
    pub(crate) fn update(self, thread_id: ThreadId, patch: ThreadMetaPatch) {
        let _ = self.engine.send(|submission_id| {
            Op::ThreadUpdate(ThreadUpdateParams {
                submission_id,
                thread_id,
                patch,
                expected_revision: None,
            })
        });
    }

    /// Sends `thread.delete`.
    pub(crate) fn delete(self, thread_id: ThreadId) {
        let _ = self.engine.send(|submission_id| {
            Op::ThreadDelete(ThreadDeleteParams { submission_id, thread_id })
        });
    }
}

/// Provides the [`Threads`] context.
pub(crate) fn provide_threads(engine: Engine) -> Threads {
    let threads = Threads { list: RwSignal::new(ThreadList::default()), engine };
    provide_context(threads);
    threads
}

/// The [`Threads`] context.
pub(crate) fn use_threads() -> Threads {
    expect_context()
}
