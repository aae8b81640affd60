//! Nodes appended by one step, chained from the thread's leaf, and the thread state a step
//! appends to.

use panelot_protocol::ItemId;
use panelot_protocol::NodeId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ThreadMeta;

use crate::env::Env;
use crate::store::NodeBody;
use crate::store::NodeRecord;
use crate::store::StoreError;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tree::ThreadTree;

/// A thread's metadata and tree, loaded for a step that appends nodes.
#[derive(Debug, Clone)]
pub(crate) struct ThreadState {
    pub(crate) meta: ThreadMeta,
    pub(crate) tree: ThreadTree,
}

/// Nodes appended by one step, chained from a parent.
#[derive(Debug)]
pub(crate) struct Chain {
    thread: ThreadId,
    turn: Option<TurnId>,
    parent: Option<NodeId>,
    next_seq: u64,
    now_ms: u64,
    pub(crate) nodes: Vec<NodeRecord>,
}

impl Chain {
    /// A chain of `turn`'s nodes after `parent`.
    pub(crate) fn new(
        thread: &ThreadId,
        turn: Option<&TurnId>,
        parent: Option<NodeId>,
        tree: &ThreadTree,
        now_ms: u64,
    ) -> Chain {
        Chain {
            thread: thread.clone(),
            turn: turn.cloned(),
            parent,
            next_seq: tree.next_seq(),
            now_ms,
            nodes: Vec::new(),
        }
    }

    /// A chain of `turn`'s nodes after the thread's leaf.
    pub(crate) fn at_leaf(state: &ThreadState, turn: &TurnId, now_ms: u64) -> Chain {
        Chain::new(&state.meta.id, Some(turn), state.meta.leaf_id.clone(), &state.tree, now_ms)
    }

    /// Appends a node with id `id`.
    pub(crate) fn push(&mut self, id: NodeId, body: NodeBody) -> NodeId {
        let node = NodeRecord {
            id: id.clone(),
            thread_id: self.thread.clone(),
            parent_id: self.parent.replace(id.clone()),
            seq: self.next_seq,
            created_at_ms: self.now_ms,
            turn_id: self.turn.clone(),
            body,
        };
        self.next_seq += 1;
        self.nodes.push(node);
        id
    }

    /// Appends a node with a fresh id.
    pub(crate) fn push_new(&mut self, env: &Env, body: NodeBody) -> Result<NodeId, StoreError> {
        let id = new_node_id(env)?;
        Ok(self.push(id, body))
    }

    /// The leaf after the chain.
    pub(crate) fn leaf(&self) -> Option<NodeId> {
        self.parent.clone()
    }

    /// Appends the chain to `unit`.
    pub(crate) fn write(self, unit: &mut UnitOfWork) {
        for node in self.nodes {
            unit.push(WriteOp::AppendNode(node));
        }
    }

    /// Appends the chain and the thread's metadata with the leaf after it to `unit`.
    pub(crate) fn write_with(self, mut meta: ThreadMeta, unit: &mut UnitOfWork) {
        meta.leaf_id = self.leaf();
        meta.updated_at_ms = self.now_ms;
        self.write(unit);
        unit.push(WriteOp::PutThread(meta));
    }
}

/// A fresh node id.
pub(crate) fn new_node_id(env: &Env) -> Result<NodeId, StoreError> {
    Ok(env.id("n", NodeId::new)?)
}

/// A fresh item id.
pub(crate) fn new_item_id(env: &Env) -> ItemId {
    env.id("i", ItemId::new).unwrap_or_else(|_| fallback_item())
}

/// The item of a stored node: item ids derive from node ids where one exists, so snapshots
/// and live events agree.
pub(crate) fn item_of(node: &NodeId) -> ItemId {
    ItemId::new(format!("i-{node}")).unwrap_or_else(|_| fallback_item())
}

fn fallback_item() -> ItemId {
    #[allow(clippy::unwrap_used)] // a constant, valid id
    ItemId::new("i-item").unwrap()
}
