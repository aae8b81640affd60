//! What the host's MCP client last said about each server (its status) and the server's last
//! calls: kept in memory only, since a restart starts every server from `disconnected` and the
//! calls are in the threads.

use std::collections::VecDeque;

use panelot_protocol::engine::MCP_RECENT_CALLS;
use panelot_protocol::engine::McpCallView;
use panelot_protocol::engine::McpServerView;
use panelot_protocol::engine::McpStatus;

use crate::sorted_map::SortedMap;
use crate::tools::catalog::MCP_PREFIX;

/// What the host's client last said about each server, and its recent calls (not stored: a
/// restart starts from the stored catalogs and `disconnected`).
#[derive(Debug, Default)]
pub(crate) struct McpLive {
    status: SortedMap<String, McpStatus>,
    recent: SortedMap<String, VecDeque<McpCallView>>,
}

impl McpLive {
    /// A server's status changed; whether it differs from what was known.
    pub(crate) fn set_status(&mut self, server: &str, status: McpStatus) -> bool {
        if self.status.get(server) == Some(&status) {
            return false;
        }
        self.status.insert(server.to_owned(), status);
        true
    }

    /// What is known of its server now, on a settings view of it.
    pub(crate) fn fill(&self, view: &mut McpServerView) {
        if let Some(status) = self.status.get(&view.id) {
            view.status = status.clone();
        }
        if let Some(calls) = self.recent.get(&view.id) {
            view.recent_calls = calls.iter().cloned().collect();
        }
    }

    /// Remembers a finished call of an `mcp__` tool, newest first.
    pub(crate) fn record_call(&mut self, exposed: &str, call: McpCallView) {
        let Some(server) = server_of(exposed) else { return };
        let calls = self.recent.get_or_insert_with(server.to_owned(), VecDeque::new);
        calls.push_front(call);
        calls.truncate(MCP_RECENT_CALLS);
    }

    /// Forgets what was known of a deleted server.
    pub(crate) fn forget(&mut self, server: &str) {
        self.status.remove(server);
        self.recent.remove(server);
    }
}

/// The server an exposed tool name belongs to.
pub(crate) fn server_of(exposed: &str) -> Option<&str> {
    exposed.strip_prefix(MCP_PREFIX)?.split_once("__").map(|(server, _)| server)
}
