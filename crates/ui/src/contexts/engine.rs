//! The engine link: its status as the views show it, and the one way views send commands
//! (through the host's port, whose client keeps them until the engine answers).

use leptos::prelude::*;
use panelot_protocol::Op;
use panelot_protocol::SubmissionId;
use panelot_protocol::ThreadId;

use crate::host;
use crate::state::client::ClientError;
use crate::state::client::EngineLink;

/// The engine link.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Engine {
    /// Where the link stands.
    pub(crate) link: RwSignal<EngineLink>,
    /// Sessions opened so far (1 after the first handshake, +1 per reconnect); shown as
    /// `data-engine-sessions` so tests can see a reconnect happen.
    pub(crate) sessions: RwSignal<u32>,
}

impl Engine {
    /// Sends an Op built with a fresh submission id.
    pub(crate) fn send(
        self,
        build: impl FnOnce(SubmissionId) -> Op,
    ) -> Result<SubmissionId, ClientError> {
        host::send(build)
    }

    /// Follows `thread_id` (its snapshot, then its live events), now and after every reconnect.
    pub(crate) fn subscribe(self, thread_id: ThreadId) {
        host::subscribe(thread_id);
    }

    /// Whether input is disabled for good (the extension was updated: the page must reload).
    /// Tracked.
    pub(crate) fn reload_required(self) -> bool {
        self.link.with(|c| matches!(c, EngineLink::ReloadRequired { .. }))
    }
}

/// Provides the [`Engine`] context.
pub(crate) fn provide_engine() -> Engine {
    let engine = Engine { link: RwSignal::new(EngineLink::Connecting), sessions: RwSignal::new(0) };
    provide_context(engine);
    engine
}

/// The [`Engine`] context.
pub(crate) fn use_engine() -> Engine {
    expect_context()
}
