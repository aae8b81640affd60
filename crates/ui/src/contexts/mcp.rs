//! The composer's MCP prompts and resources: the last listing, the slash menu's highlight, a
//! prompt's argument form and the fetches under way. Kept here rather than in the composer so
//! that the engine's answers, which the router hands over, reach them.

use leptos::prelude::*;
use panelot_protocol::SubmissionId;
use panelot_protocol::engine::ContextBlock;
use panelot_protocol::engine::McpFetch;
use panelot_protocol::engine::McpFetchedEvent;
use panelot_protocol::engine::McpListedEvent;

use super::engine::Engine;
use crate::state::mcp_picker::McpCatalog;
use crate::state::mcp_picker::McpFetches;
use crate::state::mcp_picker::PromptForm;
use crate::state::mcp_picker::fetch_label;
use crate::state::mcp_picker::fetch_op;
use crate::state::mcp_picker::list_op;

/// The composer's MCP state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mcp {
    /// What `mcp.list` last answered.
    pub(crate) catalog: RwSignal<McpCatalog>,
    /// The fetches under way and the last refusal.
    pub(crate) fetches: RwSignal<McpFetches>,
    /// The argument form of the prompt chosen, while it is open.
    pub(crate) form: RwSignal<Option<PromptForm>>,
    /// The slash menu's highlighted entry.
    pub(crate) selected: RwSignal<usize>,
    /// The slash menu was closed with Escape; it shows again once the box is no longer a slash
    /// command.
    pub(crate) dismissed: RwSignal<bool>,
}

impl Mcp {
    /// Asks for the prompts and resources, unless a listing is fresh or an ask is awaited.
    pub(crate) fn refresh(self, engine: Engine) {
        let now_ms = js_sys::Date::now();
        if !self.catalog.with_untracked(|c| c.needs_asking(now_ms)) {
            return;
        }
        if let Ok(submission_id) = engine.send(list_op) {
            self.catalog.update(|c| c.asked(submission_id, now_ms));
        }
    }

    /// Asks the server `server_id` for `fetch`; its answer becomes a chip.
    pub(crate) fn fetch(self, engine: Engine, server_id: &str, fetch: McpFetch) {
        let label = fetch_label(server_id, &fetch);
        if let Ok(submission_id) = engine.send(|id| fetch_op(id, server_id, fetch)) {
            self.fetches.update(|f| f.started(submission_id, label));
        }
    }

    /// Takes a listing.
    pub(crate) fn listed(self, event: &McpListedEvent) {
        let now_ms = js_sys::Date::now();
        self.catalog.update(|c| c.listed(event, now_ms));
    }

    /// The chip for an answer to one of this page's fetches.
    pub(crate) fn fetched(self, event: &McpFetchedEvent) -> Option<ContextBlock> {
        self.fetches.try_update(|f| f.fetched(event)).flatten()
    }

    /// Takes a refusal; returns whether it answered one of this page's asks (the composer then
    /// shows it, not the notice bar).
    pub(crate) fn refused(self, submission_id: &SubmissionId, reason: &str) -> bool {
        let fetch = self
            .fetches
            .with_untracked(|f| f.pending.iter().any(|p| &p.submission_id == submission_id));
        if fetch {
            return self.fetches.try_update(|f| f.refused(submission_id, reason)).unwrap_or(false);
        }
        let list = self.catalog.with_untracked(|c| c.is_asking(submission_id));
        list && self.catalog.try_update(|c| c.refused(submission_id, reason)).unwrap_or(false)
    }
}

/// Provides the [`Mcp`] context.
pub(crate) fn provide_mcp() -> Mcp {
    let mcp = Mcp {
        catalog: RwSignal::new(McpCatalog::default()),
        fetches: RwSignal::new(McpFetches::default()),
        form: RwSignal::new(None),
        selected: RwSignal::new(0),
        dismissed: RwSignal::new(false),
    };
    provide_context(mcp);
    mcp
}

/// The [`Mcp`] context.
pub(crate) fn use_mcp() -> Mcp {
    expect_context()
}
