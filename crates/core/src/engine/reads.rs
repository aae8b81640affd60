//! What the engine's parts may read: the store, the environment, the tools, the open runs and
//! the browser session, borrowed from the router for one command or step, with the loaders every
//! part shares (a thread's state, its path).

use std::rc::Rc;

use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;

use super::machine::Cx;
use super::machine::chain::ThreadState;
use super::run_table::RunTable;
use super::vault::ConnectionVault;
use crate::env::Env;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::tools::ToolRegistry;
use crate::tree::ThreadTree;

/// Borrowed state of the engine, read-only.
pub(crate) struct Reads<'a, S> {
    pub(crate) store: &'a S,
    pub(crate) env: &'a Env,
    pub(crate) tools: &'a ToolRegistry,
    pub(crate) runs: &'a RunTable,
    pub(crate) vault: Option<&'a Rc<dyn ConnectionVault>>,
    /// The browser session session grants belong to.
    pub(crate) session: &'a str,
    /// What the host's MCP client last said about each server.
    pub(crate) mcp: &'a super::mcp_live::McpLive,
}

impl<S: Store> Reads<'_, S> {
    /// What a run step may read.
    pub(crate) fn cx(&self) -> Cx<'_> {
        Cx { env: self.env, tools: self.tools }
    }

    /// The thread's metadata and tree; `None` for a deleted thread.
    pub(crate) async fn thread_state(
        &self,
        thread: &ThreadId,
    ) -> Result<Option<ThreadState>, StoreError> {
        thread_state(self.store, thread).await
    }
}

/// The thread's metadata and tree; `None` for a deleted thread.
pub(crate) async fn thread_state(
    store: &impl Store,
    thread: &ThreadId,
) -> Result<Option<ThreadState>, StoreError> {
    let Some(meta) = store.thread(thread).await? else {
        return Ok(None);
    };
    let tree = ThreadTree::from_links(store.tree_links(thread).await?);
    Ok(Some(ThreadState { meta, tree }))
}

/// The stored nodes from the root to `leaf` (none without a leaf).
pub(crate) async fn path_to(
    store: &impl Store,
    state: &ThreadState,
    leaf: Option<&NodeId>,
) -> Result<Vec<NodeRecord>, StoreError> {
    let Some(leaf) = leaf else {
        return Ok(Vec::new());
    };
    let ids = state.tree.path_to(leaf).map_err(|err| StoreError::Corrupt(err.to_string()))?;
    store.nodes(&state.meta.id, &ids).await
}

/// The parameters of each call to `tool` on `path` whose result worked, in order: what a
/// thread's `load_tools` loaded, the artifacts it saved.
pub(crate) fn worked_calls<'p>(
    path: &'p [NodeRecord],
    tool: &'p str,
) -> impl Iterator<Item = &'p serde_json::Value> + 'p {
    path.iter().enumerate().filter_map(move |(at, record)| {
        let NodeBody::ToolCall { tool_name, call_id, params, .. } = &record.body else {
            return None;
        };
        let worked = tool_name == tool
            && path[at..].iter().any(|later| {
                matches!(&later.body, NodeBody::ToolResult { call_id: id, ok: true, .. } if id == call_id)
            });
        worked.then_some(params)
    })
}
